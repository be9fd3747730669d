/* SPDX-License-Identifier: MIT */
/*
 * The tools' local endpoint (see perf_ep.h). Everything about a QP or an
 * MR goes through the verbs API, hence through the register file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf/perf_ep.h"
#include "perf/perf_ep_priv.h"
#include "roce/cc_options.h"
#include "roce/counters.h"
#include "roce/device.h"
#include "roce/driver.h"
#include "roce/gid.h"
#include "roce/params.h"
#include "roce/status.h"
#include "roce/tables.h"

int perf_ep_fail(struct perf_ep *ep, int st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ep->err, sizeof(ep->err), fmt, ap);
	va_end(ap);
	return st;
}

enum roce_mtu perf_mtu_from_bytes(unsigned bytes)
{
	for (enum roce_mtu m = ROCE_MTU_256; m <= ROCE_MTU_4096; m++)
		if (roce_mtu_bytes(m) == bytes)
			return m;
	return 0;
}

/*
 * The port (roce/link_open.h). On an interface the kernel carries our
 * address (it must, for the TCP exchange), so ARP is its job: the
 * AF_PACKET port answers only for an address the kernel lacks, and the
 * AF_XDP port shares the interface, refusing an address the interface
 * does not carry (an AF_XDP port answering ARP would take the whole
 * queue, the exchange's TCP with it). The self-test's in-memory link
 * makes the MACs from the addresses.
 */
static int open_link(struct perf_ep *ep, const struct perf_ep_config *c)
{
	struct roce_link_spec ls = {
		.kind = c->memlink ? ROCE_LINK_MEMLINK : c->link,
		.ifname = c->netdev, .xdp_mode = c->xdp_mode, .memlink = c->memlink,
		.ip = c->ip, .n_ip6 = c->n_ip6,
		.arp = c->link == ROCE_LINK_XDP ? ROCE_LINK_ARP_KERNEL : ROCE_LINK_ARP_AUTO,
	};
	bool xdp = ls.kind == ROCE_LINK_XDP;
	char why[sizeof(ep->err)];
	int st;

	if (!c->memlink && !c->netdev)
		return perf_ep_fail(ep, ROCE_E_INVAL, "no interface: give --netdev IFNAME");
	if (!c->memlink && !ls.ip && !(ls.ip = roce_netdev_ipv4(c->netdev)))
		return perf_ep_fail(ep, ROCE_E_INVAL, "%s has no IPv4 address: give --ip "
			       "A.B.C.D", c->netdev);
	memcpy(ls.ip6, c->ip6, sizeof(ls.ip6));
	st = roce_link_open(&ls, &ep->link, why, sizeof(why));
	/* the AF_XDP port's range refusal is an MTU too big for its UMEM
	 * frames (the link's own is one too small for RoCE): say which
	 * --link does carry it */
	if (st == ROCE_E_RANGE && xdp && !strstr(why, "too small"))
		return perf_ep_fail(ep, st, "--link xdp: %s: the interface MTU is too big "
			       "for the AF_XDP port (a frame must fit one %u-byte UMEM "
			       "frame): use --link packet or an MTU <= %u", c->netdev,
			       ROCE_AFX_MAX_FRAME, ROCE_AFX_MAX_FRAME - 4u - 14u);
	if (st)
		return perf_ep_fail(ep, st, "%s%s", xdp ? "--link xdp: " : "", why);
	ep->ip = roce_link_info(ep->link)->ip;
	ep->link_mtu = roce_link_info(ep->link)->path_mtu;
	return ROCE_OK;
}

unsigned perf_ep_qp_limit(const struct perf_ep *ep)
{
	/* QP_COUNT, the device's QP entries, read as the driver's probe
	 * reads it; the verbs hand out QPNs from ROCE_FIRST_QPN on (0 and 1
	 * are special, IBA 3.5.1) and below ROCE_MAX_QP */
	uint32_t count = 0;

	if (!ep || !ep->ctx || roce_drv_read(roce_context_driver(ep->ctx),
					     ROCE_REG_QP_COUNT, &count) != ROCE_OK ||
	    count > ROCE_MAX_QP)
		count = ROCE_MAX_QP;
	return count > ROCE_FIRST_QPN ? count - ROCE_FIRST_QPN : 0;
}

/* create_reg_cqs() (perftest_resources.c:1593): a CQ as deep as the
 * completions every QP may leave unpolled (perftest: tx_depth and rx_depth
 * times num_of_qps), so that it never overruns (IBA 11.4.2.1) however
 * they pile up before a poll; a depth the device cannot make is refused,
 * as ibv_create_cq() refuses it there. */
static int open_cq(struct perf_ep *ep, const char *which, uint32_t per_qp, unsigned nqp,
		   struct roce_cq **cq)
{
	int st;

	uint64_t cqe = (uint64_t)per_qp * nqp;

	if (cqe > ROCE_MAX_CQE)
		return perf_ep_fail(ep, ROCE_E_RANGE, "Couldn't create a %s CQ: %u QPs of "
			       "%u completions need %" PRIu64 " entries, the device's "
			       "CQs hold %u (fewer QPs or a smaller depth)", which, nqp,
			       per_qp, cqe, ROCE_MAX_CQE);
	*cq = roce_create_cq_channel(ep->ctx, (int)cqe, NULL, ep->channel);
	if (!*cq)
		return perf_ep_fail(ep, ROCE_E_NOMEM, "Couldn't create a %s CQ of %" PRIu64
			       " entries: out of memory", which, cqe);
	/* armed from the start, as the originals arm theirs before the run */
	if (ep->channel && (st = roce_req_notify_cq(*cq, 0)) != ROCE_OK)
		return perf_ep_fail(ep, st, "Couldn't request CQ notification: %s",
			       roce_status_str(st));
	return ROCE_OK;
}

static int open_queues(struct perf_ep *ep, const struct perf_ep_config *c)
{
	struct roce_qp_init_attr qa = { .qp_type = c->qp_type ? c->qp_type : ROCE_QPT_RC };
	unsigned limit = perf_ep_qp_limit(ep);
	int st;

	if (c->nqp > limit)
		return perf_ep_fail(ep, ROCE_E_RANGE, "Couldn't create %u QPs: the device "
			       "offers %u (QPNs %#x to %#x)", c->nqp, limit,
			       ROCE_FIRST_QPN, ROCE_FIRST_QPN + limit - 1);
	ep->qp = calloc(c->nqp, sizeof(*ep->qp));
	ep->ah = calloc(c->nqp, sizeof(*ep->ah));
	ep->ud_qpn = calloc(c->nqp, sizeof(*ep->ud_qpn));
	ep->init_done = calloc(c->nqp, sizeof(*ep->init_done));
	ep->ud_qkey = PERF_UD_QKEY;
	ep->pd = roce_alloc_pd(ep->ctx);
	if (!ep->qp || !ep->ah || !ep->ud_qpn || !ep->init_done || !ep->pd)
		return perf_ep_fail(ep, ROCE_E_NOMEM, "%u QPs or the PD: out of memory", c->nqp);
	if (c->events) {
		/* the channel's fd non-blocking: perf_ep_idle waits in poll()
		 * with a time limit, then takes the event */
		ep->channel = roce_create_comp_channel(ep->ctx);
		if (!ep->channel || fcntl(roce_comp_channel_fd(ep->channel), F_SETFL,
					  O_NONBLOCK) != 0)
			return perf_ep_fail(ep, ROCE_E_NOMEM, "Couldn't create completion channel");
	}
	if (c->one_cq) {
		if ((st = open_cq(ep, "completion", c->one_cq, 1, &ep->scq)) != ROCE_OK)
			return st;
		ep->rcq = ep->scq;
	} else if ((st = open_cq(ep, "send", c->scq_per_qp ? c->scq_per_qp : c->sq_depth,
				 c->nqp, &ep->scq)) != ROCE_OK ||
		   (st = open_cq(ep, "receive", c->rcq_per_qp ? c->rcq_per_qp : c->rq_depth,
				 c->nqp, &ep->rcq)) != ROCE_OK) {
		return st;
	}
	if (c->srq_depth) {
		struct roce_srq_init_attr sa = { .attr = { .max_wr = c->srq_depth, .max_sge = 1 } };

		ep->srq = roce_create_srq(ep->pd, &sa);
		if (!ep->srq)
			return perf_ep_fail(ep, ROCE_E_RANGE, "Couldn't create SRQ of %u WQEs (at "
				       "most %u)", c->srq_depth, ROCE_MAX_WR);
		qa.srq = ep->srq;
	}
	qa.send_cq = ep->scq;
	qa.recv_cq = ep->rcq;
	qa.cap = (struct roce_qp_cap){ c->sq_depth, c->rq_depth, 1, 1, 0 };
	for (unsigned i = 0; i < c->nqp && !c->cm_qps; i++) {
		int st = roce_create_qp_status(ep->pd, &qa, &ep->qp[i]);

		if (st != ROCE_OK)
			return perf_ep_fail(ep, st, "QP %u of %u (depth %u/%u): %s", i + 1,
				       c->nqp, c->sq_depth, c->rq_depth,
				       roce_status_str(st));
		ep->nqp++;
	}
	return ROCE_OK;
}

/*
 * --mmap: the start of the DDR becomes a shared mapping of the file from
 * the offset on, as far as the file goes (a page wholly past its end would
 * fault), or the largest buffer for a file without a size (a device). The
 * buffer, the DDR's first allocation, then lies at the offset in the file,
 * as perftest's pp_init_mmap() maps it (perftest_resources.c:181). Its
 * errors as perftest words them.
 */
static int open_file(struct perf_ep *ep, const struct perf_ep_config *c,
		     struct roce_device_config *dev, int *fd)
{
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;

	ep->mmap_file = c->mmap_file;
	ep->mmap_offset = c->mmap_offset;
	*fd = open(c->mmap_file, O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return perf_ep_fail(ep, ROCE_E_IO, "Unable to open '%s': %s", c->mmap_file,
			       strerror(errno));
	if (c->mmap_offset % (uint64_t)page)
		return perf_ep_fail(ep, ROCE_E_INVAL, "Unable to mmap '%s': %s: the offset "
			       "%" PRIu64 " is not a multiple of the page size (%ld)",
			       c->mmap_file, strerror(EINVAL), c->mmap_offset, page);
	if (fstat(*fd, &st) != 0)
		return perf_ep_fail(ep, ROCE_E_IO, "Unable to mmap '%s': %s", c->mmap_file,
			       strerror(errno));
	if (!S_ISREG(st.st_mode))
		ep->mmap_len = (c->max_buf + (size_t)page - 1) / (size_t)page * (size_t)page;
	else if ((uint64_t)st.st_size > c->mmap_offset)
		ep->mmap_len = (uint64_t)st.st_size - c->mmap_offset;
	if (ep->mmap_len > dev->mem_size)
		ep->mmap_len = dev->mem_size;
	dev->mem_fd = *fd;
	dev->mem_file_offset = c->mmap_offset;
	dev->mem_file_len = ep->mmap_len;
	return ROCE_OK;
}

int perf_ep_buffer(struct perf_ep *ep, size_t len, size_t align, unsigned access)
{
	size_t mem_size;
	uint8_t *mem = roce_device_mem(roce_context_device(ep->ctx), &mem_size);

	if (ep->mmap_file && len > ep->mmap_len)
		return perf_ep_fail(ep, ROCE_E_RANGE, "'%s' is too small: the buffer needs "
			       "%zu bytes from offset %" PRIu64 ", the file has %zu",
			       ep->mmap_file, len, ep->mmap_offset, ep->mmap_len);
	/* stages bind whole units: the MR (not the layout) rounded up */
	len = perf_stage_mr_len(&ep->stage, len);
	ep->buf = roce_mem_alloc(ep->ctx, len, align);
	if (!ep->buf)
		return perf_ep_fail(ep, ROCE_E_NOMEM, "%zu bytes of device memory: "
			       "refused", len);
	if (ep->mmap_file && ep->buf != mem)
		return perf_ep_fail(ep, ROCE_E_INVAL, "'%s': the buffer is not at the "
			       "start of the mapping", ep->mmap_file);
	ep->len = len;
	memset(ep->buf, 0, ep->len);
	ep->mr = roce_reg_mr(ep->pd, ep->buf, ep->len, access);
	if (!ep->mr)
		return perf_ep_fail(ep, ROCE_E_FULL, "MR of %zu bytes: refused", ep->len);
	return ROCE_OK;
}

int perf_ep_open(struct perf_ep *ep, const struct perf_ep_config *c)
{
	struct roce_context_attr ca = { 0 };
	const struct roce_link_info *li;
	int st, fd = -1;

	memset(ep, 0, sizeof(*ep));
	ep->timeout_ms = c->timeout_ms;
	ep->counters = c->counters;
	ep->qp_access = c->qp_access;
	ep->qp_type = c->qp_type ? c->qp_type : ROCE_QPT_RC;
	if (c->stage)
		ep->stage = *c->stage;
	if (c->nqp == 0)
		return perf_ep_fail(ep, ROCE_E_RANGE, "no QP asked for");
	st = open_link(ep, c);
	if (st) {
		perf_ep_close(ep);
		return st;
	}
	li = roce_link_info(ep->link);
	memcpy(ca.mac, li->mac, 6);
	ca.ip = li->ip;
	memcpy(ca.ip6, li->ip6, sizeof(ca.ip6));
	ca.n_ip6 = li->n_ip6;
	ca.port = roce_link_port(ep->link);
	/* the port's active MTU is the link's, as rxe's follows its netdev:
	 * it bounds a UD message */
	ca.port_mtu = ep->link_mtu;
	/* the buffer and the allocator's slack, in MiB */
	ca.dev.mem_size = ((c->max_buf + (2u << 20)) >> 20) << 20;
	if (ca.dev.mem_size < ROCE_DEV_MEM_SIZE_DEFAULT)
		ca.dev.mem_size = ROCE_DEV_MEM_SIZE_DEFAULT;
	if (ca.dev.mem_size > ROCE_DEV_MEM_SIZE_MAX) {
		perf_ep_close(ep);
		return perf_ep_fail(ep, ROCE_E_RANGE, "a %zu-byte buffer exceeds the "
			       "device memory", c->max_buf);
	}
	if (c->mmap_file && (st = open_file(ep, c, &ca.dev, &fd)) != ROCE_OK)
		goto fail;
	st = roce_open(&ca, &ep->ctx);
	if (st && c->mmap_file && (st == ROCE_E_IO || st == ROCE_E_RANGE))
		perf_ep_fail(ep, st, "Unable to mmap '%s': %s", c->mmap_file,
			roce_status_str(st));
	else if (st == ROCE_E_INVAL || st == ROCE_E_FULL)
		perf_ep_fail(ep, st, "the GID table: %s (an IPv6 address that is not "
			"unicast, or more than %u)", roce_status_str(st), ROCE_MAX_GID);
	else if (st)
		perf_ep_fail(ep, st, "power-on: %s", roce_status_str(st));
	else if (c->cc && (st = roce_cc_options_apply(ep->ctx, c->cc)) != ROCE_OK)
		perf_ep_fail(ep, st, "congestion control: %s", roce_status_str(st));
	else
		st = open_queues(ep, c);
	/* events: the tool sleeps, so the engine needs a thread of its own;
	 * so does the CM */
	if (!st && (c->events || c->cm_qps)) {
		/* the thread's idle turns give way, as the drop-in's do: the
		 * tool woken from its channel then runs at once on a busy
		 * core, not after the scheduler's slice */
		st = roce_engine_set_handoff(ep->ctx, ROCE_RTC_HANDOFF_US);
		if (!st)
			st = roce_engine_start(ep->ctx, -1);
		if (st)
			perf_ep_fail(ep, st, "the engine thread: %s", roce_status_str(st));
		else
			ep->thread = true;
	}
fail:
	if (fd >= 0)
		close(fd);      /* the device keeps its mapping */
	if (st) {
		char why[sizeof(ep->err)];

		memcpy(why, ep->err, sizeof(why));
		perf_ep_close(ep);
		memcpy(ep->err, why, sizeof(why));
	}
	return st;
}

void perf_ep_close(struct perf_ep *ep)
{
	if (ep->ctx && ep->counters) {
		/* at the end of every run, failed ones too: what the engine
		 * saw (NAKs, retransmissions, drops by reason) */
		printf("engine counters:\n");
		roce_counters_print(stdout, roce_device_counters(roce_context_device(ep->ctx)),
				    false);
		/* -e: the completion events the tool slept on (the interop
		 * checks want some) */
		if (ep->channel)
			printf("cq_events %" PRIu64 "\n", ep->events);
		fflush(stdout);
	}
	if (ep->ctx) {
		perf_stage_close(ep, stdout);
		for (unsigned i = 0; i < ep->nqp; i++) {
			if (ep->qp[i])  /* the CM's are its owner's to destroy */
				roce_destroy_qp(ep->qp[i]);
			if (ep->ah[i])
				roce_destroy_ah(ep->ah[i]);
		}
		if (ep->mr)
			roce_dereg_mr(ep->mr);
		if (ep->buf)
			roce_mem_free(ep->ctx, ep->buf);
		if (ep->srq)
			roce_destroy_srq(ep->srq);
		if (ep->scq)
			roce_destroy_cq(ep->scq);
		if (ep->rcq && ep->rcq != ep->scq)
			roce_destroy_cq(ep->rcq);
		if (ep->channel)
			roce_destroy_comp_channel(ep->channel);
		if (ep->pd)
			roce_dealloc_pd(ep->pd);
		roce_close(ep->ctx);
	}
	ep->channel = NULL;
	ep->srq = NULL;
	ep->scq = ep->rcq = NULL;
	ep->pd = NULL;
	ep->thread = false;
	free(ep->qp);
	free(ep->ah);
	free(ep->ud_qpn);
	free(ep->init_done);
	ep->qp = NULL;
	ep->ah = NULL;
	ep->ud_qpn = NULL;
	ep->init_done = NULL;
	roce_link_close(ep->link);
	ep->link = NULL;
	ep->ctx = NULL;
	ep->nqp = 0;
	ep->mr = NULL;
	ep->buf = NULL;
}

unsigned perf_ep_progress(void *arg)
{
	struct perf_ep *ep = arg;

	if (ep->thread) {
		/* the engine thread does the work: leave it the core if it
		 * wants it */
		sched_yield();
		return 0;
	}
	return ep->ctx ? roce_engine_poll(ep->ctx) : 0;
}

int perf_ep_idle(struct perf_ep *ep)
{
	struct pollfd pf;
	struct roce_cq *cq;
	int st, r;

	if (!ep->channel)
		return ROCE_OK;
	pf = (struct pollfd){ .fd = roce_comp_channel_fd(ep->channel), .events = POLLIN };
	roce_engine_release(ep->ctx);
	r = poll(&pf, 1, (int)PERF_EP_EVENT_SLICE_MS);
	if (r < 0 && errno != EINTR)
		return perf_ep_fail(ep, ROCE_E_IO, "Failed to get cq_event: %s", strerror(errno));
	if (r <= 0)
		return ROCE_OK;
	st = roce_get_cq_event(ep->channel, &cq, NULL);
	if (st == ROCE_E_AGAIN)
		return ROCE_OK;         /* an event dropped with its CQ */
	if (st)
		return perf_ep_fail(ep, st, "Failed to get cq_event: %s", roce_status_str(st));
	ep->events++;
	roce_ack_cq_events(cq, 1);
	st = roce_req_notify_cq(cq, 0);
	if (st)
		return perf_ep_fail(ep, st, "Couldn't request CQ notification: %s",
			       roce_status_str(st));
	return ROCE_OK;
}

int perf_ep_init(struct perf_ep *ep, unsigned i)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF,
				   .qkey = PERF_UD_QKEY };
	int st;

	if (ep->init_done[i])
		return ROCE_OK;
	at.qp_access_flags = ep->qp_access;
	/* UD: the P_Key and the Q_Key, no rights (ud_pingpong.c, perftest's
	 * ctx_modify_qp_to_init) */
	st = roce_modify_qp(ep->qp[i], &at, ROCE_QP_STATE | ROCE_QP_PKEY_INDEX |
			    (ep->qp_type == ROCE_QPT_UD ? ROCE_QP_QKEY : ROCE_QP_ACCESS_FLAGS));
	if (st != ROCE_OK)
		return perf_ep_fail(ep, st, "QP 0x%06x to INIT: %s", roce_qp_num(ep->qp[i]),
			       roce_status_str(st));
	ep->init_done[i] = true;
	return ROCE_OK;
}

/* UD: RTR, RTS with the SQ PSN, and an AH to the peer (ud_pingpong.c's
 * pp_connect_ctx; perftest's ctx_connect for UD). */
static int connect_ud(struct perf_ep *ep, unsigned i, const struct perf_conn *c,
		      struct roce_ah_attr *ah)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_RTR };
	struct roce_qp *qp = ep->qp[i];
	int st = roce_modify_qp(qp, &at, ROCE_QP_STATE);

	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = c->sq_psn;
	if (st == ROCE_OK)
		st = roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN);
	if (st != ROCE_OK)
		return perf_ep_fail(ep, st, "QP 0x%06x to %s: %s (%s)", roce_qp_num(qp),
			       roce_qp_state_name(at.qp_state), roce_status_str(st),
			       roce_context_driver(ep->ctx)->err);
	ah->dest_ip = c->peer_ip;
	if (ep->ah[i])
		roce_destroy_ah(ep->ah[i]);
	ep->ah[i] = NULL;
	st = roce_create_ah_status(ep->pd, ah, &ep->ah[i]);
	if (st != ROCE_OK)
		return perf_ep_fail(ep, st, "Failed to create AH: %s", roce_status_str(st));
	ep->ud_qpn[i] = c->dest_qpn;
	return ROCE_OK;
}

int perf_ep_connect(struct perf_ep *ep, unsigned i, const struct perf_conn *c)
{
	struct roce_qp_attr at = { 0 };
	struct roce_qp *qp = ep->qp[i];
	bool rc_qp = ep->qp_type != ROCE_QPT_UC;
	int st;

	if (c->grh && roce_link_info(ep->link)->kind == ROCE_LINK_XDP &&
	    (st = perf_ep_xdp_gid(ep, c->sgid_index)) != ROCE_OK)
		return st;
	if (c->grh) {
		/* the GRH of -g/-x: the peer's GID, ours by index */
		at.ah_attr.is_global = true;
		at.ah_attr.grh.sgid_index = c->sgid_index;
		memcpy(at.ah_attr.grh.dgid, c->dgid, 16);
	}
	if (c->tclass > 0) {
		/* only a GRH carries a traffic class (ibverbs' too): without
		 * -x, one from our IPv4 GID to the peer's IPv4 address, the
		 * same RoCE v2 over IPv4 on the wire */
		if (!c->grh) {
			uint8_t g[16];
			int idx;

			roce_gid_from_ipv4(ep->ip, g);
			idx = roce_gid_table_find(roce_context_gids(ep->ctx), g);
			if (idx < 0)
				return perf_ep_fail(ep, ROCE_E_INVAL, "--tclass: no IPv4 GID "
						    "of ours to send from");
			at.ah_attr.is_global = true;
			at.ah_attr.grh.sgid_index = (uint8_t)idx;
			roce_gid_from_ipv4(c->peer_ip, at.ah_attr.grh.dgid);
		}
		at.ah_attr.grh.traffic_class = (uint8_t)c->tclass;
	}
	if (c->grh && !roce_gid_is_v4mapped(c->dgid))
		st = perf_ep_resolve6(ep, c->dgid, at.ah_attr.dest_mac);
	else
		st = perf_ep_resolve(ep, c->grh && roce_gid_is_v4mapped(c->dgid) ?
				 roce_gid_to_ipv4(c->dgid) : c->peer_ip,
			     at.ah_attr.dest_mac);
	if (st != ROCE_OK || (st = perf_ep_init(ep, i)) != ROCE_OK)
		return st;
	if (ep->qp_type == ROCE_QPT_UD)
		return connect_ud(ep, i, c, &at.ah_attr);
	at.qp_state = ROCE_QPS_RTR;
	at.path_mtu = c->mtu;
	at.dest_qp_num = c->dest_qpn;
	at.rq_psn = c->rq_psn;
	at.max_dest_rd_atomic = c->max_dest_rd_atomic;
	at.min_rnr_timer = c->min_rnr_timer;
	at.ah_attr.dest_ip = c->peer_ip;
	if (st == ROCE_OK)
		st = roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_AV |
				    ROCE_QP_PATH_MTU | ROCE_QP_DEST_QPN | ROCE_QP_RQ_PSN |
				    (rc_qp ? ROCE_QP_MAX_DEST_RD_ATOMIC |
					     ROCE_QP_MIN_RNR_TIMER : 0));
	at.qp_state = ROCE_QPS_RTS;
	at.sq_psn = c->sq_psn;
	at.timeout = c->timeout;
	at.retry_cnt = 7;
	at.rnr_retry = 7;               /* 7 = retry forever, as both originals */
	at.max_rd_atomic = c->max_rd_atomic;
	if (st == ROCE_OK)
		st = roce_modify_qp(qp, &at, ROCE_QP_STATE | ROCE_QP_SQ_PSN |
				    (rc_qp ? ROCE_QP_TIMEOUT | ROCE_QP_RETRY_CNT |
					     ROCE_QP_RNR_RETRY | ROCE_QP_MAX_QP_RD_ATOMIC : 0));
	if (st != ROCE_OK)
		return perf_ep_fail(ep, st, "QP 0x%06x to %s: %s (%s)", roce_qp_num(qp),
			       roce_qp_state_name(at.qp_state), roce_status_str(st),
			       roce_context_driver(ep->ctx)->err);
	return ROCE_OK;
}
