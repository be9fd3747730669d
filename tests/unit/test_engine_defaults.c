/* SPDX-License-Identifier: MIT */
/*
 * Loss recovery's defaults (docs/cc.md, "Defaults"), one engine against a
 * scripted peer on the virtual clock (stage.h), with the CC block as reset
 * leaves it unless said:
 *   - the loss-adaptive window: at its cap (2 x line x RTT in packets),
 *     halved on a NAK and on a timeout (never under four packets), grown
 *     back a packet per window acknowledged; a timeout's first resend
 *     una's packet alone, its cut undone when the ACK shows the timeout
 *     spurious, the requester then going on where the timer found it;
 *     beyond the configured round trip, a cap from the delivery rate;
 *     hand-computed values;
 *   - the timer runs while anything sent is unacknowledged, a stale ACK
 *     before a go-back's resend notwithstanding;
 *   - retry exhaustion: a peer that answers nothing gets retry_cnt + 1
 *     tries of the lost packet and the error completion no sooner than
 *     IBA's detection time, timeout x (retry_cnt + 1) from the first
 *     transmission; a peer silent for less than that, then answering,
 *     costs no error; an infinite timeout never exhausts;
 *   - the registers: CC_CTRL's reset value has both recovery bits, a QP's
 *     own CC_QP_RECOVERY reads back, and IBA's recovery (the QP's own, or
 *     roce_cc_config_iba_strict through the block) sends no probe.
 * The defaults under loss with reordering and duplication:
 * test_engine_lossy.
 */
#include "stage.h"
#include "roce/cc.h"
#include "roce/regs.h"

#define REMOTE_VA 0x10000ull
#define REMOTE_RKEY 0x4242u
#define NAK_SEQ (ROCE_AETH_NAK | ROCE_NAK_PSN_SEQ_ERR)
#define IBA_NS(t) (4096ull << (t))      /* IBA 9.7.6.1.3 */

static void post_write(struct stage *st, uint64_t wr_id, uint32_t len)
{
	stage_post_write(st, wr_id, len, REMOTE_VA, REMOTE_RKEY);
}

static uint32_t window_now(struct stage *st)
{
	struct roce_qp_cc q;

	assert_int_equal(roce_qp_cc_state(st->qp, &q), ROCE_OK);
	return q.window;
}

/* The peer's ACK of psn comes ns later: the QP sends frames packets and
   its window is then window */
static void ack_after(struct stage *st, uint64_t ns, uint32_t psn, unsigned frames,
		      uint32_t window)
{
	st->vclock += ns;
	stage_inject_ack(st, psn, 0, 0);
	assert_int_equal(stage_run(st), frames);
	assert_int_equal(window_now(st), window);
}

/* The last run's frames carry first, first + 1, ... (at least n of them) */
static void assert_psns(const struct stage *st, uint32_t first, unsigned n)
{
	assert_true(st->nrx >= n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(st->rx[i].h.bth.psn, first + i);
}

/* Move on a microsecond at a time until the QP has timed out n times in
   all (within 100 ms): the frames the last step sent */
static unsigned until_timeouts(struct stage *st, uint64_t n)
{
	unsigned sent = 0;

	for (int us = 0; us < 100000 && stage_cnt(st, ROCE_CNT_TIMEOUTS) < n; us++)
		sent = stage_advance(st, 1000);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), n);
	return sent;
}

/* 1024 Mbit/s x 16 us = 2048 bytes: a cap of 2 x 2048 / 256 = 16 packets.
   A QP with that config (and the recovery bits given, 0: the device's)
   posts a WRITE of first packets (none if 0), then one of pkts packets,
   and sends its first window; psn: the first packet's PSN. */
static struct stage *gigabit_window2(unsigned first, unsigned pkts, uint32_t recovery,
				     uint32_t *psn)
{
	struct stage *st = stage_open_default();
	struct roce_cc_config c;

	roce_cc_config_default(&c);
	c.line_mbps = 1024;
	c.rtt_us = 16;
	assert_int_equal(roce_context_set_cc(st->ctx, &c), ROCE_OK);
	if (recovery)
		assert_int_equal(roce_qp_set_recovery(st->qp, recovery), ROCE_OK);
	if (first)
		post_write(st, 2, first * 256);
	post_write(st, 1, pkts * 256);
	assert_int_equal(stage_run(st), 16);
	*psn = st->rx[0].h.bth.psn;
	return st;
}

static struct stage *gigabit_window(unsigned pkts, uint32_t recovery, uint32_t *psn)
{
	return gigabit_window2(0, pkts, recovery, psn);
}

/* ACKs come at the instant of the send (a round trip of 0 is no sample),
   so the cap stays the configured one. */
static void test_window_adapts(void **state)
{
	uint32_t psn;
	struct stage *st = gigabit_window(64, 0, &psn);

	(void)state;
	assert_int_equal(window_now(st), 16);
	/* the packet that closes the window asks for the ACK that opens it */
	assert_true(st->rx[15].h.bth.ackreq);
	assert_false(st->rx[14].h.bth.ackreq);
	/* psn + 4 lost: the NAK halves it, 16 -> 8, and the go-back resends
	   from psn + 4 as far as una + 8 */
	stage_inject_ack(st, psn + 4, NAK_SEQ, 0);
	assert_int_equal(stage_run(st), 8);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 4);
	assert_int_equal(st->rx[7].h.bth.psn, psn + 11);
	assert_int_equal(window_now(st), 8);
	/* a window's worth (8) acknowledged: one packet more, 9 */
	stage_inject_ack(st, psn + 11, 0, 0);
	assert_int_equal(stage_run(st), 9);
	assert_int_equal(st->rx[8].h.bth.psn, psn + 20);
	assert_int_equal(window_now(st), 9);
	/* silence: the timer (16 x 100 us before a sample) halves it, 9 -> 4,
	   and goes back to una: first una's packet alone, with AckReq
	   (F-RTO, recovery.c), the window held at one packet */
	assert_int_equal(stage_advance(st, 1599999), 0);
	assert_int_equal(stage_advance(st, 1), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 12);
	assert_true(st->rx[0].h.bth.ackreq);
	assert_int_equal(window_now(st), 1);
	/* its ACK covers it alone: a loss; the go-back goes on in the cut
	   window, psn + 13 .. psn + 16 */
	stage_inject_ack(st, psn + 12, 0, 0);
	assert_int_equal(stage_run(st), 4);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 13);
	assert_int_equal(window_now(st), 4);
	/* five acknowledged since the cut (one, then four): 5; psn + 17 ..
	   psn + 21 */
	stage_inject_ack(st, psn + 16, 0, 0);
	assert_int_equal(stage_run(st), 5);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 17);
	assert_int_equal(window_now(st), 5);
	/* a timeout (backed off: 3.2 ms, no sample since): una's packet,
	   the window halved no lower than four packets */
	assert_int_equal(stage_advance(st, 3199999), 0);
	assert_int_equal(stage_advance(st, 1), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 17);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 2);
	/* an ACK of everything sent: the first copies had arrived, the
	   timeout was spurious. The cut is undone (5) and the five packets
	   acknowledged grow it as if there had been no timeout (6); the
	   requester goes on with new packets, psn + 22 .. psn + 27,
	   resending none of the acknowledged ones */
	stage_inject_ack(st, psn + 21, 0, 0);
	assert_int_equal(stage_run(st), 6);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 22);
	assert_int_equal(window_now(st), 6);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 2);
	stage_close(st);
}

/* A spurious timeout after a whole message went out: the timer fires
   (1.6 ms before a sample), una's packet goes again, and the peer's ACK
   of the duplicate covers the message. Nothing of it is sent again (the
   requester resumes with the next WQE, not inside the acknowledged one),
   and the next message goes out at the next PSN. */
static void test_spurious_timeout(void **state)
{
	struct stage *st = stage_open_default();
	uint32_t psn;

	(void)state;
	post_write(st, 1, 4 * 256);
	assert_int_equal(stage_run(st), 4);
	psn = st->rx[0].h.bth.psn;
	assert_int_equal(stage_advance(st, 1600000), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	stage_inject_ack(st, psn + 3, 0, 1);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RETRANSMISSIONS), 1);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 4 * 256);
	post_write(st, 2, 256);
	assert_int_equal(stage_run(st), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 4);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RETRANSMISSIONS), 1);
	stage_close(st);
}

/* A spurious timeout in the middle of a window, before any round-trip
   sample: the timer fires (1.6 ms) with psn .. psn + 15 out, una's
   packet goes again alone, and the ACK that comes covers psn .. psn + 5
   (their first copies arrived: the timeout was spurious, the window 16
   again). With no round trip known the ACK may answer the resend, which
   the responder answers with all it has: psn + 6 .. psn + 15 were lost
   (an incast's tail drop), and the go-back goes on from psn + 6
   (recovery.c, frto_go_on). */
static void test_spurious_timeout_no_sample(void **state)
{
	uint32_t psn;
	struct stage *st = gigabit_window(64, ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_WINDOW |
					       ROCE_RECOVERY_ADAPTIVE_RTO, &psn);

	(void)state;
	assert_int_equal(stage_advance(st, 1599999), 0);
	assert_int_equal(stage_advance(st, 1), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	assert_int_equal(window_now(st), 1);
	ack_after(st, 5000, psn + 5, 16, 16);
	assert_psns(st, psn + 6, 16);
	stage_close(st);
}

/* The same, the ACK ending on a packet that asked for one: a WRITE of 4
   packets, then one of 60, psn .. psn + 15 out with AckReq on psn + 3
   (the first message's last) and psn + 15 (the window's). The ACK of
   psn .. psn + 3 after the resend of psn may be the late answer to psn
   + 3: a peer acknowledges the packets that ask for it (rxe only those),
   a duplicate with all it has. With no round trip known that tells them
   apart: the requester goes on at psn + 16 (psn + 16 .. psn + 19 in the
   window of 16 given back). */
static void test_spurious_timeout_ackreq(void **state)
{
	uint32_t psn;
	struct stage *st = gigabit_window2(4, 60, ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_WINDOW |
					   ROCE_RECOVERY_ADAPTIVE_RTO, &psn);

	(void)state;
	assert_true(st->rx[3].h.bth.ackreq);
	assert_int_equal(stage_advance(st, 1600000), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn);
	ack_after(st, 5000, psn + 3, 4, 16);
	assert_psns(st, psn + 16, 4);
	stage_close(st);
}

/* The same on a slow path (the first round trip 200 us: cap and window
   32 from the delivery rate, psn + 16 .. psn + 47 out): after a
   tail-loss probe (psn + 47) the timer fires and psn + 16 goes again
   alone; an ACK of psn + 16 .. psn + 21 comes 50 us later, sooner than
   the smallest round trip: it cannot answer the resend, it is the late
   answer to the first copies, and what followed is on its way too. The
   requester goes on where the timer found it, psn + 48 .. psn + 53 in
   the window of 32 given back, none of psn + 22 .. psn + 47 sent again.
   Those are still unacknowledged, so the timer still runs: if they were
   lost after all, una's packet goes out again at the next timeout. */
static void test_spurious_timeout_goes_on(void **state)
{
	uint32_t psn;
	struct stage *st = gigabit_window(400, ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_WINDOW |
					       ROCE_RECOVERY_ADAPTIVE_RTO, &psn);

	(void)state;
	ack_after(st, 200000, psn + 15, 32, 32);
	assert_int_equal(until_timeouts(st, 1), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 16);
	assert_int_equal(window_now(st), 1);
	ack_after(st, 50000, psn + 21, 6, 32);
	assert_psns(st, psn + 48, 6);
	/* silence: the next timeout resends psn + 22 */
	assert_int_equal(until_timeouts(st, 2), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 22);
	stage_close(st);
}

/* The same with a round trip known (20 us): an ACK of psn + 16 .. psn +
   20 that comes 30 us after the resend of psn + 16 may be its answer,
   which tells that the responder had nothing after psn + 20: the go-back
   goes on from psn + 21 (recovery.c, frto_go_on), in the window the
   spurious timeout's cut gave back. */
static void test_spurious_timeout_answered(void **state)
{
	uint32_t psn;
	struct stage *st = gigabit_window(400, ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_WINDOW |
					       ROCE_RECOVERY_ADAPTIVE_RTO, &psn);

	(void)state;
	ack_after(st, 20000, psn + 15, 20, 20);         /* cap 20 (above) */
	/* silence: a tail-loss probe (psn + 35 again), then the adaptive
	   timer: psn + 16 alone */
	assert_int_equal(until_timeouts(st, 1), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 16);
	ack_after(st, 30000, psn + 20, 20, 20);
	assert_psns(st, psn + 21, 20);
	stage_close(st);
}

/* The ACKs of a spurious timeout there before its resend: a WRITE of
   one window (psn .. psn + 15) is out when the local DMA stalls; the
   timer fires and rewinds the requester to una, which cannot send. A
   stale ACK (of psn - 1, nothing new) comes, then the ACK of psn .. psn +
   5: the timeout was spurious and the requester goes on after psn + 15,
   where there is nothing more to send. psn + 6 .. psn + 15 are still
   sent and unacknowledged, so the timer still runs, and when they stay
   unanswered una's packet goes again. (The timer stopped when the test
   was una against the rewound requester, on the stale ACK, and the QP
   waited for ever.) */
static void test_stale_ack_keeps_timer(void **state)
{
	uint32_t psn;
	struct stage *st = gigabit_window(16, ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_WINDOW |
					       ROCE_RECOVERY_ADAPTIVE_RTO, &psn);

	(void)state;
	roce_engine_set_dma_stall(st->ctx, true, 1000000);
	assert_int_equal(stage_advance(st, 1600000), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 1);
	stage_inject_ack(st, psn - 1, 0, 0);
	stage_inject_ack(st, psn + 5, 0, 0);
	assert_int_equal(stage_run(st), 0);
	roce_engine_set_dma_stall(st->ctx, false, 0);
	assert_int_equal(stage_run(st), 0);
	assert_int_equal(stage_advance(st, 100000000), 1);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 6);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 2);
	assert_int_equal(stage_cnt(st, ROCE_CNT_RETRANSMISSIONS), 1);
	stage_close(st);
}

/* A round trip measured under the configured one (an engine's turn on a
   loopback, a back-to-back link) leaves the cap at the configured one's:
   5 us would make it 2 x 1024 x 5 / 8 / 256 = 5 packets, too few to keep
   a software peer busy; 16 stays (window.c). */
static void test_window_cap_floor(void **state)
{
	uint32_t psn;
	struct stage *st = gigabit_window(64, 0, &psn);

	(void)state;
	ack_after(st, 5000, psn + 15, 16, 16);
	stage_close(st);
}

/*
 * A round trip longer than the configured one, at a fraction of the
 * line's rate (a slow receiver, or a longer path not yet filled): the cap
 * is the delivery rate x the round trip, doubled, not line x round trip
 * (window.c). 1024 Mbit/s, 16 us, 256-byte packets: cap 16.
 *   - the first window's ACK after 2 ms: 16 packets in 2 ms, 8,000 a
 *     second; cap 2 x 8,000 x 2 ms = 32 (line x 2 ms would be 2,000);
 *   - the next window, 32 packets, acknowledged after 2 ms: 16,000 a
 *     second, cap 64: a window delivered whole every round trip doubles
 *     it, as on a longer path that carries the line's rate;
 *   - the next, 64 packets, after 8 ms (the receiver slowed, its queue
 *     grew): the rate is the largest of the last samples, the round trip
 *     the smallest: the cap stays 64.
 */
static void test_window_delivery_rate(void **state)
{
	uint32_t psn;
	struct stage *st = gigabit_window(400, 0, &psn);

	(void)state;
	ack_after(st, 2000000, psn + 15, 32, 32);
	assert_int_equal(st->rx[31].h.bth.psn, psn + 47);
	ack_after(st, 2000000, psn + 47, 64, 64);
	ack_after(st, 8000000, psn + 111, 64, 64);
	stage_close(st);
}

/*
 * What a NAK costs the window depends on whether the path was queueing
 * (window.c, Veno's test): 1024 Mbit/s, 256-byte packets (2 us each on the
 * line), the adaptive window alone (no probe, IBA's timer), ACKs answered
 * after a delay the test picks.
 *   - the first sample, 20 us: above the configured 16 us, so the cap
 *     grows to 2 x 1024 x 20 / 8 / 256 = 20 packets;
 *   - a NAK with the last round trip at the smallest: no queue, a random
 *     loss, the window gives a fifth (20 -> 16);
 *   - the resend after a NAK gives no sample (Karn): a late ACK of the
 *     resent packets leaves the last round trip as it was, and the next
 *     NAK is random too (17 -> 14);
 *   - a round trip of 40 us with 14 in flight: the QP's own 13 packets
 *     before the sampled one took 26 us on its line, which explains the
 *     20 us above the smallest; a NAK is random (15 -> 12);
 *   - a round trip of 60 us with 12 in flight: 11 packets explain 22 us
 *     of the 40, the other 18 us are a queue of the path's: a NAK
 *     halves the window (13 -> 6).
 */
static void test_window_tells_losses(void **state)
{
	uint32_t psn;
	struct stage *st = gigabit_window(200, ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_WINDOW,
					  &psn);

	(void)state;
	/* psn + 15 (AckReq) answered 20 us later: cap and window 20 */
	ack_after(st, 20000, psn + 15, 20, 20);
	assert_true(st->rx[19].h.bth.ackreq);
	/* a random loss: psn + 20 NAKed with no queue seen, 20 -> 16; the
	   go-back resends psn + 20 .. psn + 35 */
	stage_inject_ack(st, psn + 20, NAK_SEQ, 0);
	assert_int_equal(stage_run(st), 16);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 20);
	assert_int_equal(window_now(st), 16);
	/* the resent window acknowledged long after: no sample (Karn: the
	   ACK may answer either copy); 16 acknowledged, 17; new packets
	   psn + 36 .. psn + 52 */
	st->vclock += 500000;
	stage_inject_ack(st, psn + 35, 0, 0);
	assert_int_equal(stage_run(st), 17);
	assert_int_equal(st->rx[0].h.bth.psn, psn + 36);
	assert_int_equal(window_now(st), 17);
	/* so the last round trip is still 20 us: a random loss, 17 -> 14;
	   psn + 40 .. psn + 53 go out, psn + 53 new, with AckReq */
	stage_inject_ack(st, psn + 40, NAK_SEQ, 0);
	assert_int_equal(stage_run(st), 14);
	assert_int_equal(window_now(st), 14);
	assert_true(st->rx[13].h.bth.ackreq);
	/* psn + 53 answered 40 us later: 14 acknowledged, 15; the 13
	   packets before it on the line (26 us) explain what the round
	   trip has beyond the smallest (20 us): still no queue */
	ack_after(st, 40000, psn + 53, 15, 15);
	stage_inject_ack(st, psn + 60, NAK_SEQ, 0);
	assert_int_equal(stage_run(st), 12);    /* 15 -> 12: psn + 60 .. 71 */
	assert_int_equal(window_now(st), 12);
	assert_true(st->rx[11].h.bth.ackreq);
	/* psn + 71 answered 60 us later: 12 acknowledged, 13; 60 - 20 -
	   11 x 2 us leaves 18 us of queue, nine packets */
	ack_after(st, 60000, psn + 71, 13, 13);
	/* a loss on a queueing path: halved, 13 -> 6 */
	stage_inject_ack(st, psn + 80, NAK_SEQ, 0);
	assert_int_equal(stage_run(st), 6);     /* psn + 80 .. psn + 85 */
	assert_int_equal(st->rx[0].h.bth.psn, psn + 80);
	assert_int_equal(window_now(st), 6);
	/* a packet of the go-back lost too (the responder NAKs a sequence
	   error once, IBA 9.7.5.1: this NAK is a loss of a packet sent
	   after the cut, a recovery of its own): halved again, to the
	   floor of 4, and resent from there */
	stage_inject_ack(st, psn + 82, NAK_SEQ, 0);
	assert_int_equal(stage_run(st), 4);     /* psn + 82 .. psn + 85 */
	assert_int_equal(st->rx[0].h.bth.psn, psn + 82);
	assert_int_equal(window_now(st), 4);
	stage_close(st);
}

/* Frames of the last run that carry PSN psn. */
static unsigned count_psn(const struct stage *st, uint32_t psn)
{
	unsigned n = 0;

	for (unsigned i = 0; i < st->nrx; i++)
		n += st->rx[i].h.bth.psn == psn;
	return n;
}

/* A QP with timeout 10 and retry_cnt 3 sends a WRITE ONLY nobody
   answers: its PSN, the time it went out */
static struct stage *silent_peer(uint32_t *psn, uint64_t *t0)
{
	const struct stage_opts o = { .timeout = 10, .retry_cnt = 3 };
	struct stage *st = stage_open(&o);

	post_write(st, 1, 64);
	assert_int_equal(stage_run(st), 1);
	*psn = st->rx[0].h.bth.psn;
	*t0 = st->vclock;
	return st;
}

/*
 * timeout 10 (4.19 ms), retry_cnt 3: IBA detects the broken path after
 * 4 x 4.19 = 16.78 ms. The adaptive timer tries at 0, 1.6, 4.8 and 8.99 ms
 * (1.6 ms before a sample, doubled per timeout, never past the QP's
 * 4.19 ms); the wait after the last try is stretched to 16.78 ms.
 */
static void test_exhaustion(void **state)
{
	uint64_t t0, floor_ns = 4 * IBA_NS(10);
	unsigned tries = 1;
	uint32_t psn;
	struct stage *st = silent_peer(&psn, &t0);

	(void)state;
	while (stage_qp_state(st) != ROCE_QPS_ERR && st->vclock - t0 < 30000000) {
		stage_advance(st, 1000);
		tries += count_psn(st, psn);
		if (st->vclock - t0 < floor_ns)
			assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	}
	assert_int_equal(tries, 3 + 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 0);
	/* the error at IBA's detection time, to the poll */
	assert_true(st->vclock - t0 >= floor_ns && st->vclock - t0 < floor_ns + 1000);
	stage_expect_wc(st->scq, 1, ROCE_WC_RETRY_EXC_ERR, ROCE_WC_RDMA_WRITE, 0);
	stage_close(st);
}

/* The same QP, its peer silent past the last adaptive try (8.99 ms, and
   past where that try's own timer would end, 13.18 ms) but for less than
   IBA's 16.78 ms: its answer then finds the QP alive */
static void test_silent_then_answers(void **state)
{
	uint64_t t0;
	uint32_t psn;
	struct stage *st = silent_peer(&psn, &t0);

	(void)state;
	while (st->vclock - t0 < 15000000)
		stage_advance(st, 10000);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	stage_inject_ack(st, psn, 0, 1);
	stage_run(st);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 64);
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	/* and the next message goes as ever */
	post_write(st, 2, 64);
	assert_int_equal(stage_run(st), 1);
	stage_inject_ack(st, psn + 1, 0, 2);
	stage_run(st);
	stage_expect_wc(st->scq, 2, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 64);
	stage_close(st);
}

/* timeout 0 is infinite: the adaptive timer resends, no retry is spent */
static void test_infinite_timeout(void **state)
{
	const struct stage_opts o = { .timeout = STAGE_ZERO, .retry_cnt = 1 };
	struct stage *st = stage_open(&o);

	(void)state;
	post_write(st, 1, 64);
	assert_int_equal(stage_run(st), 1);
	for (int i = 0; i < 200; i++)
		stage_advance(st, 10000000);            /* 2 s */
	assert_int_equal(stage_qp_state(st), ROCE_QPS_RTS);
	assert_true(stage_cnt(st, ROCE_CNT_TIMEOUTS) >= 5);
	stage_close(st);
}

static uint32_t rd(struct roce_device *dev, uint32_t off)
{
	uint32_t v;

	assert_int_equal(roce_device_read32(dev, off, &v), ROCE_OK);
	return v;
}

/* A QP that has measured a 10 us round trip loses a message's only
   packet: with the adaptive timer a probe follows at 2 srtt (20 us) */
static unsigned lost_tail_frames(struct stage *st, uint64_t wr_id)
{
	unsigned n;

	post_write(st, wr_id, 64);
	assert_int_equal(stage_run(st), 1);
	n = stage_advance(st, 30000);
	stage_inject_ack(st, st->sq_psn + (uint32_t)wr_id - 1, 0, (uint32_t)wr_id);
	stage_run(st);
	stage_expect_wc(st->scq, wr_id, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 64);
	return n;
}

static void test_registers(void **state)
{
	struct stage *st = stage_open_default();
	struct roce_device *dev = roce_context_device(st->ctx);
	uint32_t qpn = roce_qp_num(st->qp);
	struct roce_cc_config c;

	(void)state;
	assert_int_equal(rd(dev, ROCE_REG_CC_CTRL),
			 2u << ROCE_CC_ECN_SHIFT | ROCE_CC_ADAPTIVE_RTO | ROCE_CC_ADAPTIVE_WINDOW);
	assert_int_equal(rd(dev, ROCE_REG_CC_RTT_US), 16);
	/* the QP's own, read back through the selection */
	assert_int_equal(roce_qp_set_recovery(st->qp, ROCE_RECOVERY_ADAPTIVE_RTO),
			 ROCE_E_INVAL);                 /* bits without OWN */
	assert_int_equal(roce_qp_set_recovery(st->qp, ROCE_RECOVERY_OWN |
					      ROCE_RECOVERY_ADAPTIVE_WINDOW), ROCE_OK);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CC_QP_SELECT, qpn), ROCE_OK);
	assert_int_equal(rd(dev, ROCE_REG_CC_QP_RECOVERY),
			 ROCE_CC_QP_REC_OWN | ROCE_CC_QP_REC_WINDOW);
	assert_int_equal(roce_device_write32(dev, ROCE_REG_CC_QP_RECOVERY, 1u << 4),
			 ROCE_E_SLVERR);                /* no such bit */

	/* a round trip measured: 10 us */
	assert_int_equal(roce_qp_set_recovery(st->qp, ROCE_RECOVERY_DEVICE), ROCE_OK);
	post_write(st, 1, 64);
	assert_int_equal(stage_run(st), 1);
	st->vclock += 10000;
	stage_inject_ack(st, st->sq_psn, 0, 1);
	stage_run(st);
	stage_expect_wc(st->scq, 1, ROCE_WC_SUCCESS, ROCE_WC_RDMA_WRITE, 64);
	/* the defaults: the lost tail is probed */
	assert_int_equal(lost_tail_frames(st, 2), 1);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 1);
	/* the QP's own IBA recovery (OWN, no bit): no probe, IBA's timer */
	assert_int_equal(roce_qp_set_recovery(st->qp, ROCE_RECOVERY_OWN), ROCE_OK);
	assert_int_equal(lost_tail_frames(st, 3), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 1);
	/* the device's again, IBA's through the block */
	assert_int_equal(roce_qp_set_recovery(st->qp, ROCE_RECOVERY_DEVICE), ROCE_OK);
	roce_cc_config_default(&c);
	roce_cc_config_iba_strict(&c);
	assert_int_equal(roce_context_set_cc(st->ctx, &c), ROCE_OK);
	assert_int_equal(rd(dev, ROCE_REG_CC_CTRL) &
			 (ROCE_CC_ADAPTIVE_RTO | ROCE_CC_ADAPTIVE_WINDOW), 0);
	assert_int_equal(lost_tail_frames(st, 4), 0);
	assert_int_equal(stage_cnt(st, ROCE_CNT_TAIL_PROBES), 1);
	assert_int_equal(window_now(st), 0);            /* no window at all */
	assert_int_equal(stage_cnt(st, ROCE_CNT_TIMEOUTS), 0);
	stage_close(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_adapts),
		cmocka_unit_test(test_window_tells_losses),
		cmocka_unit_test(test_window_cap_floor),
		cmocka_unit_test(test_window_delivery_rate),
		cmocka_unit_test(test_spurious_timeout),
		cmocka_unit_test(test_spurious_timeout_no_sample),
		cmocka_unit_test(test_spurious_timeout_ackreq),
		cmocka_unit_test(test_spurious_timeout_goes_on),
		cmocka_unit_test(test_spurious_timeout_answered),
		cmocka_unit_test(test_stale_ack_keeps_timer),
		cmocka_unit_test(test_exhaustion),
		cmocka_unit_test(test_silent_then_answers),
		cmocka_unit_test(test_infinite_timeout),
		cmocka_unit_test(test_registers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
