/* SPDX-License-Identifier: MIT */
/*
 * Protection domains and memory regions. A program registers its own
 * memory (malloc'd, mmap'd): the MR is a host-space entry of the MR table
 * behind a window of the context's host window table (roce_reg_host_mr),
 * as a board reaches host memory through the IOMMU the host programs;
 * keys, rights and bounds are checked by the engine as for DDR
 * (docs/design.md, "Host memory"). With ROCE_STAGE set, each MR is
 * bound to its stages as it is registered (stage.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ibverbs/rv.h"
#include "roce/status.h"

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct rv_context *c = rv_ctx(context);
	struct rv_pd *p;

	if (!c) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p)
		p->pd = roce_alloc_pd(c->ctx);
	if (!p || !p->pd) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->ibv.context = context;
	return &p->ibv;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct rv_pd *p = RV_OF(rv_pd, pd);
	int st;

	if (!pd)
		return EINVAL;
	st = roce_dealloc_pd(p->pd);
	if (st)
		return rv_errno(st);
	free(p);
	return 0;
}

/* The rights the MR table has; the optional ones (relaxed ordering,
 * IBV_ACCESS_OPTIONAL_RANGE) may be dropped, as ibverbs allows. */
#define RV_MR_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* Rights the MR table cannot hold: one line, EOPNOTSUPP; remote write or
   atomic without local write (IBA 10.6.3.1): EINVAL. 0 when they fit. */
static int rights_check(const char *verb, unsigned want)
{
	char what[96];

	if (want & ~(unsigned)RV_MR_ACCESS) {
		snprintf(what, sizeof(what), "%s with memory windows, zero-based, on-demand or "
			 "huge-page rights", verb);
		return rv_unsupported(what, EOPNOTSUPP);
	}
	if ((want & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(want & IBV_ACCESS_LOCAL_WRITE)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	unsigned want = access & ~(unsigned)IBV_ACCESS_OPTIONAL_RANGE;
	struct rv_mr *m;
	int err;

	if (!pd || !length || !addr) {
		errno = EINVAL;
		return NULL;
	}
	if (iova != (uintptr_t)addr) {
		/* the MR's virtual address is the buffer's pointer, as the
		 * engine's MRs have it */
		rv_unsupported("ibv_reg_mr_iova with an iova other than the address",
			       EOPNOTSUPP);
		return NULL;
	}
	if (rights_check("ibv_reg_mr", want))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->mr = roce_reg_host_mr(RV_OF(rv_pd, pd)->pd, addr, length, want);
	if (!m->mr) {
		int err = errno ? errno : ENOMEM;

		free(m);
		errno = err;
		return NULL;
	}
	err = rv_stage_bind(rv_ctx(pd->context), m);
	if (err) {
		roce_dereg_mr(m->mr);
		rv_stage_release(rv_ctx(pd->context), m);
		free(m);
		errno = err;
		return NULL;
	}
	m->ibv.context = pd->context;
	m->ibv.pd = pd;
	m->ibv.addr = addr;
	m->ibv.length = length;
	m->ibv.handle = m->mr->index;
	m->ibv.lkey = m->mr->lkey;
	m->ibv.rkey = m->mr->rkey;
	return &m->ibv;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, (unsigned)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct rv_mr *m = RV_OF(rv_mr, mr);
	int st;

	if (!mr)
		return EINVAL;
	st = roce_dereg_mr(m->mr);
	if (st)
		return rv_errno(st);
	rv_stage_release(rv_ctx(mr->context), m);
	free(m);
	return 0;
}

/* Fork: the engine reaches registered memory through the process's own
 * mapping, not pinned pages a child could take over, so nothing needs
 * protecting (IBV_FORK_UNNEEDED, as with a kernel that has
 * MADV_DONTFORK-free copy-on-write for pinned pages). */
int ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

int ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

/*
 * As rxe: a new PD and/or new rights (IBV_REREG_MR_CHANGE_PD, _ACCESS),
 * range and keys kept. A new translation (IBV_REREG_MR_CHANGE_TRANSLATION)
 * is refused in one line, IBV_REREG_MR_ERR_CMD with EOPNOTSUPP, as rxe's
 * kernel answers; bad input IBV_REREG_MR_ERR_INPUT with EINVAL, as
 * rdma-core's own checks.
 */
int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
		 int access)
{
	unsigned want = (unsigned)access & ~(unsigned)IBV_ACCESS_OPTIONAL_RANGE;
	unsigned f = 0;
	struct rv_mr *m = RV_OF(rv_mr, mr);
	int st;

	(void)addr, (void)length;
	if (!mr || flags <= 0 || (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED) ||
	    ((flags & IBV_REREG_MR_CHANGE_PD) && (!pd || pd->context != mr->context))) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
		rv_unsupported("ibv_rereg_mr of the translation (a new address or length)",
			       EOPNOTSUPP);
		return IBV_REREG_MR_ERR_CMD;
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS) {
		if (rights_check("ibv_rereg_mr", want))
			return errno == EINVAL ? IBV_REREG_MR_ERR_INPUT : IBV_REREG_MR_ERR_CMD;
		f |= ROCE_REREG_ACCESS;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		f |= ROCE_REREG_PD;
	st = roce_rereg_mr(m->mr, f, pd ? RV_OF(rv_pd, pd)->pd : NULL, want);
	if (st) {
		errno = rv_errno(st);
		return IBV_REREG_MR_ERR_CMD;
	}
	if (flags & IBV_REREG_MR_CHANGE_PD)
		mr->pd = pd;
	return 0;
}
