/* SPDX-License-Identifier: MIT */
/*
 * tx.c: the transmit stage: frame headers from a QP's template, payload
 * from local memory, staging and the burst to the link port.
 */
#ifndef ROCE_ENGINE_TX_H
#define ROCE_ENGINE_TX_H

#include "engine/state.h"

static inline bool tx_room(const struct roce_engine *e)
{
	return e->tx_n < ROCE_TX_BURST && e->tx_built < ROCE_TX_BURST;
}
unsigned tx_flush(struct roce_engine *e);
void tx_template(struct roce_engine *e, struct eng_qp *qp);
/* The template from a context's address fields (tx_template gives the
 * QP's own; ud.c a WQE's destination). */
void tx_template_cfg(struct roce_engine *e, struct eng_qp *qp, const struct roce_qp_cfg *c);
/* Build one packet for qp into the next staging slot; payload (len
 * bytes, may be 0) from SGEs or from a place in an MR (a READ response). */
struct tx_pkt {
	uint8_t opcode;
	uint32_t psn;
	bool ackreq, se;
	const struct roce_hdrs *ext;    /* RETH/AETH/... values (or NULL) */
	const struct roce_sge *sge;     /* gather payload from SGEs ... */
	uint32_t nsge, sge_off;         /* ... starting this far in */
	const struct mr_pos *at;        /* ... or from one place in an MR */
	const uint8_t *inl;             /* ... or from an inline WQE's bytes
					 * (swqe_inline), sge_off on */
	uint32_t len;
	const struct eng_av *av;        /* UD: the WQE's destination (qp->tmpl
					 * holds its headers), else NULL */
	uint32_t dqpn;                  /* UD: the destination QP */
	bool cnp;                       /* a CNP: BECN set, the CNP's DSCP and ECN */
};
int tx_build(struct roce_engine *e, struct eng_qp *qp, const struct tx_pkt *p);
/* A CNP to qp's peer (the notification point's, cc.c) */
int tx_cnp(struct roce_engine *e, struct eng_qp *qp);

#endif
