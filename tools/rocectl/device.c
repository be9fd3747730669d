/* SPDX-License-Identifier: MIT */
/*
 * info, qp and mr: the device's identity and sizes, and one QP or MR table
 * entry, LOADed through its window and shown field by field.
 */
#include <inttypes.h>
#include <stdio.h>

#include "rocectl/ctl.h"
#include "roce/gid.h"
#include "roce/tables.h"

int cmd_info(struct ctl *c, int argc, char **argv)
{
	struct roce_dev_info in;
	int st;

	(void)argv;
	if (argc != 0)
		return ctl_fail(c, EXIT_USAGE, "usage: rocectl info");
	if ((st = roce_drv_probe(&c->drv, &in)) != ROCE_OK)
		return ctl_drv_fail(c);
	if (c->json) {
		printf("{\"bus\":\"%s\",\"dev_id\":%u,\"version\":\"%u.%u.%u\","
		       "\"qp_count\":%u,\"mr_count\":%u,\"mem_size_kb\":%u,"
		       "\"status\":%u,\"link_ready\":%s}\n",
		       roce_bus_name(&c->bus), in.dev_id, in.version >> 16,
		       (in.version >> 8) & 0xFF, in.version & 0xFF, in.qp_count,
		       in.mr_count, in.mem_size_kb, in.status,
		       in.status & ROCE_STATUS_LINK_READY ? "true" : "false");
		return 0;
	}
	printf("bus          %s\n", roce_bus_name(&c->bus));
	printf("dev_id       0x%08x\n", in.dev_id);
	printf("version      %u.%u.%u\n", in.version >> 16,
	       (in.version >> 8) & 0xFF, in.version & 0xFF);
	printf("qp_count     %u\nmr_count     %u\nmem_size     %u KiB\n",
	       in.qp_count, in.mr_count, in.mem_size_kb);
	printf("status       0x%08x%s%s%s\n", in.status,
	       in.status & ROCE_STATUS_LINK_READY ? " link-ready" : " link-down",
	       in.status & ROCE_STATUS_RUNNING ? " running" : "",
	       in.status & ROCE_STATUS_IN_RESET ? " in-reset" : "");
	return 0;
}

/* The one argument of qp and mr: a table index of up to 24 bits. */
static int entry_arg(struct ctl *c, int argc, char **argv, const char *usage,
		     const char *what, uint32_t *out)
{
	uint64_t v;

	if (argc != 1)
		return ctl_fail(c, EXIT_USAGE, "%s", usage);
	if (roce_parse_u64(argv[0], false, &v) != ROCE_OK || v > 0xFFFFFF)
		return ctl_fail(c, EXIT_USAGE, "bad %s '%s' (a number up to 0xffffff)",
				what, argv[0]);
	*out = (uint32_t)v;
	return 0;
}

/* An entry's fields: "name value" lines, or one JSON object. */
struct kv {
	struct ctl *c;
	int first;
};

static struct kv kv_begin(struct ctl *c)
{
	if (c->json)
		printf("{");
	return (struct kv){ c, 1 };
}

static void kv_end(const struct kv *o)
{
	if (o->c->json)
		printf("}\n");
}

static void kv_key(struct kv *o, const char *k)
{
	if (o->c->json)
		printf("%s\"%s\":", o->first ? "" : ",", k);
	else
		printf("%-20s ", k);
	o->first = 0;
}

/* A number: in JSON decimal, as text in fmt. */
static void kv_num(struct kv *o, const char *k, const char *fmt, uint64_t v)
{
	kv_key(o, k);
	if (o->c->json) {
		printf("%" PRIu64, v);
		return;
	}
	printf(fmt, v);
	printf("\n");
}

static void kv_str(struct kv *o, const char *k, const char *text)
{
	kv_key(o, k);
	if (o->c->json)
		ctl_json_str(text);
	else
		printf("%s\n", text);
}

static void kv_bool(struct kv *o, const char *k, int v)
{
	if (o->c->json) {
		kv_key(o, k);
		printf("%s", v ? "true" : "false");
	} else {
		kv_str(o, k, v ? "yes" : "no");
	}
}

#define DEC "%" PRIu64

int cmd_qp(struct ctl *c, int argc, char **argv)
{
	struct roce_qp_ctx q;
	char mac[18], ip[16], acc[80], gid[48];
	uint8_t g[ROCE_GID_LEN];
	uint32_t qpn = 0;
	struct kv o;
	int st;

	if ((st = entry_arg(c, argc, argv, "usage: rocectl qp QPN", "QPN", &qpn)))
		return st;
	if (roce_drv_qp_read(&c->drv, qpn, &q) != ROCE_OK)
		return ctl_drv_fail(c);
	roce_format_mac(q.peer_mac, mac);
	roce_format_ipv4(q.peer_ip, ip);
	roce_format_access(q.access, acc, sizeof(acc));
	o = kv_begin(c);
	kv_num(&o, "qpn", DEC, q.qpn);
	kv_str(&o, "state", roce_qp_state_name(q.state));
	kv_str(&o, "type", roce_qp_type_name(q.type));
	kv_num(&o, "mtu", DEC, roce_mtu_bytes((enum roce_mtu)q.mtu));
	kv_str(&o, "access", acc);
	kv_num(&o, "dest_qpn", "0x%06" PRIx64, q.dest_qpn);
	kv_num(&o, "sq_psn", "0x%06" PRIx64, q.sq_psn);
	kv_num(&o, "rq_psn", "0x%06" PRIx64, q.rq_psn);
	kv_str(&o, "peer_ip", ip);
	roce_qp_dgid(&q, g);
	kv_str(&o, "peer_gid", roce_gid_str(g, gid, sizeof(gid)));
	kv_str(&o, "peer_mac", mac);
	kv_num(&o, "pkey", "0x%04" PRIx64, q.pkey);
	kv_num(&o, "timeout", DEC, q.timeout);
	kv_num(&o, "retry_cnt", DEC, q.retry_cnt);
	kv_num(&o, "rnr_retry", DEC, q.rnr_retry);
	kv_num(&o, "min_rnr_timer", DEC, q.min_rnr_timer);
	kv_num(&o, "max_rd_atomic", DEC, q.max_rd_atomic);
	kv_num(&o, "max_dest_rd_atomic", DEC, q.max_dest_rd_atomic);
	kv_num(&o, "qkey", "0x%08" PRIx64, q.qkey);
	kv_num(&o, "pd", DEC, q.pd);
	kv_num(&o, "sgid_index", DEC, q.sgid_index);
	kv_num(&o, "hop_limit", DEC, q.hop_limit);
	kv_num(&o, "tclass", "0x%02" PRIx64, q.tclass);
	kv_num(&o, "flow_label", "0x%05" PRIx64, q.flow_label);
	kv_end(&o);
	return 0;
}

int cmd_mr(struct ctl *c, int argc, char **argv)
{
	struct roce_mr_ctx m;
	char acc[80];
	uint32_t idx = 0;
	struct kv o;
	int st;

	if ((st = entry_arg(c, argc, argv, "usage: rocectl mr INDEX", "MR index",
			    &idx)))
		return st;
	if (roce_drv_mr_read(&c->drv, idx, &m) != ROCE_OK)
		return ctl_drv_fail(c);
	roce_format_access(m.access, acc, sizeof(acc));
	o = kv_begin(c);
	kv_num(&o, "index", DEC, m.index);
	kv_bool(&o, "valid", m.valid);
	kv_str(&o, "access", acc);
	/* MR_ACCESS.SPACE: pa is a DDR address or a host IOVA */
	kv_str(&o, "space", m.space == ROCE_MR_SPACE_HOST ? "host" : "ddr");
	kv_num(&o, "va", "0x%" PRIx64, m.va);
	kv_num(&o, "pa", "0x%" PRIx64, m.pa);
	kv_num(&o, "len", DEC, m.len);
	kv_num(&o, "rkey", "0x%08" PRIx64, m.rkey);
	kv_num(&o, "lkey", "0x%08" PRIx64, m.lkey);
	kv_num(&o, "pd", DEC, m.pd);
	kv_end(&o);
	return 0;
}
