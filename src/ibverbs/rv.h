/* SPDX-License-Identifier: MIT */
/*
 * Inside the drop-in libibverbs.so.1 (docs/verbs.md): the objects a
 * program gets are rdma-core's own structures (<infiniband/verbs.h> of
 * rdma-core 44, Debian 12's libibverbs-dev), each the first member of a
 * wrapper that holds the engine's object behind it. The program's inline
 * functions (ibv_post_send, ibv_poll_cq, ibv_query_port, ...) read the
 * context's ops; the exported ones land in the files of this folder.
 */
#ifndef ROCE_IBVERBS_RV_H
#define ROCE_IBVERBS_RV_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ibverbs/unsupported.h"
#include "roce/link_open.h"
#include "roce/verbs.h"

/* The environment roce-run sets (tools/roce-run.c). */
#define RV_ENV_NETDEV "ROCE_RUN_NETDEV"  /* the interface: required */
#define RV_ENV_IP     "ROCE_RUN_IP"      /* our IPv4 address, else the netdev's */
#define RV_ENV_LINK   "ROCE_RUN_LINK"    /* packet (default) or xdp */
/* who runs the engine (docs/verbs.md): "rtc" (default: the program's
   polling threads, the engine thread while they do not) or "thread" */
#define RV_ENV_ENGINE "ROCE_RUN_ENGINE"
#define RV_ENV_HANDOFF "ROCE_RUN_HANDOFF_US" /* rtc: the thread's takeover */
#define RV_ENV_STATS  "ROCE_RUN_STATS"   /* 1: the engine's figures at close */
#define RV_ENV_SYSFS  "ROCE_RUN_SYSFS"   /* 1: roce-run made /sys/class/infiniband/roce0 */


/* A UD receive's wc.sl: the RoCE packet type as a ConnectX reports it
 * (cq.c) */
#define RV_WC_SL_ROCE_V2_IPV4 0xAu
#define RV_WC_SL_ROCE_V2_IPV6 0x9u
/* ARP or neighbour discovery for an address vector's MAC */
#define RV_RESOLVE_MS 3000u

/* The one device: its name, its interface and addresses (device.c). */
struct rv_device {
	struct ibv_device ibv;          /* first: the program's pointer */
	char netdev[32];
	bool xdp;
	uint32_t ip;                    /* host order */
	uint8_t mac[6];
	uint64_t guid;                  /* EUI-64 of the MAC, network order */
};

/* One per process, whatever opens the device how often (device.c): one
 * engine, one port on the interface, shared by every ibv_open_device. */
struct rv_context {
	struct verbs_context vctx;      /* ends with the program's ibv_context */
	struct rv_device *dev;
	unsigned refs;                  /* opens not closed (device.c's lock) */
	bool rtc;                       /* the program's verbs drive the engine */
	bool orphaned;                  /* a fork's child's copy: never runs */
	struct roce_context *ctx;
	struct roce_link *link;         /* the interface's port */
	enum roce_mtu link_mtu;         /* the interface's: max_mtu, active_mtu */
	pthread_mutex_t lock;           /* the object lists below */
	struct rv_cq *cqs;
	struct rv_srq *srqs;
	struct rv_qp **qp_by_num;       /* ROCE_MAX_QP: async events' QPs */
	struct roce_stage_binding stage; /* every MR's (stage.c); PI area apart */
};

struct rv_pd {
	struct ibv_pd ibv;
	struct roce_pd *pd;
};

struct rv_mr {
	struct ibv_mr ibv;
	struct roce_mr *mr;
	void *pi;                       /* its stages' PI area in DDR, or NULL */
};

struct rv_channel {
	struct ibv_comp_channel ibv;
	struct roce_comp_channel *ch;
};

struct rv_cq {
	union {                         /* first: the program's pointer */
		struct ibv_cq ibv;
		struct ibv_cq_ex ex;    /* ibv_create_cq_ex's (cq_ex.c) */
	};
	struct roce_cq *cq;
	struct rv_cq *next;             /* rv_context's list */
	/* ibv_start_poll .. ibv_end_poll: the completion the program reads */
	struct ibv_wc cur;
	uint64_t cur_ns;                /* its wall-clock stamp (cq_ex.c) */
	uint64_t wc_flags_ex;           /* IBV_WC_EX_WITH_* asked for */
};

struct rv_srq {
	struct ibv_srq ibv;
	struct roce_srq *srq;
	struct rv_srq *next;
};

struct rv_wr_batch;

struct rv_qp {
	union {                         /* first: the program's pointer */
		struct ibv_qp ibv;
		struct ibv_qp_ex ex;    /* ibv_create_qp_ex's (qp_ex.c) */
	};
	struct rv_wr_batch *batch;      /* ibv_wr_*'s WRs (qp_ex.c), or NULL */
	struct roce_qp *qp;
	struct ibv_qp_cap cap;          /* as made: ibv_query_qp's */
	int sq_sig_all;
	struct ibv_ah_attr av;          /* the last IBV_QP_AV */
};

struct rv_ah {
	struct ibv_ah ibv;
	struct roce_ah *ah;
};

static inline struct rv_context *rv_ctx(struct ibv_context *c)
{
	return (struct rv_context *)verbs_get_ctx(c);
}
#define RV_OF(type, p) ((struct type *)(void *)(p))

/* Run to completion: a verb that waits for the engine (poll, post) runs
 * its turn in the caller's thread unless another thread is running it. */
static inline void rv_drive(struct rv_context *c)
{
	if (c->rtc)
		roce_engine_drive(c->ctx);
}
/* A context that fork() copied into the child: said once, EIO */
int rv_orphaned(struct rv_context *c, const char *verb);

/* A ROCE_E_* status as the errno a verb returns. */
int rv_errno(int st);

/* device.c: the device list (built once from the environment) */
struct rv_device *rv_device_get(void);
/* The MAC of a peer for an address vector (ARP for an IPv4-mapped GID,
 * neighbour discovery for another); 0 or an errno. */
int rv_resolve(struct rv_context *c, const struct ibv_ah_attr *ah, struct roce_ah_attr *out);

/* stage.c: the stages the environment binds to every MR (ROCE_STAGE...).
 * At open: ROCE_OK (none, or the key loaded and the program told what its
 * buffers hold), else a status with why. At ibv_reg_mr: 0 or an errno
 * (said on stderr); after ibv_dereg_mr: the PI area freed. */
int rv_stage_open(struct rv_context *c, char *why, size_t len);
int rv_stage_bind(struct rv_context *c, struct rv_mr *m);
void rv_stage_release(struct rv_context *c, struct rv_mr *m);

/* query.c: the verbs_context's query ops */
int rv_query_port(struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr,
		  size_t attr_len);
int rv_query_device_ex(struct ibv_context *context,
		       const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size);

/* cq.c, qp.c: the data path ops */
int rv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int rv_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int rv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int rv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
int rv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
/* ibv_wc from the engine's completion */
void rv_wc_out(const struct roce_wc *r, struct ibv_wc *w);
/* qp_ex.c: ibv_create_qp_ex, the ibv_wr_* send ops; cq_ex.c:
 * ibv_create_cq_ex and its polling */
struct ibv_qp *rv_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *a);
void rv_qp_ex_free(struct rv_qp *q);
struct ibv_cq_ex *rv_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *a);
/* the ops that no verb of ours backs: each names itself on stderr */
void rv_set_unsupported_ops(struct verbs_context *v);

#endif
