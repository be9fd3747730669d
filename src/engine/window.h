/* SPDX-License-Identifier: MIT */
/*
 * window.c: go-back-N's window of an RC QP (docs/cc.md, "Defaults"): the
 * bounded window, the loss-adaptive one, and the algorithm's, combined
 * into the one bound the requester compares (qp->window). The completer
 * (comp.c) tells it of ACKs, NAKs and timeouts; cc.c of configuration.
 */
#ifndef ROCE_ENGINE_WINDOW_H
#define ROCE_ENGINE_WINDOW_H

#include "engine/state.h"

/* qp->window from the bound (or the adaptive window) and the grant of
   the QP's algorithm: the smaller applies */
void window_set(struct eng_qp *qp);
/* The configuration (the CC block, the QP's registers) or the QP's
   connection changed; fresh: a new connection, the window starts again
   at its cap */
void window_sync(struct roce_engine *e, struct eng_qp *qp, bool fresh);
/* A round-trip sample, ns (comp.c, one per round trip), and the packets
   acknowledged over it (from when the sampled packet went out) */
void window_rtt(struct roce_engine *e, struct eng_qp *qp, uint64_t rtt_ns, uint32_t delivered);
void window_grow(struct eng_qp *qp, uint32_t psns);
/* An ACK moved una by psns: the window grows back toward its cap, about
   one packet per window acknowledged; at the cap one compare */
static inline void window_acked(struct eng_qp *qp, uint32_t psns)
{
	if (qp->awnd && qp->awnd < qp->awnd_max)
		window_grow(qp, psns);
}
/* A loss: a NAK that starts a go-back (nak) or a retransmission
   timeout; the window halves */
void window_cut(struct roce_engine *e, struct eng_qp *qp, bool nak);
/* A timeout's first resend ended (recovery.c, frto_end): the window as
   it was before the timeout's cut when the timeout was spurious */
void window_frto_done(struct eng_qp *qp, bool spurious);

#endif
