/* SPDX-License-Identifier: MIT */
/*
 * ud.c: the UD transport (IBA 9.8, unreliable datagram): one packet per
 * message, a destination per WQE, the Q_Key, the GRH area of a receive.
 */
#ifndef ROCE_ENGINE_UD_H
#define ROCE_ENGINE_UD_H

#include "engine/state.h"
#include "engine/tx.h"

void ud_request(struct roce_engine *e, struct eng_qp *qp, const struct roce_pkt *p);
/* The requester's checks of a UD WQE it takes: ROCE_WC_SUCCESS or the
 * status it completes with (the WQE is not sent). */
enum roce_wc_status ud_wqe_check(const struct eng_qp *qp, const struct swqe *w);
/* A UD packet of w: its opcode, DETH and destination into p, the QP's
 * header template made for w's destination. */
void ud_packet(struct roce_engine *e, struct eng_qp *qp, const struct swqe *w,
	       struct roce_hdrs *ext, struct tx_pkt *p);

#endif
