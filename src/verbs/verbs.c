/* SPDX-License-Identifier: MIT */
/*
 * The verbs objects: context, PD, MR, CQ (QPs in qp.c). Every QP and MR
 * setting goes through the host driver and the register file, exactly as it
 * would to the board; the engine follows the QP table on its own. The
 * roce_engine_* calls run the context's engine.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/pow2.h"
#include "engine/iommu.h"
#include "verbs/devmem.h"
#include "verbs/verbs_priv.h"
#include "roce/psn.h"
#include "roce/status.h"

/* ---- context --------------------------------------------------------------- */

int roce_open(const struct roce_context_attr *attr, struct roce_context **out)
{
	struct engine_config ec = { 0 };
	struct roce_context *ctx;
	struct roce_config *cfg;
	size_t mem_size;
	uint8_t *mem;
	int rc;

	if (!attr || !attr->port || !out)
		return ROCE_E_INVAL;
	if (attr->n_ip6 > ROCE_MAX_IP6)
		return ROCE_E_FULL;
	if (attr->port_mtu && !roce_mtu_bytes(attr->port_mtu))
		return ROCE_E_INVAL;
	ctx = calloc(1, sizeof(*ctx));
	cfg = calloc(1, sizeof(*cfg));
	if (!ctx || !cfg) {
		free(ctx);
		free(cfg);
		return ROCE_E_NOMEM;
	}
	/* the port's GIDs, as the kernel makes them from the interface */
	rc = roce_gid_table_build(&ctx->gids, attr->mac, attr->ip,
				  (const uint8_t (*)[ROCE_GID_LEN])attr->ip6, attr->n_ip6);
	if (rc)
		goto fail;
	rc = roce_device_create(&attr->dev, &ctx->dev);
	if (rc)
		goto fail;
	rc = roce_bus_open_local(&ctx->bus, ctx->dev);
	if (rc)
		goto fail;
	rc = vtrace_open(ctx, attr);
	if (rc)
		goto fail;
	roce_drv_init(&ctx->drv, &ctx->bus);
	/* the seed's power-on sequence, with the tables still empty */
	roce_config_defaults(cfg);
	memcpy(cfg->local.mac, attr->mac, 6);
	cfg->local.ip = attr->ip;
	cfg->local.udp_port = ROCE_UDP_PORT;
	if (attr->link_timeout_ms)
		cfg->link_timeout_ms = attr->link_timeout_ms;
	rc = roce_drv_power_on(&ctx->drv, cfg);
	if (rc)
		goto fail;
	/* QPNs come from the device's table, as large as it says it is */
	rc = roce_drv_read(&ctx->drv, ROCE_REG_QP_COUNT, &ctx->qp_count);
	if (rc == ROCE_OK && ctx->qp_count > ROCE_MAX_QP)
		rc = ROCE_E_RANGE;
	if (rc)
		goto fail;
	qpn_pool_init(ctx, ctx->qp_count);
	ctx->port_mtu = attr->port_mtu ? attr->port_mtu : ROCE_MTU_4096;
	mem = roce_device_mem(ctx->dev, &mem_size);
	ctx->mem = devmem_create(mem, mem_size);
	if (!ctx->mem) {
		rc = ROCE_E_NOMEM;
		goto fail;
	}
	ec.dev = ctx->dev;
	ec.port = vtrace_port(ctx, attr->port);
	memcpy(ec.mac, attr->mac, 6);
	ec.ip = attr->ip;
	ec.gids = ctx->gids;
	ec.now_ns = attr->now_ns;
	ec.clock_ctx = attr->clock_ctx;
	rc = engine_init(&ctx->eng, &ec);
	if (rc)
		goto fail;
	ctx->iommu = iommu_create();    /* host memory: roce_reg_host_mr */
	if (!ctx->iommu) {
		engine_fini(&ctx->eng);
		rc = ROCE_E_NOMEM;
		goto fail;
	}
	ctx->eng.iommu = ctx->iommu;
	vtrace_engine(ctx);
	ctx->rng = attr->key_seed;
	if (!ctx->rng && getrandom(&ctx->rng, sizeof(ctx->rng), 0) != sizeof(ctx->rng))
		ctx->rng = (uint64_t)(uintptr_t)ctx ^ 0x9E3779B97F4A7C15ull;
	free(cfg);
	*out = ctx;
	return ROCE_OK;
fail:
	free(cfg);
	devmem_destroy(ctx->mem);
	if (ctx->bus.ops)
		roce_bus_close(&ctx->bus);
	vtrace_close(ctx);
	if (ctx->dev)
		roce_device_destroy(ctx->dev);
	free(ctx);
	return rc;
}

void roce_close(struct roce_context *ctx)
{
	if (!ctx)
		return;
	roce_engine_stop(ctx);
	engine_fini(&ctx->eng);
	iommu_destroy(ctx->iommu);
	devmem_destroy(ctx->mem);
	roce_bus_close(&ctx->bus);
	vtrace_close(ctx);
	roce_device_destroy(ctx->dev);
	free(ctx);
}

struct roce_device *roce_context_device(struct roce_context *ctx)
{
	return ctx->dev;
}

struct roce_drv *roce_context_driver(struct roce_context *ctx)
{
	return &ctx->drv;
}

enum roce_mtu roce_context_port_mtu(struct roce_context *ctx)
{
	return ctx->port_mtu;
}

void *roce_mem_alloc(struct roce_context *ctx, size_t len, size_t align)
{
	return devmem_alloc(ctx->mem, len, align);
}

void roce_mem_free(struct roce_context *ctx, void *p)
{
	if (p)
		devmem_free(ctx->mem, p);
}

/* ---- running the engine ----------------------------------------------------- */

unsigned roce_engine_poll(struct roce_context *ctx)
{
	return engine_poll(&ctx->eng);
}

int roce_engine_start(struct roce_context *ctx, int cpu)
{
	return engine_start(&ctx->eng, cpu);
}

void roce_engine_stop(struct roce_context *ctx)
{
	engine_stop(&ctx->eng);
}

int roce_engine_set_idle(struct roce_context *ctx, uint32_t after_us, uint32_t nap_us)
{
	return ctx ? engine_set_idle(&ctx->eng, after_us, nap_us) : ROCE_E_RANGE;
}

int roce_engine_set_sleep(struct roce_context *ctx, uint32_t max_ms)
{
	return ctx ? engine_set_sleep(&ctx->eng, max_ms) : ROCE_E_RANGE;
}

void roce_engine_sleep_stats(struct roce_context *ctx, uint64_t *sleeps,
			     uint64_t *wakeups)
{
	engine_sleep_stats(&ctx->eng, sleeps, wakeups);
}

unsigned roce_engine_drive(struct roce_context *ctx)
{
	return engine_drive(&ctx->eng);
}

void roce_engine_waiting(struct roce_context *ctx)
{
	engine_waiting(&ctx->eng);
}

void roce_engine_release(struct roce_context *ctx)
{
	engine_release(&ctx->eng);
}

int roce_engine_set_handoff(struct roce_context *ctx, uint32_t handoff_us)
{
	return ctx ? engine_set_handoff(&ctx->eng, handoff_us) : ROCE_E_RANGE;
}

void roce_engine_rtc_stats(struct roce_context *ctx, struct roce_engine_rtc_stats *s)
{
	engine_rtc_stats(&ctx->eng, s);
}

void roce_engine_set_dma_stall(struct roce_context *ctx, bool stall, uint32_t timeout_us)
{
	engine_set_dma_stall(&ctx->eng, stall, timeout_us);
}

/* ---- PD, MR ----------------------------------------------------------------- */

struct roce_pd *roce_alloc_pd(struct roce_context *ctx)
{
	struct roce_pd *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return NULL;
	pd->ctx = ctx;
	pd->pdn = ++ctx->next_pdn;
	return pd;
}

int roce_dealloc_pd(struct roce_pd *pd)
{
	free(pd);
	return ROCE_OK;
}

static int bit_alloc(uint8_t *map, uint32_t first, uint32_t n, uint32_t *out)
{
	for (uint32_t i = first; i < n; i++) {
		if (!(map[i / 8] & (1u << (i % 8)))) {
			map[i / 8] |= (uint8_t)(1u << (i % 8));
			*out = i;
			return ROCE_OK;
		}
	}
	return ROCE_E_FULL;
}

static void bit_free(uint8_t *map, uint32_t i)
{
	map[i / 8] &= (uint8_t)~(1u << (i % 8));
}

static uint8_t random_byte(struct roce_context *ctx)
{
	/* xorshift64*: key bytes only need to be unpredictable from the index */
	ctx->rng ^= ctx->rng >> 12;
	ctx->rng ^= ctx->rng << 25;
	ctx->rng ^= ctx->rng >> 27;
	return (uint8_t)((ctx->rng * 0x2545F4914F6CDD1Dull) >> 56);
}

/* An MR entry in space at pa for [addr, addr + length), written through
 * the driver; the engine lock held. NULL with the status in *st. */
struct roce_mr *mr_create_locked(struct roce_pd *pd, void *addr, size_t length,
				 unsigned access, uint8_t space, uint64_t pa, int *st)
{
	struct roce_context *ctx = pd->ctx;
	struct roce_mr_ctx e = { 0 };
	struct roce_mr *mr = calloc(1, sizeof(*mr));
	uint32_t index;

	/* only the rights MR_ACCESS.ACCESS holds (the bits above are SPACE
	 * and VALID, which the codec does not let access reach) */
	*st = access & ~(unsigned)ROCE_FIELD_MASK(ROCE_MR_ACCESS_WIDTH) ? ROCE_E_INVAL
								   : ROCE_E_NOMEM;
	if (*st == ROCE_E_INVAL || !mr) {
		free(mr);
		return NULL;
	}
	*st = bit_alloc(ctx->mr_used, 0, ROCE_MAX_MR, &index);
	if (*st != ROCE_OK) {
		free(mr);
		return NULL;
	}
	e.index = index;
	e.valid = true;
	e.access = access;
	e.space = space;
	e.va = (uint64_t)(uintptr_t)addr;
	e.pa = pa;
	e.len = length;
	/* never key 0 (index 0, key byte 0): programs take a zero L_Key or
	   R_Key for none, and rxe's keys start at index 1 */
	do
		e.lkey = ROCE_MR_KEY(index, random_byte(ctx));
	while (!e.lkey);
	e.rkey = e.lkey;
	e.pd = pd->pdn;
	*st = roce_drv_mr_write(&ctx->drv, &e);
	if (*st != ROCE_OK) {
		bit_free(ctx->mr_used, index);
		free(mr);
		return NULL;
	}
	mr->ctx = ctx;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->lkey = e.lkey;
	mr->rkey = e.rkey;
	mr->index = index;
	mr->access = access;
	return mr;
}

struct roce_mr *roce_reg_mr(struct roce_pd *pd, void *addr, size_t length,
			    unsigned access)
{
	struct roce_context *ctx = pd->ctx;
	size_t mem_size;
	uint8_t *mem = roce_device_mem(ctx->dev, &mem_size);
	struct roce_mr *mr;
	int st;

	if ((uint8_t *)addr < mem || length > mem_size ||
	    (size_t)((uint8_t *)addr - mem) > mem_size - length)
		return NULL;    /* DDR only: host memory is roce_reg_host_mr's */
	engine_lock(&ctx->eng);
	mr = mr_create_locked(pd, addr, length, access, ROCE_MR_SPACE_DDR,
			      (uint64_t)((uint8_t *)addr - mem), &st);
	engine_unlock(&ctx->eng);
	return mr;
}

int roce_dereg_mr(struct roce_mr *mr)
{
	struct roce_context *ctx = mr->ctx;
	struct roce_mr_ctx e = { .index = mr->index, .valid = false };
	int rc;

	engine_lock(&ctx->eng);
	rc = roce_drv_mr_write(&ctx->drv, &e);
	if (rc == ROCE_OK) {
		bit_free(ctx->mr_used, mr->index);
		hostmr_unmap_locked(ctx, mr->index);    /* after the entry went */
	}
	engine_unlock(&ctx->eng);
	if (rc == ROCE_OK)
		free(mr);
	return rc;
}

int roce_rereg_mr(struct roce_mr *mr, unsigned flags, struct roce_pd *pd, unsigned access)
{
	struct roce_context *ctx;
	struct roce_mr_ctx e;
	int rc;

	if (!mr || !flags || (flags & ~(ROCE_REREG_PD | ROCE_REREG_ACCESS)) ||
	    ((flags & ROCE_REREG_PD) && (!pd || pd->ctx != mr->ctx)) ||
	    ((flags & ROCE_REREG_ACCESS) &&
	     (access & ~(unsigned)ROCE_FIELD_MASK(ROCE_MR_ACCESS_WIDTH))))
		return ROCE_E_INVAL;
	ctx = mr->ctx;
	engine_lock(&ctx->eng);
	/* read, change, write back: the range, keys, space and stage
	   binding stay as they are */
	rc = roce_drv_mr_read(&ctx->drv, mr->index, &e);
	if (rc == ROCE_OK) {
		if (flags & ROCE_REREG_PD)
			e.pd = pd->pdn;
		if (flags & ROCE_REREG_ACCESS)
			e.access = access;
		rc = roce_drv_mr_write(&ctx->drv, &e);
	}
	if (rc == ROCE_OK) {
		if (flags & ROCE_REREG_PD)
			mr->pd = pd;
		if (flags & ROCE_REREG_ACCESS)
			mr->access = access;
	}
	engine_unlock(&ctx->eng);
	return rc;
}

/* ---- CQ ----------------------------------------------------------------------- */

struct roce_cq *roce_create_cq(struct roce_context *ctx, int cqe)
{
	return roce_create_cq_channel(ctx, cqe, NULL, NULL);
}

struct roce_cq *roce_create_cq_channel(struct roce_context *ctx, int cqe, void *cq_context,
				       struct roce_comp_channel *channel)
{
	struct roce_cq *cq;
	uint32_t n;

	if (cqe < 1 || (uint32_t)cqe > ROCE_MAX_CQE || (channel && channel->ctx != ctx))
		return NULL;
	n = pow2_at_least((uint32_t)cqe);
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->eng.wc = calloc(n, sizeof(*cq->eng.wc));
	if (!cq->eng.wc) {
		free(cq);
		return NULL;
	}
	cq->ctx = ctx;
	cq->trace = ctx->trace;
	cq->cq_context = cq_context;
	cq->eng.ring.mask = n - 1;
	if (channel)
		channel_attach(channel, cq);
	return cq;
}

int roce_resize_cq(struct roce_cq *cq, int cqe)
{
	struct eng_cq *q;
	struct roce_wc *wc, *old;
	uint32_t n, cons, prod;
	int rc = ROCE_OK;

	if (!cq)
		return ROCE_E_INVAL;
	if (cqe < 1 || (uint32_t)cqe > ROCE_MAX_CQE)
		return ROCE_E_RANGE;
	n = pow2_at_least((uint32_t)cqe);
	wc = calloc(n, sizeof(*wc));
	if (!wc)
		return ROCE_E_NOMEM;
	q = &cq->eng;
	/* the engine writes completions only in its turns: none meanwhile */
	engine_lock(&cq->ctx->eng);
	cons = atomic_load_explicit(&q->ring.cons, memory_order_acquire);
	prod = atomic_load_explicit(&q->ring.prod, memory_order_acquire);
	if (atomic_load_explicit(&q->overflow, memory_order_acquire))
		rc = ROCE_E_FULL;
	else if (prod - cons > (uint32_t)cqe)
		rc = ROCE_E_INVAL;      /* rxe's, mlx5's: the completions held stay */
	if (rc == ROCE_OK) {
		/* at the same indexes: prod and cons stay as they are */
		for (uint32_t i = cons; i != prod; i++)
			wc[i & (n - 1)] = q->wc[i & q->ring.mask];
		old = q->wc;
		q->wc = wc;
		q->ring.mask = n - 1;
		wc = old;
	}
	engine_unlock(&cq->ctx->eng);
	free(wc);
	return rc;
}

int roce_destroy_cq(struct roce_cq *cq)
{
	struct roce_engine *e;
	int rc;

	if (!cq)
		return ROCE_E_INVAL;
	e = &cq->ctx->eng;
	/* no poll under way: no event being raised for it meanwhile */
	engine_lock(e);
	rc = async_busy(cq->ctx, &cq->async) ? ROCE_E_BUSY : channel_detach(cq);
	if (rc == ROCE_OK)
		async_purge(cq->ctx, &cq->eng);
	engine_unlock(e);
	if (rc != ROCE_OK)
		return rc;
	free(cq->eng.wc);
	free(cq);
	return ROCE_OK;
}

/* The host's end of the CQ ring (the engine's is cq_push, src/engine/cq.c). */
int roce_poll_cq(struct roce_cq *cq, int n, struct roce_wc *wc)
{
	struct eng_cq *q = &cq->eng;
	uint32_t cons = atomic_load_explicit(&q->ring.cons, memory_order_relaxed);
	uint32_t prod = atomic_load_explicit(&q->ring.prod, memory_order_acquire);
	int got = 0;

	if (atomic_load_explicit(&q->overflow, memory_order_acquire))
		return -ROCE_E_FULL;
	while (got < n && cons != prod) {
		wc[got++] = q->wc[cons & q->ring.mask];
		cons++;
	}
	atomic_store_explicit(&q->ring.cons, cons, memory_order_release);
	if (__builtin_expect(cq->trace != NULL, 0))
		vtrace_cqes(cq->trace, wc, got);
	return got;
}
