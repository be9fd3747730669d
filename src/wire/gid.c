/* SPDX-License-Identifier: MIT */
/* GIDs and the port's GID table (roce/gid.h). */
#include <arpa/inet.h>
#include <string.h>

#include "roce/gid.h"
#include "roce/status.h"

static const uint8_t v4mapped_prefix[12] = { [10] = 0xff, [11] = 0xff };

void roce_gid_link_local(const uint8_t mac[6], uint8_t gid[ROCE_GID_LEN])
{
	memset(gid, 0, ROCE_GID_LEN);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	/* RFC 4291 appendix A: EUI-48 to modified EUI-64 (Linux's
	 * addrconf_ifid_eui48) */
	gid[8] = mac[0] ^ 0x02;
	gid[9] = mac[1];
	gid[10] = mac[2];
	gid[11] = 0xff;
	gid[12] = 0xfe;
	gid[13] = mac[3];
	gid[14] = mac[4];
	gid[15] = mac[5];
}

void roce_gid_from_ipv4(uint32_t ip, uint8_t gid[ROCE_GID_LEN])
{
	memcpy(gid, v4mapped_prefix, sizeof(v4mapped_prefix));
	gid[12] = (uint8_t)(ip >> 24);
	gid[13] = (uint8_t)(ip >> 16);
	gid[14] = (uint8_t)(ip >> 8);
	gid[15] = (uint8_t)ip;
}

bool roce_gid_is_v4mapped(const uint8_t gid[ROCE_GID_LEN])
{
	return memcmp(gid, v4mapped_prefix, sizeof(v4mapped_prefix)) == 0;
}

uint32_t roce_gid_to_ipv4(const uint8_t gid[ROCE_GID_LEN])
{
	if (!roce_gid_is_v4mapped(gid))
		return 0;
	return (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 |
	       (uint32_t)gid[14] << 8 | gid[15];
}

bool roce_gid_is_unicast(const uint8_t gid[ROCE_GID_LEN])
{
	static const uint8_t zero[ROCE_GID_LEN], loop[ROCE_GID_LEN] = { [15] = 1 };

	return gid[0] != 0xff && memcmp(gid, zero, ROCE_GID_LEN) != 0 &&
	       memcmp(gid, loop, ROCE_GID_LEN) != 0;
}

int roce_gid_table_find(const struct roce_gid_table *t, const uint8_t gid[ROCE_GID_LEN])
{
	for (unsigned i = 0; i < t->n; i++)
		if (memcmp(t->e[i].gid, gid, ROCE_GID_LEN) == 0)
			return (int)i;
	return -1;
}

static int add(struct roce_gid_table *t, const uint8_t gid[ROCE_GID_LEN])
{
	if (roce_gid_table_find(t, gid) >= 0)
		return ROCE_OK;
	if (t->n == ROCE_MAX_GID)
		return ROCE_E_FULL;
	memcpy(t->e[t->n].gid, gid, ROCE_GID_LEN);
	t->e[t->n].type = ROCE_GID_TYPE_ROCE_V2;
	t->n++;
	return ROCE_OK;
}

int roce_gid_table_build(struct roce_gid_table *t, const uint8_t mac[6], uint32_t ip,
			 const uint8_t (*ip6)[ROCE_GID_LEN], unsigned n6)
{
	uint8_t gid[ROCE_GID_LEN];
	int st = ROCE_OK;

	memset(t, 0, sizeof(*t));
	roce_gid_link_local(mac, gid);
	add(t, gid);
	if (ip) {
		roce_gid_from_ipv4(ip, gid);
		add(t, gid);
	}
	for (unsigned i = 0; i < n6 && st == ROCE_OK; i++) {
		if (!roce_gid_is_unicast(ip6[i]) || roce_gid_is_v4mapped(ip6[i]))
			st = ROCE_E_INVAL;
		else
			st = add(t, ip6[i]);
	}
	if (st != ROCE_OK)
		memset(t, 0, sizeof(*t));
	return st;
}

const char *roce_gid_str(const uint8_t gid[ROCE_GID_LEN], char *buf, size_t n)
{
	if (!inet_ntop(AF_INET6, gid, buf, (socklen_t)n) && n)
		buf[0] = '\0';
	return buf;
}

int roce_gid_parse(const char *s, uint8_t gid[ROCE_GID_LEN])
{
	struct in6_addr a;

	if (!s || inet_pton(AF_INET6, s, &a) != 1)
		return ROCE_E_FORMAT;
	memcpy(gid, &a, ROCE_GID_LEN);
	return ROCE_OK;
}
