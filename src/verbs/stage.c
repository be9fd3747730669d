/* SPDX-License-Identifier: MIT */
/*
 * The inline stages from the host (roce/stage.h, docs/stages.md): an MR's
 * stage binding written with its entry through the MR window (shadow,
 * then commit), and the XTS key slots loaded through the STAGE block's
 * write-only registers. Both go over the bus, as a driver's would.
 */
#include "roce/driver.h"
#include "roce/status.h"
#include "verbs/verbs_priv.h"

int roce_mr_set_stage(struct roce_mr *mr, const struct roce_stage_binding *b)
{
	static const struct roce_stage_binding none;
	struct roce_context *ctx;
	struct roce_mr_ctx e;
	size_t mem_size;
	int rc;

	if (!mr)
		return ROCE_E_INVAL;
	ctx = mr->ctx;
	if (!b)
		b = &none;
	roce_device_mem(ctx->dev, &mem_size);
	engine_lock(&ctx->eng);
	rc = roce_drv_mr_read(&ctx->drv, mr->index, &e);
	if (rc == ROCE_OK)
		rc = roce_stage_binding_check(b, e.len, e.space == ROCE_MR_SPACE_HOST,
					      mem_size, NULL);
	if (rc == ROCE_OK) {
		e.stage = *b;
		rc = roce_drv_mr_write(&ctx->drv, &e);
	}
	engine_unlock(&ctx->eng);
	return rc;
}

int roce_stage_key_load(struct roce_context *ctx, unsigned slot,
			const uint8_t key[ROCE_STAGE_KEY_LEN])
{
	int rc;

	if (!ctx || !key)
		return ROCE_E_INVAL;
	engine_lock(&ctx->eng);
	rc = roce_drv_stage_key_load(&ctx->drv, slot, key);
	engine_unlock(&ctx->eng);
	return rc;
}

int roce_stage_key_clear(struct roce_context *ctx, unsigned slot)
{
	int rc;

	if (!ctx)
		return ROCE_E_INVAL;
	engine_lock(&ctx->eng);
	rc = roce_drv_stage_key_clear(&ctx->drv, slot);
	engine_unlock(&ctx->eng);
	return rc;
}
