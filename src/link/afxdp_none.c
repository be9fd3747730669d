/* SPDX-License-Identifier: MIT */
/*
 * The AF_XDP port in a build without libxdp/libbpf: the functions exist,
 * so programs link either way, and opening says what is missing.
 */
#include <stdio.h>
#include <string.h>

#include "roce/afpacket.h"
#include "roce/afxdp.h"
#include "roce/status.h"

int roce_afxdp_open(const struct roce_afxdp_config *cfg, struct roce_afxdp **out,
		    char *err, size_t errlen)
{
	(void)cfg;
	if (out)
		*out = NULL;
	if (err && errlen)
		snprintf(err, errlen, "AF_XDP port not built: libxdp and libbpf were "
			 "not found at build time (scripts/install-deps)");
	return ROCE_E_UNSUPPORTED;
}

/* No port can exist: the rest is never reached with one. */
void roce_afxdp_close(struct roce_afxdp *afx)
{
	(void)afx;
}

struct roce_port *roce_afxdp_port(struct roce_afxdp *afx)
{
	(void)afx;
	return NULL;
}

enum roce_afxdp_mode roce_afxdp_mode(const struct roce_afxdp *afx)
{
	(void)afx;
	return ROCE_AFX_AUTO;
}

unsigned roce_afxdp_mtu(const struct roce_afxdp *afx)
{
	(void)afx;
	return 0;
}

enum roce_mtu roce_afxdp_path_mtu(const struct roce_afxdp *afx)
{
	(void)afx;
	return (enum roce_mtu)0;
}

void roce_afxdp_get_stats(struct roce_afxdp *afx, struct roce_afxdp_stats *st)
{
	(void)afx;
	memset(st, 0, sizeof(*st));
}

bool roce_afxdp_wait(struct roce_afxdp *afx, unsigned timeout_us)
{
	(void)afx;
	(void)timeout_us;
	return false;
}

int roce_afxdp_arp_request(struct roce_afxdp *afx, uint32_t ip)
{
	(void)afx;
	(void)ip;
	return ROCE_E_UNSUPPORTED;
}

bool roce_afxdp_neigh(const struct roce_afxdp *afx, uint32_t ip, uint8_t mac[6])
{
	(void)afx;
	(void)ip;
	(void)mac;
	return false;
}

int roce_afxdp_resolve(struct roce_afxdp *afx, uint32_t ip, unsigned timeout_ms,
		       uint8_t mac[6])
{
	(void)afx;
	(void)ip;
	(void)timeout_ms;
	(void)mac;
	return ROCE_E_UNSUPPORTED;
}
