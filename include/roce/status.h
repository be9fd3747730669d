/* SPDX-License-Identifier: MIT */
/*
 * One status enum for the whole engine: 0 is success, every failure has its
 * own code and a name. Parse rejections double as drop reasons: the receive
 * path counts a dropped packet under the code that rejected it.
 */
#ifndef ROCE_STATUS_H
#define ROCE_STATUS_H

/* X(code, name, description) */
#define ROCE_STATUS_LIST(X)                                                   \
	X(ROCE_OK, "ok", "success")                                           \
	/* generic */                                                         \
	X(ROCE_E_INVAL, "inval", "invalid argument")                          \
	X(ROCE_E_NOMEM, "nomem", "out of memory")                             \
	X(ROCE_E_RANGE, "range", "value out of range")                        \
	X(ROCE_E_IO, "io", "input/output error")                              \
	X(ROCE_E_NOENT, "noent", "no such entry")                             \
	X(ROCE_E_EXISTS, "exists", "entry already exists")                    \
	X(ROCE_E_FULL, "full", "table or queue full")                         \
	X(ROCE_E_EMPTY, "empty", "queue empty")                               \
	X(ROCE_E_STATE, "state", "operation not allowed in this state")       \
	X(ROCE_E_TIMEOUT, "timeout", "timed out")                             \
	X(ROCE_E_AGAIN, "again", "try again")                                 \
	X(ROCE_E_UNSUPPORTED, "unsupported", "not supported")                 \
	X(ROCE_E_FORMAT, "format", "malformed input")                         \
	/* bus (AXI-Lite responses) */                                        \
	X(ROCE_E_SLVERR, "slverr", "AXI-Lite SLVERR: slave error")            \
	X(ROCE_E_DECERR, "decerr", "AXI-Lite DECERR: decode error")           \
	X(ROCE_E_NODEV, "nodev", "device absent (register reads all-ones)")   \
	X(ROCE_E_MISMATCH, "mismatch", "read-back differs from the expected value") \
	/* packet parse rejections, in the order the receive path checks */   \
	X(ROCE_E_TOO_SHORT, "too_short", "frame truncated")                   \
	X(ROCE_E_ETHERTYPE, "ethertype", "not IPv4/IPv6")                     \
	X(ROCE_E_IP_VERSION, "ip_version", "bad IP version")                  \
	X(ROCE_E_IP_IHL, "ip_ihl", "bad IPv4 header length")                  \
	X(ROCE_E_IP_CSUM, "ip_csum", "bad IPv4 header checksum")              \
	X(ROCE_E_IP_LEN, "ip_len", "bad IP length field")                     \
	X(ROCE_E_IP_FRAG, "ip_frag", "IP fragment")                           \
	X(ROCE_E_NOT_UDP, "not_udp", "IP protocol is not UDP")                \
	X(ROCE_E_UDP_PORT, "udp_port", "UDP destination port is not RoCE")    \
	X(ROCE_E_UDP_LEN, "udp_len", "bad UDP length field")                  \
	X(ROCE_E_UDP_CSUM, "udp_csum", "bad UDP checksum")                    \
	X(ROCE_E_BTH_TVER, "bth_tver", "unsupported BTH transport version")   \
	X(ROCE_E_OPCODE, "opcode", "unknown or unsupported BTH opcode")       \
	X(ROCE_E_HDR_LEN, "hdr_len", "packet shorter than its opcode's headers") \
	X(ROCE_E_PAD, "pad", "bad pad count")                                 \
	X(ROCE_E_ICRC, "icrc", "bad ICRC")                                    \
	X(ROCE_E_MAC, "mac", "destination MAC is not ours")                   \
	X(ROCE_E_IP_ADDR, "ip_addr", "destination IP is not ours")            \
	/* transport (receive checks, responder, completer) */                \
	X(ROCE_E_QPN, "qpn", "no such QP")                                    \
	X(ROCE_E_QP_STATE, "qp_state", "QP state does not accept the packet") \
	X(ROCE_E_PSN, "psn", "PSN out of sequence")                           \
	X(ROCE_E_PKEY, "pkey", "P_Key mismatch")                              \
	X(ROCE_E_RKEY, "rkey", "bad R_Key")                                   \
	X(ROCE_E_LKEY, "lkey", "bad L_Key")                                   \
	X(ROCE_E_ACCESS, "access", "access right missing")                    \
	X(ROCE_E_BOUNDS, "bounds", "address range outside the region")        \
	X(ROCE_E_ALIGN, "align", "misaligned address")                        \
	X(ROCE_E_LINK_DOWN, "link_down", "link not ready")                    \
	X(ROCE_E_DISABLED, "disabled", "engine disabled or in reset")          \
	X(ROCE_E_SRC_ADDR, "src_addr", "source address is not the QP's peer") \
	/* host environment (appended: the codes above are register values) */ \
	X(ROCE_E_PERM, "perm", "permission denied")                         \
	/* receive rejections appended later (counters.h: ROCE_DROP_LIST2) */ \
	X(ROCE_E_QP_TYPE, "qp_type", "opcode of another transport than the QP's") \
	X(ROCE_E_UC_GAP, "uc_gap", "UC packet of a broken message (PSN gap, FIRST lost or dropped)") \
	X(ROCE_E_NO_RWQE, "no_rwqe", "no receive WQE for the message (UC: dropped, no RNR)") \
	X(ROCE_E_RECV_LEN, "recv_len", "message longer than its receive WQE") \
	X(ROCE_E_IP6_NEXT_HDR, "ip6_next_hdr",                                \
	  "IPv6 next header is not UDP (RoCE v2 carries no extension headers)") \
	X(ROCE_E_IP6_EXT_LEN, "ip6_ext_len",                                  \
	  "IPv6 extension header chain runs past the packet")                 \
	X(ROCE_E_IP6_ADDR, "ip6_addr", "destination IPv6 address is not one of our GIDs") \
	/* host environment, appended */ \
	X(ROCE_E_BUSY, "busy", "object in use")                              \
	/* receive rejections appended after it (counters.h: ROCE_DROP_LIST3) */ \
	X(ROCE_E_QKEY, "qkey", "UD datagram whose DETH Q_Key is not the QP's") \
	/* the data path's stages (roce/stage.h), appended */                \
	X(ROCE_E_PI, "pi", "protection information does not match the data") \
	X(ROCE_E_STAGE_FULL, "stage_full", "dedup block pool full")          \
	X(ROCE_E_STAGE, "stage", "a stage cannot do its work (no key in its slot, a unit it cannot complete)") \
	/* host environment, appended */                                      \
	X(ROCE_E_INTR, "intr", "a signal interrupted the wait")

enum roce_status {
#define ROCE_X_ENUM(code, name, desc) code,
	ROCE_STATUS_LIST(ROCE_X_ENUM)
#undef ROCE_X_ENUM
	ROCE_STATUS_COUNT
};

/* Short, stable, machine-friendly name ("icrc"); "?" for unknown values. */
const char *roce_status_name(int status);
/* Human description ("bad ICRC"). */
const char *roce_status_str(int status);

#endif
