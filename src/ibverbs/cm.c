/* SPDX-License-Identifier: MIT */
/*
 * The engine's CM on the process's one context, for the drop-in
 * librdmacm.so.1 (rv_cm.h): what rdma-core's librdmacm finds in the
 * kernel's rdma_ucm (one CM per device, addresses resolved on the
 * device's netdev), here in the library that owns the engine, so that
 * the CM's QP1 and the program's QPs share one engine and one QPN space.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "ibverbs/rv.h"
#include "ibverbs/rv_cm.h"
#include "roce/status.h"

/* Connections and listeners the CM holds at once (roce_cm_attr.max_ids):
   ucmatose -c runs a few hundred */
#define RV_CM_MAX_IDS 1024u

static struct roce_pd *cm_pd;   /* QP1's, while the CM is open */

/* The CM's resolver: the interface's, as rv_resolve finds an AV's MAC */
static int cm_resolve(void *arg, int family, const uint8_t *addr, unsigned ms, uint8_t mac[6])
{
	struct rv_context *c = arg;
	uint32_t ip;

	if (family == AF_INET) {
		memcpy(&ip, addr, 4);
		return roce_link_resolve(c->link, ntohl(ip), ms, mac);
	}
	return roce_link_resolve6(c->link, addr, ms, mac, NULL, NULL);
}

int rv_cm_open(struct ibv_context *context, struct roce_cm **out)
{
	struct rv_context *c = context ? rv_ctx(context) : NULL;
	struct roce_cm_attr a = { 0 };
	int st;

	if (!c || !out)
		return EINVAL;
	if (c->orphaned)
		return rv_orphaned(c, "rdma_cm");
	if (cm_pd)
		return EBUSY;
	cm_pd = roce_alloc_pd(c->ctx);
	if (!cm_pd)
		return ENOMEM;
	a.ctx = c->ctx;
	a.pd = cm_pd;
	a.resolve = cm_resolve;
	a.resolve_arg = c;
	a.max_ids = RV_CM_MAX_IDS;
	st = roce_cm_open(&a, out);
	if (st != ROCE_OK) {
		fprintf(stderr, "librdmacm (roce-run): the RDMA CM on %s: %s\n", c->dev->netdev,
			roce_status_str(st));
		roce_dealloc_pd(cm_pd);
		cm_pd = NULL;
		return rv_errno(st);
	}
	return 0;
}

int rv_cm_close(struct roce_cm *cm)
{
	int st = roce_cm_close(cm);

	if (st != ROCE_OK)
		return rv_errno(st);
	roce_dealloc_pd(cm_pd);
	cm_pd = NULL;
	return 0;
}
