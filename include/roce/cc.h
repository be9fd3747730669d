/* SPDX-License-Identifier: MIT */
/*
 * Congestion control: ECN marking, CNPs, DCQCN or Swift (docs/cc.md).
 *
 * The notification point (NP) answers a RoCE packet that arrives with
 * ECN Congestion Experienced (CE, set by a switch whose queue grew) with a
 * CNP (BTH opcode 0x81, BECN set, IBA Annex A17.9.3) to the sending QP, at
 * most one per min_time_between_cnps per QP. The reaction point (RP) marks
 * its QPs' data packets ECN-capable and runs the QP's algorithm: DCQCN
 * cuts the QP's rate on each CNP, then recovers it, and the transmit
 * arbiter paces the QP to it (a paced QP is not served until its time
 * comes); Swift keeps a window from the round trips of its ACKs, paced
 * below one packet, and ignores CNPs. Both are enabled per
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

/* An algorithm's knob by name (DCQCN's, Swift's): NAME, its range and
   unit, what it does. */
struct roce_cc_knob {
	const char *name;
	unsigned offset;
	uint32_t def, min, max;
	const char *unit, *what;
};
#define roce_dcqcn_knob roce_cc_knob    /* DCQCN's came first, under this name */
const struct roce_dcqcn_knob *roce_dcqcn_knobs(unsigned *n);
/* 0; -1 no knob of that name; -2 v out of its range. */
int roce_dcqcn_set(struct roce_dcqcn_params *p, const char *name, uint32_t v);
uint32_t roce_dcqcn_get(const struct roce_dcqcn_params *p, const struct roce_dcqcn_knob *k);

/*
 * Swift's knobs (Kumar et al., "Swift: Delay is Simple and Effective for
 * Congestion Control in the Datacenter", SIGCOMM 2020), under the
 * paper's names (its Algorithm 1 and section 3.5), defined once as
 * DCQCN's are: the parameter struct, the defaults, the names and the CC
 * block's registers from CC_SWIFT_KNOB_BASE. Windows are in thousandths
 * of a packet, factors in thousandths, delays in ns. Where the paper
 * gives no value the default is the one its public re-implementations
 * use, or ours (docs/cc.md, "Swift", says which).
 */
#define ROCE_SWIFT_KNOB_LIST(X)                                                 \
	X(base_target, BASE_TARGET, 25000, 1, 100000000, "ns",                   \
	  "target delay with no hop and no flow scaling")                        \
	X(h, H, 1000, 0, 10000000, "ns",                                         \
	  "hop scaling: target delay added per hop")                             \
	X(hops, HOPS, 1, 0, 255, "",                                             \
	  "hops assumed when the ACK's TTL shows none (64 seen)")                \
	X(fs_range, FS_RANGE, 125000, 0, 100000000, "ns",                        \
	  "flow scaling: most target added as the window shrinks")               \
	X(fs_min_cwnd, FS_MIN_CWND, 100, 1, 100000000, "1/1000 packet",          \
	  "flow scaling: fs_range added at and below this window")               \
	X(fs_max_cwnd, FS_MAX_CWND, 100000, 1, 100000000, "1/1000 packet",       \
	  "flow scaling: nothing added at and above this window")                \
	X(ai, AI, 1000, 1, 100000000, "1/1000 packet",                           \
	  "additive increase per round trip")                                    \
	X(beta, BETA, 800, 0, 1000, "1/1000",                                    \
	  "multiplicative decrease: beta * (delay - target) / delay")            \
	X(max_mdf, MAX_MDF, 500, 0, 999, "1/1000",                               \
	  "largest share of the window one decrease takes")                      \
	X(min_cwnd, MIN_CWND, 1, 1, 100000000, "1/1000 packet",                  \
	  "smallest window (below 1 packet: paced)")                             \
	X(max_cwnd, MAX_CWND, 256000, 1000, 100000000, "1/1000 packet",          \
	  "largest window (samples need it <= 256 packets)")                     \
	X(init_cwnd, INIT_CWND, 32000, 1, 100000000, "1/1000 packet",            \
	  "window of a new connection")                                          \
	X(retx_reset_threshold, RETX_RESET_THRESHOLD, 5, 1, 1000, "",            \
	  "timeouts in a row that reset the window to min_cwnd")

struct roce_swift_params {
#define ROCE_X_FIELD(n, N, def, lo, hi, unit, what) uint32_t n;
	ROCE_SWIFT_KNOB_LIST(ROCE_X_FIELD)
#undef ROCE_X_FIELD
};

enum roce_swift_knob_id {
#define ROCE_X_ID(n, N, def, lo, hi, unit, what) ROCE_SWIFT_##N,
	ROCE_SWIFT_KNOB_LIST(ROCE_X_ID)
#undef ROCE_X_ID
	ROCE_SWIFT_KNOB_COUNT
};

/* As roce_dcqcn_knobs, _set, _get for Swift's. */
const struct roce_cc_knob *roce_swift_knobs(unsigned *n);
int roce_swift_set(struct roce_swift_params *p, const char *name, uint32_t v);
uint32_t roce_swift_get(const struct roce_swift_params *p, const struct roce_cc_knob *k);

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
	uint8_t rp_prio_mask;   /* priorities whose QPs mark ECT and run their
				   algorithm (DCQCN or Swift); 0: RP off (CNPs
				   then count as ignored) */
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
	struct roce_swift_params swift;
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

/* A QP's congestion-control state, as the engine last left it. */
struct roce_qp_cc {
	bool limited;                   /* below line rate, paced */
	uint64_t rate_kbps;             /* the rate it sends at */
	uint64_t target_kbps;           /* DCQCN */
	uint32_t alpha;                 /* DCQCN: 1024ths */
	uint64_t cuts, increases;       /* decreases and increases of either */
	uint8_t algo;                   /* enum roce_cc_algo it runs */
	/* go-back-N's window now, PSNs (0: none; the adaptive window's or
	   the bound's, the algorithm's if smaller; an algorithm's own report,
	   before the engine's: its grant, 0 when it paces below a packet) */
	uint32_t window;
	/* Swift: its window, millionths of a packet; the last RTT sample and
	   the target delay it was compared with, ns */
	uint64_t cwnd_upkts;
	uint64_t rtt_ns, target_ns;
};
int roce_qp_cc_state(struct roce_qp *qp, struct roce_qp_cc *out);
/* The QP's own algorithm (enum roce_cc_algo) in place of the config's
   algo; -1 gives it the config's again. Through the register file
   (CC_QP_ALGO), taken by the engine at its next poll; ROCE_E_INVAL for an
   unknown one. The algorithm runs while the QP's priority is in
   rp_prio_mask (docs/cc.md). */
int roce_qp_set_cc_algo(struct roce_qp *qp, int algo);
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
