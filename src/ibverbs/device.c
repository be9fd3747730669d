/* SPDX-License-Identifier: MIT */
/*
 * The device list and the context: one device, roce0, whose one port is
 * the engine on the interface roce-run names (RV_ENV_*). The first open
 * opens the interface's port (AF_PACKET, or AF_XDP), powers the model on
 * through its register file (roce_open) and starts the engine's thread;
 * every later open of the process shares that context (librdmacm, UCX
 * and libfabric open the device once each: one engine, one port), and
 * the last close undoes it. By default the program's own polling runs
 * the engine (run to completion, thread.c) and the thread parks while it
 * does. rdma-core's device.c does the same
 * walk over sysfs and the providers; here the environment is the sysfs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/rv.h"
#include "link/netdev_util.h"
#include "roce/cc_options.h"
#include "roce/gid.h"
#include "roce/ibdev_name.h"
#include "roce/wire/ip.h"
#include "roce/params.h"
#include "roce/status.h"

static struct rv_device the_device;
static pthread_once_t device_once = PTHREAD_ONCE_INIT;
static bool device_ok;

int rv_errno(int st)
{
	switch (st) {
	case ROCE_OK: return 0;
	case ROCE_E_NOMEM: return ENOMEM;
	case ROCE_E_FULL: return ENOMEM;
	case ROCE_E_BUSY: return EBUSY;
	case ROCE_E_AGAIN: return EAGAIN;
	case ROCE_E_TIMEOUT: return ETIMEDOUT;
	case ROCE_E_UNSUPPORTED: return EOPNOTSUPP;
	case ROCE_E_NOENT: return ENOENT;
	case ROCE_E_IO: return EIO;
	case ROCE_E_PERM: return EPERM;
	case ROCE_E_INTR: return EINTR;
	default: return EINVAL;
	}
}

int rv_unsupported(const char *verb, int err)
{
	fprintf(stderr, "libibverbs (roce-run): %s: not supported by this device\n", verb);
	errno = err;
	return err;
}

/* The device from the environment; none without RV_ENV_NETDEV. */
static void device_build(void)
{
	struct rv_device *d = &the_device;
	const char *ifname = getenv(RV_ENV_NETDEV), *ip = getenv(RV_ENV_IP);
	const char *link = getenv(RV_ENV_LINK), *name;
	struct netdev_info ni;
	struct in_addr a;
	char why[256];

	if (!ifname || !*ifname) {
		fprintf(stderr, "libibverbs (roce-run): no device: %s is not set (run the "
			"program under roce-run --netdev IFNAME)\n", RV_ENV_NETDEV);
		return;
	}
	if (strlen(ifname) >= sizeof(d->netdev) ||
	    netdev_query(ifname, "", &ni, why, sizeof(why)) != ROCE_OK) {
		fprintf(stderr, "libibverbs (roce-run): %s: %s\n", ifname,
			strlen(ifname) >= sizeof(d->netdev) ? "name too long" : why);
		return;
	}
	snprintf(d->netdev, sizeof(d->netdev), "%s", ifname);
	d->xdp = link && !strcmp(link, "xdp");
	if (ip && *ip) {
		if (inet_pton(AF_INET, ip, &a) != 1) {
			fprintf(stderr, "libibverbs (roce-run): %s=%s: not an IPv4 address\n",
				RV_ENV_IP, ip);
			return;
		}
		d->ip = ntohl(a.s_addr);
	} else {
		d->ip = roce_netdev_ipv4(ifname);
	}
	memcpy(d->mac, ni.mac, 6);
	/* the node GUID as rxe makes it: the MAC's EUI-64 (rxe_set_port_attr,
	 * addrconf_addr_eui48), in network order as ibv_get_device_guid
	 * returns it */
	{
		uint8_t g[8] = { (uint8_t)(ni.mac[0] ^ 2u), ni.mac[1], ni.mac[2], 0xff, 0xfe,
				 ni.mac[3], ni.mac[4], ni.mac[5] };

		memcpy(&d->guid, g, 8);
	}
	d->ibv.node_type = IBV_NODE_CA;
	d->ibv.transport_type = IBV_TRANSPORT_IB;
	/* roce0, or roce-run --ibdev's (checked there too) */
	name = getenv(ROCE_IBDEV_ENV);
	if (name && *name && !roce_ibdev_name_ok(name)) {
		fprintf(stderr, "libibverbs (roce-run): %s=%s: not a device name (letters, "
			"digits, '_', '-', '.'; at most %u)\n", ROCE_IBDEV_ENV, name,
			ROCE_IBDEV_MAX);
		return;
	}
	snprintf(d->ibv.name, sizeof(d->ibv.name), "%s",
		 name && *name ? name : ROCE_IBDEV_DEFAULT);
	snprintf(d->ibv.dev_name, sizeof(d->ibv.dev_name), "uverbs0");
	/* the paths of the files roce-run made for the program's tree
	 * (tools/roce-run/view.c); without them the paths name nothing, so
	 * ibv_read_sysfs_file finds no file there */
	if (getenv(RV_ENV_SYSFS) && !strcmp(getenv(RV_ENV_SYSFS), "1")) {
		snprintf(d->ibv.dev_path, sizeof(d->ibv.dev_path),
			 "/sys/class/infiniband_verbs/uverbs0");
		snprintf(d->ibv.ibdev_path, sizeof(d->ibv.ibdev_path), "/sys/class/infiniband/%.63s",
			 d->ibv.name);
	} else {
		snprintf(d->ibv.dev_path, sizeof(d->ibv.dev_path),
			 "/nonexistent/roce-run/uverbs0");
		snprintf(d->ibv.ibdev_path, sizeof(d->ibv.ibdev_path), "/nonexistent/roce-run/%.63s",
			 d->ibv.name);
	}
	device_ok = true;
}

struct rv_device *rv_device_get(void)
{
	pthread_once(&device_once, device_build);
	return device_ok ? &the_device : NULL;
}

struct ibv_device **ibv_get_device_list(int *num)
{
	struct rv_device *d = rv_device_get();
	struct ibv_device **list = calloc(2, sizeof(*list));

	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	if (d)
		list[0] = &d->ibv;
	if (num)
		*num = d ? 1 : 0;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device ? device->name : NULL;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	return device ? RV_OF(rv_device, device)->guid : 0;
}

int ibv_get_device_index(struct ibv_device *device)
{
	return device ? 0 : -1;
}

/*
 * The interface's port (roce/link_open.h). The kernel answers ARP for an
 * address it carries (it must, for the program's TCP exchange), so the
 * AF_PACKET port answers only for one it lacks, and the AF_XDP port
 * shares the interface with the kernel. The GID table is the link-local
 * GID, the IPv4 one and the interface's other IPv6 addresses, as rxe's
 * (docs/verbs.md): rdma_resolve_addr of the drop-in librdmacm resolves on
 * any of them.
 */
/* ROCE_IBA_STRICT and ROCE_CC_ALGO (roce-run --iba-strict, --cc-algo;
 * roce/cc_options.h) into the device's CC block; neither set, its
 * defaults stay. */
static int cc_open(struct rv_context *c, char *why, size_t len)
{
	struct roce_cc_options o;
	char inner[160];
	int st;

	if ((st = roce_cc_options_env(&o, inner, sizeof(inner))) != ROCE_OK) {
		snprintf(why, len, "%s", inner);
		return st;
	}
	if ((st = roce_cc_options_apply(c->ctx, &o)) != ROCE_OK)
		snprintf(why, len, "congestion control: %s", roce_status_str(st));
	return st;
}

static int open_port(struct rv_context *c, char *why, size_t len)
{
	struct rv_device *d = c->dev;
	struct roce_link_spec ls = {
		.kind = d->xdp ? ROCE_LINK_XDP : ROCE_LINK_PACKET,
		.ifname = d->netdev, .ip = d->ip,
		.arp = d->xdp ? ROCE_LINK_ARP_KERNEL : ROCE_LINK_ARP_AUTO,
	};
	int st = roce_link_open(&ls, &c->link, why, len);

	if (st == ROCE_OK)
		c->link_mtu = roce_link_info(c->link)->path_mtu;
	return st;
}

static void set_ops(struct rv_context *c)
{
	struct ibv_context *ic = &c->vctx.context;

	ic->ops.poll_cq = rv_poll_cq;
	ic->ops.req_notify_cq = rv_req_notify_cq;
	ic->ops.post_send = rv_post_send;
	ic->ops.post_recv = rv_post_recv;
	ic->ops.post_srq_recv = rv_post_srq_recv;
	rv_set_unsupported_ops(&c->vctx);
	c->vctx.query_port = rv_query_port;
	c->vctx.query_device_ex = rv_query_device_ex;
	/* the inline functions check sz before they use an op */
	c->vctx.sz = sizeof(c->vctx);
}

/* The process's one context (rv_context): made at the first open, shared
 * by the next ones, gone at the last close. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rv_context *the_context;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* fork()'s child: the engine thread was the parent's and the port's
 * rings are shared with it, so the child never runs that engine (its
 * verbs on the copy say so); a device it opens is a new engine of its
 * own. The parent goes on as before. */
static void atfork_child(void)
{
	pthread_mutex_init(&open_lock, NULL);
	if (the_context)
		the_context->orphaned = true;
	the_context = NULL;
}

static void atfork_register(void)
{
	pthread_atfork(NULL, NULL, atfork_child);
}

int rv_orphaned(struct rv_context *c, const char *verb)
{
	static bool said;

	if (!said) {
		said = true;
		fprintf(stderr, "libibverbs (roce-run): %s: this device was opened before "
			"fork(), by the parent, whose engine it is: open it again in the "
			"child\n", verb);
	}
	(void)c;
	errno = EIO;
	return EIO;
}

/* RV_ENV_ENGINE and RV_ENV_HANDOFF_US: who runs the engine. */
static int engine_open(struct rv_context *c, char *why, size_t len)
{
	const char *mode = getenv(RV_ENV_ENGINE), *h = getenv(RV_ENV_HANDOFF);
	unsigned long us = ROCE_RTC_HANDOFF_US;
	char *end;
	int st;

	if (mode && *mode && strcmp(mode, "rtc") && strcmp(mode, "thread")) {
		snprintf(why, len, "%s=%s: rtc or thread", RV_ENV_ENGINE, mode);
		return ROCE_E_INVAL;
	}
	c->rtc = !mode || !*mode || !strcmp(mode, "rtc");
	if (h && *h) {
		us = strtoul(h, &end, 10);
		if (*end || !us || us > ROCE_RTC_HANDOFF_MAX_US) {
			snprintf(why, len, "%s=%s: 1 to %u (microseconds)", RV_ENV_HANDOFF, h,
				 ROCE_RTC_HANDOFF_MAX_US);
			return ROCE_E_INVAL;
		}
	}
	if (c->rtc && (st = roce_engine_set_handoff(c->ctx, (uint32_t)us)) != ROCE_OK) {
		snprintf(why, len, "%s: %s", RV_ENV_HANDOFF, roce_status_str(st));
		return st;
	}
	if ((st = roce_engine_start(c->ctx, -1)) != ROCE_OK)
		snprintf(why, len, "the engine thread: %s", roce_status_str(st));
	return st;
}

static struct rv_context *context_open(struct rv_device *d)
{
	struct roce_context_attr ca = { 0 };
	struct rv_context *c;
	char why[256] = "";
	int st;

	c = calloc(1, sizeof(*c));
	if (c)
		c->qp_by_num = calloc(ROCE_MAX_QP, sizeof(*c->qp_by_num));
	if (!c || !c->qp_by_num) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->dev = d;
	st = open_port(c, why, sizeof(why));
	if (st == ROCE_OK) {
		memcpy(ca.mac, roce_link_info(c->link)->mac, 6);
		ca.ip = d->ip;
		ca.port = roce_link_port(c->link);
		ca.port_mtu = c->link_mtu;
		memcpy(ca.ip6, roce_link_info(c->link)->ip6, sizeof(ca.ip6));
		ca.n_ip6 = roce_link_info(c->link)->n_ip6;
		st = roce_open(&ca, &c->ctx);
		if (st)
			snprintf(why, sizeof(why), "power-on: %s", roce_status_str(st));
	}
	if (st == ROCE_OK)
		st = rv_stage_open(c, why, sizeof(why));
	if (st == ROCE_OK)
		st = cc_open(c, why, sizeof(why));
	if (st == ROCE_OK)
		st = engine_open(c, why, sizeof(why));
	if (st) {
		fprintf(stderr, "libibverbs (roce-run): %s on %s: %s\n", d->ibv.name,
			d->netdev, why);
		if (c->ctx)
			roce_close(c->ctx);
		roce_link_close(c->link);
		free(c->qp_by_num);
		free(c);
		errno = rv_errno(st);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->vctx.context.device = &d->ibv;
	c->vctx.context.cmd_fd = -1;
	c->vctx.context.async_fd = roce_async_fd(c->ctx);
	c->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&c->vctx.context.mutex, NULL);
	c->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	set_ops(c);
	return c;
}

/* The engine's figures (RV_ENV_STATS=1), as bench/programs reads them */
static void say_stats(struct rv_context *c)
{
	struct roce_engine_rtc_stats s;
	const char *e = getenv(RV_ENV_STATS);

	if (!e || strcmp(e, "1"))
		return;
	roce_engine_rtc_stats(c->ctx, &s);
	fprintf(stderr, "roce-run: engine: driven %llu turns, thread %llu turns, takeovers "
		"%llu, takeover p50 %u us p99 %u us max %.1f us, parked %s\n",
		(unsigned long long)s.driven, (unsigned long long)s.thread_turns,
		(unsigned long long)s.takeovers, s.takeover_p50_us, s.takeover_p99_us,
		(double)s.takeover_max_ns / 1e3,
		s.parks_realtime ? "real-time" :
		s.parks ? "at normal priority (no CAP_SYS_NICE)" : "never");
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct rv_device *d = rv_device_get();
	struct rv_context *c;

	if (!d || device != &d->ibv) {
		errno = ENODEV;
		return NULL;
	}
	pthread_once(&atfork_once, atfork_register);
	pthread_mutex_lock(&open_lock);
	c = the_context;
	if (!c)
		c = the_context = context_open(d);
	if (c)
		c->refs++;
	pthread_mutex_unlock(&open_lock);
	return c ? &c->vctx.context : NULL;
}

int ibv_close_device(struct ibv_context *context)
{
	struct rv_context *c = rv_ctx(context);

	if (!c)
		return EINVAL;
	if (c->orphaned)
		return 0;       /* the parent's: nothing here to stop or free */
	pthread_mutex_lock(&open_lock);
	if (--c->refs) {
		pthread_mutex_unlock(&open_lock);
		return 0;
	}
	the_context = NULL;
	pthread_mutex_unlock(&open_lock);
	roce_engine_stop(c->ctx);
	say_stats(c);
	roce_close(c->ctx);
	roce_link_close(c->link);
	pthread_mutex_destroy(&c->lock);
	pthread_mutex_destroy(&c->vctx.context.mutex);
	free(c->qp_by_num);
	free(c);
	return 0;
}

int rv_resolve(struct rv_context *c, const struct ibv_ah_attr *ah, struct roce_ah_attr *out)
{
	const uint8_t *dgid = ah->grh.dgid.raw;
	int st;

	if (!ah->is_global) {
		/* RoCE has no LIDs: the GRH names the peer (rdma-core's
		 * ibv_resolve_eth_l2_from_gid refuses this likewise) */
		fprintf(stderr, "libibverbs (roce-run): an address vector without a GRH: "
			"RoCE needs the peer's GID (e.g. -g 1 for the IPv4 one)\n");
		return EINVAL;
	}
	memset(out, 0, sizeof(*out));
	out->is_global = true;
	memcpy(out->grh.dgid, dgid, 16);
	/* the IPv6 header's 20 bits, as the kernel's drivers keep them
	 * (mlx5's 20-bit field; rxe never reads more): UCX passes ~0 */
	out->grh.flow_label = ah->grh.flow_label & ROCE_IPV6_FLOW_MASK;
	out->grh.sgid_index = ah->grh.sgid_index;
	out->grh.hop_limit = ah->grh.hop_limit;
	out->grh.traffic_class = ah->grh.traffic_class;
	if (roce_gid_table_find(roce_context_gids(c->ctx), dgid) >= 0) {
		/* one of ours: our own MAC, as the kernel resolves a local
		 * address (UCX makes an AH to each of its GIDs to test it) */
		if (roce_gid_is_v4mapped(dgid))
			out->dest_ip = roce_gid_to_ipv4(dgid);
		memcpy(out->dest_mac, c->dev->mac, 6);
		st = ROCE_OK;
	} else if (roce_gid_is_v4mapped(dgid)) {
		out->dest_ip = roce_gid_to_ipv4(dgid);
		st = roce_link_resolve(c->link, out->dest_ip, RV_RESOLVE_MS, out->dest_mac);
	} else {
		st = roce_link_resolve6(c->link, dgid, RV_RESOLVE_MS, out->dest_mac, NULL, NULL);
	}
	if (st) {
		char a[64];

		fprintf(stderr, "libibverbs (roce-run): no MAC for GID %s on %s: %s\n",
			roce_gid_str(dgid, a, sizeof(a)), c->dev->netdev, roce_status_str(st));
		return rv_errno(st) == EINVAL ? EHOSTUNREACH : rv_errno(st);
	}
	return 0;
}
