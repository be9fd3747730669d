/* SPDX-License-Identifier: MIT */
/*
 * The text report: the banner, each NIC's configuration as read back, a
 * line per step of the flow, the bandwidth table (its rows printed as they
 * finish), the latency, the counters of both NICs and the verdict.
 */
#include <inttypes.h>
#include <string.h>

#include "roce-demo/demo.h"
#include "roce/tables.h"

void demo_print_banner(const struct demo *d)
{
	const struct opts *o = &d->o;

	printf("roce-demo: two emulated RoCE v2 NICs, A and B, joined by an in-memory link.\n"
	       "Each is a whole device model (register file, QP and MR tables, DDR, engine),\n"
	       "configured only through its AXI-Lite register file, as the host driver\n"
	       "configures the board. Path MTU %u; engines %s.\n",
	       roce_mtu_bytes(o->mtu), o->threads ? "on threads of their own"
						  : "polled from the main thread");
	if (o->loss + o->reorder + o->duplicate + o->corrupt > 0)
		printf("Link faults (seed %" PRIu64 "): loss %g%%, reorder %g%%, "
		       "duplicate %g%%, corrupt %g%%.\n", o->seed, o->loss,
		       o->reorder, o->duplicate, o->corrupt);
	else
		printf("Link: no faults.\n");
	if (o->pcap)
		printf("Capturing every frame into %s.\n", o->pcap);
	if (o->virtual_time)
		printf("Virtual time: one clock for both NICs and the link, moved by the\n"
		       "frames' time on a 100 Gbit/s wire; no thread, no wall clock.\n");
	if (o->trace)
		printf("Writing the transaction trace into %s.\n", o->trace);
}

void demo_print_nic(const struct nic *n)
{
	const struct roce_qp_ctx *q = &n->qpc;
	char mac[18], ip[16], pmac[18], pip[16], acc[96];
	uint32_t id = n->dev.dev_id, v = n->dev.version;

	roce_format_mac(n->ep.mac, mac);
	roce_format_ipv4(n->ep.ip, ip);
	roce_format_mac(q->peer_mac, pmac);
	roce_format_ipv4(q->peer_ip, pip);
	printf("  NIC %s  %c%c%c%c v%u.%u.%u, STATUS 0x%02x%s%s, DDR %u MiB, "
	       "%u QPs, %u MRs\n", n->name, id >> 24, (id >> 16) & 0xFF,
	       (id >> 8) & 0xFF, id & 0xFF, v >> 16, (v >> 8) & 0xFF, v & 0xFF,
	       n->dev.status, n->dev.status & ROCE_STATUS_LINK_READY ? " link-ready" : "",
	       n->dev.status & ROCE_STATUS_RUNNING ? " running" : "",
	       n->dev.mem_size_kb / 1024, n->dev.qp_count, n->dev.mr_count);
	printf("         MAC %s  IP %s  UDP %u\n", mac, ip, n->ep.udp_port);
	roce_format_access(q->access, acc, sizeof(acc));
	printf("         QP 0x%06x %s %s MTU %u, access %s\n", q->qpn,
	       roce_qp_state_name(q->state), roce_qp_type_name(q->type),
	       roce_mtu_bytes((enum roce_mtu)q->mtu), acc);
	printf("           -> QP 0x%06x at %s %s, sq_psn 0x%06x, rq_psn 0x%06x, "
	       "timeout %u, retry %u\n", q->dest_qpn, pip, pmac, q->sq_psn,
	       q->rq_psn, q->timeout, q->retry_cnt);
	for (int i = 0; i < n->n_mr; i++) {
		const struct roce_mr_ctx *m = &n->mrc[i];

		roce_format_access(m->access, acc, sizeof(acc));
		printf("         MR %-3u va 0x%" PRIx64 " len %" PRIu64 " R_Key 0x%08x"
		       " %s\n", m->index, m->va, m->len, m->rkey, acc);
	}
}

void demo_print_step(const struct step *s)
{
	const char *nl = strchr(s->detail, '\n');
	int head = nl ? (int)(nl - s->detail) : (int)strlen(s->detail);

	if (s->st == STEP_PASS)
		printf("  \u2713 (%s) %.*s\n", s->label, head, s->detail);
	else if (s->st == STEP_NOT_RUN)
		printf("  - (%s) %s: %.*s\n", s->label, s->title, head, s->detail);
	else
		printf("  \u2717 FAIL (%s) %s: %.*s\n", s->label ? s->label : s->key,
		       s->title, head, s->detail);
	if (nl)
		printf("        %s\n", nl + 1);
}

void demo_print_bw_head(const struct demo *d)
{
	printf("\nBandwidth B -> A, perftest style (MB = 2^20 bytes; %u in flight; "
	       "peak: best tenth of the run)%s\n", ROCE_DEMO_BW_DEPTH,
	       d->o.virtual_time ? ",\nin VIRTUAL time (a 100 Gbit/s wire, engines "
				   "that never wait)" : "");
	printf(" %-6s %8s %12s %16s %19s %14s\n", "op", "#bytes", "#iterations",
	       "BW peak[MB/sec]", "BW average[MB/sec]", "MsgRate[Mpps]");
}

void demo_print_bw_row(const struct bw_row *r)
{
	printf(" %-6s %8u %12u %16.2f %19.2f %14.6f\n", r->op, r->bytes, r->iters,
	       r->peak, r->avg, r->mpps);
	fflush(stdout);
}

void demo_print_latency(const struct demo *d)
{
	const struct lat *l = &d->lat;

	printf("\nWRITE latency: 8 bytes, signaled, post to completion (request out, ACK\n"
	       "back; perftest's write_lat reports half a ping-pong instead)%s%s\n",
	       d->o.threads ? ";\nthe main thread naps 10 µs between CQ polls to leave "
			      "the cores to the engines" : "",
	       d->o.virtual_time ? ";\nin VIRTUAL time" : "");
	printf(" %6s %12s %12s %16s %12s %12s\n", "#bytes", "#iterations",
	       "t_min[usec]", "t_typical[usec]", "t_avg[usec]", "99%[usec]");
	printf(" %6u %12u %12.2f %16.2f %12.2f %12.2f\n", 8u, l->n, l->min,
	       l->p50, l->avg, l->p99);
	printf(" p50 %.2f \u00b5s, p99 %.2f \u00b5s\n", l->p50, l->p99);
}

static uint64_t cnt_of(const struct nic *n, const char *name)
{
	for (size_t i = 0; i < n->n_cnt; i++)
		if (strcmp(n->cnt[i].name, name) == 0)
			return n->cnt[i].value;
	return 0;
}

/* A counter of both NICs added up, by name. */
static uint64_t cnt_sum(const struct demo *d, const char *name)
{
	return cnt_of(&d->a, name) + cnt_of(&d->b, name);
}

void demo_print_counters(const struct demo *d)
{
	const struct roce_memlink_stats *ls = &d->ls;
	int shown = 0;

	printf("\nCounters, read from each NIC's STAT registers%s\n",
	       d->o.all_counters ? "" : " (non-zero ones; --all-counters for all)");
	printf("  %-26s %14s %14s\n", "counter", "NIC A", "NIC B");
	for (size_t i = 0; i < d->a.n_cnt; i++) {
		uint64_t va = d->a.cnt[i].value, vb = d->b.cnt[i].value;

		if (!d->o.all_counters && !va && !vb)
			continue;
		printf("  %-26s %14" PRIu64 " %14" PRIu64 "\n", d->a.cnt[i].name,
		       va, vb);
		shown++;
	}
	if (!shown)
		printf("  (all zero)\n");
	printf("Link: %" PRIu64 " frames sent, %" PRIu64 " delivered, %" PRIu64
	       " lost, %" PRIu64 " corrupted, %" PRIu64 " duplicated, %" PRIu64
	       " reordered, %" PRIu64 " dropped (ring full)\n", ls->sent,
	       ls->delivered, ls->lost, ls->corrupted, ls->duplicated,
	       ls->reordered, ls->ring_full);
	printf("      %" PRIu64 " of the frames built in the receiver's ring "
	       "(zero-copy; faults and capture need a copy)\n", ls->zero_copy);
	if (ls->lost + ls->corrupted + ls->duplicated + ls->reordered)
		printf("Recovery: %" PRIu64 " retransmissions, %" PRIu64 " timeouts, %"
		       PRIu64 " PSN-sequence NAKs sent, %" PRIu64 " ICRC drops "
		       "(A + B)\n",
		       cnt_sum(d, "retransmissions"), cnt_sum(d, "timeouts"),
		       cnt_sum(d, "naks_tx_psn_seq_err"), cnt_sum(d, "icrc_errors"));
}

/* Failure lines of the steps that have no success line of their own. */
void demo_print_summary(const struct demo *d, int failed)
{
	for (int i = 0; i < ST_COUNT; i++)
		if (d->step[i].st == STEP_FAIL && !d->step[i].label)
			demo_print_step(&d->step[i]);
	if (failed < 0) {
		printf("\nPASS: every step succeeded.\n");
		return;
	}
	printf("\nFAIL: %s: %s\n", d->step[failed].title, d->step[failed].detail);
}
