/* SPDX-License-Identifier: MIT */
/*
 * The query verbs: the device's limits (from params.h and the register
 * file), its one port (Ethernet, ACTIVE, the interface's MTU as rxe takes
 * its port's from the netdev), the GID table of the engine (roce/gid.h:
 * 0 the link-local GID, 1 the IPv4-mapped one, then the IPv6 addresses;
 * all RoCE v2) and the one P_Key.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ibverbs/rv.h"
#include "roce/driver.h"
#include "roce/gid.h"
#include "roce/params.h"
#include "roce/regs.h"

#undef ibv_query_port

/* rdma-core's enum ibv_gid_type_sysfs (driver.h, not installed): what
 * ibv_query_gid_type answers */
enum { RV_GID_SYSFS_IB_ROCE_V1 = 0, RV_GID_SYSFS_ROCE_V2 = 1 };

static uint32_t qp_count(struct rv_context *c)
{
	uint32_t n = 0;

	if (roce_drv_read(roce_context_driver(c->ctx), ROCE_REG_QP_COUNT, &n) != 0 ||
	    n > ROCE_MAX_QP)
		n = ROCE_MAX_QP;
	return n > ROCE_FIRST_QPN ? n - ROCE_FIRST_QPN : 0;
}

static void device_attr(struct rv_context *c, struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "roce-nic 0.1");
	a->node_guid = c->dev->guid;
	a->sys_image_guid = c->dev->guid;
	a->max_mr_size = ROCE_MAX_MSG;
	a->page_size_cap = 0xfffff000u;
	/* rxe's vendor, 0xFFFFFF (no IEEE OUI), part 0: perftest takes the
	 * device for none it knows and uses ibv_post_send, not the mlx5/EFA
	 * ibv_wr_* path; a caller that checks for a vendor finds one */
	a->vendor_id = 0xFFFFFF;
	a->max_qp = (int)qp_count(c);
	a->max_qp_wr = ROCE_MAX_WR;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT;
	a->max_sge = ROCE_MAX_SGE;
	a->max_sge_rd = ROCE_MAX_SGE;
	a->max_cq = ROCE_MAX_QP;
	a->max_cqe = ROCE_MAX_CQE - 1;
	a->max_mr = ROCE_MAX_MR;
	a->max_pd = ROCE_MAX_QP;
	a->max_qp_rd_atom = ROCE_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = ROCE_MAX_RD_ATOMIC;
	a->max_res_rd_atom = (int)(ROCE_MAX_RD_ATOMIC * qp_count(c));
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_ah = ROCE_MAX_QP;
	a->max_srq = ROCE_MAX_QP;
	a->max_srq_wr = ROCE_MAX_WR;
	a->max_srq_sge = ROCE_WQE_SGE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	struct rv_context *c = rv_ctx(context);

	if (!c || !attr)
		return EINVAL;
	device_attr(c, attr);
	return 0;
}

int rv_query_device_ex(struct ibv_context *context,
		       const struct ibv_query_device_ex_input *input,
		       struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct rv_context *c = rv_ctx(context);
	struct ibv_device_attr_ex a;

	if (!c || !attr || (input && input->comp_mask) || attr_size < sizeof(a.orig_attr))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	device_attr(c, &a.orig_attr);
	a.max_dm_size = 0;
	/* as every provider: the 32-bit count beside the 8-bit one (UCX
	   and libfabric read this one) */
	a.phys_port_cnt_ex = a.orig_attr.phys_port_cnt;
	/* the program may be built with an older, shorter structure */
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	if (attr_size > sizeof(a))
		memset((uint8_t *)attr + sizeof(a), 0, attr_size - sizeof(a));
	return 0;
}

static void port_attr(struct rv_context *c, struct ibv_port_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->state = IBV_PORT_ACTIVE;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = (enum ibv_mtu)c->link_mtu;
	a->gid_tbl_len = ROCE_MAX_GID;
	a->max_msg_sz = ROCE_MAX_MSG;
	a->pkey_tbl_len = 1;
	a->max_vl_num = 1;
	a->active_width = 2;            /* 4X: what rxe reports */
	a->active_speed = 32;           /* EDR, likewise */
	a->phys_state = 5;              /* LinkUp (IBA 14.2.5.6) */
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
}

int rv_query_port(struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr,
		  size_t attr_len)
{
	struct rv_context *c = rv_ctx(context);
	struct ibv_port_attr a;

	if (!c || !attr || port != 1)
		return EINVAL;
	port_attr(c, &a);
	memcpy(attr, &a, attr_len < sizeof(a) ? attr_len : sizeof(a));
	return 0;
}

/* The exported symbol: only a program that finds no query_port op calls
 * it, with the older structure that ends before flags. */
int ibv_query_port(struct ibv_context *context, uint8_t port,
		   struct _compat_ibv_port_attr *attr)
{
	return rv_query_port(context, port, (struct ibv_port_attr *)(void *)attr,
			     offsetof(struct ibv_port_attr, flags));
}

int ibv_query_gid(struct ibv_context *context, uint8_t port, int index, union ibv_gid *gid)
{
	struct rv_context *c = rv_ctx(context);

	if (!c || !gid || port != 1 || index < 0 || index >= (int)ROCE_MAX_GID)
		return -1;
	/* an entry the port has not reads as zero, as the kernel's sysfs
	 * does (ibv_devinfo skips it) */
	if (roce_query_gid(c->ctx, port, index, gid->raw) != 0)
		memset(gid->raw, 0, sizeof(gid->raw));
	return 0;
}

int ibv_query_gid_type(struct ibv_context *context, uint8_t port, unsigned index,
		       int *type)
{
	struct rv_context *c = rv_ctx(context);
	enum roce_gid_type t;

	if (!c || !type || roce_query_gid_type(c->ctx, port, (int)index, &t) != 0)
		return -1;
	*type = t == ROCE_GID_TYPE_ROCE_V2 ? RV_GID_SYSFS_ROCE_V2 : RV_GID_SYSFS_IB_ROCE_V1;
	return 0;
}

static int gid_entry(struct rv_context *c, uint32_t index, struct ibv_gid_entry *e)
{
	enum roce_gid_type t;

	memset(e, 0, sizeof(*e));
	if (roce_query_gid(c->ctx, 1, (int)index, e->gid.raw) != 0 ||
	    roce_query_gid_type(c->ctx, 1, (int)index, &t) != 0)
		return ENODATA;
	e->gid_index = index;
	e->port_num = 1;
	e->gid_type = t == ROCE_GID_TYPE_ROCE_V2 ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
	e->ndev_ifindex = if_nametoindex(c->dev->netdev);
	return 0;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port, uint32_t index,
		      struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	struct rv_context *c = rv_ctx(context);
	struct ibv_gid_entry e;
	int err;

	if (!c || !entry || flags || port != 1 || entry_size < sizeof(e))
		return EINVAL;
	if ((err = gid_entry(c, index, &e)) != 0)
		return err;
	memcpy(entry, &e, sizeof(e));
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
			     size_t max, uint32_t flags, size_t entry_size)
{
	struct rv_context *c = rv_ctx(context);
	size_t n = 0;

	if (!c || flags || entry_size < sizeof(*entries))
		return -EINVAL;
	for (uint32_t i = 0; i < ROCE_MAX_GID; i++) {
		struct ibv_gid_entry e;

		if (gid_entry(c, i, &e) != 0)
			continue;
		if (n == max)
			return -EINVAL;
		memcpy((uint8_t *)entries + n * entry_size, &e, sizeof(e));
		n++;
	}
	return (ssize_t)n;
}

/* One P_Key, the default full-membership 0xffff (IBA 10.9.1.1). */
int ibv_query_pkey(struct ibv_context *context, uint8_t port, int index, __be16 *pkey)
{
	if (!rv_ctx(context) || !pkey || port != 1 || index != 0)
		return -1;
	*pkey = htons(0xffff);
	return 0;
}

int ibv_get_pkey_index(struct ibv_context *context, uint8_t port, __be16 pkey)
{
	if (!rv_ctx(context) || port != 1)
		return -EINVAL;
	return (ntohs(pkey) & 0x7fff) == 0x7fff ? 0 : -ENOENT;
}
