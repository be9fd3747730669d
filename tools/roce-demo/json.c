/* SPDX-License-Identifier: MIT */
/*
 * The JSON report (--json): one object on one line, with the options, both
 * NICs as read back, every step, the advertisement, the bandwidth rows, the
 * latency, the counters of both NICs and the link's statistics.
 */
#include <inttypes.h>

#include "roce-demo/demo.h"
#include "roce/tables.h"

static void json_str(const char *s)
{
	putchar('"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* A string, or null. */
static void json_str_or_null(const char *s)
{
	if (s)
		json_str(s);
	else
		printf("null");
}

static void json_nic(const struct nic *n)
{
	char mac[18], ip[16], pip[16];

	roce_format_mac(n->ep.mac, mac);
	roce_format_ipv4(n->ep.ip, ip);
	roce_format_ipv4(n->qpc.peer_ip, pip);
	printf("{\"mac\":\"%s\",\"ip\":\"%s\",\"udp_port\":%u,\"status\":%u,"
	       "\"qp\":{\"qpn\":%u,\"state\":\"%s\",\"mtu\":%u,\"dest_qpn\":%u,"
	       "\"peer_ip\":\"%s\",\"sq_psn\":%u,\"rq_psn\":%u},\"mrs\":[",
	       mac, ip, n->ep.udp_port, n->dev.status, n->qpc.qpn,
	       roce_qp_state_name(n->qpc.state),
	       roce_mtu_bytes((enum roce_mtu)n->qpc.mtu), n->qpc.dest_qpn, pip,
	       n->qpc.sq_psn, n->qpc.rq_psn);
	for (int i = 0; i < n->n_mr; i++)
		printf("%s{\"index\":%u,\"va\":%" PRIu64 ",\"len\":%" PRIu64
		       ",\"rkey\":%u,\"access\":%u}", i ? "," : "", n->mrc[i].index,
		       n->mrc[i].va, n->mrc[i].len, n->mrc[i].rkey, n->mrc[i].access);
	printf("]}");
}

static void json_counters(const struct nic *n)
{
	putchar('{');
	for (size_t i = 0; i < n->n_cnt; i++)
		printf("%s\"%s\":%" PRIu64, i ? "," : "", n->cnt[i].name,
		       n->cnt[i].value);
	putchar('}');
}

static void json_options(const struct opts *o)
{
	printf(",\"options\":{\"mtu\":%u,\"size\":%" PRIu64 ",\"iters\":%u,"
	       "\"loss\":%g,\"reorder\":%g,\"duplicate\":%g,\"corrupt\":%g,"
	       "\"seed\":%" PRIu64 ",\"threads\":%s,\"quick\":%s,\"pcap\":",
	       roce_mtu_bytes(o->mtu), o->size, o->iters, o->loss, o->reorder,
	       o->duplicate, o->corrupt, o->seed, o->threads ? "true" : "false",
	       o->quick ? "true" : "false");
	json_str_or_null(o->pcap);
	putchar('}');
}

static void json_steps(const struct demo *d)
{
	static const char *const st_name[] = { "not_run", "pass", "fail" };

	printf(",\"steps\":[");
	for (int i = 0; i < ST_COUNT; i++) {
		printf("%s{\"name\":\"%s\",\"result\":\"%s\",\"detail\":", i ? "," : "",
		       d->step[i].key, st_name[d->step[i].st]);
		json_str(d->step[i].detail);
		putchar('}');
	}
	putchar(']');
}

static void json_perf(const struct demo *d)
{
	const struct lat *l = &d->lat;

	printf(",\"time\":\"%s\",\"bandwidth\":[", d->o.virtual_time ? "virtual" : "real");
	for (int i = 0; i < d->n_bw; i++)
		printf("%s{\"op\":\"%s\",\"bytes\":%u,\"iterations\":%u,"
		       "\"bw_peak_mb_s\":%.2f,\"bw_avg_mb_s\":%.2f,\"msg_rate_mpps\":%.6f}",
		       i ? "," : "", d->bw[i].op, d->bw[i].bytes, d->bw[i].iters,
		       d->bw[i].peak, d->bw[i].avg, d->bw[i].mpps);
	printf("],\"latency\":{\"op\":\"WRITE\",\"bytes\":8,\"method\":"
	       "\"post_to_completion\",\"samples\":%u,\"min_us\":%.3f,\"p50_us\":%.3f,"
	       "\"avg_us\":%.3f,\"p99_us\":%.3f,\"max_us\":%.3f}",
	       l->n, l->min, l->p50, l->avg, l->p99, l->max);
}

void demo_print_json(const struct demo *d, int failed)
{
	const struct roce_memlink_stats *ls = &d->ls;

	printf("{\"result\":\"%s\",\"failed_step\":", failed < 0 ? "pass" : "fail");
	json_str_or_null(failed < 0 ? NULL : d->step[failed].key);
	json_options(&d->o);
	printf(",\"nics\":{\"A\":");
	json_nic(&d->a);
	printf(",\"B\":");
	json_nic(&d->b);
	putchar('}');
	json_steps(d);
	printf(",\"advertisement\":{\"base\":%" PRIu64 ",\"size\":%" PRIu64
	       ",\"rkey\":%u}", d->ad.base, d->ad.size, d->ad.rkey);
	json_perf(d);
	printf(",\"counters\":{\"A\":");
	json_counters(&d->a);
	printf(",\"B\":");
	json_counters(&d->b);
	printf("},\"link\":{\"sent\":%" PRIu64 ",\"delivered\":%" PRIu64 ",\"lost\":%"
	       PRIu64 ",\"corrupted\":%" PRIu64 ",\"duplicated\":%" PRIu64
	       ",\"reordered\":%" PRIu64 ",\"ring_full\":%" PRIu64
	       ",\"zero_copy\":%" PRIu64 "}}\n", ls->sent,
	       ls->delivered, ls->lost, ls->corrupted, ls->duplicated, ls->reordered,
	       ls->ring_full, ls->zero_copy);
}
