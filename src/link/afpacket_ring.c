/* SPDX-License-Identifier: MIT */
/*
 * PACKET_MMAP TPACKET_V2 rings (Documentation/networking/packet_mmap.rst):
 * the kernel writes received frames into RX slots and flips their status
 * to USER; we lend them to the engine in place and flip them back to
 * KERNEL on rx_release. TX: we copy a frame into the next AVAILABLE slot,
 * mark it SEND_REQUEST, and one send() per burst makes the kernel walk the
 * ring. The status word is the only thing shared: loads acquire, stores
 * release, so neither side sees a half-written frame.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/pow2.h"
#include "link/afpacket_priv.h"
#include "roce/status.h"

static uint32_t status_load(const void *hdr)
{
	return __atomic_load_n(&((const struct tpacket2_hdr *)hdr)->tp_status,
			       __ATOMIC_ACQUIRE);
}

static void status_store(void *hdr, uint32_t s)
{
	__atomic_store_n(&((struct tpacket2_hdr *)hdr)->tp_status, s,
			 __ATOMIC_RELEASE);
}

int afp_ring_map(struct roce_afpacket *afp, int fd, struct afp_ring *r,
		 char *err, size_t errlen)
{
	void *m = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, fd, 0);

	if (m == MAP_FAILED)
		return afp_err(afp, err, errlen, 0, errno, "mmap of the packet ring");
	r->map = m;
	return ROCE_OK;
}

void afp_ring_unmap(struct afp_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
}

/* Frames of frame_size in blocks of at most ROCE_AFP_BLOCK_SIZE (and at
 * least a page: the kernel wants page multiples). */
static int v2_ring(struct roce_afpacket *afp, int fd, int which, uint32_t frames,
		   uint32_t frame_size, struct afp_ring *r, char *err, size_t errlen)
{
	int ver = TPACKET_V2;
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	uint32_t block = ROCE_AFP_BLOCK_SIZE;
	struct tpacket_req req;

	if (block > frames * frame_size)
		block = frames * frame_size;
	if (block < page)
		block = page;
	if (block < frame_size)
		block = frame_size;
	r->frame_size = frame_size;
	r->frames = frames;
	req.tp_frame_size = frame_size;
	req.tp_frame_nr = frames;
	req.tp_block_size = block;
	req.tp_block_nr = (frames * frame_size + block - 1) / block;
	r->frames = req.tp_frame_nr = req.tp_block_nr * (block / frame_size);
	r->map_len = (size_t)req.tp_block_nr * block;
	if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &ver, sizeof(ver)) < 0)
		return afp_err(afp, err, errlen, 0, errno, "PACKET_VERSION V2");
	if (setsockopt(fd, SOL_PACKET, which, &req, sizeof(req)) < 0)
		return afp_err(afp, err, errlen, 0, errno, which == PACKET_RX_RING
			       ? "PACKET_RX_RING" : "PACKET_TX_RING");
	return afp_ring_map(afp, fd, r, err, errlen);
}

/* ---- receive ------------------------------------------------------------------ */

static int rx_setup(struct roce_afpacket *afp, char *err, size_t errlen)
{
	/* the kernel puts the MAC header at TPACKET_ALIGN(hdrlen + 16) - 14 */
	uint32_t fs = pow2_at_least(TPACKET_ALIGN(TPACKET2_HDRLEN + 16) + afp->snap);
	int st = v2_ring(afp, afp->rx_fd, PACKET_RX_RING, afp->rx_frames, fs,
			 &afp->rx_ring, err, errlen);

	if (st)
		return st;
	if (afp_lend_init(&afp->lend, afp->rx_ring.frames))
		return ROCE_E_NOMEM;
	return ROCE_OK;
}

static void rx_fini(struct roce_afpacket *afp)
{
	afp_ring_unmap(&afp->rx_ring);
	afp_lend_fini(&afp->lend);
}

static void *rx_slot(struct roce_afpacket *afp, uint32_t slot)
{
	return afp->rx_ring.map + (size_t)slot * afp->rx_ring.frame_size;
}

static void rx_give_back(struct roce_afpacket *afp, uint32_t slot)
{
	status_store(rx_slot(afp, slot), TP_STATUS_KERNEL);
}

static unsigned rx_burst(struct roce_afpacket *afp, struct roce_frame *f,
			 unsigned max)
{
	struct afp_lend *l = &afp->lend;
	unsigned out = 0;

	afp_lend_release(afp, l, 0, rx_give_back);      /* consumed, not lent */
	while (out < max && l->next - l->rel < afp->rx_ring.frames) {
		uint32_t slot = (uint32_t)l->next & l->mask;
		struct tpacket2_hdr *h = rx_slot(afp, slot);
		uint8_t *data;

		if (!(status_load(h) & TP_STATUS_USER))
			break;
		data = (uint8_t *)h + h->tp_mac;
		l->lent[slot] = 0;
		if (h->tp_snaplen < h->tp_len)
			afp_count(&afp->st.rx_truncated, 1);
		else if (afp_rx_accept(afp, data, h->tp_snaplen)) {
			l->lent[slot] = 1;
			f[out].data = data;
			f[out].len = h->tp_snaplen;
			out++;
		}
		l->next++;
	}
	return out;
}

static void rx_release(struct roce_afpacket *afp, unsigned n)
{
	afp_lend_release(afp, &afp->lend, n, rx_give_back);
}

const struct afp_rx_ops afp_ring_rx_ops = {
	.setup = rx_setup,
	.fini = rx_fini,
	.burst = rx_burst,
	.release = rx_release,
};

/* ---- transmit ----------------------------------------------------------------- */

/* Without tp_tx_has_off the kernel reads the frame at this offset. */
#define TX_DATA_OFF TPACKET_ALIGN(sizeof(struct tpacket2_hdr))

static int tx_setup(struct roce_afpacket *afp, char *err, size_t errlen)
{
	uint32_t fs = pow2_at_least(TX_DATA_OFF + afp->max_tx);
	int one = 1;

	/* a malformed frame is skipped (WRONG_FORMAT is left for us to see
	 * and count) instead of stopping the ring */
	if (setsockopt(afp->tx_fd, SOL_PACKET, PACKET_LOSS, &one, sizeof(one)) < 0)
		return afp_err(afp, err, errlen, 0, errno, "PACKET_LOSS");
	afp->tx_pos = 0;
	return v2_ring(afp, afp->tx_fd, PACKET_TX_RING, afp->tx_frames, fs,
		       &afp->tx_ring, err, errlen);
}

static void tx_fini(struct roce_afpacket *afp)
{
	afp_ring_unmap(&afp->tx_ring);
}

static bool tx_put(struct roce_afpacket *afp, const uint8_t *data, uint32_t len)
{
	struct afp_ring *r = &afp->tx_ring;
	uint32_t slot = (uint32_t)afp->tx_pos & (r->frames - 1);
	struct tpacket2_hdr *h = (void *)(r->map + (size_t)slot * r->frame_size);
	uint32_t s = status_load(h);

	if (s == TP_STATUS_WRONG_FORMAT)
		afp_count(&afp->st.tx_errors, 1);
	else if (s != TP_STATUS_AVAILABLE)
		return false;   /* the kernel has not sent it yet: full */
	memcpy((uint8_t *)h + TX_DATA_OFF, data, len);
	h->tp_len = len;
	h->tp_snaplen = len;
	status_store(h, TP_STATUS_SEND_REQUEST);
	afp->tx_pos++;
	afp->tx_staged_bytes += len;
	return true;
}

static unsigned tx_kick(struct roce_afpacket *afp, unsigned staged)
{
	/* MSG_DONTWAIT: the kernel walks the ring now and returns without
	 * waiting for the driver to free the slots */
	ssize_t r = send(afp->tx_fd, NULL, 0, MSG_DONTWAIT);

	/* on ENOBUFS/EAGAIN the frames stay queued in the ring, in order,
	 * and the next kick (or the next rx_burst) sends them */
	afp->tx_pending = r < 0 && errno != EINVAL && errno != EMSGSIZE;
	if (r < 0 && !afp->tx_pending)
		afp_count(&afp->st.tx_errors, 1);
	afp_count(&afp->st.tx_frames, staged);
	afp_count(&afp->st.tx_bytes, afp->tx_staged_bytes);
	afp->tx_staged_bytes = 0;
	return staged;
}

const struct afp_tx_ops afp_ring_tx_ops = {
	.setup = tx_setup,
	.fini = tx_fini,
	.put = tx_put,
	.kick = tx_kick,
};
