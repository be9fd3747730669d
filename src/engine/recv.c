/* SPDX-License-Identifier: MIT */
/*
 * Receive checks, in the order SPEC.md gives: the engine is running and the
 * link up; the destination MAC is ours; IPv4, UDP port 4791, lengths and
 * ICRC (roce_parse); the destination IP is ours; the QP exists and its
 * state accepts the packet; the source is the QP's peer; the P_Key
 * matches. A frame that fails a check is dropped and counted under the
 * reason, never answered. Requests go to the responder, responses to the
 * completer.
 */
#include <string.h>

#include "engine/engine.h"
#include "roce/device.h"
#include "roce/status.h"

/*
 * A connected QP (RC; UC too) takes packets from its peer only: the
 * source IP must be the one in the QP's address vector (the GRH's SGID,
 * which RoCE v2 carries as the IP source address: IBA Annex A17; rxe's
 * check_addr). Without it anyone on the segment who learns a QPN and PSN
 * could write into the QP's memory.
 */
static bool from_peer(const struct eng_qp *qp, const struct roce_pkt *p)
{
	return roce_ipv4_saddr(roce_pkt_ipv4(p)) == qp->cfg.peer_ip;
}

/* The opcode's transport is the QP's: an RC QP takes RC opcodes only, a
 * UC QP UC opcodes only (IBA 9.2.1's opcode table gives each transport
 * its own; rxe's check_type_qp). */
static bool transport_matches(const struct eng_qp *qp, const struct roce_opcode_info *op)
{
	return op->transport == (qp_is_uc(qp) ? ROCE_TRANSPORT_UC : ROCE_TRANSPORT_RC);
}

static bool state_accepts(const struct eng_qp *qp, bool request)
{
	uint8_t s = qp->cfg.state;

	/* IBA 10.3.1: a QP receives from RTR on; responses need a requester */
	if (request)
		return s == ROCE_QPS_RTR || s == ROCE_QPS_RTS || s == ROCE_QPS_SQD ||
		       s == ROCE_QPS_SQE;
	return s == ROCE_QPS_RTS || s == ROCE_QPS_SQD || s == ROCE_QPS_SQE;
}

/* IBA 10.9.3: P_Keys match when their low 15 bits agree and at least one
 * is a full member. */
static bool pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7FFF) == (b & 0x7FFF) && ((a | b) & 0x8000);
}

/* Before the frame ahead of this one is received: its QP's first lines
 * (the receive checks and the responder or completer read them at once).
 * A peek at the fixed offsets of an untagged IPv4 RoCE v2 frame; anything
 * else is simply not prefetched: the checks proper come later. */
void recv_prefetch(struct roce_engine *e, const uint8_t *frame, uint32_t len)
{
	enum { BTH = ROCE_ETH_HLEN + ROCE_IPV4_HLEN + ROCE_UDP_HLEN };
	const struct eng_qp *qp;
	uint32_t dqpn;

	if (len < BTH + ROCE_BTH_LEN ||
	    roce_eth_type((const struct roce_eth_hdr *)frame) != ROCE_ETHERTYPE_IPV4)
		return;
	dqpn = roce_bth_dqpn((const struct roce_bth *)(frame + BTH));
	if (dqpn >= ROCE_MAX_QP || !(qp = e->qp_by_qpn[dqpn]))
		return;
	qp_prefetch(qp);
}

void recv_frame(struct roce_engine *e, const uint8_t *frame, uint32_t len)
{
	struct roce_pkt p;
	struct eng_qp *qp;
	uint32_t dqpn;
	int rc;

	if (!roce_device_rx_admit(e->dev))
		return;                 /* counted as lost by the device */
	if (len < ROCE_ETH_HLEN || memcmp(frame, e->mac, 6) != 0) {
		roce_cnt_drop(e->cnt, len < ROCE_ETH_HLEN ? ROCE_E_TOO_SHORT : ROCE_E_MAC);
		return;
	}
	rc = roce_parse(frame, len, 0, &p);
	if (rc) {
		roce_cnt_drop(e->cnt, rc);
		return;
	}
	if (p.ipv6 || roce_ipv4_daddr(roce_pkt_ipv4(&p)) != e->ip) {
		roce_cnt_drop(e->cnt, ROCE_E_IP_ADDR);
		return;
	}
	dqpn = roce_bth_dqpn(roce_pkt_bth(&p));
	qp = dqpn < ROCE_MAX_QP ? e->qp_by_qpn[dqpn] : NULL;
	if (!qp) {
		roce_cnt_drop(e->cnt, ROCE_E_QPN);
		return;
	}
	if (!transport_matches(qp, p.op)) {
		roce_cnt_drop(e->cnt, p.op->transport == ROCE_TRANSPORT_CNP ? ROCE_E_OPCODE
									     : ROCE_E_QP_TYPE);
		return;
	}
	if (!state_accepts(qp, p.op->request) || qp->flushed) {
		roce_cnt_drop(e->cnt, ROCE_E_QP_STATE);
		return;
	}
	if (!from_peer(qp, &p)) {
		roce_cnt_drop(e->cnt, ROCE_E_SRC_ADDR);
		return;
	}
	if (!pkey_match(roce_bth_pkey(roce_pkt_bth(&p)), qp->cfg.pkey)) {
		roce_cnt_drop(e->cnt, ROCE_E_PKEY);
		return;
	}
	roce_cnt_inc(e->cnt, ROCE_CNT_RX_PKTS);
	roce_cnt_add(e->cnt, ROCE_CNT_RX_BYTES, len);
	if (qp_is_uc(qp)) {
		/* UC has requests only, and answers none: nothing for the
		 * arbiter or the timers */
		uc_request(e, qp, &p);
		return;
	}
	if (p.op->request)
		resp_request(e, qp, &p);
	else
		comp_response(e, qp, &p);
	/* a reply to send, a window opened, a go-back: the arbiter looks */
	sched_kick(e, qp);
	sched_settle(e, qp);
}
