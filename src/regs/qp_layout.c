/* SPDX-License-Identifier: MIT */
/*
 * The QP_TABLE entry codec (roce/layout.h): the one place that knows where
 * each QP context field sits in the QP_STATE..QP_PD shadow registers. The
 * device's window and the host driver both call it.
 */
#include <string.h>

#include "roce/layout.h"

/* Field f of the layout into / out of its word. */
#define PUT(w, f, v) \
	((w)[ROCE_QP_##f##_WORD] |= \
	 ((uint32_t)(v) & ROCE_FIELD_MASK(ROCE_QP_##f##_WIDTH)) << ROCE_QP_##f##_SHIFT)
#define GET(w, f) \
	(((w)[ROCE_QP_##f##_WORD] >> ROCE_QP_##f##_SHIFT) & \
	 ROCE_FIELD_MASK(ROCE_QP_##f##_WIDTH))

/* The 24-bit QPN and PSN registers share one field shape each. */
#define ROCE_QP_DEST_QPN_SHIFT ROCE_QP_QPN_SHIFT
#define ROCE_QP_DEST_QPN_WIDTH ROCE_QP_QPN_WIDTH
#define ROCE_QP_SQ_PSN_SHIFT   ROCE_QP_PSN_SHIFT
#define ROCE_QP_SQ_PSN_WIDTH   ROCE_QP_PSN_WIDTH
#define ROCE_QP_RQ_PSN_SHIFT   ROCE_QP_PSN_SHIFT
#define ROCE_QP_RQ_PSN_WIDTH   ROCE_QP_PSN_WIDTH

void roce_qp_to_regs(const struct roce_qp_cfg *qp, uint32_t r[ROCE_QP_NREGS])
{
	memset(r, 0, ROCE_QP_NREGS * sizeof(r[0]));
	PUT(r, STATE, qp->state);
	PUT(r, TYPE, qp->type);
	PUT(r, MTU, qp->mtu);
	PUT(r, ACCESS, qp->access);
	PUT(r, DEST_QPN, qp->dest_qpn);
	PUT(r, SQ_PSN, qp->sq_psn);
	PUT(r, RQ_PSN, qp->rq_psn);
	r[ROCE_QP_PEER_IP_WORD] = qp->peer_ip;
	r[ROCE_QP_PEER_MAC_LOW_WORD] = roce_mac_low(qp->peer_mac);
	r[ROCE_QP_PEER_MAC_HIGH_WORD] = roce_mac_high(qp->peer_mac);
	PUT(r, PKEY, qp->pkey);
	PUT(r, TIMEOUT, qp->timeout);
	PUT(r, RETRY_CNT, qp->retry_cnt);
	PUT(r, RNR_RETRY, qp->rnr_retry);
	PUT(r, MIN_RNR_TIMER, qp->min_rnr_timer);
	PUT(r, MAX_RD_ATOMIC, qp->max_rd_atomic);
	PUT(r, MAX_DEST_RD_ATOMIC, qp->max_dest_rd_atomic);
	r[ROCE_QP_QKEY_WORD] = qp->qkey;
	r[ROCE_QP_PD_WORD] = qp->pd;
	for (unsigned i = 0; i < 3; i++)
		r[ROCE_QP_DGID_0_WORD + i] = qp->dgid_hi[i];
	PUT(r, SGID_INDEX, qp->sgid_index);
	PUT(r, HOP_LIMIT, qp->hop_limit);
	PUT(r, TCLASS, qp->tclass);
	PUT(r, FLOW_LABEL, qp->flow_label);
}

void roce_qp_from_regs(uint32_t qpn, const uint32_t r[ROCE_QP_NREGS],
		       struct roce_qp_cfg *qp)
{
	memset(qp, 0, sizeof(*qp));
	qp->qpn = qpn;
	qp->state = (uint8_t)GET(r, STATE);
	qp->type = (uint8_t)GET(r, TYPE);
	qp->mtu = (uint8_t)GET(r, MTU);
	qp->access = (uint8_t)GET(r, ACCESS);
	qp->dest_qpn = GET(r, DEST_QPN);
	qp->sq_psn = GET(r, SQ_PSN);
	qp->rq_psn = GET(r, RQ_PSN);
	qp->peer_ip = r[ROCE_QP_PEER_IP_WORD];
	roce_mac_from_regs(r[ROCE_QP_PEER_MAC_LOW_WORD],
			   r[ROCE_QP_PEER_MAC_HIGH_WORD], qp->peer_mac);
	qp->pkey = (uint16_t)GET(r, PKEY);
	qp->timeout = (uint8_t)GET(r, TIMEOUT);
	qp->retry_cnt = (uint8_t)GET(r, RETRY_CNT);
	qp->rnr_retry = (uint8_t)GET(r, RNR_RETRY);
	qp->min_rnr_timer = (uint8_t)GET(r, MIN_RNR_TIMER);
	qp->max_rd_atomic = (uint8_t)GET(r, MAX_RD_ATOMIC);
	qp->max_dest_rd_atomic = (uint8_t)GET(r, MAX_DEST_RD_ATOMIC);
	qp->qkey = r[ROCE_QP_QKEY_WORD];
	qp->pd = r[ROCE_QP_PD_WORD];
	for (unsigned i = 0; i < 3; i++)
		qp->dgid_hi[i] = r[ROCE_QP_DGID_0_WORD + i];
	qp->sgid_index = (uint8_t)GET(r, SGID_INDEX);
	qp->hop_limit = (uint8_t)GET(r, HOP_LIMIT);
	qp->tclass = (uint8_t)GET(r, TCLASS);
	qp->flow_label = GET(r, FLOW_LABEL);
}

/* ---- the peer's GID ---------------------------------------------------- */

/* ::ffff:0:0/96 (RFC 4291 2.5.5.2) as the three high words */
#define V4MAPPED_WORD2 0x0000FFFFu

bool roce_qp_dgid_ipv6(const struct roce_qp_cfg *qp)
{
	return qp->dgid_hi[0] || qp->dgid_hi[1] ||
	       (qp->dgid_hi[2] && qp->dgid_hi[2] != V4MAPPED_WORD2);
}

void roce_qp_dgid(const struct roce_qp_cfg *qp, uint8_t gid[16])
{
	bool v6 = roce_qp_dgid_ipv6(qp);

	for (unsigned i = 0; i < 3; i++) {
		uint32_t w = v6 ? qp->dgid_hi[i] : i == 2 ? V4MAPPED_WORD2 : 0;

		gid[4 * i] = (uint8_t)(w >> 24);
		gid[4 * i + 1] = (uint8_t)(w >> 16);
		gid[4 * i + 2] = (uint8_t)(w >> 8);
		gid[4 * i + 3] = (uint8_t)w;
	}
	gid[12] = (uint8_t)(qp->peer_ip >> 24);
	gid[13] = (uint8_t)(qp->peer_ip >> 16);
	gid[14] = (uint8_t)(qp->peer_ip >> 8);
	gid[15] = (uint8_t)qp->peer_ip;
}

void roce_qp_set_dgid(struct roce_qp_cfg *qp, const uint8_t gid[16])
{
	for (unsigned i = 0; i < 3; i++)
		qp->dgid_hi[i] = (uint32_t)gid[4 * i] << 24 | (uint32_t)gid[4 * i + 1] << 16 |
				 (uint32_t)gid[4 * i + 2] << 8 | gid[4 * i + 3];
	qp->peer_ip = (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 |
		      (uint32_t)gid[14] << 8 | gid[15];
}

/* ---- MAC register pair ------------------------------------------------- */

uint32_t roce_mac_low(const uint8_t mac[6])
{
	return (uint32_t)mac[2] << 24 | (uint32_t)mac[3] << 16 |
	       (uint32_t)mac[4] << 8 | mac[5];
}

uint32_t roce_mac_high(const uint8_t mac[6])
{
	return (uint32_t)mac[0] << 8 | mac[1];
}

void roce_mac_from_regs(uint32_t low, uint32_t high, uint8_t mac[6])
{
	mac[0] = (uint8_t)(high >> 8);
	mac[1] = (uint8_t)high;
	mac[2] = (uint8_t)(low >> 24);
	mac[3] = (uint8_t)(low >> 16);
	mac[4] = (uint8_t)(low >> 8);
	mac[5] = (uint8_t)low;
}
