/* SPDX-License-Identifier: MIT */
/*
 * Congestion control: ECN marking, CNPs and DCQCN (docs/cc.md).
 *
 * The notification point (NP) answers a RoCE packet that arrives with
 * ECN Congestion Experienced (CE, set by a switch whose queue grew) with a
 * CNP (BTH opcode 0x81, BECN set, IBA Annex A17.9.3) to the sending QP, at
 * most one per min_time_between_cnps per QP. The reaction point (RP) marks
 * its QPs' data packets ECN-capable and runs DCQCN on each CNP: the QP's
 * rate is cut, then recovers, and the transmit arbiter paces the QP to it
 * (a paced QP is not served until its time comes). Both are enabled per
 * priority, as on ConnectX; the priority of a QP is its traffic class's
 * DSCP >> 3 (the usual DSCP-to-priority mapping).
 */
#ifndef ROCE_CC_H
#define ROCE_CC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * DCQCN's knobs, under ConnectX's names and in its units
 * (/sys/kernel/debug/mlx5/<pci>/cc_params, NVIDIA's DCQCN parameter
 * tables), defined once: the parameter struct, the defaults, the table
 * of names and the register map's CC block (docs/regmap.md) all come from
 * this list. X(name, NAME, default, min, max, unit, what); docs/cc.md says
 * how each enters the arithmetic.
 */
#define ROCE_DCQCN_KNOB_LIST(X)                                                 \
	X(rpg_time_reset, RPG_TIME_RESET, 300, 1, 131071, "us",                  \
	  "RP: rate-increase timer period T")                                    \
	X(rpg_byte_reset, RPG_BYTE_RESET, 32767, 0, 262136, "64 bytes",          \
	  "RP: bytes sent between rate increases B (0: off)")                    \
	X(rpg_threshold, RPG_THRESHOLD, 1, 1, 31, "",                            \
	  "RP: increase events spent in fast recovery F")                        \
	X(rpg_max_rate, RPG_MAX_RATE, 0, 0, 1600000, "Mbit/s",                   \
	  "RP: highest rate (0: line rate)")                                     \
	X(rpg_ai_rate, RPG_AI_RATE, 5, 1, 1600000, "Mbit/s",                     \
	  "RP: additive increase step")                                          \
	X(rpg_hai_rate, RPG_HAI_RATE, 50, 1, 1600000, "Mbit/s",                  \
	  "RP: hyper increase step")                                             \
	X(rpg_gd, RPG_GD, 11, 1, 15, "",                                         \
	  "RP: a cut is rate * alpha / 2^rpg_gd (11: alpha/2)")                  \
	X(rpg_min_dec_fac, RPG_MIN_DEC_FAC, 50, 0, 100, "%",                     \
	  "RP: the largest share of the rate one cut takes")                     \
	X(rpg_min_rate, RPG_MIN_RATE, 1, 1, 1600000, "Mbit/s",                   \
	  "RP: lowest rate")                                                     \
	X(rate_to_set_on_first_cnp, RATE_TO_SET_ON_FIRST_CNP, 0, 0, 1600000,     \
	  "Mbit/s", "RP: rate at a flow's first CNP (0: cut as any CNP)")        \
	X(dce_tcp_g, DCE_TCP_G, 1019, 0, 1024, "1/1024",                         \
	  "RP: alpha gain g: alpha * g / 1024 (+ (1024 - g) after a CNP)")       \
	X(dce_tcp_rtt, DCE_TCP_RTT, 1, 1, 131071, "us",                          \
	  "RP: alpha update period K")                                           \
	X(rate_reduce_monitor_period, RATE_REDUCE_MONITOR_PERIOD, 4, 0, 131071,  \
	  "us", "RP: at most one cut per period")                                \
	X(initial_alpha_value, INITIAL_ALPHA_VALUE, 1023, 0, 1024, "1/1024",     \
	  "RP: alpha at a flow's first CNP")                                     \
	X(clamp_tgt_rate, CLAMP_TGT_RATE, 0, 0, 1, "0/1",                        \
	  "RP: a cut sets the target rate to the current one")                   \
	X(clamp_tgt_rate_after_time_inc, CLAMP_TGT_RATE_AFTER_TIME_INC, 1, 0, 1, \
	  "0/1", "RP: ... when the last increase was the timer's")               \
	X(min_time_between_cnps, MIN_TIME_BETWEEN_CNPS, 4, 0, 4095, "us",        \
	  "NP: per QP")                                                          \
	X(cnp_dscp, CNP_DSCP, 48, 0, 63, "", "NP: the CNP's DSCP")               \
	X(cnp_802p_prio, CNP_802P_PRIO, 6, 0, 7, "",                             \
	  "NP: the CNP's 802.1p priority (on a tagged port)")

struct roce_dcqcn_params {
#define ROCE_X_FIELD(n, N, def, lo, hi, unit, what) uint32_t n;
	ROCE_DCQCN_KNOB_LIST(ROCE_X_FIELD)
#undef ROCE_X_FIELD
};

enum roce_dcqcn_knob_id {
#define ROCE_X_ID(n, N, def, lo, hi, unit, what) ROCE_DCQCN_##N,
	ROCE_DCQCN_KNOB_LIST(ROCE_X_ID)
#undef ROCE_X_ID
	ROCE_DCQCN_KNOB_COUNT
};

/* The knobs by name: NAME, its range and unit, what it does. */
struct roce_dcqcn_knob {
	const char *name;
	unsigned offset;
	uint32_t def, min, max;
	const char *unit, *what;
};
const struct roce_dcqcn_knob *roce_dcqcn_knobs(unsigned *n);
/* 0; -1 no knob of that name; -2 v out of its range. */
int roce_dcqcn_set(struct roce_dcqcn_params *p, const char *name, uint32_t v);
uint32_t roce_dcqcn_get(const struct roce_dcqcn_params *p, const struct roce_dcqcn_knob *k);

/* The reaction point's algorithm (docs/cc.md; each one a file behind
   src/cc/algo.h's operations table). */
enum roce_cc_algo {
	ROCE_CC_ALGO_DCQCN,     /* rate-based, on CNPs (Zhu et al., SIGCOMM 2015) */
	ROCE_CC_ALGO_SWIFT,     /* delay-based, a window from RTTs (Kumar et al.,
				   SIGCOMM 2020) */
	ROCE_CC_ALGO_COUNT
};
/* The algorithm's name ("dcqcn", "swift"), or NULL; and back (-1: none). */
const char *roce_cc_algo_name(unsigned algo);
int roce_cc_algo_by_name(const char *name);

struct roce_cc_config {
	uint8_t np_prio_mask;   /* priorities whose CE marks get CNPs; 0: NP off */
	uint8_t rp_prio_mask;   /* priorities whose QPs mark ECT and react to
				   CNPs; 0: RP off (CNPs then count as ignored) */
	uint8_t ecn;            /* the ECN field of an RP QP's packets: 2 = ECT(0),
				   as ConnectX sends (default), 1 = ECT(1) */
	uint32_t line_mbps;     /* the rate DCQCN starts from and recovers to */
	/* Go-back-N's bounded window (IRN, Mittal et al., SIGCOMM 2018): an RC
	   QP keeps at most this many KB unacknowledged in flight (at least one
	   packet), so a loss resends at most that much; about one
	   bandwidth-delay product. 0: bounded by the PSN space only. Applies
	   whether or not the NP and RP are on. */
	uint32_t window_kb;
	/* Adaptive retransmission: an RC QP's timer is its measured round
	   trip (RFC 6298's srtt + 4 rttvar, one sample at a time, none across
	   a resend; 16 rto_min_us before the first), at least rto_min_us
	   (default 100: above a congested fabric's queueing delay; a clean
	   lossy path recovers faster with less, docs/cc.md),
	   doubled per timeout in a row, never
	   longer than the QP's own timeout; the retry count is spent as IBA
	   spends it. Off: the QP's timeout (IBA 9.7.6.1.3) alone. */
	bool adaptive_rto;
	uint32_t rto_min_us;
	/* Go-back-N's window adapts to loss: about one bandwidth-delay
	   product, halved on a NAK or a timeout, grown back additively
	   (docs/cc.md). Off: window_kb alone bounds it. */
	bool adaptive_window;
	/* The round trip the adaptive window's bandwidth-delay product
	   assumes until the QP has measured its own, us (default 16: a
	   data centre's few switch hops at 100 Gbit/s plus two NICs) */
	uint32_t rtt_us;
	/* The RP QPs' algorithm unless a QP chooses its own (enum
	   roce_cc_algo; default DCQCN). */
	uint8_t algo;
	struct roce_dcqcn_params dcqcn;
};

/* ECN off (both masks 0), ECT(0), 100 Gbit/s, ConnectX's DCQCN knobs;
   loss recovery on: the adaptive timer with tail-loss probes and the
   loss-adaptive window (docs/cc.md, "Defaults"). */
void roce_cc_config_default(struct roce_cc_config *c);
/* IBA's behaviour alone (--iba-strict): no adaptive timer, no tail-loss
   probe, no adaptive window, no window bound. */
void roce_cc_config_iba_strict(struct roce_cc_config *c);
/* The paper's DCQCN profile (Zhu et al., SIGCOMM 2015) in c->dcqcn. */
void roce_cc_dcqcn_paper(struct roce_cc_config *c);
/* NULL if c is valid, else the name of the first bad field. */
const char *roce_cc_config_check(const struct roce_cc_config *c);

struct roce_context;
struct roce_qp;

/* Applies c to the context's engine (its QPs' packets are ECT-marked from
   the next one on when their priority is an RP's); ROCE_E_INVAL for a bad
   config (roce_cc_config_check says which field). */
int roce_context_set_cc(struct roce_context *ctx, const struct roce_cc_config *c);

/* A QP's DCQCN state, as the engine last left it. */
struct roce_qp_cc {
	bool limited;                   /* below line rate, paced */
	uint64_t rate_kbps;             /* the rate it sends at */
	uint64_t target_kbps;
	uint32_t alpha;                 /* 1024ths */
	uint64_t cuts, increases;
	uint32_t window;                /* go-back-N's window now, PSNs (0:
					   none; the adaptive window's or the
					   bound's, the algorithm's if smaller) */
};
int roce_qp_cc_state(struct roce_qp *qp, struct roce_qp_cc *out);
/* The QP's own bound on unacknowledged KB in flight (RC; at least one
   packet), in place of the config's window_kb; 0 gives it the config's
   again. Through the register file (CC_QP_WINDOW_KB), taken by the engine
   at its next poll; ROCE_E_INVAL past 1 GiB. */
int roce_qp_set_window_kb(struct roce_qp *qp, uint32_t kb);

/* A QP's loss recovery (CC_QP_RECOVERY): ROCE_RECOVERY_DEVICE follows the
   device's CC_CTRL (the default); ROCE_RECOVERY_OWN with the bits the QP
   wants (none of them: IBA's recovery alone). Taken by the engine at its
   next poll; ROCE_E_INVAL for bits without ROCE_RECOVERY_OWN. */
#define ROCE_RECOVERY_DEVICE          0u
#define ROCE_RECOVERY_ADAPTIVE_RTO    (1u << 0)   /* adaptive timer, tail-loss probes */
#define ROCE_RECOVERY_ADAPTIVE_WINDOW (1u << 1)   /* the loss-adaptive window */
#define ROCE_RECOVERY_OWN             (1u << 31)
int roce_qp_set_recovery(struct roce_qp *qp, unsigned flags);

#endif
