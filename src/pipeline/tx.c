/* SPDX-License-Identifier: MIT */
/*
 * The transmit side and the local DMA: a frame is built in the link's own
 * buffer when the port lends one (zero-copy: the in-memory link's receive
 * ring), else in a fixed staging slot handed to the port in a burst; the
 * payload is gathered from the device memory through the MR table, never
 * from a copy of the message, and checksummed in the same pass.
 */
#include <string.h>

#include "pipeline/engine.h"
#include "roce/device.h"
#include "roce/icrc.h"
#include "roce/status.h"

unsigned tx_flush(struct roce_engine *e)
{
	unsigned sent, zc = e->tx_zc;

	/* frames built in the link's buffers are already out; the port
	 * hears once per burst that they are all there */
	if (zc)
		roce_port_tx_kick(e->port);
	e->tx_zc = 0;
	e->tx_built = 0;
	if (!e->tx_n)
		return zc;
	if (roce_device_loopback(e->dev)) {
		/* CTRL.LOOPBACK (seed 000 section 6.1, the first bring-up
		 * step): the burst comes back to our own receive path and
		 * never reaches the link */
		uint32_t n = e->tx_n;

		e->tx_n = 0;
		for (uint32_t i = 0; i < n; i++)
			recv_frame(e, e->tx[i].data, e->tx_frames[i].len);
		return zc + n;
	}
	sent = roce_port_tx(e->port, e->tx_frames, e->tx_n);
	if (sent < e->tx_n) {
		/* the link is full: keep the rest staged, in order, for the
		 * next poll (backpressure, not loss) */
		for (uint32_t i = sent; i < e->tx_n; i++) {
			memcpy(e->tx[i - sent].data, e->tx[i].data, e->tx_frames[i].len);
			e->tx_frames[i - sent].len = e->tx_frames[i].len;
		}
	}
	e->tx_n -= sent;
	return zc + sent;
}

static bool range_ok(uint64_t base, uint64_t size, uint64_t start, uint64_t len)
{
	return start >= base && len <= size && start - base <= size - len;
}

static int mem_check(struct roce_engine *e, const struct roce_mr_entry *mr,
		     uint64_t va, uint64_t len, unsigned access, uint64_t *pa)
{
	if ((mr->access & access) != access)
		return ROCE_E_ACCESS;
	if (!range_ok(mr->va, mr->len, va, len))
		return ROCE_E_BOUNDS;
	*pa = mr->pa + (va - mr->va);
	/* the table guarantees [pa, pa + len) lies in the DDR; check anyway,
	 * the data path must never trust a control-plane invariant blindly */
	if (!range_ok(0, e->mem_size, *pa, len))
		return ROCE_E_BOUNDS;
	return ROCE_OK;
}

/* The entry of the MR a key names, from the cache while the table says it
 * did not change; NULL for an unknown index. */
static const struct roce_mr_entry *mr_entry(struct roce_engine *e, uint32_t key)
{
	uint32_t index = ROCE_MR_KEY_INDEX(key);
	struct mr_cached *c = &e->mrc[index % MR_CACHE];

	if (index >= ROCE_MAX_MR)
		return NULL;
	if (c->index != index || c->gen != roce_mr_table_generation(e->mrt, index)) {
		roce_mr_table_lookup_gen(e->mrt, index, &c->e, &c->gen);
		c->index = index;
	}
	return &c->e;
}

int mem_lkey(struct roce_engine *e, uint32_t lkey, uint64_t va, uint64_t len,
	     unsigned access, uint64_t *pa)
{
	const struct roce_mr_entry *mr;

	if (len == 0) {
		*pa = 0;
		return ROCE_OK;
	}
	mr = mr_entry(e, lkey);
	if (!mr || !mr->valid || mr->lkey != lkey)
		return ROCE_E_LKEY;
	return mem_check(e, mr, va, len, access, pa);
}

int mem_rkey(struct roce_engine *e, struct roce_qp *qp, uint32_t rkey,
	     uint64_t va, uint64_t len, unsigned access, uint64_t *pa)
{
	const struct roce_mr_entry *mr;

	/* C9-88: a zero-length RDMA access does not check the R_Key */
	if (len == 0) {
		*pa = 0;
		return ROCE_OK;
	}
	mr = mr_entry(e, rkey);
	if (!mr || !mr->valid || mr->rkey != rkey || mr->pd != qp->cfg.pd)
		return ROCE_E_RKEY;
	return mem_check(e, mr, va, len, access, pa);
}

/* One piece of a DMA: a device address range. */
struct dma_seg {
	uint64_t pa;
	uint32_t len;
};

/*
 * Resolve len bytes of an SGE list, starting off bytes into it, to device
 * ranges (at most one per SGE), checking every L_Key, right and bound
 * before a byte moves: a DMA that would fail moves nothing.
 */
static int mem_resolve(struct roce_engine *e, const struct roce_sge *sge,
		       unsigned nsge, uint32_t off, uint32_t len, unsigned access,
		       struct dma_seg *seg, unsigned *nseg)
{
	unsigned k = 0;

	for (unsigned i = 0; i < nsge && i < ROCE_MAX_SGE && len; i++) {
		uint32_t n;
		int rc;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - off;
		if (n > len)
			n = len;
		rc = mem_lkey(e, sge[i].lkey, sge[i].addr + off, n, access, &seg[k].pa);
		if (rc)
			return rc;
		seg[k++].len = n;
		len -= n;
		off = 0;
	}
	*nseg = k;
	return len ? ROCE_E_BOUNDS : ROCE_OK;
}

int mem_scatter(struct roce_engine *e, const struct roce_sge *sge, unsigned nsge,
		uint32_t off, const uint8_t *src, uint32_t len)
{
	struct dma_seg seg[ROCE_MAX_SGE];
	unsigned nseg;
	int rc = mem_resolve(e, sge, nsge, off, len, ROCE_ACCESS_LOCAL_WRITE, seg, &nseg);

	if (rc)
		return rc;
	for (unsigned i = 0; i < nseg; i++) {
		memcpy(e->mem + seg[i].pa, src, seg[i].len);
		src += seg[i].len;
	}
	return ROCE_OK;
}

/* The frame of a QP up to the BTH never changes but for the IP length, ID
 * and checksum and the UDP length: build it once with the wire builder,
 * when the QP context changes, and patch it per packet (header work at
 * fixed offsets, as the hardware does). */
void tx_template(struct roce_engine *e, struct roce_qp *qp)
{
	struct roce_hdrs h;
	uint8_t frame[ROCE_MAX_HDR_LEN];

	memset(&h, 0, sizeof(h));
	memcpy(h.eth.dst, qp->cfg.peer_mac, 6);
	memcpy(h.eth.src, e->mac, 6);
	h.ip.frag = ROCE_IPV4_DF;
	h.ip.ttl = 64;
	roce_ipv4_addr_put(h.ip.src, e->ip);
	roce_ipv4_addr_put(h.ip.dst, qp->cfg.peer_ip);
	h.udp.sport = qp->sport;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = ROCE_OP_RC_ACK;
	roce_build_hdrs(&h, 0, frame, sizeof(frame));
	memcpy(qp->tmpl, frame, sizeof(qp->tmpl));
	qp->tmpl_sum = roce_ipv4_fixed_sum((const struct roce_ipv4_hdr *)(frame + ROCE_ETH_HLEN));
}

/* BTH (IBA 9.2): no migration (M=0, as rxe), TVer 0, resv8a 0. */
static void put_bth(struct roce_bth *b, const struct roce_qp *qp, const struct tx_pkt *p,
		    unsigned pad)
{
	const struct roce_bth_info i = {
		.opcode = p->opcode, .se = p->se, .pad = (uint8_t)pad,
		.pkey = qp->cfg.pkey, .dqpn = qp->cfg.dest_qpn,
		.ackreq = p->ackreq, .psn = p->psn,
	};

	roce_bth_put(b, &i);
}

/* Payloads from this size are checksummed while they are gathered; below
 * it, the calls would cost more than the second read of a few lines. */
#define TX_FUSE_MIN 512

/* Where the next frame is built: in the link's own buffer when it lends
 * one (zero-copy), else in the next staging slot. Frames still staged go
 * first: no zero-copy frame may pass them. */
static uint8_t *tx_buffer(struct roce_engine *e, const struct roce_qp *qp,
			  uint32_t len, bool *zc)
{
	uint8_t *b = NULL;

	if (!e->tx_n && !roce_device_loopback(e->dev))
		b = roce_port_tx_get(e->port, qp->cfg.peer_mac, len);
	*zc = b != NULL;
	return b ? b : e->tx[e->tx_n].data;
}

int tx_build(struct roce_engine *e, struct roce_qp *qp, const struct tx_pkt *p)
{
	const struct roce_opcode_info *op = roce_opcode_info(p->opcode);
	const size_t l3 = ROCE_ETH_HLEN, l4 = l3 + ROCE_IPV4_HLEN;
	unsigned pad = -p->len & 3u, nseg = 0;
	struct dma_seg seg[ROCE_MAX_SGE];
	size_t hlen, udp_len, len, at;
	struct roce_ipv4_hdr *ip;
	uint8_t *buf;
	uint32_t crc;
	bool zc;

	if (!op || (p->len && !op->payload) || p->len > ROCE_MAX_MTU)
		return ROCE_E_RANGE;
	/* the DMA is resolved (and may fail) before a buffer is taken */
	if (p->len && p->sge) {
		int rc = mem_resolve(e, p->sge, p->nsge, p->sge_off, p->len, 0,
				     seg, &nseg);

		if (rc)
			return rc;
	} else if (p->len) {
		seg[0].pa = p->pa;
		seg[0].len = p->len;
		nseg = 1;
	}
	hlen = l4 + ROCE_UDP_HLEN + op->hdr_len;
	udp_len = ROCE_UDP_HLEN + op->hdr_len + p->len + pad + ROCE_ICRC_LEN;
	len = l3 + ROCE_IPV4_HLEN + udp_len;
	buf = tx_buffer(e, qp, (uint32_t)len, &zc);
	ip = (struct roce_ipv4_hdr *)(buf + l3);
	memcpy(buf, qp->tmpl, sizeof(qp->tmpl));
	roce_ipv4_set_len_id_csum(ip, (uint16_t)(ROCE_IPV4_HLEN + udp_len), e->ip_id,
				  roce_ipv4_csum_finish(qp->tmpl_sum,
							(uint16_t)(ROCE_IPV4_HLEN + udp_len),
							e->ip_id));
	e->ip_id++;
	roce_udp_set_len((struct roce_udp_hdr *)(buf + l4), (uint16_t)udp_len);
	put_bth((struct roce_bth *)(buf + l4 + ROCE_UDP_HLEN), qp, p, pad);
	if (p->ext)
		roce_build_ext(p->ext, op, buf + l4 + ROCE_UDP_HLEN);
	at = hlen;
	if (p->len >= TX_FUSE_MIN) {
		/* ICRC (A17.8): the masked headers and the extension headers,
		 * then the payload while it is gathered (one read of the
		 * MR), then the pad */
		crc = roce_icrc_begin(buf + l3);
		crc = roce_crc32(crc, buf + l4 + ROCE_UDP_HLEN + ROCE_BTH_LEN,
				 op->hdr_len - ROCE_BTH_LEN);
		for (unsigned i = 0; i < nseg; at += seg[i].len, i++)
			crc = roce_crc32_copy(crc, buf + at, e->mem + seg[i].pa,
					      seg[i].len);
		memset(buf + at, 0, pad);
		crc = roce_crc32(crc, buf + at, pad);
	} else {
		/* short: gather, then one ICRC call over the frame */
		for (unsigned i = 0; i < nseg; at += seg[i].len, i++)
			memcpy(buf + at, e->mem + seg[i].pa, seg[i].len);
		memset(buf + at, 0, pad);
		crc = roce_icrc(buf + l3, ROCE_IPV4_HLEN + udp_len - ROCE_ICRC_LEN);
	}
	roce_put_le32(buf + len - ROCE_ICRC_LEN, crc);
	roce_cnt_inc(e->cnt, ROCE_CNT_TX_PKTS);
	roce_cnt_add(e->cnt, ROCE_CNT_TX_BYTES, len);
	e->tx_built++;
	if (zc) {
		roce_port_tx_put(e->port);
		e->tx_zc++;
		return ROCE_OK;
	}
	e->tx_frames[e->tx_n].data = buf;
	e->tx_frames[e->tx_n].len = (uint32_t)len;
	e->tx_n++;
	/* ROCE_TX_BURST frames (staged or not) end this poll's transmission:
	 * one burst per poll keeps a fast sender from overrunning the peer */
	return ROCE_OK;
}
