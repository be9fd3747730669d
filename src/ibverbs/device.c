/* SPDX-License-Identifier: MIT */
/*
 * The device list and the context: one device, roce0, whose one port is
 * the engine on the interface roce-run names (RV_ENV_*). Opening it opens
 * the interface's port (AF_PACKET, or AF_XDP), powers the model on
 * through its register file (roce_open) and starts the engine on a
 * thread of its own inside the program, as a NIC works beside the host's
 * threads; closing it undoes both. rdma-core's device.c does the same
 * walk over sysfs and the providers; here the environment is the sysfs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibverbs/rv.h"
#include "link/netdev_util.h"
#include "perf/perf_ep.h"
#include "roce/gid.h"
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
	const char *link = getenv(RV_ENV_LINK);
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
		d->ip = perf_netdev_ip(ifname);
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
	snprintf(d->ibv.name, sizeof(d->ibv.name), "%s", RV_DEVICE_NAME);
	snprintf(d->ibv.dev_name, sizeof(d->ibv.dev_name), "uverbs0");
	/* no sysfs behind it: the paths name nothing, so ibv_read_sysfs_file
	 * finds no file there */
	snprintf(d->ibv.dev_path, sizeof(d->ibv.dev_path), "/nonexistent/roce-run/uverbs0");
	snprintf(d->ibv.ibdev_path, sizeof(d->ibv.ibdev_path), "/nonexistent/roce-run/%s",
		 RV_DEVICE_NAME);
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

/* The interface's port, as the tools open it (src/perf/perf_ep.c). */
static int open_port(struct rv_context *c, struct roce_port **port, char *why, size_t len)
{
	struct rv_device *d = c->dev;
	int st;

	if (d->xdp) {
		struct roce_afxdp_config xc = { .ifname = d->netdev, .ip = d->ip,
						.share_kernel = true };

		st = roce_afxdp_open(&xc, &c->afx, why, len);
		if (st)
			return st;
		*port = roce_afxdp_port(c->afx);
		c->link_mtu = roce_afxdp_path_mtu(c->afx);
	} else {
#ifdef ROCE_HAVE_AFPACKET
		/* the kernel answers ARP for an address it carries (it must,
		 * for the program's TCP exchange); the port answers neighbour
		 * discovery for its link-local GID */
		struct roce_afpacket_config ac = {
			.ifname = d->netdev, .ip = d->ip,
			.answer_arp = !roce_netdev_has_ipv4(d->netdev, d->ip),
			.answer_nd = true, .n_ip6 = 1,
		};

		roce_gid_link_local(d->mac, ac.ip6[0]);
		st = roce_afpacket_open(&ac, &c->afp, why, len);
		if (st)
			return st;
		*port = roce_afpacket_port(c->afp);
		c->link_mtu = roce_afpacket_path_mtu(c->afp);
#else
		snprintf(why, len, "this build has no AF_PACKET link");
		return ROCE_E_UNSUPPORTED;
#endif
	}
	if (!c->link_mtu) {
		snprintf(why, len, "%s: the MTU is too small for RoCE", d->netdev);
		return ROCE_E_RANGE;
	}
	return ROCE_OK;
}

static void close_port(struct rv_context *c)
{
#ifdef ROCE_HAVE_AFPACKET
	roce_afpacket_close(c->afp);
#endif
	roce_afxdp_close(c->afx);
	c->afp = NULL;
	c->afx = NULL;
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

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct rv_device *d = rv_device_get();
	struct roce_context_attr ca = { 0 };
	struct roce_port *port = NULL;
	struct rv_context *c;
	char why[256] = "";
	int st;

	if (!d || device != &d->ibv) {
		errno = ENODEV;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->qp_by_num = calloc(ROCE_MAX_QP, sizeof(*c->qp_by_num));
	if (!c || !c->qp_by_num) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->dev = d;
	st = open_port(c, &port, why, sizeof(why));
	if (st == ROCE_OK) {
		memcpy(ca.mac, port->mac, 6);
		ca.ip = d->ip;
		ca.port = port;
		ca.port_mtu = c->link_mtu;
		st = roce_open(&ca, &c->ctx);
		if (st)
			snprintf(why, sizeof(why), "power-on: %s", roce_status_str(st));
	}
	if (st == ROCE_OK && (st = roce_engine_start(c->ctx, -1)) != ROCE_OK)
		snprintf(why, sizeof(why), "the engine thread: %s", roce_status_str(st));
	if (st) {
		fprintf(stderr, "libibverbs (roce-run): %s on %s: %s\n", RV_DEVICE_NAME,
			d->netdev, why);
		if (c->ctx)
			roce_close(c->ctx);
		close_port(c);
		free(c->qp_by_num);
		free(c);
		errno = rv_errno(st);
		return NULL;
	}
	pthread_mutex_init(&c->lock, NULL);
	c->vctx.context.device = device;
	c->vctx.context.cmd_fd = -1;
	c->vctx.context.async_fd = roce_async_fd(c->ctx);
	c->vctx.context.num_comp_vectors = 1;
	pthread_mutex_init(&c->vctx.context.mutex, NULL);
	c->vctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	set_ops(c);
	return &c->vctx.context;
}

int ibv_close_device(struct ibv_context *context)
{
	struct rv_context *c = rv_ctx(context);

	if (!c)
		return EINVAL;
	roce_engine_stop(c->ctx);
	roce_close(c->ctx);
	close_port(c);
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
	out->grh.flow_label = ah->grh.flow_label;
	out->grh.sgid_index = ah->grh.sgid_index;
	out->grh.hop_limit = ah->grh.hop_limit;
	out->grh.traffic_class = ah->grh.traffic_class;
	if (roce_gid_is_v4mapped(dgid)) {
		uint32_t ip = roce_gid_to_ipv4(dgid);

		out->dest_ip = ip;
#ifdef ROCE_HAVE_AFPACKET
		st = c->afp ? roce_afpacket_resolve(c->afp, ip, RV_RESOLVE_MS, out->dest_mac) :
		     roce_neigh_lookup(c->dev->netdev, ip, out->dest_mac) == ROCE_OK ? ROCE_OK :
		     roce_arp_resolve(c->dev->netdev, c->dev->mac, c->dev->ip, ip,
				      RV_RESOLVE_MS, out->dest_mac);
#else
		st = ROCE_E_UNSUPPORTED;
#endif
	} else {
#ifdef ROCE_HAVE_AFPACKET
		uint8_t ll[16];

		roce_gid_link_local(c->dev->mac, ll);
		st = c->afp ? roce_afpacket_resolve6(c->afp, dgid, RV_RESOLVE_MS, out->dest_mac,
						     NULL, NULL) :
		     roce_neigh6_lookup(c->dev->netdev, dgid, out->dest_mac) == ROCE_OK ?
		     ROCE_OK : roce_nd_resolve(c->dev->netdev, c->dev->mac, ll, dgid,
					       RV_RESOLVE_MS, out->dest_mac, NULL, NULL);
#else
		st = ROCE_E_UNSUPPORTED;
#endif
	}
	if (st) {
		char a[64];

		fprintf(stderr, "libibverbs (roce-run): no MAC for GID %s on %s: %s\n",
			roce_gid_str(dgid, a, sizeof(a)), c->dev->netdev, roce_status_str(st));
		return rv_errno(st) == EINVAL ? EHOSTUNREACH : rv_errno(st);
	}
	return 0;
}
