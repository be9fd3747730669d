/* SPDX-License-Identifier: MIT */
/*
 * The transmit side: a frame is built in the link's own buffer when the
 * port lends one (zero-copy: the in-memory link's receive ring), else in a
 * fixed staging slot handed to the port in a burst; the payload is
 * fetched from the device memory through the ranges dma.c resolved
 * (mover.c), never from a copy of the message, and checksummed in the
 * same pass.
 */
#include <string.h>

#include "engine/addr.h"
#include "engine/cc.h"
#include "engine/mover.h"
#include "engine/tx.h"
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


/* The frame of a QP up to the BTH never changes but for the IP length (and
 * IPv4's ID and checksum) and the UDP length: build it once with the wire
 * builder, when the QP context changes, and patch it per packet (header
 * work at fixed offsets, as the hardware does). The family is the peer's:
 * an IPv4 peer gets IPv4 from IP_ADDR, an IPv6 one IPv6 from the QP's
 * SGID. Hop limit, traffic class and flow label are the context's; the
 * UDP checksum is zero over both, as rxe sends it (A17.4.2; RFC 6935/6936
 * allow it over IPv6 for tunnels: rxe_rc_pingpong_ipv6.pcap shows it). */
void tx_template_cfg(struct roce_engine *e, struct eng_qp *qp, const struct roce_qp_cfg *c)
{
	struct roce_hdrs h;
	uint8_t frame[ROCE_MAX_HDR_LEN];

	memset(&h, 0, sizeof(h));
	memcpy(h.eth.dst, c->peer_mac, 6);
	memcpy(h.eth.src, e->mac, 6);
	h.ip.ttl = c->hop_limit ? c->hop_limit : ROCE_HOP_LIMIT;
	h.ip.tos = cc_tos(e, c->tclass);
	h.ip.v6 = roce_qp_dgid_ipv6(c);
	if (h.ip.v6) {
		h.ip.flow = c->flow_label;
		memcpy(h.ip.src, addr_sgid6(e, c->sgid_index), ROCE_GID_LEN);
		roce_qp_dgid(c, h.ip.dst);
	} else {
		h.ip.frag = ROCE_IPV4_DF;
		roce_ipv4_addr_put(h.ip.src, e->ip);
		roce_ipv4_addr_put(h.ip.dst, c->peer_ip);
	}
	h.udp.sport = qp->sport;
	h.udp.dport = ROCE_UDP_PORT;
	h.bth.opcode = ROCE_OP_RC_ACK;
	roce_build_hdrs(&h, 0, frame, sizeof(frame));
	qp->tmpl_l3len = h.ip.v6 ? ROCE_IPV6_HLEN : ROCE_IPV4_HLEN;
	memcpy(qp->tmpl, frame, ROCE_ETH_HLEN + qp->tmpl_l3len + ROCE_UDP_HLEN);
	if (!h.ip.v6)
		qp->tmpl_sum = roce_ipv4_fixed_sum((const struct roce_ipv4_hdr *)
						   (frame + ROCE_ETH_HLEN));
}

void tx_template(struct roce_engine *e, struct eng_qp *qp)
{
	tx_template_cfg(e, qp, &qp->cfg);
	qp->tmpl_ud = false;    /* a UD QP's next packet builds its own */
}

/* BTH (IBA 9.2): no migration (M=0, as rxe), TVer 0, resv8a 0. */
static void put_bth(struct roce_bth *b, const struct eng_qp *qp, const struct tx_pkt *p,
		    unsigned pad)
{
	const struct roce_bth_info i = {
		.opcode = p->opcode, .se = p->se, .pad = (uint8_t)pad,
		.pkey = qp->cfg.pkey, .dqpn = p->av ? p->dqpn : qp->cfg.dest_qpn,
		.ackreq = p->ackreq, .psn = p->psn,
		.resv8a = p->cnp ? ROCE_BTH_BECN : 0,   /* A17.9.3: B set in a CNP */
	};

	roce_bth_put(b, &i);
}

/* A CNP's IP header: cnp_dscp and ECT(1), not the QP's class (the ICRC
 * does not cover these bits, A17.8); IPv4's header sum follows. ECT, so
 * that a RED queue marks it rather than dropping it. */
static void cnp_tos(const struct roce_engine *e, const struct eng_qp *qp, uint8_t *ip,
		    uint32_t *sum)
{
	uint8_t tos = (uint8_t)(e->cc.dcqcn.cnp_dscp << 2 | 1);

	if (qp->tmpl_l3len == ROCE_IPV6_HLEN) {
		struct roce_ipv6_hdr *h = (struct roce_ipv6_hdr *)ip;

		roce_ipv6_set_tc_flow(h, tos, roce_ipv6_flow(h));
		return;
	}
	*sum += (uint32_t)tos - ip[1];  /* the word ip[0..1], ip[0] unchanged */
	ip[1] = tos;
}

/* Payloads from this size are checksummed while they are gathered; below
 * it, the calls would cost more than the second read of a few lines. */
#define TX_FUSE_MIN 512

/* Where the next frame is built: in the link's own buffer when it lends
 * one (zero-copy), else in the next staging slot. Frames still staged go
 * first: no zero-copy frame may pass them. A frame to our own MAC is
 * staged: it goes back to our receive path, not to the link. */
static uint8_t *tx_buffer(struct roce_engine *e, const struct eng_qp *qp,
			  const struct tx_pkt *p, uint32_t len, bool staged, bool self,
			  bool *zc)
{
	uint8_t *b = NULL;

	/* a staged payload may fail its fetch: built in a staging slot,
	 * the frame is then simply not taken */
	if (!e->tx_n && !staged && !self && !roce_device_loopback(e->dev))
		b = roce_port_tx_get(e->port, p->av ? p->av->mac : qp->cfg.peer_mac, len);
	*zc = b != NULL;
	return b ? b : e->tx[e->tx_n].data;
}

/* The payload into the frame: an inline WQE's bytes, or the DMA's
 * pieces (mover.c), the CRC taken in the same pass when crc is set. */
static int tx_fetch(struct roce_engine *e, const struct tx_pkt *p, const struct dma_seg *seg,
		    unsigned nseg, uint8_t *dst, uint32_t *crc)
{
	if (!p->inl)
		return mem_fetch(e, seg, nseg, dst, crc);
	if (crc)
		*crc = roce_crc32_copy(*crc, dst, p->inl + p->sge_off, p->len);
	else
		memcpy(dst, p->inl + p->sge_off, p->len);
	return ROCE_OK;
}

int tx_build(struct roce_engine *e, struct eng_qp *qp, const struct tx_pkt *p)
{
	const struct roce_opcode_info *op = roce_opcode_info(p->opcode);
	const size_t l3 = ROCE_ETH_HLEN, l3len = qp->tmpl_l3len, l4 = l3 + l3len;
	unsigned pad = -p->len & 3u, nseg = 0;
	struct dma_seg seg[ROCE_MAX_SGE];
	size_t hlen, udp_len, len, at;
	uint8_t *buf;
	uint32_t crc, sum = qp->tmpl_sum;
	bool zc, staged = false;
	/* the template holds the destination MAC (ud.c's for a datagram) */
	const bool self = !memcmp(qp->tmpl, e->mac, 6);
	int rc;

	if (!op || (p->len && !op->payload) || p->len > ROCE_MAX_MTU)
		return ROCE_E_RANGE;
	/* the DMA is resolved (and may fail) before a buffer is taken; an
	 * inline WQE's bytes were copied at post: no key, no DMA */
	if (p->len && p->inl) {
		nseg = 0;
	} else if (p->len && p->sge) {
		rc = mem_resolve(e, qp->cfg.pd, p->sge, p->nsge, p->sge_off, p->len, 0, seg, &nseg);
		if (rc)
			return rc;
	} else if (p->len) {
		/* a READ response's range, checked at the request: its window
		 * may have gone since */
		if (mem_seg_at(e, p->at, p->len, &seg[0]))
			return ROCE_E_BOUNDS;
		nseg = 1;
	}
	for (unsigned i = 0; i < nseg; i++)
		staged |= seg[i].at.staged;
	hlen = l4 + ROCE_UDP_HLEN + op->hdr_len;
	udp_len = ROCE_UDP_HLEN + op->hdr_len + p->len + pad + ROCE_ICRC_LEN;
	len = l4 + udp_len;
	buf = tx_buffer(e, qp, p, (uint32_t)len, staged, self, &zc);
	memcpy(buf, qp->tmpl, l4 + ROCE_UDP_HLEN);
	if (p->cnp)
		cnp_tos(e, qp, buf + l3, &sum);
	if (l3len == ROCE_IPV6_HLEN) {
		roce_ipv6_set_payload_len((struct roce_ipv6_hdr *)(buf + l3),
					  (uint16_t)udp_len);
	} else {
		roce_ipv4_set_len_id_csum((struct roce_ipv4_hdr *)(buf + l3),
					  (uint16_t)(ROCE_IPV4_HLEN + udp_len), e->ip_id,
					  roce_ipv4_csum_finish(sum,
								(uint16_t)(ROCE_IPV4_HLEN + udp_len),
								e->ip_id));
		e->ip_id++;
	}
	roce_udp_set_len((struct roce_udp_hdr *)(buf + l4), (uint16_t)udp_len);
	put_bth((struct roce_bth *)(buf + l4 + ROCE_UDP_HLEN), qp, p, pad);
	if (p->ext)
		roce_build_ext(p->ext, op, buf + l4 + ROCE_UDP_HLEN);
	at = hlen + p->len;
	if (p->len >= TX_FUSE_MIN) {
		/* ICRC (A17.8): the masked headers and the extension headers,
		 * then the payload while it is fetched (one read of the
		 * MR), then the pad */
		crc = roce_icrc_begin(buf + l3);
		crc = roce_crc32(crc, buf + l4 + ROCE_UDP_HLEN + ROCE_BTH_LEN,
				 op->hdr_len - ROCE_BTH_LEN);
		rc = tx_fetch(e, p, seg, nseg, buf + hlen, &crc);
		if (rc)
			return rc;
		memset(buf + at, 0, pad);
		crc = roce_crc32(crc, buf + at, pad);
	} else {
		/* short: fetch, then one ICRC call over the frame */
		rc = tx_fetch(e, p, seg, nseg, buf + hlen, NULL);
		if (rc)
			return rc;
		memset(buf + at, 0, pad);
		crc = roce_icrc(buf + l3, l3len + udp_len - ROCE_ICRC_LEN);
	}
	roce_put_le32(buf + len - ROCE_ICRC_LEN, crc);
	roce_cnt_inc(e->cnt, ROCE_CNT_TX_PKTS);
	roce_cnt_add(e->cnt, ROCE_CNT_TX_BYTES, len);
	if (qp->rp_on && p->len)
		cc_sent(e, qp, (uint32_t)len);  /* DCQCN's byte counter, pacing */
	e->tx_built++;
	if (zc) {
		roce_port_tx_put(e->port);
		e->tx_zc++;
		return ROCE_OK;
	}
	e->tx_frames[e->tx_n].data = buf;
	e->tx_frames[e->tx_n].len = (uint32_t)len;
	if (self)
		e->tx_self |= 1u << e->tx_n;
	e->tx_n++;
	/* ROCE_TX_BURST frames (staged or not) end this poll's transmission:
	 * one burst per poll keeps a fast sender from overrunning the peer */
	return ROCE_OK;
}

/* A CNP to qp's peer (IBA A17.9.3): BECN set, the CNP's DSCP and ECN,
 * PSN 0 and 16 zero bytes (cc.c decides when one is due). */
int tx_cnp(struct roce_engine *e, struct eng_qp *qp)
{
	static const struct roce_hdrs none;
	const struct tx_pkt p = { .opcode = ROCE_OP_CNP, .ext = &none, .cnp = true };

	return tx_build(e, qp, &p);
}
