/* SPDX-License-Identifier: MIT */
/*
 * The register map, defined once as data (seed 000 section 3.1: "one table
 * manages every register"; Corundum's reg_block does the same). The
 * register file decodes every access through this table and
 * tools/roce-regmap-doc prints docs/regmap.md from it.
 *
 * Rows are sorted by offset. The STAT rows are generated from the counter
 * list in roce/counters.h.
 */
#include <strings.h>

#include "roce/cc.h"
#include "roce/counters.h"
#include "roce/params.h"
#include "roce/layout.h"
#include "roce/regmap.h"
#include "roce/regs.h"
#include "roce/stage.h"
#include "roce/status.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Field: full range / limited range / read-only status bit. */
#define F(n, lsb, w, d)            { n, lsb, w, 0, 0, false, d }
#define FR(n, lsb, w, lo, hi, d)   { n, lsb, w, lo, hi, false, d }
#define FRO(n, lsb, w, d)          { n, lsb, w, 0, 0, true, d }

/* Fields of the QP and MR entries: lsb and width from the entry codecs
 * (roce/layout.h), so the map, the document and the codecs agree. */
#define QF(n, f, d)         F(n, ROCE_QP_##f##_SHIFT, ROCE_QP_##f##_WIDTH, d)
#define QFR(n, f, lo, hi, d) \
	FR(n, ROCE_QP_##f##_SHIFT, ROCE_QP_##f##_WIDTH, lo, hi, d)
#define MF(n, f, d)         F(n, ROCE_MR_##f##_SHIFT, ROCE_MR_##f##_WIDTH, d)

#define REG(off, n, acc, rst, flds, d) \
	{ off, n, ROCE_ACC_##acc, rst, flds, ARRAY_SIZE(flds), d, -1, false }

_Static_assert(ROCE_FIRST_QPN + 1 == 18,
	       "QP_COUNT's description names the smallest QP count");

_Static_assert(ROCE_STAGE_KEY_LEN == 16 * 4 && ROCE_REG_STAGE_KEY(15) < 0x380u,
	       "STAGE_KEY_0..15 hold one key");

_Static_assert(ROCE_CNT_COUNT <= ROCE_REG_STAT_CNT_MAX,
	       "the counters no longer fit the STAT region");

_Static_assert((ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE |
		ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC) <=
	       ROCE_FIELD_MASK(ROCE_MR_ACCESS_WIDTH) << ROCE_MR_ACCESS_SHIFT,
	       "MR_ACCESS's rights must lie inside the codec's ACCESS field");

/* ---- fields ------------------------------------------------------------ */

static const struct roce_reg_field f_ctrl[] = {
	F("SOFT_RESET", 0, 1, "1 holds the engine and the link in reset. The "
	  "rising edge returns every QP to RESET, invalidates every MR, "
	  "empties every key slot and zeroes the counters; address registers keep their values. The "
	  "link-ready bits rise again link_delay_us after the falling edge"),
	F("ENGINE_EN", 1, 1, "1 runs the RoCE engine (when SOFT_RESET is 0). "
	  "Allowed before LINK_READY, but frames arriving before it are lost "
	  "and counted in STAT_RX_LOST_LINK_DOWN"),
	F("LOOPBACK", 2, 1, "1 loops transmitted frames back to the receive "
	  "path inside the device (seed 000 section 6.1, first bring-up step)"),
};
static const struct roce_reg_field f_word[] = {
	F("VALUE", 0, 32, "32-bit value"),
};
static const struct roce_reg_field f_mac_low[] = {
	F("MAC_2_5", 0, 32, "MAC bytes 2..5 (aa:bb:CC:DD:EE:FF -> 0xCCDDEEFF)"),
};
static const struct roce_reg_field f_mac_high[] = {
	F("MAC_0_1", 0, 16, "MAC bytes 0..1 (AA:BB:cc:dd:ee:ff -> 0xAABB)"),
};
static const struct roce_reg_field f_ip[] = {
	F("IPV4", 0, 32, "IPv4 address, first octet in bits 31:24 "
	  "(192.168.1.2 -> 0xC0A80102)"),
};
static const struct roce_reg_field f_port[] = {
	F("PORT", 0, 16, "UDP port"),
};
static const struct roce_reg_field f_status[] = {
	FRO("LINK_READY", 0, 1, "GT_POWERGOOD, TX_RESET_DONE and RX_RESET_DONE "
	    "all set: frames may flow"),
	FRO("GT_POWERGOOD", 1, 1, "transceiver power good (gtpowergood)"),
	FRO("TX_RESET_DONE", 2, 1, "transmit path out of reset (tx_resetdone)"),
	FRO("RX_RESET_DONE", 3, 1, "receive path out of reset (gt_rxresetdone)"),
	FRO("RUNNING", 4, 1, "ENGINE_EN set and SOFT_RESET clear"),
	FRO("IN_RESET", 5, 1, "SOFT_RESET set"),
};
static const struct roce_reg_field f_dev_id[] = {
	FRO("ID", 0, 32, "0x52434532, ASCII \"RCE2\""),
};
static const struct roce_reg_field f_version[] = {
	FRO("MAJOR", 16, 16, "changes when the map changes incompatibly"),
	FRO("MINOR", 8, 8, "changes when registers are added"),
	FRO("PATCH", 0, 8, "fixes without map changes"),
};
static const struct roce_reg_field f_count[] = {
	FRO("COUNT", 0, 32, "number of entries"),
};
static const struct roce_reg_field f_mem_kb[] = {
	FRO("KIB", 0, 32, "device memory size in KiB"),
};

/* table windows */
static const struct roce_reg_field f_qp_index[] = {
	FR("QPN", 0, 24, 0, ROCE_MAX_QP - 1, "QP number the window addresses "
	   "(QPN = table index); values >= QP_COUNT answer SLVERR, also "
	   "inside the range shown when the device has fewer QPs"),
};
static const struct roce_reg_field f_mr_index[] = {
	FR("INDEX", 0, 24, 0, ROCE_MAX_MR - 1, "MR entry the window addresses; "
	   "values >= MR_COUNT answer SLVERR"),
};
static const struct roce_reg_field f_commit[] = {
	FR("CMD", 0, 2, ROCE_TBL_CMD_COMMIT, ROCE_TBL_CMD_LOAD,
	   "1 = COMMIT: apply the shadow registers to the entry at once; "
	   "2 = LOAD: copy the entry (with any state the engine changed) into "
	   "the shadow registers. Other values answer SLVERR"),
	FRO("BUSY", 31, 1, "command in progress: poll until 0, then read "
	    "CMD_STATUS (this model completes at once)"),
};
static const struct roce_reg_field f_cmd_status[] = {
	FRO("CODE", 0, 8, "enum roce_status of the last command: 0 = done, "
	    "otherwise why the entry was rejected (table in the intro)"),
};
static const struct roce_reg_field f_qp_state[] = {
	QFR("STATE", STATE, 0, ROCE_QPS_ERR, "0 RESET, 1 INIT, 2 RTR, 3 RTS, "
	   "4 SQD, 5 SQE, 6 ERR (IBA 10.3.1); COMMIT checks the transition"),
};
static const struct roce_reg_field f_qp_type_mtu[] = {
	QFR("TYPE", TYPE, 0, ROCE_QPT_UD, "2 RC, 3 UC, 4 UD (ibverbs values), "
	   "required from INIT on"),
	QFR("MTU", MTU, 0, ROCE_MTU_4096, "path MTU 1=256 .. 5=4096 "
	   "(IBA 9.7), required from RTR on"),
	QFR("ACCESS", ACCESS, 0, 0xF, "remote access the QP allows: bit0 local "
	   "write, bit1 remote write, bit2 remote read, bit3 remote atomic"),
};
static const struct roce_reg_field f_qpn[] = {
	QF("QPN", QPN, "24-bit QP number"),
};
static const struct roce_reg_field f_psn[] = {
	QF("PSN", PSN, "24-bit packet sequence number"),
};
static const struct roce_reg_field f_pkey[] = {
	QF("PKEY", PKEY, "partition key; low 15 bits must not be 0 from INIT on "
	  "(0xFFFF = default partition)"),
};
static const struct roce_reg_field f_qp_timers[] = {
	QF("TIMEOUT", TIMEOUT, "local ACK timeout 4.096 us * 2^TIMEOUT, 0 = "
	  "infinite (IBA 9.7.6.1.3)"),
	QF("RETRY_CNT", RETRY_CNT, "retransmissions before the QP goes to ERR"),
	QF("RNR_RETRY", RNR_RETRY, "RNR retries, 7 = infinite"),
	QF("MIN_RNR_TIMER", MIN_RNR_TIMER, "RNR NAK timer field sent as responder "
	  "(IBA table 45)"),
};
static const struct roce_reg_field f_qp_rd_atomic[] = {
	QFR("MAX_RD_ATOMIC", MAX_RD_ATOMIC, 0, ROCE_MAX_RD_ATOMIC,
	    "outstanding RDMA READ/atomic requests as requester"),
	QFR("MAX_DEST_RD_ATOMIC", MAX_DEST_RD_ATOMIC, 0, ROCE_MAX_RD_ATOMIC,
	    "outstanding RDMA READ/atomic requests accepted as responder"),
};
static const struct roce_reg_field f_qkey[] = {
	F("QKEY", 0, 32, "Q_Key (UD)"),
};
static const struct roce_reg_field f_pd[] = {
	F("PD", 0, 32, "protection domain; QP and MR must match"),
};
static const struct roce_reg_field f_dgid[] = {
	F("GID", 0, 32, "four bytes of the peer's GID, the first in bits 31:24"),
};
static const struct roce_reg_field f_qp_grh[] = {
	QF("SGID_INDEX", SGID_INDEX, "our GID the QP sends from when its peer "
	  "is IPv6 (the port's GID table, built by the host: 0 the link-local "
	  "GID); an index that names no IPv6 GID sends from the link-local "
	  "one. An IPv4 peer is always sent to from IP_ADDR"),
	QF("HOP_LIMIT", HOP_LIMIT, "IPv6 hop limit / IPv4 TTL, 0 = 64"),
	QF("TCLASS", TCLASS, "IPv6 traffic class / IPv4 TOS"),
};
static const struct roce_reg_field f_flow_label[] = {
	QF("FLOW_LABEL", FLOW_LABEL, "IPv6 flow label; when not 0 the UDP "
	  "source port is made from it instead of from the QPNs (as "
	  "rdma_get_udp_sport)"),
};
static const struct roce_reg_field f_mr_access[] = {
	F("LOCAL_WRITE", 0, 1, "the engine may write the region (required "
	  "with REMOTE_WRITE or REMOTE_ATOMIC, IBA 10.6.3.1)"),
	F("REMOTE_WRITE", 1, 1, "peers may RDMA WRITE into the region"),
	F("REMOTE_READ", 2, 1, "peers may RDMA READ the region"),
	F("REMOTE_ATOMIC", 3, 1, "peers may run atomics on the region"),
	MF("SPACE", SPACE, "where PA is: 0 = device DDR, 1 = host memory "
	  "(PA is an I/O virtual address the host's IOMMU translates; the "
	  "engine refuses every access outside a window the host mapped, "
	  "whatever the entry says)"),
	MF("VALID", VALID, "1 = COMMIT registers the region, 0 = COMMIT "
	  "invalidates the entry"),
};
static const struct roce_reg_field f_low64[] = {
	F("LOW", 0, 32, "bits 31:0"),
};
static const struct roce_reg_field f_high64[] = {
	F("HIGH", 0, 32, "bits 63:32"),
};
static const struct roce_reg_field f_key[] = {
	MF("KEY_BYTE", KEY_BYTE, "driver-chosen random byte, so a key cannot be "
	  "guessed from the index"),
	MF("INDEX", KEY_INDEX, "must equal MR_INDEX"),
};
static const struct roce_reg_field f_mr_stage[] = {
	F("CHAIN_0", ROCE_MR_STAGE_CHAIN_SHIFT(0), ROCE_MR_STAGE_CHAIN_WIDTH,
	  "the stage next to the wire: 0 none (no stage: the MR as before), "
	  "1 dedup, 2 xts, 3 pi (roce/stage.h)"),
	F("CHAIN_1", ROCE_MR_STAGE_CHAIN_SHIFT(1), ROCE_MR_STAGE_CHAIN_WIDTH,
	  "the next stage towards DDR, 0 ends the chain"),
	F("CHAIN_2", ROCE_MR_STAGE_CHAIN_SHIFT(2), ROCE_MR_STAGE_CHAIN_WIDTH,
	  "the stage next to DDR, 0 ends the chain. COMMIT refuses a chain "
	  "with an unknown stage, a stage twice, a gap, or dedup not first"),
	MF("KEY_SLOT", STAGE_KEY_SLOT, "xts: the STAGE block's key slot"),
	MF("UNIT", STAGE_UNIT, "xts and pi: the data unit, 0 = 512 bytes, "
	   "1 = 4096 bytes (1 under dedup: its block); the MR's length must "
	   "be a whole number of units"),
};
static const struct roce_reg_field f_mr_stage_tag[] = {
	MF("APP_TAG", STAGE_TAG, "pi: the application tag of every tuple"),
};
static const struct roce_reg_field f_mr_pool_blocks[] = {
	F("BLOCKS", 0, 32, "dedup: 4 KiB blocks in the pool (at least 1)"),
};
static const struct roce_reg_field f_stage_slot[] = {
	FR("SLOT", 0, 8, 0, 255, "the key slot STAGE_KEY_CMD acts on; a slot "
	   ">= STAGE_KEY_SLOTS is refused by the command (STAGE_KEY_STATUS = "
	   "ROCE_E_NOENT)"),
};
static const struct roce_reg_field f_stage_cmd[] = {
	FR("CMD", 0, 2, ROCE_STAGE_KEY_CMD_LOAD, ROCE_STAGE_KEY_CMD_CLEAR,
	   "1 = LOAD: the 64 bytes of STAGE_KEY_0..15 into the slot (a key "
	   "whose two halves are equal is refused, IEEE 1619: the slot keeps "
	   "what it held); 2 = CLEAR: the slot holds no key. Either way the key "
	   "words are wiped. Other values answer SLVERR"),
	FRO("BUSY", 31, 1, "command in progress (this model completes at once)"),
};
static const struct roce_reg_field f_stage_status[] = {
	FRO("CODE", 0, 8, "enum roce_status of the last command: 0 = done, "
	    "ROCE_E_INVAL a key with equal halves, ROCE_E_NOENT no such slot"),
};
static const struct roce_reg_field f_stage_loaded[] = {
	FRO("SLOTS", 0, ROCE_STAGE_KEY_SLOTS, "bit n: slot n holds a key"),
};
static const struct roce_reg_field f_stage_key[] = {
	F("KEY", 0, 32, "four key bytes, byte 4n in bits 7:0 (little-endian); "
	  "reads 0"),
};
static const struct roce_reg_field f_cc_ctrl[] = {
	F("NP_PRIO_MASK", ROCE_CC_NP_MASK_SHIFT, 8, "priorities (a QP's traffic "
	  "class's DSCP >> 3) whose CE-marked packets get a CNP"),
	F("RP_PRIO_MASK", ROCE_CC_RP_MASK_SHIFT, 8, "priorities whose QPs mark "
	  "their packets ECT and run their algorithm (CC_ALGO, CC_QP_ALGO)"),
	FR("ECN", ROCE_CC_ECN_SHIFT, 2, 1, 2, "the ECN field of an RP QP's "
	   "packets: 2 ECT(0) (as ConnectX), 1 ECT(1)"),
	F("ADAPTIVE_RTO", 24, 1, "1: an RC QP retransmits after its measured "
	  "round trip (at least CC_RTO_MIN_US, never past its own timeout) and "
	  "sends tail-loss probes; retry exhaustion no sooner than IBA's"),
	F("ADAPTIVE_WINDOW", 25, 1, "1: an RC QP's go-back-N window is about "
	  "one bandwidth-delay product (CC_LINE_MBPS, its round trip or "
	  "CC_RTT_US; at most CC_WINDOW_KB), halved on a NAK or timeout, grown "
	  "back a packet per window acknowledged"),
};
static const struct roce_reg_field f_cc_line[] = {
	FR("LINE_MBPS", 0, 32, 1, 1600000, "the rate DCQCN starts from and "
	   "recovers to, Mbit/s"),
};
static const struct roce_reg_field f_cc_window[] = {
	FR("WINDOW_KB", 0, 32, 0, 1u << 20, "an RC QP's bound on unacknowledged "
	   "KB in flight (at least one packet); 0 = none"),
};
static const struct roce_reg_field f_cc_rto_min[] = {
	FR("RTO_MIN_US", 0, 32, 1, 10000000, "the adaptive timer's floor, us"),
};
static const struct roce_reg_field f_cc_commit[] = {
	FR("APPLY", 0, 1, 1, 1, "1: the engine takes the whole block (a "
	   "block that roce_cc_config_check refuses is not taken: CC_STATUS)"),
};
static const struct roce_reg_field f_cc_status[] = {
	FRO("REFUSED", 0, 1, "1: the last commit was refused (a value out of "
	    "range or inconsistent); the engine keeps the block before it"),
};
static const struct roce_reg_field f_cc_qp_select[] = {
	FR("QPN", 0, 24, 0, ROCE_MAX_QP - 1, "the QP CC_QP_RATE, CC_QP_WINDOW_KB and "
	   "CC_QP_ALGO show"),
};
static const struct roce_reg_field f_cc_qp_window[] = {
	FR("WINDOW_KB", 0, 32, 0, 1u << 20, "the selected RC QP's bound on "
	   "unacknowledged KB in flight (at least one packet); 0 = CC_WINDOW_KB's"),
};
static const struct roce_reg_field f_cc_qp_recovery[] = {
	F("ADAPTIVE_RTO", 0, 1, "with OWN: the adaptive timer and tail-loss probes"),
	F("ADAPTIVE_WINDOW", 1, 1, "with OWN: the loss-adaptive window"),
	F("OWN", 31, 1, "1: the selected QP's bits above; 0: CC_CTRL's"),
};
static const struct roce_reg_field f_cc_rtt[] = {
	FR("RTT_US", 0, 32, 1, 10000000, "the round trip the adaptive window "
	   "assumes until a QP has measured its own, us"),
};
static const struct roce_reg_field f_cc_qp_rate[] = {
	FRO("RATE_MBPS", 0, 31, "the selected QP's current rate, Mbit/s, as its "
	    "algorithm left it (0: never limited)"),
	FRO("LIMITED", 31, 1, "1: its algorithm holds it below line rate and it is "
	    "paced"),
};
#define X(n, N, def, lo, hi, unit, what) \
	static const struct roce_reg_field f_cc_##n[] = { FR(#N, 0, 32, lo, hi, unit ": " what) };
ROCE_DCQCN_KNOB_LIST(X)
ROCE_SWIFT_KNOB_LIST(X)         /* no name in both lists */
#undef X
static const struct roce_reg_field f_cc_algo[] = {
	FR("ALGO", 0, 32, 0, ROCE_CC_ALGO_COUNT - 1, "the reaction point's algorithm "
	   "of a QP that chooses none: 0 DCQCN, 1 Swift"),
};
static const struct roce_reg_field f_cc_qp_algo[] = {
	FR("ALGO", 0, 32, 0, ROCE_CC_ALGO_COUNT, "the selected QP's algorithm: 0 "
	   "CC_ALGO's, 1 DCQCN, 2 Swift (1 + CC_ALGO's values)"),
};

static const struct roce_reg_field f_link_status[] = {
	FRO("LINK_READY", 0, 1, "as STATUS.LINK_READY"),
	FRO("GT_POWERGOOD", 1, 1, "as STATUS.GT_POWERGOOD"),
	FRO("TX_RESET_DONE", 2, 1, "as STATUS.TX_RESET_DONE"),
	FRO("RX_RESET_DONE", 3, 1, "as STATUS.RX_RESET_DONE"),
};
static const struct roce_reg_field f_cnt_low[] = {
	FRO("LOW", 0, 32, "bits 31:0; reading latches bits 63:32 for _HIGH"),
};
static const struct roce_reg_field f_cnt_high[] = {
	FRO("HIGH", 0, 32, "bits 63:32 latched by the last read of _LOW"),
};

/* ---- the map ----------------------------------------------------------- */

#define CNT_ROWS(id, d)                                                       \
	{ ROCE_REG_STAT_CNT_LOW(ROCE_CNT_##id), "STAT_" #id "_LOW",           \
	  ROCE_ACC_RO, 0, f_cnt_low, ARRAY_SIZE(f_cnt_low), d,                \
	  ROCE_CNT_##id, false },                                             \
	{ ROCE_REG_STAT_CNT_HIGH(ROCE_CNT_##id), "STAT_" #id "_HIGH",         \
	  ROCE_ACC_RO, 0, f_cnt_high, ARRAY_SIZE(f_cnt_high), d,              \
	  ROCE_CNT_##id, true },
#define X_CNT_ROWS(id, name, desc) CNT_ROWS(id, desc)
#define X_DROP_ROWS(code, name) \
	CNT_ROWS(DROP_##code, "Frames dropped with status ROCE_E_" #code)

static const struct roce_reg regmap[] = {
	/* seed registers (seed 000 section 3.1), offsets exactly as there */
	REG(ROCE_REG_CTRL, "CTRL", RW, 0, f_ctrl,
	    "Control. Power-on value 0: out of soft reset, engine disabled. "
	    "Driver sequence: set SOFT_RESET, program addresses, QPs and MRs, "
	    "release SOFT_RESET (the link then comes up), wait for "
	    "STATUS.LINK_READY, then set ENGINE_EN"),
	REG(ROCE_REG_MAC_LOW, "MAC_LOW", RW, 0, f_mac_low, "Local MAC, low 32 bits"),
	REG(ROCE_REG_MAC_HIGH, "MAC_HIGH", RW, 0, f_mac_high, "Local MAC, high 16 bits"),
	REG(ROCE_REG_IP_ADDR, "IP_ADDR", RW, 0, f_ip, "Local IPv4 address"),
	REG(ROCE_REG_UDP_PORT, "UDP_PORT", RW, ROCE_UDP_PORT, f_port,
	    "Local UDP port: the destination port the receive path accepts "
	    "(4791, IBA A17.2.1)"),
	REG(ROCE_REG_PEER_MAC_LOW, "PEER_MAC_LOW", RW, 0, f_mac_low,
	    "Default peer MAC, low 32 bits"),
	REG(ROCE_REG_PEER_MAC_HIGH, "PEER_MAC_HIGH", RW, 0, f_mac_high,
	    "Default peer MAC, high 16 bits"),
	REG(ROCE_REG_PEER_IP, "PEER_IP", RW, 0, f_ip, "Default peer IPv4 address"),
	REG(ROCE_REG_PEER_UDP_PORT, "PEER_UDP_PORT", RW, ROCE_UDP_PORT, f_port,
	    "Destination UDP port of transmitted packets"),
	/* identity and status, in the seed's gap */
	REG(ROCE_REG_STATUS, "STATUS", RO, 0, f_status,
	    "Live device status. Reset value shown is before the link comes up"),
	REG(ROCE_REG_DEV_ID, "DEV_ID", RO, ROCE_DEV_ID_VALUE, f_dev_id,
	    "Device identifier \"RCE2\"; the driver checks it before anything "
	    "else (all-ones means no device on the bus)"),
	REG(ROCE_REG_VERSION, "VERSION", RO, ROCE_VERSION_VALUE, f_version,
	    "Register map version; the driver refuses another MAJOR"),
	REG(ROCE_REG_QP_COUNT, "QP_COUNT", RO, ROCE_MAX_QP, f_count,
	    "Number of QP table entries: QPNs 0..QP_COUNT-1 exist. Chosen "
	    "when the device is built (roce_device_config.qp_count): from 18, "
	    "so that QPN 17, the first after the reserved ones, exists, up to "
	    "the table's size; reset value shown is the default, the largest"),
	REG(ROCE_REG_MR_COUNT, "MR_COUNT", RO, ROCE_MAX_MR, f_count,
	    "Number of MR table entries"),
	REG(ROCE_REG_SCRATCH, "SCRATCH", RW, 0, f_word,
	    "Scratch register for bus tests; no effect"),
	REG(ROCE_REG_MEM_SIZE_KB, "MEM_SIZE_KB", RO,
	    ROCE_DEV_MEM_SIZE_DEFAULT / 1024, f_mem_kb,
	    "Device memory (DDR) size; MR physical ranges must lie inside it. "
	    "Reset value shown is the default size"),
	/* QP_TABLE window */
	REG(ROCE_REG_QP_INDEX, "QP_INDEX", RW, 0, f_qp_index,
	    "Selects the QP entry for COMMIT and LOAD"),
	REG(ROCE_REG_QP_COMMIT, "QP_COMMIT", CMD, 0, f_commit,
	    "QP table command; reads BUSY"),
	REG(ROCE_REG_QP_CMD_STATUS, "QP_CMD_STATUS", RO, 0, f_cmd_status,
	    "Result of the last QP command"),
	REG(ROCE_REG_QP_STATE, "QP_STATE", RW, 0, f_qp_state, "Shadow: QP state"),
	REG(ROCE_REG_QP_TYPE_MTU, "QP_TYPE_MTU", RW, 0, f_qp_type_mtu,
	    "Shadow: transport type, path MTU, access flags"),
	REG(ROCE_REG_QP_DEST_QPN, "QP_DEST_QPN", RW, 0, f_qpn,
	    "Shadow: remote QPN (RC/UC), required from RTR on"),
	REG(ROCE_REG_QP_SQ_PSN, "QP_SQ_PSN", RW, 0, f_psn,
	    "Shadow: next send PSN"),
	REG(ROCE_REG_QP_RQ_PSN, "QP_RQ_PSN", RW, 0, f_psn,
	    "Shadow: expected receive PSN"),
	REG(ROCE_REG_QP_PEER_IP, "QP_PEER_IP", RW, 0, f_ip,
	    "Shadow: peer IPv4 address, or the last 4 bytes of its IPv6 GID "
	    "(QP_DGID_0..2 hold the rest); required for RC/UC from RTR on: not "
	    "0 for IPv4, not a multicast GID for IPv6"),
	REG(ROCE_REG_QP_PEER_MAC_LOW, "QP_PEER_MAC_LOW", RW, 0, f_mac_low,
	    "Shadow: peer MAC, low 32 bits"),
	REG(ROCE_REG_QP_PEER_MAC_HIGH, "QP_PEER_MAC_HIGH", RW, 0, f_mac_high,
	    "Shadow: peer MAC, high 16 bits; unicast and non-zero for RC/UC "
	    "from RTR on"),
	REG(ROCE_REG_QP_PKEY, "QP_PKEY", RW, 0xFFFF, f_pkey, "Shadow: P_Key"),
	REG(ROCE_REG_QP_TIMERS, "QP_TIMERS", RW, 0, f_qp_timers,
	    "Shadow: retransmission timers and retry counts"),
	REG(ROCE_REG_QP_RD_ATOMIC, "QP_RD_ATOMIC", RW, 0, f_qp_rd_atomic,
	    "Shadow: RDMA READ/atomic depths"),
	REG(ROCE_REG_QP_QKEY, "QP_QKEY", RW, 0, f_qkey, "Shadow: Q_Key"),
	REG(ROCE_REG_QP_PD, "QP_PD", RW, 0, f_pd, "Shadow: protection domain"),
	/* MR_TABLE window */
	REG(ROCE_REG_MR_INDEX, "MR_INDEX", RW, 0, f_mr_index,
	    "Selects the MR entry for COMMIT and LOAD"),
	REG(ROCE_REG_MR_COMMIT, "MR_COMMIT", CMD, 0, f_commit,
	    "MR table command; reads BUSY"),
	REG(ROCE_REG_MR_CMD_STATUS, "MR_CMD_STATUS", RO, 0, f_cmd_status,
	    "Result of the last MR command"),
	REG(ROCE_REG_MR_ACCESS, "MR_ACCESS", RW, 0, f_mr_access,
	    "Shadow: access rights, address space and VALID"),
	REG(ROCE_REG_MR_VA_LOW, "MR_VA_LOW", RW, 0, f_low64,
	    "Shadow: virtual base address (what peers put in RETH.VA)"),
	REG(ROCE_REG_MR_VA_HIGH, "MR_VA_HIGH", RW, 0, f_high64,
	    "Shadow: virtual base address; VA + LEN must fit in 64 bits"),
	REG(ROCE_REG_MR_PA_LOW, "MR_PA_LOW", RW, 0, f_low64,
	    "Shadow: physical base address in device memory (SPACE 0) or "
	    "I/O virtual address in host memory (SPACE 1)"),
	REG(ROCE_REG_MR_PA_HIGH, "MR_PA_HIGH", RW, 0, f_high64,
	    "Shadow: physical base address; SPACE 0: PA + LEN <= "
	    "MEM_SIZE_KB * 1024; SPACE 1: PA + LEN <= 2^63"),
	REG(ROCE_REG_MR_LEN_LOW, "MR_LEN_LOW", RW, 0, f_low64,
	    "Shadow: region length in bytes"),
	REG(ROCE_REG_MR_LEN_HIGH, "MR_LEN_HIGH", RW, 0, f_high64,
	    "Shadow: region length; must not be 0 for a valid entry"),
	REG(ROCE_REG_MR_RKEY, "MR_RKEY", RW, 0, f_key,
	    "Shadow: R_Key peers present"),
	REG(ROCE_REG_MR_LKEY, "MR_LKEY", RW, 0, f_key,
	    "Shadow: L_Key local work requests present"),
	REG(ROCE_REG_MR_PD, "MR_PD", RW, 0, f_pd, "Shadow: protection domain"),
	REG(ROCE_REG_MR_STAGE, "MR_STAGE", RW, 0, f_mr_stage,
	    "Shadow: the MR's stage chain, wire side first, its key slot and "
	    "data unit (docs/stages.md). COMMIT checks the binding with the "
	    "entry (roce_stage_binding_check): a binding it refuses is not "
	    "committed, MR_CMD_STATUS = ROCE_E_INVAL"),
	REG(ROCE_REG_MR_STAGE_TAG, "MR_STAGE_TAG", RW, 0, f_mr_stage_tag,
	    "Shadow: stage settings, the PI application tag"),
	REG(ROCE_REG_MR_DUN_LOW, "MR_DUN_LOW", RW, 0, f_low64,
	    "Shadow: the data unit number of the MR's unit 0: XTS tweak and PI "
	    "reference tag base (IEEE 1619's DUN)"),
	REG(ROCE_REG_MR_DUN_HIGH, "MR_DUN_HIGH", RW, 0, f_high64,
	    "Shadow: the data unit number base"),
	REG(ROCE_REG_MR_PI_PA_LOW, "MR_PI_PA_LOW", RW, 0, f_low64,
	    "Shadow: pi: the PI area's DDR address, 8 bytes per unit (of the "
	    "MR, or of the pool under dedup), 8-byte aligned, inside the DDR"),
	REG(ROCE_REG_MR_PI_PA_HIGH, "MR_PI_PA_HIGH", RW, 0, f_high64,
	    "Shadow: the PI area's DDR address"),
	REG(ROCE_REG_MR_POOL_PA_LOW, "MR_POOL_PA_LOW", RW, 0, f_low64,
	    "Shadow: dedup: the block pool's DDR address, 4 KiB aligned, inside "
	    "the DDR, apart from the PI area (a DDR MR only)"),
	REG(ROCE_REG_MR_POOL_PA_HIGH, "MR_POOL_PA_HIGH", RW, 0, f_high64,
	    "Shadow: the block pool's DDR address"),
	REG(ROCE_REG_MR_POOL_BLOCKS, "MR_POOL_BLOCKS", RW, 0, f_mr_pool_blocks,
	    "Shadow: the block pool's size"),
	/* QP_TABLE window, continued */
	REG(ROCE_REG_QP_DGID_0, "QP_DGID_0", RW, 0, f_dgid,
	    "Shadow: peer GID bytes 0..3. QP_DGID_0..2 all 0, or 0, 0, "
	    "0x0000FFFF (::ffff:0:0/96): the peer is IPv4 (QP_PEER_IP)"),
	REG(ROCE_REG_QP_DGID_1, "QP_DGID_1", RW, 0, f_dgid,
	    "Shadow: peer GID bytes 4..7"),
	REG(ROCE_REG_QP_DGID_2, "QP_DGID_2", RW, 0, f_dgid,
	    "Shadow: peer GID bytes 8..11 (bytes 12..15: QP_PEER_IP)"),
	REG(ROCE_REG_QP_GRH, "QP_GRH", RW, 0, f_qp_grh,
	    "Shadow: the address vector's GRH fields (RoCE v2 puts them in "
	    "the IP header)"),
	REG(ROCE_REG_QP_FLOW_LABEL, "QP_FLOW_LABEL", RW, 0, f_flow_label,
	    "Shadow: IPv6 flow label (0 = none, as rxe and ConnectX send it "
	    "unless one is asked for)"),
	/* CC block */
	REG(ROCE_REG_CC_CTRL, "CC_CTRL", RW, 2u << ROCE_CC_ECN_SHIFT | ROCE_CC_ADAPTIVE_RTO |
	    ROCE_CC_ADAPTIVE_WINDOW, f_cc_ctrl,
	    "Congestion control: notification and reaction points per priority, "
	    "the ECN codepoint, loss recovery (docs/cc.md). Taken at "
	    "CC_COMMIT"),
	REG(ROCE_REG_CC_LINE_MBPS, "CC_LINE_MBPS", RW, 100000, f_cc_line,
	    "DCQCN's line rate. Taken at CC_COMMIT"),
	REG(ROCE_REG_CC_WINDOW_KB, "CC_WINDOW_KB", RW, 0, f_cc_window,
	    "Go-back-N's bounded window. Taken at CC_COMMIT"),
	REG(ROCE_REG_CC_RTO_MIN_US, "CC_RTO_MIN_US", RW, 100, f_cc_rto_min,
	    "The adaptive retransmission timer's floor. Taken at CC_COMMIT"),
	REG(ROCE_REG_CC_COMMIT, "CC_COMMIT", CMD, 0, f_cc_commit,
	    "Apply the CC block to the engine, all of it at once"),
	REG(ROCE_REG_CC_STATUS, "CC_STATUS", RO, 0, f_cc_status,
	    "Result of the last CC_COMMIT"),
	REG(ROCE_REG_CC_QP_SELECT, "CC_QP_SELECT", RW, 0, f_cc_qp_select,
	    "Window onto the engine's rate table: the QP to show"),
	REG(ROCE_REG_CC_QP_RATE, "CC_QP_RATE", RO, 0, f_cc_qp_rate,
	    "The selected QP's rate (DCQCN's, or Swift's below one packet), live"),
	REG(ROCE_REG_CC_QP_WINDOW_KB, "CC_QP_WINDOW_KB", RW, 0, f_cc_qp_window,
	    "The selected QP's own bounded window, in place of CC_WINDOW_KB; "
	    "taken at once (no CC_COMMIT)"),
	REG(ROCE_REG_CC_ALGO, "CC_ALGO", RW, 0, f_cc_algo,
	    "The device's congestion-control algorithm (docs/cc.md). Taken at "
	    "CC_COMMIT"),
	REG(ROCE_REG_CC_QP_ALGO, "CC_QP_ALGO", RW, 0, f_cc_qp_algo,
	    "The selected QP's own algorithm, in place of CC_ALGO; taken at once "
	    "(no CC_COMMIT)"),
	REG(ROCE_REG_CC_QP_RECOVERY, "CC_QP_RECOVERY", RW, 0, f_cc_qp_recovery,
	    "The selected QP's own loss recovery, in place of CC_CTRL's; "
	    "taken at once (no CC_COMMIT)"),
	REG(ROCE_REG_CC_RTT_US, "CC_RTT_US", RW, 16, f_cc_rtt,
	    "The adaptive window's round trip before a measured one. Taken at "
	    "CC_COMMIT"),
#define X(n, N, def, lo, hi, unit, what) \
	REG(ROCE_REG_CC_KNOB(ROCE_DCQCN_##N), "CC_" #N, RW, def, f_cc_##n, \
	    "DCQCN knob " #n " (ConnectX's name). Taken at CC_COMMIT"),
	ROCE_DCQCN_KNOB_LIST(X)
#undef X
#define X(n, N, def, lo, hi, unit, what) \
	REG(ROCE_REG_CC_SWIFT_KNOB(ROCE_SWIFT_##N), "CC_SWIFT_" #N, RW, def, f_cc_##n, \
	    "Swift knob " #n " (the paper's name). Taken at CC_COMMIT"),
	ROCE_SWIFT_KNOB_LIST(X)
#undef X
	/* STAGE block */
	REG(ROCE_REG_STAGE_KEY_SLOT, "STAGE_KEY_SLOT", RW, 0, f_stage_slot,
	    "The key slot a command acts on"),
	REG(ROCE_REG_STAGE_KEY_CMD, "STAGE_KEY_CMD", CMD, 0, f_stage_cmd,
	    "Key slot command; reads BUSY"),
	REG(ROCE_REG_STAGE_KEY_STATUS, "STAGE_KEY_STATUS", RO, 0, f_stage_status,
	    "Result of the last key slot command"),
	REG(ROCE_REG_STAGE_KEY_LOADED, "STAGE_KEY_LOADED", RO, 0, f_stage_loaded,
	    "The slots that hold a key (never the key)"),
	REG(ROCE_REG_STAGE_KEY_SLOTS, "STAGE_KEY_SLOTS", RO, ROCE_STAGE_KEY_SLOTS,
	    f_count, "Number of key slots"),
#define KEY_ROW(n) \
	REG(ROCE_REG_STAGE_KEY(n), "STAGE_KEY_" #n, WO, 0, f_stage_key, \
	    "Key bytes " #n "*4 .. " #n "*4+3 of the next LOAD; write-only"),
	KEY_ROW(0) KEY_ROW(1) KEY_ROW(2) KEY_ROW(3) KEY_ROW(4) KEY_ROW(5)
	KEY_ROW(6) KEY_ROW(7) KEY_ROW(8) KEY_ROW(9) KEY_ROW(10) KEY_ROW(11)
	KEY_ROW(12) KEY_ROW(13) KEY_ROW(14) KEY_ROW(15)
#undef KEY_ROW
	/* STAT region */
	REG(ROCE_REG_STAT_LINK_STATUS, "STAT_LINK_STATUS", RO, 0, f_link_status,
	    "Link bring-up status (STATUS[3:0] mirrored here)"),
	REG(ROCE_REG_STAT_CNT_COUNT, "STAT_CNT_COUNT", RO, ROCE_CNT_COUNT, f_count,
	    "Number of 64-bit counters that follow"),
	ROCE_COUNTER_LIST(X_CNT_ROWS)
	ROCE_DROP_LIST(X_DROP_ROWS)
	ROCE_DROP_LIST2(X_DROP_ROWS)
	ROCE_DROP_LIST3(X_DROP_ROWS)
	ROCE_COUNTER_LIST2(X_CNT_ROWS)
};

static const struct roce_reg_region regions[] = {
	{ "CONTROL", 0x000, 0x03F,
	  "The seed's address registers (0x00-0x20) and, in the gap after "
	  "them, identity and status registers a driver needs" },
	{ "QP_TABLE", 0x040, 0x07F,
	  "Window onto the QP table: index, command, status, shadow "
	  "registers of one QP context" },
	{ "MR_TABLE", 0x080, 0x0FF,
	  "Window onto the MR table: index, command, status, shadow "
	  "registers of one memory region" },
	{ "QP_TABLE_EXT", 0x100, 0x13F,
	  "The QP window continued: the seed's 16 QP registers are all in "
	  "use, so the address vector of RoCE v2 over IPv6 (peer GID, GRH "
	  "fields) sits here, part of the same shadow: QP_COMMIT and "
	  "QP_COMMIT's LOAD move these registers with the others" },
	{ "CC", 0x200, 0x2FF,
	  "Congestion control: ECN marking, CNPs, the algorithm (device and "
	  "per QP), DCQCN's knobs (ConnectX's names), Swift's (the paper's), "
	  "go-back-N's bounded window, adaptive retransmission; each "
	  "QP's current rate. Written, then applied at once by CC_COMMIT" },
	{ "STAGE", 0x300, ROCE_REG_STAGE_END,
	  "The inline stages' XTS key slots (docs/stages.md): a key is written "
	  "to the write-only STAGE_KEY_0..15 and loaded into a slot by "
	  "STAGE_KEY_CMD; no register ever reads a key back, and the key words "
	  "are wiped after each command. A soft reset empties every slot. An "
	  "MR's binding is in the MR window (MR_STAGE..MR_POOL_BLOCKS)" },
	{ "STAT", ROCE_REG_STAT_BASE, ROCE_REG_STAT_END,
	  "Link status and 64-bit engine counters, read-only" },
};

/* ---- lookups ----------------------------------------------------------- */

size_t roce_regmap_count(void)
{
	return ARRAY_SIZE(regmap);
}

const struct roce_reg *roce_regmap_at(size_t i)
{
	return i < ARRAY_SIZE(regmap) ? &regmap[i] : NULL;
}

const struct roce_reg *roce_regmap_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(regmap); i++)
		if (strcasecmp(regmap[i].name, name) == 0)
			return &regmap[i];
	return NULL;
}

/* Binary search: the table is sorted by offset (test_regs_map checks). */
const struct roce_reg *roce_regmap_find_offset(uint32_t off)
{
	size_t lo = 0, hi = ARRAY_SIZE(regmap);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (regmap[mid].offset == off)
			return &regmap[mid];
		if (regmap[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

size_t roce_regmap_region_count(void)
{
	return ARRAY_SIZE(regions);
}

const struct roce_reg_region *roce_regmap_region_at(size_t i)
{
	return i < ARRAY_SIZE(regions) ? &regions[i] : NULL;
}

const struct roce_reg_region *roce_regmap_region_of(uint32_t off)
{
	for (size_t i = 0; i < ARRAY_SIZE(regions); i++)
		if (off >= regions[i].base && off <= regions[i].end)
			return &regions[i];
	return NULL;
}

const char *roce_reg_access_name(enum roce_reg_access a)
{
	switch (a) {
	case ROCE_ACC_RO:
		return "RO";
	case ROCE_ACC_RW:
		return "RW";
	case ROCE_ACC_CMD:
		return "CMD";
	case ROCE_ACC_WO:
		return "WO";
	}
	return "?";
}

static uint32_t field_mask(const struct roce_reg_field *f)
{
	return f->width >= 32 ? ~0u : ((1u << f->width) - 1u) << f->lsb;
}

uint32_t roce_reg_write_mask(const struct roce_reg *r)
{
	uint32_t m = 0;

	if (r->access == ROCE_ACC_RO)
		return 0;
	for (unsigned i = 0; i < r->n_fields; i++)
		if (!r->fields[i].ro)
			m |= field_mask(&r->fields[i]);
	return m;
}

int roce_reg_check_write(const struct roce_reg *r, uint32_t val)
{
	if (r->access == ROCE_ACC_RO || (val & ~roce_reg_write_mask(r)))
		return ROCE_E_SLVERR;
	for (unsigned i = 0; i < r->n_fields; i++) {
		const struct roce_reg_field *f = &r->fields[i];
		uint32_t v = roce_reg_field_get(f, val);

		if (f->ro || f->max == 0)
			continue;
		if (v < f->min || v > f->max)
			return ROCE_E_SLVERR;
	}
	return ROCE_OK;
}
