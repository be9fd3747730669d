/* SPDX-License-Identifier: MIT */
/*
 * Host memory (roce_reg_host_mr, src/verbs/hostmr.c; the IOMMU,
 * src/engine/iommu.h): two engines on the in-memory link with MRs over
 * malloc'd buffers on both sides. Every operation into and out of host
 * memory moves the right bytes; a request that reaches one byte past a
 * host MR, a host entry the register file made over no window, a stale
 * R_Key after dereg: each NAKed (or refused locally), and no host byte
 * outside a registered buffer, nor inside one, changes. Each buffer sits
 * between guard bytes the engine must never touch.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "pair.h"
#include "roce/driver.h"
#include "common/trace.h"
#include "engine/iommu.h"
#include "verbs/verbs_priv.h"

#define GUARD 64u
#define GUARD_BYTE 0xA5
#define ACCESS_ALL (ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_WRITE | \
		    ROCE_ACCESS_REMOTE_READ | ROCE_ACCESS_REMOTE_ATOMIC)

/* A malloc'd buffer with guard bytes before and after its MR. */
struct hbuf {
	uint8_t *raw;
	uint8_t *p;             /* raw + GUARD: what the MR covers */
	size_t len;
	struct roce_mr *mr;
};

static void hbuf_reg(struct pair_side *s, struct hbuf *h, size_t len)
{
	h->raw = malloc(len + 2 * GUARD);
	assert_non_null(h->raw);
	memset(h->raw, GUARD_BYTE, len + 2 * GUARD);
	h->p = h->raw + GUARD;
	h->len = len;
	h->mr = roce_reg_host_mr(s->pd, h->p, len, ACCESS_ALL);
	assert_non_null(h->mr);
	assert_ptr_equal(h->mr->addr, h->p);
	assert_int_equal(h->mr->length, len);
}

static void guards_intact(const struct hbuf *h)
{
	for (unsigned i = 0; i < GUARD; i++) {
		assert_int_equal(h->raw[i], GUARD_BYTE);
		assert_int_equal(h->p[h->len + i], GUARD_BYTE);
	}
}

static void hbuf_free(struct hbuf *h)
{
	if (h->mr)
		assert_int_equal(roce_dereg_mr(h->mr), ROCE_OK);
	free(h->raw);
}

static struct roce_sge sge_of(const struct hbuf *h, size_t off, uint32_t len)
{
	struct roce_sge s = { (uint64_t)(uintptr_t)(h->p + off), len, h->mr->lkey };

	return s;
}

static void post_recv(struct pair_side *s, struct roce_sge *sge, int n, uint64_t wr_id)
{
	struct roce_recv_wr wr = { .wr_id = wr_id, .sg_list = sge, .num_sge = n }, *bad;

	assert_int_equal(roce_post_recv(s->qp, &wr, &bad), ROCE_OK);
}

static void wait_recv(struct pair *p, uint64_t wr_id, uint32_t len)
{
	struct roce_wc wc;

	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.wr_id, wr_id);
	assert_int_equal(wc.byte_len, len);
}

/* An RDMA WR of A's against B: one SGE, remote address and key. */
static void rdma(struct pair *p, enum roce_wr_opcode op, struct roce_sge *sge,
		 uint64_t raddr, uint32_t rkey, enum roce_wc_status want)
{
	struct roce_send_wr wr = { 0 };

	wr.wr_id = 7;
	wr.opcode = op;
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	pair_post_wait(p, &p->a, &wr, want);
}

static void atomic(struct pair *p, enum roce_wr_opcode op, struct roce_sge *sge,
		   uint64_t raddr, uint32_t rkey, uint64_t cmp_add, uint64_t swap)
{
	struct roce_send_wr wr = { 0 };

	wr.wr_id = 9;
	wr.opcode = op;
	wr.sg_list = sge;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
}

/* SEND/RECV, WRITE, READ and both atomics, host memory on both sides. */
static void test_ops_in_host_memory(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct hbuf ha, hb;
	uint8_t want[8192];
	struct roce_send_wr wr = { 0 };
	struct roce_sge sa, sb;
	uint64_t v;

	(void)state;
	hbuf_reg(&p->a, &ha, 8192);
	hbuf_reg(&p->b, &hb, 8192);
	assert_int_equal(ha.mr->lkey, ha.mr->rkey);
	assert_int_equal(iommu_count(p->a.ctx->iommu), 1);

	/* SEND of 5000 bytes (5 packets at MTU 1024) into a host RWQE */
	pair_pattern(ha.p, 5000, 1);
	sb = sge_of(&hb, 0, 8192);
	post_recv(&p->b, &sb, 1, 11);
	sa = sge_of(&ha, 0, 5000);
	wr.wr_id = 1;
	wr.opcode = ROCE_WR_SEND;
	wr.sg_list = &sa;
	wr.num_sge = 1;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	wait_recv(p, 11, 5000);
	assert_memory_equal(hb.p, ha.p, 5000);

	/* WRITE 3000 bytes host -> host at offsets */
	pair_pattern(ha.p + 100, 3000, 2);
	sa = sge_of(&ha, 100, 3000);
	rdma(p, ROCE_WR_RDMA_WRITE, &sa, (uint64_t)(uintptr_t)(hb.p + 1000),
	     hb.mr->rkey, ROCE_WC_SUCCESS);
	assert_memory_equal(hb.p + 1000, ha.p + 100, 3000);

	/* READ 4000 bytes of B's host memory into A's */
	pair_pattern(hb.p + 2000, 4000, 3);
	memcpy(want, hb.p + 2000, 4000);
	sa = sge_of(&ha, 4096, 4000);
	rdma(p, ROCE_WR_RDMA_READ, &sa, (uint64_t)(uintptr_t)(hb.p + 2000),
	     hb.mr->rkey, ROCE_WC_SUCCESS);
	assert_memory_equal(ha.p + 4096, want, 4000);

	/* FETCH_AND_ADD, then CMP_AND_SWAP, on a word of B's host memory */
	v = 100;
	memcpy(hb.p + 8, &v, 8);
	sa = sge_of(&ha, 0, 8);
	atomic(p, ROCE_WR_ATOMIC_FETCH_AND_ADD, &sa, (uint64_t)(uintptr_t)(hb.p + 8),
	       hb.mr->rkey, 5, 0);
	memcpy(&v, ha.p, 8);
	assert_int_equal(v, 100);
	memcpy(&v, hb.p + 8, 8);
	assert_int_equal(v, 105);
	atomic(p, ROCE_WR_ATOMIC_CMP_AND_SWP, &sa, (uint64_t)(uintptr_t)(hb.p + 8),
	       hb.mr->rkey, 105, 7);
	memcpy(&v, ha.p, 8);
	assert_int_equal(v, 105);
	memcpy(&v, hb.p + 8, 8);
	assert_int_equal(v, 7);

	guards_intact(&ha);
	guards_intact(&hb);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), 0);
	hbuf_free(&ha);
	hbuf_free(&hb);
	assert_int_equal(iommu_count(p->a.ctx->iommu), 0);
	assert_int_equal(iommu_count(p->b.ctx->iommu), 0);
	pair_close(p);
}

/* A WRITE whose RETH range runs 1 byte past B's host MR: NAK remote
 * access, nothing written, not even the bytes inside the MR; the one that
 * ends exactly at its end is executed. */
static void test_write_one_past_host_mr(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct hbuf ha, hb;
	struct roce_sge sa;

	(void)state;
	hbuf_reg(&p->a, &ha, 4097);
	hbuf_reg(&p->b, &hb, 4096);
	memset(hb.p, 0, 4096);
	pair_pattern(ha.p, 4097, 4);

	sa = sge_of(&ha, 0, 4096);              /* exactly to the end: fine */
	rdma(p, ROCE_WR_RDMA_WRITE, &sa, (uint64_t)(uintptr_t)hb.p, hb.mr->rkey,
	     ROCE_WC_SUCCESS);
	assert_memory_equal(hb.p, ha.p, 4096);
	guards_intact(&hb);

	memset(hb.p, 0, 4096);
	sa = sge_of(&ha, 0, 4097);              /* one byte more */
	rdma(p, ROCE_WR_RDMA_WRITE, &sa, (uint64_t)(uintptr_t)hb.p, hb.mr->rkey,
	     ROCE_WC_REM_ACCESS_ERR);
	assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), 1);
	for (unsigned i = 0; i < 4096; i++)
		assert_int_equal(hb.p[i], 0);
	guards_intact(&hb);
	guards_intact(&ha);
	hbuf_free(&ha);
	hbuf_free(&hb);
	pair_close(p);
}

/* An MR entry written through the register file (which is the whole
 * NIC's control) with SPACE = HOST and a PA that no window maps: the PA
 * as a host pointer, as a free window's IOVA, as the IOVA of a window
 * just past B's buffer's: WRITE and READ through it are NAKed and no
 * host byte is touched. */
static void test_register_file_host_entry_refused(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p;
	struct hbuf ha, hb, victim;
	struct roce_mr_ctx e;
	struct roce_drv *drv;
	const uint32_t index = ROCE_MAX_MR - 1;
	uint64_t pas[3];
	struct roce_sge sa;

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		p = pair_open(&o);
		hbuf_reg(&p->a, &ha, 4096);
		hbuf_reg(&p->b, &hb, 4096);
		memset(hb.p, 0x11, 4096);
		/* the victim: host memory of B's process no MR covers */
		victim.raw = malloc(4096 + 2 * GUARD);
		assert_non_null(victim.raw);
		memset(victim.raw, GUARD_BYTE, 4096 + 2 * GUARD);
		victim.p = victim.raw + GUARD;
		victim.len = 4096;
		victim.mr = NULL;
		pas[0] = (uint64_t)(uintptr_t)victim.p;
		pas[1] = IOMMU_IOVA_BASE + 1000 * IOMMU_SLOT_SIZE;
		pas[2] = p->b.ctx->mr_iova[hb.mr->index] + 4096; /* past hb's window */

		drv = roce_context_driver(p->b.ctx);
		assert_int_equal(roce_drv_mr_read(drv, hb.mr->index, &e), ROCE_OK);
		assert_int_equal(e.space, ROCE_MR_SPACE_HOST);
		e.index = index;
		e.lkey = e.rkey = ROCE_MR_KEY(index, 0x5C);
		e.va = 0x10000;
		e.len = 4096;
		e.pa = pas[k];
		assert_int_equal(roce_drv_mr_write(drv, &e), ROCE_OK);

		pair_pattern(ha.p, 4096, 5);
		sa = sge_of(&ha, 0, 4096);
		rdma(p, ROCE_WR_RDMA_WRITE, &sa, 0x10000, e.rkey, ROCE_WC_REM_ACCESS_ERR);
		assert_int_equal(pair_cnt(&p->b, ROCE_CNT_NAKS_TX_REMOTE_ACCESS), 1);
		guards_intact(&victim);
		for (unsigned i = 0; i < 4096; i++)
			assert_int_equal(victim.p[i], GUARD_BYTE);
		for (unsigned i = 0; i < 4096; i++)
			assert_int_equal(hb.p[i], 0x11);
		guards_intact(&hb);
		hbuf_free(&ha);
		hbuf_free(&hb);
		pair_close(p);
		free(victim.raw);

		/* READ through it: NAKed, A's buffer unchanged */
		p = pair_open(&o);
		hbuf_reg(&p->a, &ha, 4096);
		memset(ha.p, 0x22, 4096);
		drv = roce_context_driver(p->b.ctx);
		assert_int_equal(roce_drv_mr_read(drv, p->b.mr->index, &e), ROCE_OK);
		e.index = index;
		e.lkey = e.rkey = ROCE_MR_KEY(index, 0x5C);
		e.space = ROCE_MR_SPACE_HOST;
		e.va = 0x10000;
		e.len = 4096;
		e.pa = k == 2 ? IOMMU_IOVA_BASE : pas[k];
		assert_int_equal(roce_drv_mr_write(drv, &e), ROCE_OK);
		sa = sge_of(&ha, 0, 4096);
		rdma(p, ROCE_WR_RDMA_READ, &sa, 0x10000, e.rkey, ROCE_WC_REM_ACCESS_ERR);
		for (unsigned i = 0; i < 4096; i++)
			assert_int_equal(ha.p[i], 0x22);
		guards_intact(&ha);
		hbuf_free(&ha);
		pair_close(p);
	}
}

/* The same forged entry as an L_Key: a receive WQE scattering into it
 * completes with a local protection error and the host pointer it names
 * is not written; a SEND gathering from it fails the same way. */
static void test_register_file_host_lkey_refused(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct hbuf victim;
	struct roce_mr_ctx e;
	struct roce_drv *drv;
	const uint32_t index = ROCE_MAX_MR - 2;
	struct roce_sge sb, sa;
	struct roce_send_wr wr = { 0 };
	struct roce_wc wc;

	(void)state;
	victim.raw = malloc(4096 + 2 * GUARD);
	assert_non_null(victim.raw);
	memset(victim.raw, GUARD_BYTE, 4096 + 2 * GUARD);
	victim.p = victim.raw + GUARD;
	victim.len = 4096;
	for (int side = 0; side < 2; side++) {
		struct pair_side *s = side ? &p->b : &p->a;

		drv = roce_context_driver(s->ctx);
		assert_int_equal(roce_drv_mr_read(drv, s->mr->index, &e), ROCE_OK);
		e.index = index;
		e.lkey = e.rkey = ROCE_MR_KEY(index, 0x77);
		e.space = ROCE_MR_SPACE_HOST;
		e.va = (uint64_t)(uintptr_t)victim.p;
		e.pa = (uint64_t)(uintptr_t)victim.p;   /* "physical = virtual" */
		e.len = 4096;
		assert_int_equal(roce_drv_mr_write(drv, &e), ROCE_OK);
	}
	sb = (struct roce_sge){ (uint64_t)(uintptr_t)victim.p, 4096, e.lkey };
	post_recv(&p->b, &sb, 1, 31);
	pair_pattern(p->a.buf, 512, 11);
	sa = (struct roce_sge){ (uint64_t)(uintptr_t)p->a.buf, 512, p->a.mr->lkey };
	wr.wr_id = 4;
	wr.opcode = ROCE_WR_SEND;
	wr.sg_list = &sa;
	wr.num_sge = 1;
	wr.send_flags = ROCE_SEND_SIGNALED;
	{
		struct roce_send_wr *bad;

		assert_int_equal(roce_post_send(p->a.qp, &wr, &bad), ROCE_OK);
	}
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 10000), 1);
	assert_int_equal(wc.wr_id, 31);
	assert_int_equal(wc.status, ROCE_WC_LOC_PROT_ERR);
	for (unsigned i = 0; i < 4096 + 2 * GUARD; i++)
		assert_int_equal(victim.raw[i], GUARD_BYTE);
	pair_close(p);

	/* gathering from it on a fresh pair */
	p = pair_open(&o);
	drv = roce_context_driver(p->a.ctx);
	assert_int_equal(roce_drv_mr_read(drv, p->a.mr->index, &e), ROCE_OK);
	e.index = index;
	e.lkey = e.rkey = ROCE_MR_KEY(index, 0x77);
	e.space = ROCE_MR_SPACE_HOST;
	e.va = e.pa = (uint64_t)(uintptr_t)victim.p;
	e.len = 4096;
	assert_int_equal(roce_drv_mr_write(drv, &e), ROCE_OK);
	sa = (struct roce_sge){ (uint64_t)(uintptr_t)victim.p, 512, e.lkey };
	wr.send_flags = 0;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p->b.buf;
	wr.wr.rdma.rkey = p->b.mr->rkey;
	memset(p->b.buf, 0, 512);
	pair_post_wait(p, &p->a, &wr, ROCE_WC_LOC_PROT_ERR);
	for (unsigned i = 0; i < 512; i++)
		assert_int_equal(p->b.buf[i], 0);
	pair_close(p);
	free(victim.raw);
}

/* Dereg unmaps the window: the stale R_Key is NAKed and the buffer, still
 * allocated, is not touched; a WRITE before the dereg was. */
static void test_stale_rkey_after_dereg(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct hbuf ha, hb;
	struct roce_sge sa;
	uint32_t rkey;

	(void)state;
	hbuf_reg(&p->a, &ha, 2048);
	hbuf_reg(&p->b, &hb, 2048);
	pair_pattern(ha.p, 2048, 6);
	sa = sge_of(&ha, 0, 2048);
	rdma(p, ROCE_WR_RDMA_WRITE, &sa, (uint64_t)(uintptr_t)hb.p, hb.mr->rkey,
	     ROCE_WC_SUCCESS);
	assert_memory_equal(hb.p, ha.p, 2048);

	rkey = hb.mr->rkey;
	assert_int_equal(iommu_count(p->b.ctx->iommu), 1);
	assert_int_equal(roce_dereg_mr(hb.mr), ROCE_OK);
	hb.mr = NULL;
	assert_int_equal(iommu_count(p->b.ctx->iommu), 0);
	memset(hb.p, 0x33, 2048);
	rdma(p, ROCE_WR_RDMA_WRITE, &sa, (uint64_t)(uintptr_t)hb.p, rkey,
	     ROCE_WC_REM_ACCESS_ERR);
	for (unsigned i = 0; i < 2048; i++)
		assert_int_equal(hb.p[i], 0x33);
	guards_intact(&hb);
	hbuf_free(&ha);
	hbuf_free(&hb);
	pair_close(p);
}

/* One SGE list mixing a DDR MR and a host MR, on both sides of a SEND
 * and as a WRITE's gather. */
static void test_mixed_sge_list(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	struct hbuf ha, hb;
	struct roce_sge sa[2], sb[2];
	struct roce_send_wr wr = { 0 };
	uint8_t want[3000];

	(void)state;
	hbuf_reg(&p->a, &ha, 4096);
	hbuf_reg(&p->b, &hb, 4096);
	/* A gathers 1200 bytes of DDR then 1800 of host memory */
	pair_pattern(p->a.buf, 1200, 7);
	pair_pattern(ha.p + 10, 1800, 8);
	memcpy(want, p->a.buf, 1200);
	memcpy(want + 1200, ha.p + 10, 1800);
	sa[0] = (struct roce_sge){ (uint64_t)(uintptr_t)p->a.buf, 1200, p->a.mr->lkey };
	sa[1] = sge_of(&ha, 10, 1800);
	/* B scatters into 1000 bytes of host memory then DDR */
	sb[0] = sge_of(&hb, 0, 1000);
	sb[1] = (struct roce_sge){ (uint64_t)(uintptr_t)p->b.buf, 4096, p->b.mr->lkey };
	post_recv(&p->b, sb, 2, 21);
	wr.wr_id = 2;
	wr.opcode = ROCE_WR_SEND;
	wr.sg_list = sa;
	wr.num_sge = 2;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	wait_recv(p, 21, 3000);
	assert_memory_equal(hb.p, want, 1000);
	assert_memory_equal(p->b.buf, want + 1000, 2000);

	/* the same gather as a WRITE into B's host memory */
	wr.wr_id = 3;
	wr.opcode = ROCE_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(hb.p + 1000);
	wr.wr.rdma.rkey = hb.mr->rkey;
	pair_post_wait(p, &p->a, &wr, ROCE_WC_SUCCESS);
	assert_memory_equal(hb.p + 1000, want, 3000);
	guards_intact(&ha);
	guards_intact(&hb);
	hbuf_free(&ha);
	hbuf_free(&hb);
	pair_close(p);
}

/* Windows mapped and unmapped while both engines run on their own
 * threads (the engine lock orders them against the DMA: TSan runs this
 * too): each round registers a fresh host buffer on B, WRITEs into it
 * from A's host memory, checks it and deregisters it; every window is
 * unmapped (no window left at the end). */
static void test_windows_under_running_engines(void **state)
{
	struct pair_opts o = { .timeout = PAIR_THREAD_TIMEOUT };
	struct pair *p = pair_open(&o);
	struct hbuf ha, hb;
	struct roce_sge sa;

	(void)state;
	assert_int_equal(pair_start(&p->a, -1), ROCE_OK);
	assert_int_equal(pair_start(&p->b, -1), ROCE_OK);
	hbuf_reg(&p->a, &ha, 3000);
	for (uint32_t round = 0; round < 40; round++) {
		hbuf_reg(&p->b, &hb, 3000);
		pair_pattern(ha.p, 3000, 100 + round);
		sa = sge_of(&ha, 0, 3000);
		rdma(p, ROCE_WR_RDMA_WRITE, &sa, (uint64_t)(uintptr_t)hb.p, hb.mr->rkey,
		     ROCE_WC_SUCCESS);
		assert_memory_equal(hb.p, ha.p, 3000);
		guards_intact(&hb);
		hbuf_free(&hb);
	}
	assert_int_equal(iommu_count(p->b.ctx->iommu), 0);
	hbuf_free(&ha);
	pair_close(p);
}

/* The API's errors, and roce_reg_mr still refusing host memory. */
static void test_reg_host_mr_errors(void **state)
{
	struct pair_opts o = { .virtual_time = true };
	struct pair *p = pair_open(&o);
	uint8_t *buf = malloc(4096);

	(void)state;
	assert_non_null(buf);
	errno = 0;
	assert_null(roce_reg_host_mr(p->a.pd, NULL, 4096, ACCESS_ALL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(roce_reg_host_mr(p->a.pd, buf, 0, ACCESS_ALL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(roce_reg_host_mr(NULL, buf, 4096, ACCESS_ALL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(roce_reg_host_mr(p->a.pd, (void *)(UINTPTR_MAX - 100), 4096, ACCESS_ALL));
	assert_int_equal(errno, EOVERFLOW);
	errno = 0;
	assert_null(roce_reg_host_mr(p->a.pd, buf, (size_t)IOMMU_WINDOW_MAX + 1, ACCESS_ALL));
	assert_int_equal(errno, EOVERFLOW);
	/* rights the entry refuses: remote write without local write
	 * (IBA 10.6.3.1), a bit beyond the rights */
	errno = 0;
	assert_null(roce_reg_host_mr(p->a.pd, buf, 4096, ROCE_ACCESS_REMOTE_WRITE));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(roce_reg_host_mr(p->a.pd, buf, 4096, 1u << 8));
	assert_int_equal(errno, EINVAL);
	/* no failure leaves a window behind */
	assert_int_equal(iommu_count(p->a.ctx->iommu), 0);
	/* roce_reg_mr is for the DDR only */
	assert_null(roce_reg_mr(p->a.pd, buf, 4096, ACCESS_ALL));
	free(buf);
	pair_close(p);
}

/* The transaction trace tells host memory from DDR: the engine's accesses
 * to a host MR are hdmard/hdmawr records at the window's IOVA with the
 * bytes moved, those to DDR stay dmard/dmawr at the device address. */
static void test_trace_host_dma(void **state)
{
	char path[] = "/tmp/roce-hostmem-trace-XXXXXX";
	int fd = mkstemp(path);
	struct trace_writer *tw;
	struct pair_opts o = { .virtual_time = true };
	struct pair *p;
	struct hbuf ha, hb;
	struct roce_sge sa;
	uint64_t iova_a, iova_b;
	uint8_t data[300], bytes[4224];
	char line[TRACE_LINE_MAX], err[128];
	unsigned seen[TR_KINDS] = { 0 };
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	tw = trace_writer_open(path);
	assert_non_null(tw);
	o.trace = tw;
	p = pair_open(&o);
	hbuf_reg(&p->a, &ha, 4096);
	hbuf_reg(&p->b, &hb, 4096);
	iova_a = p->a.ctx->mr_iova[ha.mr->index];
	iova_b = p->b.ctx->mr_iova[hb.mr->index];
	assert_true(iova_a >= IOMMU_IOVA_BASE && iova_b >= IOMMU_IOVA_BASE);
	pair_pattern(data, sizeof(data), 9);
	memcpy(ha.p + 8, data, sizeof(data));
	sa = sge_of(&ha, 8, sizeof(data));
	rdma(p, ROCE_WR_RDMA_WRITE, &sa, (uint64_t)(uintptr_t)(hb.p + 16), hb.mr->rkey,
	     ROCE_WC_SUCCESS);
	pair_pattern(p->a.buf, 100, 10);
	sa = (struct roce_sge){ (uint64_t)(uintptr_t)p->a.buf, 100, p->a.mr->lkey };
	rdma(p, ROCE_WR_RDMA_WRITE, &sa, (uint64_t)(uintptr_t)p->b.buf, p->b.mr->rkey,
	     ROCE_WC_SUCCESS);
	hbuf_free(&ha);
	hbuf_free(&hb);
	pair_close(p);
	trace_writer_close(tw);

	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		struct trace_rec r;

		line[strcspn(line, "\n")] = 0;
		if (trace_parse(line, &r, bytes, err, sizeof(err)) != 0)
			continue;
		seen[r.kind]++;
		switch (r.kind) {
		case TR_HDMA_RD:        /* A gathers the WRITE from its host MR */
			assert_int_equal(r.nic, 0);
			assert_int_equal(r.addr, iova_a + 8);
			assert_int_equal(r.len, sizeof(data));
			assert_memory_equal(r.bytes, data, sizeof(data));
			break;
		case TR_HDMA_WR:        /* B places it in its host MR */
			assert_int_equal(r.nic, 1);
			assert_int_equal(r.addr, iova_b + 16);
			assert_int_equal(r.len, sizeof(data));
			assert_memory_equal(r.bytes, data, sizeof(data));
			break;
		case TR_DMA_RD:
		case TR_DMA_WR:         /* the DDR WRITE, at device addresses */
			assert_int_equal(r.len, 100);
			assert_true(r.addr < IOMMU_IOVA_BASE);
			break;
		default:
			break;
		}
	}
	fclose(f);
	unlink(path);
	assert_int_equal(seen[TR_HDMA_RD], 1);
	assert_int_equal(seen[TR_HDMA_WR], 1);
	assert_int_equal(seen[TR_DMA_RD], 1);
	assert_int_equal(seen[TR_DMA_WR], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_in_host_memory),
		cmocka_unit_test(test_write_one_past_host_mr),
		cmocka_unit_test(test_register_file_host_entry_refused),
		cmocka_unit_test(test_register_file_host_lkey_refused),
		cmocka_unit_test(test_stale_rkey_after_dereg),
		cmocka_unit_test(test_mixed_sge_list),
		cmocka_unit_test(test_reg_host_mr_errors),
		cmocka_unit_test(test_trace_host_dma),
		cmocka_unit_test(test_windows_under_running_engines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
