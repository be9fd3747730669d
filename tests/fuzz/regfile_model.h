/* SPDX-License-Identifier: MIT */
/*
 * What the register file must do, written apart from the code that does it,
 * for fuzz_regfile: the AXI response a write deserves (from the register
 * map's rows and fields, the documentation's data -- not through
 * roce_reg_check_write), the QP and MR shadow registers decoded as
 * roce/regs.h documents them, and the checks a COMMIT makes in the order
 * roce/tables.h lists them. Header-only: one target uses it.
 */
#ifndef ROCE_FUZZ_REGFILE_MODEL_H
#define ROCE_FUZZ_REGFILE_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "roce/device.h"
#include "roce/params.h"
#include "roce/regmap.h"
#include "roce/regs.h"
#include "roce/status.h"
#include "roce/tables.h"

/* A failed property is a finding: libFuzzer reports the abort and the input. */
#define CHECK(cond) do { if (!(cond)) abort(); } while (0)

/* ---- AXI responses ------------------------------------------------------- */

static inline uint32_t model_field_mask(const struct roce_reg_field *f)
{
	return f->width >= 32 ? ~0u : ((1u << f->width) - 1u) << f->lsb;
}

/* regs.h: misaligned or unmapped offsets decode to nothing (DECERR). */
static inline const struct roce_reg *model_decode(uint32_t off)
{
	for (size_t i = 0; !(off & 3u) && i < roce_regmap_count(); i++)
		if (roce_regmap_at(i)->offset == off)
			return roce_regmap_at(i);
	return NULL;
}

/* device.h: SLVERR for a read-only register, a bit outside every writable
 * field, or a field outside its [min, max]. */
static inline int model_write_response(uint32_t off, uint32_t val)
{
	const struct roce_reg *r = model_decode(off);
	uint32_t writable = 0;

	if (!r)
		return ROCE_E_DECERR;
	if (r->access == ROCE_ACC_RO)
		return ROCE_E_SLVERR;
	for (unsigned i = 0; i < r->n_fields; i++) {
		const struct roce_reg_field *f = &r->fields[i];
		uint32_t v = (val & model_field_mask(f)) >> (f->width >= 32 ? 0 : f->lsb);

		if (f->ro)
			continue;
		writable |= model_field_mask(f);
		if (f->max && (v < f->min || v > f->max))
			return ROCE_E_SLVERR;
	}
	return (val & ~writable) ? ROCE_E_SLVERR : ROCE_OK;
}

/* ---- QP shadow and COMMIT's checks ---------------------------------------- */

/* The shadow registers QP_STATE..QP_PD and QP_DGID_0..QP_FLOW_LABEL,
 * read into a context (regs.h); reg holds the registers by offset / 4. */
static inline void model_qp_decode(const uint32_t *reg, uint32_t qpn,
				   struct roce_qp_cfg *c)
{
#define QR(off) reg[(off) / 4]
	memset(c, 0, sizeof(*c));
	c->qpn = qpn;
	c->state = (uint8_t)QR(ROCE_REG_QP_STATE);
	c->type = (uint8_t)QR(ROCE_REG_QP_TYPE_MTU);
	c->mtu = (uint8_t)(QR(ROCE_REG_QP_TYPE_MTU) >> 8);
	c->access = (uint8_t)(QR(ROCE_REG_QP_TYPE_MTU) >> 16);
	c->dest_qpn = QR(ROCE_REG_QP_DEST_QPN);
	c->sq_psn = QR(ROCE_REG_QP_SQ_PSN);
	c->rq_psn = QR(ROCE_REG_QP_RQ_PSN);
	c->peer_ip = QR(ROCE_REG_QP_PEER_IP);
	/* MAC_HIGH[15:0] = bytes 0..1, MAC_LOW = bytes 2..5 (driver.h) */
	c->peer_mac[0] = (uint8_t)(QR(ROCE_REG_QP_PEER_MAC_HIGH) >> 8);
	c->peer_mac[1] = (uint8_t)QR(ROCE_REG_QP_PEER_MAC_HIGH);
	for (int i = 0; i < 4; i++)
		c->peer_mac[2 + i] = (uint8_t)(QR(ROCE_REG_QP_PEER_MAC_LOW) >> (24 - 8 * i));
	c->pkey = (uint16_t)QR(ROCE_REG_QP_PKEY);
	c->timeout = QR(ROCE_REG_QP_TIMERS) & 0x1F;
	c->retry_cnt = (QR(ROCE_REG_QP_TIMERS) >> 8) & 7;
	c->rnr_retry = (QR(ROCE_REG_QP_TIMERS) >> 16) & 7;
	c->min_rnr_timer = (QR(ROCE_REG_QP_TIMERS) >> 24) & 0x1F;
	c->max_rd_atomic = (uint8_t)QR(ROCE_REG_QP_RD_ATOMIC);
	c->max_dest_rd_atomic = (uint8_t)(QR(ROCE_REG_QP_RD_ATOMIC) >> 8);
	c->qkey = QR(ROCE_REG_QP_QKEY);
	c->pd = QR(ROCE_REG_QP_PD);
	c->dgid_hi[0] = QR(ROCE_REG_QP_DGID_0);
	c->dgid_hi[1] = QR(ROCE_REG_QP_DGID_1);
	c->dgid_hi[2] = QR(ROCE_REG_QP_DGID_2);
	c->sgid_index = (uint8_t)QR(ROCE_REG_QP_GRH);
	c->hop_limit = (uint8_t)(QR(ROCE_REG_QP_GRH) >> 8);
	c->tclass = (uint8_t)(QR(ROCE_REG_QP_GRH) >> 16);
	c->flow_label = QR(ROCE_REG_QP_FLOW_LABEL) & 0xFFFFF;
#undef QR
}

static inline bool model_qp_equal(const struct roce_qp_cfg *a, const struct roce_qp_cfg *b)
{
	return a->qpn == b->qpn && a->dest_qpn == b->dest_qpn &&
	       a->sq_psn == b->sq_psn && a->rq_psn == b->rq_psn &&
	       a->peer_ip == b->peer_ip && a->qkey == b->qkey && a->pd == b->pd &&
	       !memcmp(a->peer_mac, b->peer_mac, 6) && a->pkey == b->pkey &&
	       a->state == b->state && a->type == b->type && a->mtu == b->mtu &&
	       a->access == b->access && a->timeout == b->timeout &&
	       a->retry_cnt == b->retry_cnt && a->rnr_retry == b->rnr_retry &&
	       a->min_rnr_timer == b->min_rnr_timer &&
	       a->max_rd_atomic == b->max_rd_atomic &&
	       a->max_dest_rd_atomic == b->max_dest_rd_atomic &&
	       !memcmp(a->dgid_hi, b->dgid_hi, sizeof(a->dgid_hi)) &&
	       a->sgid_index == b->sgid_index && a->hop_limit == b->hop_limit &&
	       a->tclass == b->tclass && a->flow_label == b->flow_label;
}

/* IBA 10.3.1, as a host may request it (tables.h). */
static inline bool model_qp_transition(unsigned cur, unsigned next)
{
	if (next == ROCE_QPS_RESET || next == ROCE_QPS_ERR)
		return true;
	return (cur == ROCE_QPS_RESET && next == ROCE_QPS_INIT) ||
	       (cur == ROCE_QPS_INIT && (next == ROCE_QPS_INIT || next == ROCE_QPS_RTR)) ||
	       (cur == ROCE_QPS_RTR && next == ROCE_QPS_RTS) ||
	       (cur == ROCE_QPS_RTS && (next == ROCE_QPS_RTS || next == ROCE_QPS_SQD)) ||
	       ((cur == ROCE_QPS_SQD || cur == ROCE_QPS_SQE) && next == ROCE_QPS_RTS);
}

/* Encodings and what the context's own state needs (tables.h, IBA
 * 11.2.5.3): true for every entry the data path may ever read. */
static inline int model_qp_fields(const struct roce_qp_cfg *c)
{
	bool connected = c->type == ROCE_QPT_RC || c->type == ROCE_QPT_UC;

	if (c->qpn >= ROCE_MAX_QP)
		return ROCE_E_QPN;
	if (c->state > ROCE_QPS_ERR || c->dest_qpn > 0xFFFFFF ||
	    c->sq_psn > 0xFFFFFF || c->rq_psn > 0xFFFFFF || c->mtu > ROCE_MTU_4096 ||
	    c->timeout > 31 || c->retry_cnt > 7 || c->rnr_retry > 7 ||
	    c->min_rnr_timer > 31 || c->max_rd_atomic > ROCE_MAX_RD_ATOMIC ||
	    c->max_dest_rd_atomic > ROCE_MAX_RD_ATOMIC)
		return ROCE_E_RANGE;
	if ((c->access & ~0xFu) || (c->type != 0 && !connected && c->type != ROCE_QPT_UD))
		return ROCE_E_INVAL;
	return ROCE_OK;
}

static inline int model_qp_attrs(const struct roce_qp_cfg *c)
{
	bool connected = c->type == ROCE_QPT_RC || c->type == ROCE_QPT_UC;
	bool mac_ok = !(c->peer_mac[0] & 1) &&
		      memcmp(c->peer_mac, "\0\0\0\0\0\0", 6) != 0;

	if (c->state == ROCE_QPS_RESET || c->state == ROCE_QPS_ERR)
		return ROCE_OK;
	if (c->type == 0 || (c->pkey & 0x7FFF) == 0)
		return ROCE_E_INVAL;
	if (c->state == ROCE_QPS_INIT)
		return ROCE_OK;
	if (c->mtu < ROCE_MTU_256)
		return ROCE_E_RANGE;
	if (connected && !mac_ok)
		return ROCE_E_INVAL;
	/* the peer: IPv4 (GID bytes 0..11 zero or ::ffff) not 0, IPv6 not
	 * multicast */
	if (connected && (c->dgid_hi[0] || c->dgid_hi[1] ||
			  (c->dgid_hi[2] && c->dgid_hi[2] != 0xFFFF)))
		return (c->dgid_hi[0] >> 24) == 0xFF ? ROCE_E_INVAL : ROCE_OK;
	if (connected && c->peer_ip == 0)
		return ROCE_E_INVAL;
	return ROCE_OK;
}

/* The status COMMIT owes the shadow next over the entry cur. */
static inline int model_qp_commit(const struct roce_qp_cfg *cur,
				  const struct roce_qp_cfg *next)
{
	int rc = model_qp_fields(next);

	if (rc != ROCE_OK)
		return rc;
	if (!model_qp_transition(cur->state, next->state))
		return ROCE_E_STATE;
	return model_qp_attrs(next);
}

/* An entry the data path may read: its fields and its state's needs. The
 * engine moves RTS -> SQE and any -> ERR, soft reset any -> RESET, and the
 * fields stay what a commit accepted; both keep this true. */
static inline bool model_qp_sane(const struct roce_qp_cfg *c)
{
	struct roce_qp_cfg rts = *c;

	if (model_qp_fields(c) != ROCE_OK)
		return false;
	/* SQE is reached only from RTS: the attributes are RTS's */
	if (c->state == ROCE_QPS_SQE)
		rts.state = ROCE_QPS_RTS;
	return model_qp_attrs(&rts) == ROCE_OK;
}

/* ---- MR shadow and COMMIT's checks ---------------------------------------- */

static inline void model_mr_decode(const uint32_t *r, struct roce_mr_entry *e)
{
#define MRR(off) r[((off) - ROCE_REG_MR_ACCESS) / 4]
#define MR64(low) ((uint64_t)MRR((low) + 4) << 32 | MRR(low))
	memset(e, 0, sizeof(*e));
	e->valid = MRR(ROCE_REG_MR_ACCESS) & ROCE_MR_VALID;
	e->access = MRR(ROCE_REG_MR_ACCESS) & 0xFFu;             /* [7:0] */
	e->space = (uint8_t)(MRR(ROCE_REG_MR_ACCESS) >> 8 & 1u); /* [8] SPACE */
	e->va = MR64(ROCE_REG_MR_VA_LOW);
	e->pa = MR64(ROCE_REG_MR_PA_LOW);
	e->len = MR64(ROCE_REG_MR_LEN_LOW);
	e->rkey = MRR(ROCE_REG_MR_RKEY);
	e->lkey = MRR(ROCE_REG_MR_LKEY);
	e->pd = MRR(ROCE_REG_MR_PD);
	/* the stage binding: MR_STAGE [3:0] [7:4] [11:8] chain, [19:16] key
	 * slot, [24] unit 512/4096; an all-zero binding has no unit */
	for (unsigned i = 0; i < ROCE_STAGE_CHAIN_MAX; i++)
		e->stage.chain[i] = (uint8_t)(MRR(ROCE_REG_MR_STAGE) >> (4 * i) & 0xFu);
	e->stage.key_slot = (uint8_t)(MRR(ROCE_REG_MR_STAGE) >> 16 & 0xFu);
	e->stage.app_tag = (uint16_t)MRR(ROCE_REG_MR_STAGE_TAG);
	e->stage.dun_base = MR64(ROCE_REG_MR_DUN_LOW);
	e->stage.pi_pa = MR64(ROCE_REG_MR_PI_PA_LOW);
	e->stage.pool_pa = MR64(ROCE_REG_MR_POOL_PA_LOW);
	e->stage.pool_blocks = MRR(ROCE_REG_MR_POOL_BLOCKS);
	if (MRR(ROCE_REG_MR_STAGE) || e->stage.app_tag || e->stage.dun_base ||
	    e->stage.pi_pa || e->stage.pool_pa || e->stage.pool_blocks)
		e->stage.unit_shift = MRR(ROCE_REG_MR_STAGE) >> 24 & 1u ? 12 : 9;
#undef MR64
#undef MRR
}

static inline bool model_mr_equal(const struct roce_mr_entry *a, const struct roce_mr_entry *b)
{
	return a->valid == b->valid && a->access == b->access && a->va == b->va &&
	       a->pa == b->pa && a->len == b->len && a->rkey == b->rkey &&
	       a->lkey == b->lkey && a->pd == b->pd && a->space == b->space &&
	       !memcmp(&a->stage, &b->stage, sizeof(a->stage));
}

/* tables.h, in its order; an invalid entry is all zero whatever the
 * shadow held ("other fields ignored"). */
static inline int model_mr_check(uint32_t index, const struct roce_mr_entry *e,
				 uint64_t mem_size)
{
	const uint64_t ddr_size = mem_size;     /* PI areas and pools are in DDR */

	if (!e->valid)
		return ROCE_OK;
	if (e->access & ~0xFu)
		return ROCE_E_INVAL;
	if ((e->access & (ROCE_ACCESS_REMOTE_WRITE | ROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(e->access & ROCE_ACCESS_LOCAL_WRITE))
		return ROCE_E_ACCESS;
	if (e->len == 0)
		return ROCE_E_INVAL;
	/* SPACE 0: inside the device memory; SPACE 1 (host): an I/O virtual
	 * address below 2^63, whether mapped being the data path's question */
	if (e->space)
		mem_size = 1ull << 63;
	if (e->va + e->len < e->va || e->pa > mem_size || e->len > mem_size - e->pa)
		return ROCE_E_BOUNDS;
	if (e->rkey >> 8 != index)
		return ROCE_E_RKEY;
	if (e->lkey >> 8 != index)
		return ROCE_E_LKEY;
	/* the binding rules are roce/stage.h's; the window only carries them */
	return roce_stage_binding_check(&e->stage, e->len, e->space != 0,
					ddr_size, NULL);
}

static inline bool model_mr_sane(uint32_t index, const struct roce_mr_entry *e,
				 uint64_t mem_size)
{
	static const struct roce_mr_entry none;

	return e->valid ? model_mr_check(index, e, mem_size) == ROCE_OK
			: model_mr_equal(e, &none);
}

#endif
