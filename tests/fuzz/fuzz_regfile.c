/* SPDX-License-Identifier: MIT */
/*
 * Register file fuzz target: a host driver gone wrong. Each input is a
 * sequence of AXI-Lite reads and writes to the register file of device A,
 * whose engine carries traffic: A and B, two engines on the in-memory link
 * with one connected RC QP pair, WRITE to each other between the fuzzer's
 * accesses. The accesses are decoded compactly so the fuzzer reaches the
 * table windows (index registers, LOAD, COMMIT), CTRL's soft reset and
 * enable, the STAT region and unmapped offsets. After every access:
 *
 *   - the response is the one the register map owes (regfile_model.h): a
 *     write to a read-only register is SLVERR and changes nothing, a read
 *     of an unmapped offset DECERR;
 *   - the constant registers (DEV_ID, VERSION, sizes) read their values,
 *     and no register but the one written (and what a command or CTRL
 *     drives) moved; counters do not move under writes;
 *   - every QP and MR entry as the data path reads it (the sequence-locked
 *     lookups the engine uses) is the entry before the access or, after an
 *     accepted COMMIT, exactly the shadow the model accepts -- never part of
 *     one, never one COMMIT should have refused -- its generation moved if
 *     it changed (or the engine's cached copy would go stale), and it is a
 *     valid entry for its state (seed 000 section 3.2).
 *
 * The pair (regfile_pair.h) runs on virtual time with fixed key bytes and
 * is put back before each input, so an input replays the same way.
 * FUZZ_TRACE=1 prints each access, to read a finding.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/counters.h"
#include "regfile_model.h"
#include "regfile_pair.h"

/* ---- what the fuzzer reaches ------------------------------------------- */

static uint32_t win_off[128], n_win;      /* mapped registers below 0x1000 */
static uint32_t stat_off[512], n_stat;   /* the STAT region's rows */
static const uint32_t bad_off[] = {      /* misaligned, unmapped, far */
	0x002, 0x0FE, 0x100, 0x104, 0x800, 0xFFC, 0x1001, 0x1FFC, 0x2000,
	0x3000, 0xFFFFFFFC,
};
static uint32_t qpns[6], mr_idx[5];
static int resets_left;
static bool trace;      /* FUZZ_TRACE=1: each access on stderr, to read a finding */

static void tables_of_offsets(void)
{
	for (size_t i = 0; i < roce_regmap_count(); i++) {
		uint32_t off = roce_regmap_at(i)->offset;

		if (off < ROCE_REG_STAT_BASE && n_win < 128)
			win_off[n_win++] = off;
		else if (off >= ROCE_REG_STAT_BASE && n_stat < 512)
			stat_off[n_stat++] = off;
	}
	/* the STAT rows after the last counter are the region's gap */
	CHECK(n_win > 40 && n_stat > 4 && n_stat < 512);
}

static uint32_t pick_off(uint8_t sel)
{
	if (sel < 192)
		return win_off[sel % n_win];
	if (sel < 240)
		return stat_off[sel % n_stat];
	return bad_off[sel % (sizeof(bad_off) / sizeof(bad_off[0]))];
}

/* ---- the observer -------------------------------------------------------- */

struct snap {
	uint32_t reg[STORE_END / 4];     /* stored registers, by offset / 4 */
	uint32_t n_qp, n_mr;
	uint32_t qpn[8], qgen[8], mri[8], mgen[8];
	struct roce_qp_cfg qp[8];
	struct roce_mr_entry mr[8];
};

static uint32_t rd(uint32_t off)
{
	uint32_t v = 0;

	CHECK(roce_device_read32(dev, off, &v) == ROCE_OK);
	return v;
}

/* The stored registers and the entries the fuzzer can reach, as the data
 * path reads them (the engine's own lookups): the fixed ones and those the
 * index registers select -- before the access, so that both snapshots of
 * one access look at the same entries. */
static void take(struct snap *s, const struct snap *before)
{
	uint32_t qi, mi;

	memset(s, 0, sizeof(*s));
	for (uint32_t i = 0; i < n_win; i++)
		if (win_off[i] < STORE_END)
			s->reg[win_off[i] / 4] = rd(win_off[i]);
	qi = (before ? before : s)->reg[ROCE_REG_QP_INDEX / 4];
	mi = (before ? before : s)->reg[ROCE_REG_MR_INDEX / 4];
	memcpy(s->qpn, qpns, sizeof(qpns));
	s->n_qp = 6;
	s->qpn[s->n_qp++] = qi;
	memcpy(s->mri, mr_idx, sizeof(mr_idx));
	s->n_mr = 5;
	s->mri[s->n_mr++] = mi;
	for (uint32_t i = 0; i < s->n_qp; i++) {
		CHECK(roce_qp_table_lookup(roce_device_qp_table(dev), s->qpn[i],
					   &s->qp[i], &s->qgen[i]) == ROCE_OK);
		CHECK(model_qp_sane(&s->qp[i]) && s->qp[i].qpn == s->qpn[i]);
	}
	for (uint32_t i = 0; i < s->n_mr; i++) {
		CHECK(roce_mr_table_lookup_gen(roce_device_mr_table(dev), s->mri[i],
					       &s->mr[i], &s->mgen[i]) == ROCE_OK);
		CHECK(model_mr_sane(s->mri[i], &s->mr[i], MEM_SIZE));
	}
}

static void check_constants(void)
{
	CHECK(rd(ROCE_REG_DEV_ID) == ROCE_DEV_ID_VALUE);
	CHECK(rd(ROCE_REG_VERSION) == ROCE_VERSION_VALUE);
	CHECK(rd(ROCE_REG_QP_COUNT) == ROCE_MAX_QP);
	CHECK(rd(ROCE_REG_MR_COUNT) == ROCE_MAX_MR);
	CHECK(rd(ROCE_REG_MEM_SIZE_KB) == MEM_SIZE / 1024);
	CHECK(rd(ROCE_REG_STAT_CNT_COUNT) == ROCE_CNT_COUNT);
}

/* What an entry may have become, for each kind of access. */
enum change { SAME, COMMITTED, SOFT_RESET, ENGINE };

static void check_qp(const struct snap *p, const struct snap *n, uint32_t i,
		     enum change how, const struct roce_qp_cfg *want)
{
	const struct roce_qp_cfg *o = &p->qp[i], *c = &n->qp[i];
	struct roce_qp_cfg moved = *o;

	if (!model_qp_equal(o, c))
		CHECK(p->qgen[i] != n->qgen[i]);
	switch (how) {
	case SAME:
		CHECK(model_qp_equal(o, c));
		break;
	case COMMITTED:
		CHECK(model_qp_equal(want ? want : o, c));
		break;
	case SOFT_RESET:        /* every QP to RESET, the rest kept */
		moved.state = ROCE_QPS_RESET;
		CHECK(model_qp_equal(&moved, c));
		break;
	case ENGINE:            /* IBA 10.3.1: the engine fails a QP or stops its SQ */
		moved.state = c->state;
		CHECK(model_qp_equal(&moved, c));
		CHECK(c->state == o->state ||
		      (c->state == ROCE_QPS_ERR && o->state != ROCE_QPS_RESET) ||
		      (c->state == ROCE_QPS_SQE && o->state == ROCE_QPS_RTS));
		break;
	}
}

static void check_mr(const struct snap *p, const struct snap *n, uint32_t i,
		     enum change how, const struct roce_mr_entry *want)
{
	static const struct roce_mr_entry none;
	const struct roce_mr_entry *o = &p->mr[i], *c = &n->mr[i];

	if (!model_mr_equal(o, c))
		CHECK(p->mgen[i] != n->mgen[i]);
	if (how == COMMITTED && want)
		CHECK(model_mr_equal(want, c));
	else if (how == SOFT_RESET)
		CHECK(model_mr_equal(&none, c));
	else
		CHECK(model_mr_equal(o, c));
}

/* ---- accesses ------------------------------------------------------------ */

static void do_read(uint32_t off)
{
	uint32_t v = 0xDEADBEEF;
	int rc = roce_device_read32(dev, off, &v);

	if (trace)
		fprintf(stderr, "read 0x%04x: %s 0x%08x\n", off, roce_status_name(rc), v);

	CHECK(rc == (model_decode(off) ? ROCE_OK : ROCE_E_DECERR));
	if (rc != ROCE_OK)
		CHECK(v == 0);
}

/* One accepted or refused write, as the checks below see it. */
struct write {
	uint32_t off, val, qi, mi;      /* qi, mi: the index registers before */
	int rc;
	bool qcommit, mcommit, qload, mload, reset;
	int st;                         /* what the model says COMMIT owes */
	struct roce_qp_cfg qp;          /* the entry COMMIT applies, or LOAD shows */
	struct roce_mr_entry mr;
};

/* What a command owes: COMMIT the model's verdict on the shadow, LOAD the
 * entry as the data path has it in the shadow. */
static void check_command(struct write *w, const struct snap *p, const struct snap *n)
{
	w->st = ROCE_OK;
	if (w->qcommit) {
		model_qp_decode(p->reg, w->qi, &w->qp);
		w->st = model_qp_commit(&p->qp[6], &w->qp);
		CHECK(n->reg[ROCE_REG_QP_CMD_STATUS / 4] == (uint32_t)w->st);
	}
	if (w->mcommit) {
		model_mr_decode(&p->reg[ROCE_REG_MR_ACCESS / 4], &w->mr);
		w->st = model_mr_check(w->mi, &w->mr, MEM_SIZE);
		if (!w->mr.valid)
			memset(&w->mr, 0, sizeof(w->mr));
		CHECK(n->reg[ROCE_REG_MR_CMD_STATUS / 4] == (uint32_t)w->st);
	}
	if (w->qload) {
		model_qp_decode(n->reg, w->qi, &w->qp);
		CHECK(model_qp_equal(&w->qp, &n->qp[6]) && n->reg[ROCE_REG_QP_CMD_STATUS / 4] == 0);
	}
	if (w->mload) {
		model_mr_decode(&n->reg[ROCE_REG_MR_ACCESS / 4], &w->mr);
		CHECK(model_mr_equal(&w->mr, &n->mr[5]) && n->reg[ROCE_REG_MR_CMD_STATUS / 4] == 0);
	}
}

/* Only the register written moved, and what a command drives. */
static void check_registers(const struct write *w, const struct snap *p, const struct snap *n)
{
	for (uint32_t i = 0; i < n_win; i++) {
		uint32_t o = win_off[i];
		bool loaded = (w->qload && ((o >= ROCE_REG_QP_STATE && o <= ROCE_REG_QP_PD) ||
					    (o >= ROCE_REG_QP_DGID_0 &&
					     o <= ROCE_REG_QP_FLOW_LABEL))) ||
			      (w->mload && o >= ROCE_REG_MR_ACCESS && o <= ROCE_REG_MR_POOL_BLOCKS);
		bool status = (w->qcommit || w->qload) ? o == ROCE_REG_QP_CMD_STATUS
			    : (w->mcommit || w->mload) && o == ROCE_REG_MR_CMD_STATUS;

		if (o >= STORE_END || loaded || status || o == ROCE_REG_STATUS)
			continue;       /* checked by check_command, or live */
		if (w->rc == ROCE_OK && o == w->off)    /* BUSY clear: done at once */
			CHECK(n->reg[o / 4] == (o == ROCE_REG_QP_COMMIT ||
						o == ROCE_REG_MR_COMMIT ? 0 : w->val));
		else
			CHECK(n->reg[o / 4] == p->reg[o / 4]);
	}
	if (w->rc == ROCE_OK && w->off == ROCE_REG_CTRL)
		CHECK(roce_device_running(dev) == (!(w->val & ROCE_CTRL_SOFT_RESET) &&
						   (w->val & ROCE_CTRL_ENGINE_EN)));
}

/* The entries: as before, or what COMMIT accepted, or soft reset's. */
static void check_entries(const struct write *w, const struct snap *p, const struct snap *n)
{
	for (uint32_t i = 0; i < n->n_qp; i++) {
		bool hit = w->qcommit && p->qpn[i] == w->qi;

		check_qp(p, n, i, w->reset ? SOFT_RESET : hit ? COMMITTED : SAME,
			 hit && w->st == ROCE_OK ? &w->qp : NULL);
	}
	for (uint32_t i = 0; i < n->n_mr; i++) {
		bool hit = w->mcommit && p->mri[i] == w->mi;

		check_mr(p, n, i, w->reset ? SOFT_RESET : hit ? COMMITTED : SAME,
			 hit && w->st == ROCE_OK ? &w->mr : NULL);
	}
}

/* One write and everything it may and may not have changed. */
static void do_write(uint32_t off, uint32_t val)
{
	static struct snap p, n;
	static uint64_t cnt[ROCE_CNT_COUNT];
	struct roce_counters *cs = roce_device_counters(dev);
	struct write w = { .off = off, .val = val };
	int want = model_write_response(off, val);
	bool in_reset;

	take(&p, NULL);
	w.qi = p.reg[ROCE_REG_QP_INDEX / 4];
	w.mi = p.reg[ROCE_REG_MR_INDEX / 4];
	in_reset = p.reg[ROCE_REG_CTRL / 4] & ROCE_CTRL_SOFT_RESET;
	for (int i = 0; i < ROCE_CNT_COUNT; i++)
		cnt[i] = roce_cnt_read(cs, (enum roce_cnt)i);
	/* a soft reset walks every table entry: a few per input, whichever
	 * way CTRL is reached */
	if (off == ROCE_REG_CTRL && want == ROCE_OK && (val & ROCE_CTRL_SOFT_RESET) &&
	    !in_reset && resets_left-- <= 0)
		return;
	w.rc = roce_device_write32(dev, off, val);
	if (trace)
		fprintf(stderr, "write 0x%04x = 0x%08x: %s (QP_CMD_STATUS %u, MR_CMD_STATUS %u)\n",
			off, val, roce_status_name(w.rc), rd(ROCE_REG_QP_CMD_STATUS),
			rd(ROCE_REG_MR_CMD_STATUS));
	CHECK(w.rc == want);
	if (w.rc == ROCE_OK) {
		w.qcommit = off == ROCE_REG_QP_COMMIT && val == ROCE_TBL_CMD_COMMIT;
		w.mcommit = off == ROCE_REG_MR_COMMIT && val == ROCE_TBL_CMD_COMMIT;
		w.qload = off == ROCE_REG_QP_COMMIT && val == ROCE_TBL_CMD_LOAD;
		w.mload = off == ROCE_REG_MR_COMMIT && val == ROCE_TBL_CMD_LOAD;
		w.reset = off == ROCE_REG_CTRL && (val & ROCE_CTRL_SOFT_RESET) && !in_reset;
	}
	if (w.qcommit && n_tqp < MAX_OPS)
		touched_qp[n_tqp++] = w.qi;
	if (w.mcommit && n_tmr < MAX_OPS)
		touched_mr[n_tmr++] = w.mi;
	take(&n, &p);
	check_constants();
	check_command(&w, &p, &n);
	check_registers(&w, &p, &n);
	check_entries(&w, &p, &n);
	/* counters: only a soft reset's rising edge clears them */
	for (int i = 0; i < ROCE_CNT_COUNT; i++)
		CHECK(roce_cnt_read(cs, (enum roce_cnt)i) == (w.reset ? 0 : cnt[i]));
}

/* Traffic between two accesses: WRITEs both ways, the engines polled on
 * virtual time. The engines may move A's QP to ERR; nothing else. */
static void traffic(uint8_t how, uint8_t polls)
{
	static struct snap p, n;
	struct side *from[2] = { &a, &b }, *to[2] = { &b, &a };
	struct roce_wc wc[64];

	take(&p, NULL);
	if (trace)
		fprintf(stderr, "traffic 0x%02x, %u polls\n", how, 1u + polls);
	for (int d = 0; d < 2; d++) {
		struct roce_sge sge = { (uint64_t)(uintptr_t)from[d]->buf,
					64u << (how >> 4 & 7), from[d]->mr->lkey };
		struct roce_send_wr wr = { .wr_id = how, .sg_list = &sge, .num_sge = 1,
					   .opcode = ROCE_WR_RDMA_WRITE,
					   .send_flags = ROCE_SEND_SIGNALED };

		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)to[d]->buf + (how & 0xF) * 64u;
		wr.wr.rdma.rkey = to[d]->mr->rkey;
		if (how >> (7 - d) & 1)
			roce_post_send(from[d]->qp, &wr, NULL);   /* may be refused */
	}
	for (unsigned i = 0; i < 1u + polls; i++) {
		roce_engine_poll(a.ctx);
		roce_engine_poll(b.ctx);
		vclock += 50000;
	}
	for (struct roce_cq *cq = a.cq; cq; cq = cq == a.cq ? b.cq : NULL)
		for (int k = roce_poll_cq(cq, 64, wc); k > 0; k = roce_poll_cq(cq, 64, wc))
			for (int j = 0; trace && j < k; j++)
				fprintf(stderr, "  %s completion: %s\n", cq == a.cq ? "A" : "B",
					roce_wc_status_str(wc[j].status));
	take(&n, &p);
	for (uint32_t i = 0; i < STORE_END / 4; i++)
		CHECK(i == ROCE_REG_STATUS / 4 || n.reg[i] == p.reg[i]);
	for (uint32_t i = 0; i < n.n_qp; i++)
		check_qp(&p, &n, i, ENGINE, NULL);
	for (uint32_t i = 0; i < n.n_mr; i++)
		check_mr(&p, &n, i, SAME, NULL);
}

static uint32_t u32(const uint8_t *d)
{
	return (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
	       (uint32_t)d[3] << 24;
}

/*
 * An input is a list of accesses, each an opcode byte OP and an argument
 * byte X (kind OP % 9, AUX = OP / 9), some with more bytes:
 *   0  write X's register (pick_off) with the next 4 bytes (LE)
 *   1  write X's register with the next byte in byte lane AUX & 3
 *   2  read X's register
 *   3  QP_INDEX = one of the reachable QPNs (A's QP, 0, 1, next, B's, last)
 *   4  MR_INDEX = one of the reachable MR entries (A's MR, next, 0, 7, last)
 *   5  command X >> 1 & 3 (1 COMMIT, 2 LOAD, 3 bad; 0: X >> 3) to the QP
 *      window, or to the MR window when X is odd
 *   6  CTRL = X & 7, or X itself (reserved bits) when X >= 0x80
 *   7  QP_STATE = X % 8 (8 is out of range)
 *   8  traffic: bits 7/6 of X post a WRITE A->B / B->A of 64 << (X >> 4 & 7)
 *      bytes at offset (X & 15) * 64, then 1 + 4 * AUX rounds of polling
 */
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static int ready;
	size_t i = 0;

	if (!ready) {
		trace = getenv("FUZZ_TRACE") != NULL;
		tables_of_offsets();
		pair_open();
		save_fixture();
		ready = 1;
	}
	restore_fixture();
	resets_left = 4;
	qpns[0] = roce_qp_num(a.qp);
	qpns[1] = 0;
	qpns[2] = 1;
	qpns[3] = qpns[0] + 1;
	qpns[4] = roce_qp_num(b.qp);    /* unused on A */
	qpns[5] = ROCE_MAX_QP - 1;
	mr_idx[0] = a.mr->index;
	mr_idx[1] = a.mr->index + 1;
	mr_idx[2] = 0;
	mr_idx[3] = 7;
	mr_idx[4] = ROCE_MAX_MR - 1;
	for (int ops = 0; i + 2 <= n && ops < MAX_OPS; ops++) {
		uint8_t op = d[i], x = d[i + 1], aux = op / 9;

		i += 2;
		switch (op % 9) {
		case 0:         /* any value to any register */
			if (i + 4 > n)
				break;
			do_write(pick_off(x), u32(d + i));
			i += 4;
			break;
		case 1:         /* one byte, at one of the four byte lanes */
			if (i + 1 > n)
				break;
			do_write(pick_off(x), (uint32_t)d[i] << (8 * (aux & 3)));
			i++;
			break;
		case 2:
			do_read(pick_off(x));
			break;
		case 3:
			do_write(ROCE_REG_QP_INDEX, qpns[x % 6]);
			break;
		case 4:
			do_write(ROCE_REG_MR_INDEX, mr_idx[x % 5]);
			break;
		case 5:         /* COMMIT or LOAD (or a bad command) */
			do_write(x & 1 ? ROCE_REG_MR_COMMIT : ROCE_REG_QP_COMMIT,
				 x >> 1 & 3 ? x >> 1 & 3 : (uint32_t)x >> 3);
			break;
		case 6:         /* soft reset, enable, loopback (bits above: SLVERR) */
			do_write(ROCE_REG_CTRL, x & 0x80 ? x : x & 7);
			break;
		case 7:         /* the shadow field the fuzzer hunts for: QP state */
			do_write(ROCE_REG_QP_STATE, x % 8);
			break;
		case 8:
			traffic(x, (uint8_t)(4 * aux));
			break;
		}
	}
	traffic(0, 64);
	check_constants();
	return 0;
}
