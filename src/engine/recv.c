/* SPDX-License-Identifier: MIT */
/*
 * Receive checks, in the order SPEC.md gives: the engine is running and the
 * link up; the destination MAC is ours; IPv4 or IPv6, UDP port 4791,
 * lengths and ICRC (roce_parse); the destination IP is ours (IPv4: IP_ADDR;
 * IPv6: one of the port's IPv6 GIDs); the QP exists and its state accepts
 * the packet; the source is the QP's peer, and over IPv6 the destination
 * the QP's own GID (neither for a UD QP); the P_Key matches. A frame that fails a check is dropped and counted under the
 * reason, never answered. Requests go to the responder, responses to the
 * completer.
 */
#include <stddef.h>
#include <string.h>

#include "engine/addr.h"
#include "engine/cc.h"
#include "engine/comp.h"
#include "engine/recv.h"
#include "engine/resp.h"
#include "engine/sched.h"
#include "engine/uc.h"
#include "engine/tx.h"
#include "engine/ud.h"
#include "roce/device.h"
#include "roce/status.h"

/*
 * A connected QP (RC; UC too) takes packets from its peer only: the
 * source IP must be the one in the QP's address vector (the GRH's SGID,
 * which RoCE v2 carries as the IP source address: IBA Annex A17; rxe's
 * check_addr), of the peer's family. Without it anyone on the segment who
 * learns a QPN and PSN could write into the QP's memory.
 */
static bool from_peer(const struct eng_qp *qp, const struct roce_pkt *p)
{
	const struct roce_ipv6_hdr *ip6;

	if (p->ipv6 != roce_qp_dgid_ipv6(&qp->cfg))
		return false;
	if (!p->ipv6)
		return roce_ipv4_saddr(roce_pkt_ipv4(p)) == qp->cfg.peer_ip;
	/* the template holds the peer's GID as its destination */
	ip6 = (const struct roce_ipv6_hdr *)(p->frame + p->l3_off);
	return memcmp(ip6->saddr, qp->tmpl + ROCE_ETH_HLEN +
		      offsetof(struct roce_ipv6_hdr, daddr), ROCE_GID_LEN) == 0;
}

/* Over IPv6 the packet must be for the QP's own GID, not merely one of
 * ours (rxe's check_addr compares it with the QP's source address). */
static bool to_qp_gid(const struct eng_qp *qp, const struct roce_pkt *p)
{
	const struct roce_ipv6_hdr *ip6 =
		(const struct roce_ipv6_hdr *)(p->frame + p->l3_off);

	return !p->ipv6 || memcmp(ip6->daddr, qp->tmpl + ROCE_ETH_HLEN +
				  offsetof(struct roce_ipv6_hdr, saddr), ROCE_GID_LEN) == 0;
}

/* The destination address is this port's: IP_ADDR over IPv4, one of its
 * IPv6 GIDs over IPv6. Each family has its own drop reason. */
static int addressed_to_us(const struct roce_engine *e, const struct roce_pkt *p)
{
	if (!p->ipv6)
		return roce_ipv4_daddr(roce_pkt_ipv4(p)) == e->ip ? ROCE_OK : ROCE_E_IP_ADDR;
	return addr_ip6_ours(e, ((const struct roce_ipv6_hdr *)(p->frame + p->l3_off))->daddr)
		       ? ROCE_OK : ROCE_E_IP6_ADDR;
}

/* The opcode's transport is the QP's: an RC QP takes RC opcodes only, a
 * UC QP UC opcodes only, a UD QP UD ones (IBA 9.2.1's opcode table gives
 * each transport its own; rxe's check_type_qp). */
static bool transport_matches(const struct eng_qp *qp, const struct roce_opcode_info *op)
{
	return op->transport == qp->tr->wire;
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
	bool cnp;
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
	rc = addressed_to_us(e, &p);
	if (rc) {
		roce_cnt_drop(e->cnt, rc);
		return;
	}
	dqpn = roce_bth_dqpn(roce_pkt_bth(&p));
	qp = dqpn < ROCE_MAX_QP ? e->qp_by_qpn[dqpn] : NULL;
	if (!qp) {
		roce_cnt_drop(e->cnt, ROCE_E_QPN);
		return;
	}
	cnp = p.op->transport == ROCE_TRANSPORT_CNP;
	/* a CNP is for a connected QP's requester (or READ responder); a UD
	 * QP has no reaction point */
	if (cnp ? !qp->tr->connected : !transport_matches(qp, p.op)) {
		roce_cnt_drop(e->cnt, cnp ? ROCE_E_OPCODE : ROCE_E_QP_TYPE);
		return;
	}
	if (!state_accepts(qp, p.op->request) || qp->flushed) {
		roce_cnt_drop(e->cnt, ROCE_E_QP_STATE);
		return;
	}
	/* a UD QP has no peer: any station may send to it, and it has no
	 * GID of its own beyond the port's (rxe's check_addr is for RC and
	 * UC only); the destination was checked above */
	if (qp->tr->connected && !from_peer(qp, &p)) {
		roce_cnt_drop(e->cnt, ROCE_E_SRC_ADDR);
		return;
	}
	if (qp->tr->connected && !to_qp_gid(qp, &p)) {
		roce_cnt_drop(e->cnt, ROCE_E_IP6_ADDR);
		return;
	}
	if (!pkey_match(roce_bth_pkey(roce_pkt_bth(&p)), qp->cfg.pkey)) {
		roce_cnt_drop(e->cnt, ROCE_E_PKEY);
		return;
	}
	roce_cnt_inc(e->cnt, ROCE_CNT_RX_PKTS);
	roce_cnt_add(e->cnt, ROCE_CNT_RX_BYTES, len);
	if (cnp) {
		cc_rx_cnp(e, qp);
		return;
	}
	/* a switch on the way was congested: tell the sender (its CNP is
	 * made before this packet's ACK, as the NIC's NP runs beside it) */
	if (pkt_ce(&p) && cc_cnp_due(e, qp, p.op, tx_room(e)) && tx_cnp(e, qp) == ROCE_OK)
		cc_cnp_sent(e, qp);
	/* UC and UD have requests only, and answer none: nothing for the
	 * arbiter or the timers */
	switch (qp->tr->wire) {
	case ROCE_TRANSPORT_UD:
		ud_request(e, qp, &p);
		return;
	case ROCE_TRANSPORT_UC:
		uc_request(e, qp, &p);
		return;
	}
	if (p.op->request) {
		resp_request(e, qp, &p);
	} else {
		cc_rx_response(qp, &p);
		comp_response(e, qp, &p);
	}
	/* a reply to send, a window opened, a go-back: the arbiter looks */
	sched_kick(e, qp);
	sched_settle(e, qp);
}
