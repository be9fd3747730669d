/* SPDX-License-Identifier: MIT */
/*
 * The seed's flow (seed 001): A, the board, advertises its memory with a
 * SEND; B, the host, parses the advertisement and uses A's memory with RDMA
 * WRITE, READ (compared byte by byte) and the two atomics.
 */
#include <inttypes.h>
#include <string.h>

#include "roce-demo/demo.h"
#include "roce/tables.h"

#define AD_RECV_LEN      256u

static uint64_t counter_va(const struct demo *d)
{
	return d->ad.base + d->ad.size - 8;
}

static uint64_t a_counter(const struct demo *d)
{
	uint64_t v;

	memcpy(&v, d->a.buf + d->region_len - 8, 8);
	return v;
}

/* A's advertisement and its counter, into A's scratch buffer. */
static bool ad_prepare(struct demo *d, struct step *s)
{
	struct nic *a = &d->a;
	struct demo_ad ad = { .base = (uint64_t)(uintptr_t)a->buf,
			      .size = d->region_len, .rkey = a->mr[0]->rkey };
	uint64_t init = AD_COUNTER_INIT;

	if (roce_drv_get_local(a->drv, &a->ep) != ROCE_OK)
		return step_fail(s, "A's addresses: %s", a->drv->err);
	memcpy(ad.mac, a->ep.mac, 6);
	ad.ip = a->ep.ip;
	memcpy(a->buf + d->region_len - 8, &init, 8);
	demo_ad_pack(&ad, a->buf + d->region_len);
	return true;
}

/* (a) A advertises its memory; B parses the message and checks it against
 * the peer its own QP context names. */
bool demo_step_advertise(struct demo *d, struct step *s)
{
	struct nic *a = &d->a, *b = &d->b;
	struct roce_sge rsge = { (uint64_t)(uintptr_t)(b->buf + d->b_adbuf),
				 AD_RECV_LEN, b->mr[0]->lkey };
	struct roce_recv_wr rwr = { .wr_id = 1, .sg_list = &rsge, .num_sge = 1 };
	struct roce_send_wr wr;
	struct roce_sge sge;
	struct roce_wc wc;
	char mac[18], ip[16];
	const char *why;

	if (!ad_prepare(d, s))
		return false;
	if (roce_post_recv(b->qp, &rwr, NULL) != ROCE_OK)
		return step_fail(s, "B's post_recv failed");
	demo_wr_init(&wr, &sge, ROCE_WR_SEND, a, d->region_len, AD_LEN, 1);
	if (!demo_post_wait(d, a, &wr, s, "A's SEND") ||
	    !demo_wait_one(d, b->rcq, &wc, s, "B's receive"))
		return false;
	if ((why = demo_ad_parse(b->buf + d->b_adbuf, wc.byte_len, &d->ad)))
		return step_fail(s, "B received %u bytes: %s", wc.byte_len, why);
	if (roce_drv_qp_read(b->drv, roce_qp_num(b->qp), &b->qpc) != ROCE_OK)
		return step_fail(s, "B's QP context: %s", b->drv->err);
	roce_format_mac(d->ad.mac, mac);
	roce_format_ipv4(d->ad.ip, ip);
	if (d->ad.ip != b->qpc.peer_ip || memcmp(d->ad.mac, b->qpc.peer_mac, 6))
		return step_fail(s, "advertised %s %s is not the peer of B's QP", ip, mac);
	return step_pass(s, "SEND A -> B, %u-byte advertisement; B parsed: IP %s, "
			 "MAC %s,\nbase 0x%" PRIx64 ", size %" PRIu64 ", R_Key 0x%08x "
			 "(IP and MAC match B's QP context)", wc.byte_len, ip, mac,
			 d->ad.base, d->ad.size, d->ad.rkey);
}

static void fill_pattern(uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;

	for (size_t i = 0; i < n; i++) {
		if (i % 8 == 0) {       /* xorshift64 */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		p[i] = (uint8_t)(x >> (8 * (i % 8)));
	}
}

/* Byte by byte: how many differ, and the first that does (or n). */
static size_t compare(const uint8_t *got, const uint8_t *want, size_t n,
		      size_t *first)
{
	size_t bad = 0;

	*first = n;
	for (size_t i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			if (!bad++)
				*first = i;
		}
	}
	return bad;
}

/* B's WRITE or READ of len bytes at off, on A's advertised memory, timed
 * from post to completion. */
static bool timed_rdma(struct demo *d, struct step *s, enum roce_wr_opcode op,
		       size_t off, uint32_t len, const char *what, uint64_t *ns)
{
	struct roce_send_wr wr;
	struct roce_sge sge;
	uint64_t t0;

	demo_wr_to_ad(d, &wr, &sge, op, off, len);
	t0 = now_ns();
	if (!demo_post_wait(d, &d->b, &wr, s, what))
		return false;
	*ns = now_ns() - t0;
	return true;
}

/* (b) B writes its pattern into A's memory, found through the ad. */
bool demo_step_write(struct demo *d, struct step *s)
{
	struct nic *b = &d->b;
	uint32_t mtu = roce_mtu_bytes(d->o.mtu), len = (uint32_t)d->o.size;
	uint32_t npkt = (len + mtu - 1) / mtu, psn = b->qpc.sq_psn;
	size_t first, bad;
	uint64_t ns;

	fill_pattern(b->buf, len, d->o.seed);
	demo_stage_pattern(d, b->buf, len);
	if (!demo_staged(&d->o))        /* a staged MR's bytes are the chain's */
		memset(d->a.buf, 0, len);
	if (!timed_rdma(d, s, ROCE_WR_RDMA_WRITE, 0, len, "WRITE", &ns))
		return false;
	if (demo_staged(&d->o))         /* A's DDR holds what the chain stored */
		return step_pass(s, "WRITE B -> A, %u bytes in %u packets of MTU %u, PSN "
				 "0x%06x..0x%06x (%.0f MB/s) through A's stages", len, npkt,
				 mtu, psn, (psn + npkt - 1) & 0xFFFFFF, mbs(len, ns));
	if ((bad = compare(d->a.buf, b->buf, len, &first)))
		return step_fail(s, "%zu of %u bytes in A's memory differ, first at "
				 "offset %zu", bad, len, first);
	/* B has sent nothing before: the WRITE starts at its sq_psn */
	return step_pass(s, "WRITE B -> A, %u bytes in %u packets of MTU %u, PSN "
			 "0x%06x..0x%06x (%.0f MB/s): A's memory holds B's pattern",
			 len, npkt, mtu, psn, (psn + npkt - 1) & 0xFFFFFF, mbs(len, ns));
}

/* (c) B reads A's memory back into a second buffer and compares. */
bool demo_step_read(struct demo *d, struct step *s)
{
	struct nic *b = &d->b;
	uint32_t len = (uint32_t)d->o.size;
	size_t first, bad;
	uint64_t ns;

	memset(b->buf + d->b_back, 0, len);
	if (!timed_rdma(d, s, ROCE_WR_RDMA_READ, d->b_back, len, "READ", &ns))
		return false;
	if ((bad = compare(b->buf + d->b_back, b->buf, len, &first)))
		return step_fail(s, "%zu of %u bytes read back differ from what was "
				 "written, first at offset %zu", bad, len, first);
	return step_pass(s, "READ A -> B, %u bytes into a second buffer (%.0f MB/s): "
			 "identical byte by byte", len, mbs(len, ns));
}

/* One atomic from B on A's counter; *orig is what the responder returned. */
static bool atomic_op(struct demo *d, struct step *s, enum roce_wr_opcode op,
		      uint64_t compare_add, uint64_t swap, uint64_t *orig)
{
	struct nic *b = &d->b;
	uint64_t poison = 0xDEADBEEFDEADBEEFull;
	struct roce_send_wr wr;
	struct roce_sge sge;

	memcpy(b->buf + d->b_result, &poison, 8);
	demo_wr_init(&wr, &sge, op, b, d->b_result, 8, 0);
	wr.wr.atomic.remote_addr = counter_va(d);
	wr.wr.atomic.rkey = d->ad.rkey;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	if (!demo_post_wait(d, b, &wr, s, op == ROCE_WR_ATOMIC_FETCH_AND_ADD ?
			    "FETCH_AND_ADD" : "CMP_AND_SWAP"))
		return false;
	memcpy(orig, b->buf + d->b_result, 8);
	return true;
}

/* (d) FETCH_AND_ADD returns the original and adds (IBA 9.4.5). */
bool demo_step_fetch_add(struct demo *d, struct step *s)
{
	const uint64_t want = AD_COUNTER_INIT, add = 5;
	uint64_t orig, mem;

	if (!atomic_op(d, s, ROCE_WR_ATOMIC_FETCH_AND_ADD, add, 0, &orig))
		return false;
	mem = a_counter(d);
	if (orig != want || mem != want + add)
		return step_fail(s, "returned %" PRIu64 " (want %" PRIu64 "), A's "
				 "counter %" PRIu64 " (want %" PRIu64 ")", orig, want,
				 mem, want + add);
	return step_pass(s, "FETCH_AND_ADD +%" PRIu64 " on A's counter at 0x%" PRIx64
			 ": returned %" PRIu64 ", counter now %" PRIu64, add,
			 counter_va(d), orig, mem);
}

/* (e) CMP_AND_SWAP swaps only when the compare value matches; either way
 * it returns the original. */
bool demo_step_cmp_swap(struct demo *d, struct step *s)
{
	const uint64_t cur = AD_COUNTER_INIT + 5, swap = 42, miss = 7;
	uint64_t hit_orig, miss_orig, mem_hit, mem_miss;

	if (!atomic_op(d, s, ROCE_WR_ATOMIC_CMP_AND_SWP, cur, swap, &hit_orig))
		return false;
	mem_hit = a_counter(d);
	if (!atomic_op(d, s, ROCE_WR_ATOMIC_CMP_AND_SWP, cur, miss, &miss_orig))
		return false;
	mem_miss = a_counter(d);
	if (hit_orig != cur || mem_hit != swap)
		return step_fail(s, "compare %" PRIu64 " swap %" PRIu64 ": returned %"
				 PRIu64 ", counter %" PRIu64 " (want %" PRIu64 ", %"
				 PRIu64 ")", cur, swap, hit_orig, mem_hit, cur, swap);
	if (miss_orig != swap || mem_miss != swap)
		return step_fail(s, "compare %" PRIu64 " (no match) swap %" PRIu64
				 ": returned %" PRIu64 ", counter %" PRIu64 " (want %"
				 PRIu64 ", unchanged)", cur, miss, miss_orig, mem_miss,
				 swap);
	return step_pass(s, "CMP_AND_SWAP %" PRIu64 " -> %" PRIu64 ": returned %"
			 PRIu64 ", counter %" PRIu64 "; again (no match): returned %"
			 PRIu64 ", counter unchanged", cur, swap, hit_orig, mem_hit,
			 miss_orig);
}
