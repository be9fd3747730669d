/* SPDX-License-Identifier: MIT */
/*
 * recovery.c: loss recovery (docs/cc.md): the retransmission timer's
 * length and the tail-loss probe, on the completer's state. One way:
 * comp.c (which owns the timer and the go-back decisions) and req.c
 * (which reports what it sends) call it; it calls no stage, and comp.c
 * has the requester resend what it says.
 */
#ifndef ROCE_ENGINE_RECOVERY_H
#define ROCE_ENGINE_RECOVERY_H

#include "engine/state.h"

/* IBA 9.7.6.1.3's timeout of the QP, ns; 0: infinite */
uint64_t rto_iba_ns(const struct eng_qp *qp);
/* The retransmission timer's length: the IBA timeout, or the adaptive
   one when the context asks for it */
uint64_t rto_ns(const struct roce_engine *e, const struct eng_qp *qp);
/* The timer fired with no retry left: true when IBA's detection time is
   still ahead (the adaptive timer's last wait is stretched to it) */
bool rto_stretch(struct roce_engine *e, struct eng_qp *qp);
/* The timer fired (comp.c, before the window's cut): with adaptive
   retransmission, una's packet goes out alone until an ACK or NAK */
void frto_start(struct roce_engine *e, struct eng_qp *qp);
/* una moved to new_una (comp.c) or a NAK came (new_una NULL) during a
   timeout's first resend: true when the ACK covers packets that were not
   sent again, so the timeout was spurious */
bool frto_end(struct eng_qp *qp, const uint32_t *new_una);
/* The timeout was spurious and una moved to new_una: true when the ACK
   is a late one of the first copies, not the answer to the resend, and
   the requester goes on where the timer found it (frto_next) instead of
   from new_una */
bool frto_go_on(struct roce_engine *e, const struct eng_qp *qp, uint32_t new_una);
/* A packet psn went out with AckReq (req.c), with adaptive
   retransmission and no round-trip sample yet: remembered for
   frto_go_on */
static inline void frto_ackreq_sent(struct eng_qp *qp, uint32_t psn)
{
	qp->comp.ackreq_psn[qp->comp.ackreq_i++ & (COMP_ACKREQ_PSNS - 1)] = psn;
}
/* A new packet psn went out with AckReq (req.c): maybe a sample */
void rto_sample_sent(struct roce_engine *e, struct eng_qp *qp, uint32_t psn);
/* una moved to new_una by an ACK (comp.c): maybe the sample's end; the
   round trip measured, ns, or 0 */
uint64_t rto_sample_acked(struct roce_engine *e, struct eng_qp *qp, uint32_t new_una);
/* A new packet went out or una moved: the tail-loss probe is due two
   round trips from now, doubled for each stall probed since the last
   round-trip sample, up to 2^PROBE_BACKOFF_MAX times (adaptive
   retransmission only) */
#define PROBE_BACKOFF_MAX 5
void probe_arm(struct roce_engine *e, struct eng_qp *qp);
enum probe_kind {
	PROBE_NONE,             /* no stall (or not yet: maybe armed again) */
	PROBE_LAST,             /* resend the last packet sent, with AckReq */
	PROBE_FROM_UNA,         /* after a NAK, a timeout or a first probe:
				   go back to una, as the timer would */
};
/* The probe's time came (comp.c's timer): what to resend */
enum probe_kind probe_due(struct roce_engine *e, struct eng_qp *qp);
/* The requester sent it: counted, the next armed */
void probe_sent(struct roce_engine *e, struct eng_qp *qp);

#endif
