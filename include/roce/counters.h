/* SPDX-License-Identifier: MIT */
/*
 * Engine counters. The list below is the single definition: it makes the
 * enum, the names, and the STAT region registers (a LOW/HIGH pair per
 * counter, see src/regs/regmap.c), so adding a counter here adds its
 * registers and their documentation.
 *
 * Counters are written by the data-path thread and read by the register
 * file from another thread. Each counter has one writer (the engine that
 * owns the device), so an increment is a relaxed load and a relaxed store,
 * not a locked read-modify-write: it costs what a plain add costs on the
 * hot path and keeps ThreadSanitizer quiet. A soft reset that clears the
 * counters while traffic flows may lose to an increment in flight; that is
 * the hardware's behaviour too. Seed 000 section 6.2: "counters for
 * everything".
 */
#ifndef ROCE_COUNTERS_H
#define ROCE_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "roce/status.h"

/* X(ID, name, description) */
#define ROCE_COUNTER_LIST(X)                                                  \
	X(TX_PKTS, "tx_pkts", "Frames transmitted")                           \
	X(TX_BYTES, "tx_bytes", "Bytes transmitted (whole frames, no FCS)")   \
	X(RX_PKTS, "rx_pkts", "Frames accepted by the receive checks")        \
	X(RX_BYTES, "rx_bytes", "Bytes of accepted frames (no FCS)")          \
	X(ACKS_TX, "acks_tx", "ACKs sent (AETH syndrome ACK)")                \
	X(ACKS_RX, "acks_rx", "ACKs received")                                \
	X(NAKS_TX_PSN_SEQ_ERR, "naks_tx_psn_seq_err", "NAKs sent: PSN sequence error") \
	X(NAKS_TX_RNR, "naks_tx_rnr", "RNR NAKs sent")                        \
	X(NAKS_TX_INVALID_REQ, "naks_tx_invalid_req", "NAKs sent: invalid request") \
	X(NAKS_TX_REMOTE_ACCESS, "naks_tx_remote_access", "NAKs sent: remote access error") \
	X(NAKS_TX_REMOTE_OP, "naks_tx_remote_op", "NAKs sent: remote operational error") \
	X(NAKS_RX_PSN_SEQ_ERR, "naks_rx_psn_seq_err", "NAKs received: PSN sequence error") \
	X(NAKS_RX_RNR, "naks_rx_rnr", "RNR NAKs received")                    \
	X(NAKS_RX_INVALID_REQ, "naks_rx_invalid_req", "NAKs received: invalid request") \
	X(NAKS_RX_REMOTE_ACCESS, "naks_rx_remote_access", "NAKs received: remote access error") \
	X(NAKS_RX_REMOTE_OP, "naks_rx_remote_op", "NAKs received: remote operational error") \
	X(RETRANSMISSIONS, "retransmissions", "Packets retransmitted (NAK or timeout)") \
	X(DUP_REQUESTS, "dup_requests", "Duplicate requests answered again, not executed again (responder)") \
	X(TIMEOUTS, "timeouts", "Transport (ACK) timeouts")                   \
	X(RNR_RETRIES, "rnr_retries", "Retries after an RNR NAK")             \
	X(ICRC_ERRORS, "icrc_errors", "Frames with a bad ICRC (also in DROP_ICRC)") \
	X(RX_LOST_LINK_DOWN, "rx_lost_link_down",                             \
	  "Frames lost because the engine was disabled, in reset, or enabled before link-ready") \
	X(COMPLETIONS, "completions", "Work completions raised")              \
	X(ERROR_COMPLETIONS, "error_completions", "Work completions with an error status") \
	X(DROP_OTHER, "drop_other", "Frames dropped for a status outside the receive-rejection codes")

/*
 * One drop counter per receive-rejection code of status.h, in the same
 * order (ROCE_E_TOO_SHORT .. ROCE_E_SRC_ADDR). X(CODE, name); the counter
 * is DROP_<CODE>, the status ROCE_E_<CODE>. counters.c checks at compile
 * time that this list and status.h agree.
 */
#define ROCE_DROP_LIST(X)                                                     \
	X(TOO_SHORT, "too_short") X(ETHERTYPE, "ethertype")                   \
	X(IP_VERSION, "ip_version") X(IP_IHL, "ip_ihl")                       \
	X(IP_CSUM, "ip_csum") X(IP_LEN, "ip_len") X(IP_FRAG, "ip_frag")       \
	X(NOT_UDP, "not_udp") X(UDP_PORT, "udp_port") X(UDP_LEN, "udp_len")   \
	X(UDP_CSUM, "udp_csum") X(BTH_TVER, "bth_tver") X(OPCODE, "opcode")   \
	X(HDR_LEN, "hdr_len") X(PAD, "pad") X(ICRC, "icrc") X(MAC, "mac")     \
	X(IP_ADDR, "ip_addr") X(QPN, "qpn") X(QP_STATE, "qp_state")           \
	X(PSN, "psn") X(PKEY, "pkey") X(RKEY, "rkey") X(LKEY, "lkey")         \
	X(ACCESS, "access") X(BOUNDS, "bounds") X(ALIGN, "align")             \
	X(LINK_DOWN, "link_down") X(DISABLED, "disabled")                   \
	X(SRC_ADDR, "src_addr")

#define ROCE_DROP_FIRST_STATUS ROCE_E_TOO_SHORT
#define ROCE_DROP_LAST_STATUS  ROCE_E_SRC_ADDR

/*
 * Receive-rejection codes added after the first list: status.h appends
 * them after the host-environment codes (the codes before keep their
 * values, as the DROP_ counters before keep their registers). Their
 * counters follow DROP_SRC_ADDR, in the same order; append here and in
 * status.h together.
 */
#define ROCE_DROP_LIST2(X)                                                    \
	X(QP_TYPE, "qp_type") X(UC_GAP, "uc_gap") X(NO_RWQE, "no_rwqe")       \
	X(RECV_LEN, "recv_len") X(IP6_NEXT_HDR, "ip6_next_hdr")               \
	X(IP6_EXT_LEN, "ip6_ext_len") X(IP6_ADDR, "ip6_addr")

#define ROCE_DROP2_FIRST_STATUS ROCE_E_QP_TYPE
#define ROCE_DROP2_LAST_STATUS  ROCE_E_IP6_ADDR

/*
 * Receive-rejection codes appended after ROCE_E_BUSY (a host-environment
 * code between them and the list above): their counters follow
 * DROP_IP6_ADDR, in the same order; append here and in status.h together.
 */
#define ROCE_DROP_LIST3(X)                                                    \
	X(QKEY, "qkey")

#define ROCE_DROP3_FIRST_STATUS ROCE_E_QKEY
#define ROCE_DROP3_LAST_STATUS  ROCE_E_QKEY

/*
 * Counters appended after the drop counters (the registers before keep
 * their offsets): congestion control, under mlx5's names (its
 * hw_counters), so a ConnectX user reads the same figures.
 */
#define ROCE_COUNTER_LIST2(X)                                                 \
	X(NP_ECN_MARKED_ROCE_PACKETS, "np_ecn_marked_roce_packets",           \
	  "RoCE packets received with ECN Congestion Experienced (notification point)") \
	X(NP_CNP_SENT, "np_cnp_sent", "CNPs sent for CE-marked packets (notification point)") \
	X(RP_CNP_HANDLED, "rp_cnp_handled", "CNPs received and acted on by DCQCN (reaction point)") \
	X(RP_CNP_IGNORED, "rp_cnp_ignored", "CNPs received with the reaction point off for the QP's priority") \
	X(TAIL_PROBES, "tail_probes",                                         \
	  "packets sent again as a tail-loss probe (adaptive retransmission)") \
	ROCE_COUNTER_LIST_STAGE(X)

/* The data path's stages (roce/stage.h): units through each, and the
 * dedup volumes' state (the last two are levels, not counts). */
#define ROCE_COUNTER_LIST_STAGE(X)                                            \
	X(STAGE_XTS_ENCRYPTED, "stage_xts_encrypted", "XTS data units encrypted (placed)") \
	X(STAGE_XTS_DECRYPTED, "stage_xts_decrypted", "XTS data units decrypted (fetched)") \
	X(STAGE_PI_GENERATED, "stage_pi_generated", "PI tuples generated (placed units)") \
	X(STAGE_PI_VERIFIED, "stage_pi_verified", "PI tuples verified (fetched units)") \
	X(STAGE_PI_ERRORS, "stage_pi_errors", "units whose PI did not match: the access failed") \
	X(STAGE_DEDUP_LOOKUPS, "stage_dedup_lookups", "whole blocks fingerprinted and looked up") \
	X(STAGE_DEDUP_HITS, "stage_dedup_hits", "of them, stored once already (shared)") \
	X(STAGE_DEDUP_BLOCKS, "stage_dedup_blocks", "physical blocks in use, every dedup volume (a level)") \
	X(STAGE_DEDUP_SAVED, "stage_dedup_saved", "bytes the dedup volumes do not store: mapped minus stored blocks (a level)") \
	X(STAGE_ERRORS, "stage_errors", "accesses a stage failed (PI, pool full, no key)")

enum roce_cnt {
#define ROCE_X_CNT(id, name, desc) ROCE_CNT_##id,
	ROCE_COUNTER_LIST(ROCE_X_CNT)
#undef ROCE_X_CNT
#define ROCE_X_DROP(code, name) ROCE_CNT_DROP_##code,
	ROCE_DROP_LIST(ROCE_X_DROP)
	ROCE_DROP_LIST2(ROCE_X_DROP)
	ROCE_DROP_LIST3(ROCE_X_DROP)
#undef ROCE_X_DROP
	ROCE_CNT_DROP3_END,
	ROCE_CNT_LIST2_BEFORE = ROCE_CNT_DROP3_END - 1,
#define ROCE_X_CNT(id, name, desc) ROCE_CNT_##id,
	ROCE_COUNTER_LIST2(ROCE_X_CNT)
#undef ROCE_X_CNT
	ROCE_CNT_COUNT
};

#define ROCE_CNT_DROP_FIRST ROCE_CNT_DROP_TOO_SHORT
#define ROCE_CNT_DROP2_FIRST ROCE_CNT_DROP_QP_TYPE
#define ROCE_CNT_DROP3_FIRST ROCE_CNT_DROP_QKEY

struct roce_counters {
	uint64_t v[ROCE_CNT_COUNT];
};

static inline void roce_cnt_add(struct roce_counters *c, enum roce_cnt id,
				uint64_t n)
{
	__atomic_store_n(&c->v[id], __atomic_load_n(&c->v[id], __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

static inline void roce_cnt_inc(struct roce_counters *c, enum roce_cnt id)
{
	roce_cnt_add(c, id, 1);
}

static inline uint64_t roce_cnt_read(const struct roce_counters *c,
				     enum roce_cnt id)
{
	return __atomic_load_n(&c->v[id], __ATOMIC_RELAXED);
}

/*
 * Count a dropped frame under the status that rejected it. Also keeps the
 * summary counters consistent: ROCE_E_ICRC counts ICRC_ERRORS, and
 * ROCE_E_LINK_DOWN / ROCE_E_DISABLED count RX_LOST_LINK_DOWN, so callers
 * count a drop once, here.
 */
static inline void roce_cnt_drop(struct roce_counters *c, int status)
{
	if (status >= ROCE_DROP3_FIRST_STATUS && status <= ROCE_DROP3_LAST_STATUS) {
		roce_cnt_inc(c, (enum roce_cnt)(ROCE_CNT_DROP3_FIRST +
						(status - ROCE_DROP3_FIRST_STATUS)));
		return;
	}
	if (status >= ROCE_DROP2_FIRST_STATUS && status <= ROCE_DROP2_LAST_STATUS) {
		roce_cnt_inc(c, (enum roce_cnt)(ROCE_CNT_DROP2_FIRST +
						(status - ROCE_DROP2_FIRST_STATUS)));
		return;
	}
	if (status < ROCE_DROP_FIRST_STATUS || status > ROCE_DROP_LAST_STATUS) {
		roce_cnt_inc(c, ROCE_CNT_DROP_OTHER);
		return;
	}
	roce_cnt_inc(c, (enum roce_cnt)(ROCE_CNT_DROP_FIRST +
					(status - ROCE_DROP_FIRST_STATUS)));
	if (status == ROCE_E_ICRC)
		roce_cnt_inc(c, ROCE_CNT_ICRC_ERRORS);
	else if (status == ROCE_E_LINK_DOWN || status == ROCE_E_DISABLED)
		roce_cnt_inc(c, ROCE_CNT_RX_LOST_LINK_DOWN);
}

/* "name value" lines, one per counter (only the non-zero ones unless all),
 * for tools and scripts. */
void roce_counters_print(FILE *stream, const struct roce_counters *c, bool all);

/* Zero every counter (soft reset). */
void roce_counters_clear(struct roce_counters *c);

/* "tx_pkts", "drop_icrc"; NULL for an unknown id. */
const char *roce_cnt_name(int id);
/* Human description; NULL for an unknown id. */
const char *roce_cnt_desc(int id);
/* The status a DROP_* counter counts, or -1 for other counters. */
int roce_cnt_drop_status(int id);
/* Counter id by name (case-insensitive), or -1. */
int roce_cnt_find(const char *name);

#endif
