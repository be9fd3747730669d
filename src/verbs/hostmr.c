/* SPDX-License-Identifier: MIT */
/*
 * Memory regions in host memory (roce_reg_host_mr): what a drop-in
 * libibverbs needs for a program's own malloc'd or mmap'd buffers. As on
 * a board behind an IOMMU, the host maps the buffer into an IOMMU window
 * (engine/iommu.h) and programs the MR entry through the register file
 * with SPACE = HOST and the window's IOVA as PA; the engine translates
 * the IOVA on every access and touches nothing outside a window. Only
 * this side maps windows: the register file and roced's socket cannot,
 * so register access reaches no host memory but the registered buffers.
 * docs/design.md, "Host memory", has the argument.
 */
#include <errno.h>

#include "engine/iommu.h"
#include "verbs/verbs_priv.h"
#include "roce/status.h"

/* An errno for a status, as ibv_reg_mr reports its failures. */
static int status_errno(int st)
{
	switch (st) {
	case ROCE_E_NOMEM:
	case ROCE_E_FULL:
		return ENOMEM;
	case ROCE_E_RANGE:
		return EOVERFLOW;
	default:
		return EINVAL;  /* the rights: the register file refused the entry */
	}
}

struct roce_mr *roce_reg_host_mr(struct roce_pd *pd, void *addr, size_t length,
				 unsigned access)
{
	struct roce_context *ctx;
	struct roce_mr *mr;
	uint64_t iova;
	int st;

	if (!pd || !addr || length == 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((uintptr_t)addr + length < (uintptr_t)addr) {
		errno = EOVERFLOW;
		return NULL;
	}
	ctx = pd->ctx;
	/* the window first, then the entry that names it; both under the
	 * engine lock, so the engine never sees one without the other */
	engine_lock(&ctx->eng);
	st = iommu_map(ctx->iommu, addr, length, &iova);
	if (st != ROCE_OK) {
		engine_unlock(&ctx->eng);
		errno = status_errno(st);
		return NULL;
	}
	mr = mr_create_locked(pd, addr, length, access, ROCE_MR_SPACE_HOST, iova, &st);
	if (mr)
		ctx->mr_iova[mr->index] = iova;
	else
		iommu_unmap(ctx->iommu, iova);
	engine_unlock(&ctx->eng);
	if (!mr)
		errno = status_errno(st);
	return mr;
}

void hostmr_unmap_locked(struct roce_context *ctx, uint32_t index)
{
	if (index >= ROCE_MAX_MR || !ctx->mr_iova[index])
		return;
	iommu_unmap(ctx->iommu, ctx->mr_iova[index]);
	ctx->mr_iova[index] = 0;
}
