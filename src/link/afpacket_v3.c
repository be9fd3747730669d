/* SPDX-License-Identifier: MIT */
/*
 * TPACKET_V3 receive ring: the kernel packs frames back to back into
 * blocks and hands a block over (status USER) when it is full or its
 * timer (ROCE_AFP_V3_TOV_MS) expires; one status check per block instead
 * of per frame. Frames are lent in place; a block goes back to the kernel
 * once we have walked all of it and the engine released every frame lent
 * from it, blocks in order.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <stdlib.h>
#include <string.h>

#include "common/pow2.h"
#include "link/afpacket_priv.h"
#include "roce/status.h"

static struct tpacket_block_desc *block(struct roce_afpacket *afp, uint64_t b)
{
	struct afp_ring *r = &afp->rx_ring;

	return (void *)(r->map + (size_t)(b & (r->blocks - 1)) * r->block_size);
}

static int rx_setup(struct roce_afpacket *afp, char *err, size_t errlen)
{
	struct afp_ring *r = &afp->rx_ring;
	uint32_t fs = pow2_at_least(TPACKET_ALIGN(TPACKET3_HDRLEN + 16) + afp->snap);
	uint64_t bytes = (uint64_t)afp->rx_frames * fs;
	struct tpacket_req3 req;
	int ver = TPACKET_V3;

	memset(&req, 0, sizeof(req));
	r->block_size = ROCE_AFP_BLOCK_SIZE < fs ? fs : ROCE_AFP_BLOCK_SIZE;
	r->blocks = pow2_at_least((uint32_t)((bytes + r->block_size - 1) / r->block_size));
	if (r->blocks < 4)
		r->blocks = 4;  /* the kernel fills one while we read others */
	req.tp_block_size = r->block_size;
	req.tp_block_nr = r->blocks;
	req.tp_frame_size = fs;
	req.tp_frame_nr = r->blocks * (r->block_size / fs);
	req.tp_retire_blk_tov = ROCE_AFP_V3_TOV_MS;
	r->map_len = (size_t)r->blocks * r->block_size;
	if (setsockopt(afp->rx_fd, SOL_PACKET, PACKET_VERSION, &ver, sizeof(ver)) < 0)
		return afp_err(afp, err, errlen, ROCE_E_UNSUPPORTED, errno,
			       "PACKET_VERSION V3");
	if (setsockopt(afp->rx_fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
		return afp_err(afp, err, errlen, 0, errno, "PACKET_RX_RING (V3)");
	afp->v3.lent = calloc(r->blocks, sizeof(*afp->v3.lent));
	if (!afp->v3.lent)
		return ROCE_E_NOMEM;
	afp->v3.rel = afp->v3.cur = 0;
	afp->v3.open = false;
	return afp_ring_map(afp, afp->rx_fd, r, err, errlen);
}

static void rx_fini(struct roce_afpacket *afp)
{
	afp_ring_unmap(&afp->rx_ring);
	free(afp->v3.lent);
	afp->v3.lent = NULL;
}

/* Return walked blocks with nothing lent, oldest first. */
static void give_back_done(struct roce_afpacket *afp)
{
	struct afp_v3 *v = &afp->v3;

	while (v->rel < v->cur && !v->lent[v->rel & (afp->rx_ring.blocks - 1)]) {
		__atomic_store_n(&block(afp, v->rel)->hdr.bh1.block_status,
				 TP_STATUS_KERNEL, __ATOMIC_RELEASE);
		v->rel++;
	}
}

static bool open_block(struct roce_afpacket *afp)
{
	struct afp_v3 *v = &afp->v3;
	struct tpacket_block_desc *bd;

	if (v->cur - v->rel >= afp->rx_ring.blocks)
		return false;   /* every block is still lent out */
	bd = block(afp, v->cur);
	if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) &
	      TP_STATUS_USER))
		return false;
	v->open = true;
	v->left = bd->hdr.bh1.num_pkts;
	v->pkt = (uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
	return true;
}

static unsigned rx_burst(struct roce_afpacket *afp, struct roce_frame *f,
			 unsigned max)
{
	struct afp_v3 *v = &afp->v3;
	unsigned out = 0;

	give_back_done(afp);
	while (out < max) {
		struct tpacket3_hdr *h;

		if (!v->open && !open_block(afp))
			break;
		if (v->left) {
			h = (struct tpacket3_hdr *)v->pkt;
			if (h->tp_snaplen < h->tp_len)
				afp_count(&afp->st.rx_truncated, 1);
			else if (afp_rx_accept(afp, v->pkt + h->tp_mac, h->tp_snaplen)) {
				f[out].data = v->pkt + h->tp_mac;
				f[out].len = h->tp_snaplen;
				out++;
				v->lent[v->cur & (afp->rx_ring.blocks - 1)]++;
			}
			v->left--;
			v->pkt += h->tp_next_offset;
		}
		if (!v->left) {
			v->open = false;
			v->cur++;
			give_back_done(afp);
		}
	}
	return out;
}

static void rx_release(struct roce_afpacket *afp, unsigned n)
{
	struct afp_v3 *v = &afp->v3;

	while (n) {
		uint32_t *lent = &v->lent[v->rel & (afp->rx_ring.blocks - 1)];
		uint32_t take = n < *lent ? n : *lent;

		*lent -= take;
		n -= take;
		if (*lent || v->rel >= v->cur)
			break;
		give_back_done(afp);
	}
	give_back_done(afp);
}

const struct afp_rx_ops afp_v3_rx_ops = {
	.setup = rx_setup,
	.fini = rx_fini,
	.burst = rx_burst,
	.release = rx_release,
};
