/* SPDX-License-Identifier: MIT */
/*
 * Every limit of the engine in one place. Tables are fixed arrays sized from
 * these; nothing on the data path is allocated per packet.
 */
#ifndef ROCE_PARAMS_H
#define ROCE_PARAMS_H

#define ROCE_UDP_PORT          4791u   /* IANA RoCE v2 port (IBA A17.2.1) */

/* Tables */
#define ROCE_MAX_QP            16384u  /* QP contexts (QPN = index) */
#define ROCE_MAX_MR            4096u   /* memory-region entries */

/* Device memory (the board's DDR; MR physical addresses live inside it) */
#define ROCE_DEV_MEM_SIZE_DEFAULT (64u << 20)
#define ROCE_DEV_MEM_SIZE_MAX     (16ull << 30) /* MEM_SIZE_KB is 32 bits; keep the model sane */

/* Outstanding RDMA READ / atomic requests per QP (QP_RD_ATOMIC fields):
 * rxe's 128. The responder's resources are sized per QP from its
 * max_dest_rd_atomic (ROCE_RESP_QUEUE, ROCE_ATOMIC_REPLAY), never fewer
 * than for ROCE_RESP_RD_MIN. */
#define ROCE_MAX_RD_ATOMIC     128u
#define ROCE_RESP_RD_MIN       16u

/* Path MTU limits (IBA 256..4096) */
#define ROCE_MIN_MTU           256u
#define ROCE_MAX_MTU           4096u

/* Largest frame the engine builds or accepts: Eth+VLAN, IPv6, UDP, BTH,
 * the longest extension headers, MTU payload, ICRC, with headroom to spare. */
#define ROCE_MAX_HDR_LEN       128u
#define ROCE_MAX_FRAME         (ROCE_MAX_MTU + ROCE_MAX_HDR_LEN)

/* Transport engine */
/* Scatter/gather entries a send or receive WR may have (rxe's
 * RXE_MAX_SGE); a WQE holds ROCE_WQE_SGE of them itself, and a QP that
 * asks for more gets a per-QP list area for the rest (src/verbs/qp.c).
 * An SRQ's WQEs hold ROCE_WQE_SGE. */
#define ROCE_MAX_SGE           32u
#define ROCE_WQE_SGE           4u
#define ROCE_MAX_WR            8192u   /* send or receive queue depth */
/* Inline data a send WQE carries (rxe's RXE_MAX_INLINE_DATA): up to the
 * room of its SGE array in the WQE itself, beyond it in a per-QP area
 * made only for a QP that asks for more (src/verbs/qp.c) */
#define ROCE_MAX_INLINE        512u
#define ROCE_MAX_CQE           65536u  /* completion queue depth */
#define ROCE_TX_BURST          32u     /* frames staged per link call */
#define ROCE_RX_BURST          32u     /* frames received per link call */
#define ROCE_ACKREQ_EVERY      32u     /* AckReq at least every N packets of a message */
/* the responder's ordered replies, and its saved atomic results (for
 * duplicates), for a QP that accepts n READs/atomics */
#define ROCE_RESP_QUEUE(n)     (2u * ((n) > ROCE_RESP_RD_MIN ? (n) : ROCE_RESP_RD_MIN) + 4u)
#define ROCE_ATOMIC_REPLAY(n)  ((n) > ROCE_RESP_RD_MIN ? (n) : ROCE_RESP_RD_MIN)
#define ROCE_MAX_MSG           (1u << 31) /* largest message (IBA: 2^31) */
#define ROCE_DMA_TIMEOUT_US    1000u   /* default local DMA timeout (seed 001) */
#define ROCE_IDLE_AFTER_US     1000u   /* engine thread: idle this long, then nap */
#define ROCE_IDLE_NAP_US       50u     /* engine thread: one nap between idle polls */
#define ROCE_IDLE_SLEEP_MS     10u     /* engine thread: longest sleep until woken */
#define ROCE_RTC_HANDOFF_US    50u     /* run to completion: no drive this long,
					  the engine thread takes over */
#define ROCE_RTC_HANDOFF_MAX_US 100000u
#define ROCE_MAX_INFLIGHT_PSN  (1u << 20) /* unacknowledged PSNs per QP (< 2^23) */
#define ROCE_FIRST_QPN         0x11u   /* QPs 0 and 1 are special (IBA 3.5.1) */
#define ROCE_MAX_GID           16u     /* GID table entries per port (roce/gid.h) */
#define ROCE_HOP_LIMIT         64u     /* IPv4 TTL / IPv6 hop limit sent: Linux's
					* default route hop limit, which rxe uses */
#define ROCE_CC_SEND_TIMES     256u    /* per QP: send times kept for RTT
					* samples, by PSN (a power of two) */
#define ROCE_ASYNC_QUEUE       256u    /* asynchronous events queued, not yet read */

/* Host driver, config files, roced */
#define ROCE_CFG_MAX_QP        256u    /* [qp N] sections in one config */
#define ROCE_CFG_MAX_MR        256u    /* [mr N] sections in one config */
#define ROCE_CFG_MAX_LINE      512u    /* longest config line */
#define ROCE_CFG_MAX_FILE      (1u << 20) /* largest config file */
#define ROCE_DRV_CMD_TIMEOUT_MS 1000u  /* table command BUSY poll limit */
#define ROCE_DRV_LINK_TIMEOUT_MS 5000u /* default wait for link-ready */
#define ROCE_REGSRV_MAX_CLIENTS 16u    /* roced's concurrent connections */

/* In-memory link (roce/memlink.h) */
#define ROCE_MEMLINK_MAX_PORTS    64u     /* switch ports per link */
#define ROCE_MEMLINK_RING_DEFAULT 1024u   /* RX ring slots per port */
#define ROCE_MEMLINK_RING_MIN     2u
#define ROCE_MEMLINK_RING_MAX     65536u
#define ROCE_MEMLINK_RING_BYTES_MAX (1ull << 30) /* slots x slot size per port */
#define ROCE_MEMLINK_MIN_FRAME    60u     /* smallest slot: a minimum Ethernet frame */
#define ROCE_MEMLINK_MAX_FRAME    65535u  /* largest slot: a pcap record, an IPv4 packet */
#define ROCE_MEMLINK_HOLD_SLOTS   4u      /* frames a port may hold back (reorder) */
#define ROCE_MEMLINK_HOLD_NS      10000u  /* default longest hold */
#define ROCE_MEMLINK_BATCH        64u     /* copies staged per ring reservation */

/* Raw-Ethernet link (roce/afpacket.h) */
#define ROCE_AFP_RX_FRAMES_DEFAULT 4096u  /* RX ring slots */
#define ROCE_AFP_TX_FRAMES_DEFAULT 1024u  /* TX ring slots */
#define ROCE_AFP_FRAMES_MIN       16u
#define ROCE_AFP_FRAMES_MAX       65536u
#define ROCE_AFP_TX_BATCH         64u     /* frames per sendmmsg / ring kick */
#define ROCE_AFP_BLOCK_SIZE       (1u << 17) /* PACKET_MMAP block (V3: a batch) */
#define ROCE_AFP_V3_TOV_MS        1u      /* V3: a partial block is handed over after */
#define ROCE_AFP_MAX_ROCE_HDRS    86u     /* eth 14 + ip 20 + udp 8 + bth 12 +
					   * ext <= 28 + icrc 4: path MTU rule */
#define ROCE_AFP_CARRIER_WAIT_MS  1500u   /* up, carrier not yet reported */
#define ROCE_AFP_IDLE_POLLS       1024u   /* empty polls before a loop waits */
#define ROCE_AFP_IDLE_WAIT_US     1000u   /* longest wait (engine timers tick) */
#define ROCE_ARP_RETRY_MS         200u    /* ARP request repeated every */
#define ROCE_ARP_TIMEOUT_MS       3000u   /* default resolution time limit */

/* roce-demo (tools/roce-demo.c) */
#define ROCE_DEMO_SIZE_DEFAULT    (1u << 20)  /* the flow's WRITE/READ size */
#define ROCE_DEMO_SIZE_MAX        (256u << 20) /* each side holds up to 2x in DDR */
#define ROCE_DEMO_ITERS_DEFAULT   5000u   /* bandwidth table, per row (perftest's) */
#define ROCE_DEMO_ITERS_QUICK     50u
#define ROCE_DEMO_ITERS_MAX       1000000u
#define ROCE_DEMO_BW_MAX_MSG      65536u  /* largest size in the table */
#define ROCE_DEMO_BW_DEPTH        128u    /* outstanding WRs (perftest's tx depth) */
#define ROCE_DEMO_ROW_MS          3000u   /* time cap of one bandwidth row */
#define ROCE_DEMO_STEP_MS         10000u  /* time cap of one flow step */

#endif
