/* SPDX-License-Identifier: MIT */
/*
 * The UD transport (IBA 9.8, unreliable datagram), where it differs from
 * RC and UC.
 *
 * Requester (req.c calls these): a message is one packet, UD SEND ONLY
 * or SEND ONLY with immediate (IBA 9.2.1's opcode table gives UD no
 * other), with a DETH (IBA 9.3.3: Q_Key, source QPN); its destination is
 * the WQE's, not the QP's: the address vector an AH gave post_send, the
 * remote QPN and the Q_Key. No AckReq, no timer, no retransmission: the
 * WQE completes as soon as its packet is out (rxe_xmit_packet marks a UD
 * WQE done once sent).
 *
 * A message longer than the QP's MTU -- a UD QP's context holds the
 * port's active MTU (roce_context_attr.port_mtu) -- is not sent and
 * completes with a local length error, failing the QP as every local
 * error of a WQE does here, which is what a ConnectX does. rxe differs:
 * it fakes a successful send of nothing (rxe_requester, citing C10-93.1.1:
 * the CI emits no packet and reports no error). The issue asks for the
 * error, which a ULP can see; both send nothing.
 *
 * Responder: a UD packet is a whole message. It is taken when its DETH
 * Q_Key is the QP's (IBA 10.2.5, Q_Keys; rxe's check_keys: QP1's is the
 * GSI Q_Key), there is a receive WQE, and the WQE holds the 40-byte GRH
 * area and the payload (IBA 11.4.1.2). Otherwise it is dropped and
 * counted, and the QP stays as it is: UD answers nothing, never RNR-NAKs,
 * and a datagram that does not fit fails neither side. There is no PSN
 * check (IBA 9.8: a UD responder does not check the PSN).
 */
#include <string.h>

#include "engine/mover.h"
#include "engine/flush.h"
#include "engine/rq.h"
#include "engine/tx.h"
#include "engine/ud.h"
#include "roce/status.h"

/* ---- requester ------------------------------------------------------------ */

/* A send WR Q_Key with the high-order bit set stands for the QP's own:
 * controlled Q_Keys (high bit set) are the privileged consumer's, so an
 * ordinary one cannot name one in a WR; setting that bit asks for the
 * QP context's instead (IBA 10.2.5, Q_Keys, and the Q_Key input of the
 * Post Send Request verb, 11.4.1.1); the kernel's drivers read the WR the
 * same way (mlx4's build_mlx_header, rdmavt's qib and hfi1 UD senders).
 * QP1's is the GSI Q_Key (verbs.h). */
static uint32_t wqe_qkey(const struct eng_qp *qp, const struct swqe *w)
{
	return (w->ud.remote_qkey & 0x80000000u) ? qp->cfg.qkey : w->ud.remote_qkey;
}

/* The UDP source port of a UD QP: rxe's, a hash of our QPN in
 * 0xC000..0xFFFF (rxe_qp_init_req: RXE_ROCE_V2_SPORT + hash_32(qpn, 14)),
 * since a UD QP has no peer QPN to mix in; an AV's flow label gives it
 * as for a connected QP (rdma_flow_label_to_udp_sport). */
static uint16_t ud_sport(const struct eng_qp *qp, const struct eng_av *av)
{
	if (av->flow_label)
		return roce_udp_sport_from_flow(av->flow_label);
	return (uint16_t)(0xC000u | ((qp->qpn * 0x61C88647u) >> 18));
}

enum roce_wc_status ud_wqe_check(const struct eng_qp *qp, const struct swqe *w)
{
	/* UD has SEND only (post_send refuses the rest; a WQE that is
	 * not one fails as rxe's next_opcode fails it) */
	if (w->opcode != ROCE_WR_SEND && w->opcode != ROCE_WR_SEND_WITH_IMM)
		return ROCE_WC_LOC_QP_OP_ERR;
	if (w->length > qp->mtu)
		return ROCE_WC_LOC_LEN_ERR;
	return ROCE_WC_SUCCESS;
}

/* The QP's header template for av: built again only when the destination
 * changes (a QP that talks to one peer builds it once). The template's
 * builder takes a context: a copy of the QP's with av's address fields. */
static void ud_template(struct roce_engine *e, struct eng_qp *qp, const struct eng_av *av)
{
	struct roce_qp_cfg c;

	if (qp->tmpl_ud && memcmp(&qp->tmpl_av, av, sizeof(*av)) == 0)
		return;
	c = qp->cfg;
	memcpy(c.peer_mac, av->mac, 6);
	roce_qp_set_dgid(&c, av->dgid);
	c.sgid_index = av->sgid_index;
	c.tclass = av->tclass;
	c.flow_label = av->flow_label;
	c.hop_limit = 0;                /* the route's, as for a QP's AV */
	qp->sport = ud_sport(qp, av);
	tx_template_cfg(e, qp, &c);
	qp->tmpl_av = *av;
	qp->tmpl_ud = true;
}

void ud_packet(struct roce_engine *e, struct eng_qp *qp, const struct swqe *w,
	       struct roce_hdrs *ext, struct tx_pkt *p)
{
	ud_template(e, qp, &w->ud.av);
	p->opcode = w->opcode == ROCE_WR_SEND_WITH_IMM ? ROCE_OP_UD_SEND_ONLY_IMM
						       : ROCE_OP_UD_SEND_ONLY;
	p->ackreq = false;
	p->av = &w->ud.av;
	p->dqpn = w->ud.remote_qpn & 0xFFFFFFu;
	ext->deth.qkey = wqe_qkey(qp, w);
	ext->deth.resv = 0;
	ext->deth.sqpn = qp->qpn;
}

/* ---- responder ------------------------------------------------------------ */

/*
 * The GRH area as rxe fills it for RoCE v2 (rxe_resp.c,
 * build_rdma_network_hdr into union rdma_network_hdr, copied by
 * send_data_in ahead of the payload): over IPv4 20 zero bytes, then the
 * IPv4 header as received; over IPv6 the IPv6 header as received. A
 * ConnectX writes the same (the IBA GRH's place holds the L3 header).
 */
static void grh_area(const struct roce_pkt *p, uint8_t grh[ROCE_GRH_LEN])
{
	const uint8_t *l3 = p->frame + p->l3_off;

	if (p->ipv6) {
		memcpy(grh, l3, ROCE_IPV6_HLEN);
		return;
	}
	memset(grh, 0, ROCE_GRH_LEN - ROCE_IPV4_HLEN);
	memcpy(grh + ROCE_GRH_LEN - ROCE_IPV4_HLEN, l3, ROCE_IPV4_HLEN);
}

void ud_request(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p)
{
	uint8_t grh[ROCE_GRH_LEN];
	const struct roce_sge *sgl;
	struct rwqe *w;
	int rc;

	/* IBA 10.2.5: a datagram whose Q_Key is not the QP's is dropped
	 * silently (rxe check_keys; the Q_Key violation counter) */
	if (roce_deth_qkey(roce_pkt_deth(p)) != qp->cfg.qkey) {
		roce_cnt_drop(e->cnt, ROCE_E_QKEY);
		return;
	}
	/* no receive WQE (the QP's RQ or its SRQ): dropped, no RNR NAK (UD
	 * has no responses) */
	w = rwqe_take(e, qp);
	if (!w) {
		roce_cnt_drop(e->cnt, ROCE_E_NO_RWQE);
		return;
	}
	/* the WQE must hold the GRH area and the message: otherwise the
	 * datagram is dropped and the WQE stays for the next one (an SRQ's
	 * stays taken by this QP, as a broken UC message leaves it) */
	if ((uint64_t)p->payload_len + ROCE_GRH_LEN > w->length) {
		roce_cnt_drop(e->cnt, ROCE_E_RECV_LEN);
		return;
	}
	grh_area(p, grh);
	sgl = rwqe_sgl(qp, w);
	rc = mem_place_sge(e, qp->cfg.pd, NULL, true, sgl, w->num_sge, 0, grh, ROCE_GRH_LEN);
	if (!rc)
		rc = mem_place_sge(e, qp->cfg.pd, NULL, true, sgl, w->num_sge, ROCE_GRH_LEN,
				   roce_pkt_payload(p), p->payload_len);
	if (rc) {
		/* the receive WQE's own buffer is bad: a local error of this
		 * QP, as for UC (rxe: ERR_MALFORMED_WQE, class A) */
		recv_complete(e, qp, ROCE_WC_LOC_PROT_ERR, ROCE_WC_RECV, 0, NULL);
		roce_cnt_drop(e->cnt, rc);
		qp_error(e, qp);
		return;
	}
	recv_complete(e, qp, ROCE_WC_SUCCESS, ROCE_WC_RECV, ROCE_GRH_LEN + p->payload_len, p);
}
