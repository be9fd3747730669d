/* SPDX-License-Identifier: MIT */
/*
 * The raw-Ethernet port's data path, common to every mode: the checks a
 * frame passes before it is sent (length, MTU, the test loss fault), ARP
 * handling on receive, and the in-order lending of receive slots.
 */
#include <stdlib.h>
#include <string.h>

#include "link/afpacket_priv.h"
#include "roce/status.h"

/* ---- transmit --------------------------------------------------------------- */

/* Whether the frame may go out; refusals are counted, and "taken". */
static bool tx_check(struct roce_afpacket *afp, const struct roce_frame *f)
{
	if (f->len < ROCE_ETH_HLEN) {
		afp_count(&afp->st.tx_too_short, 1);
		return false;
	}
	if (f->len > afp->max_tx) {
		/* longer than the interface MTU: the driver would drop it
		 * or the peer's NIC would; refuse it here, visibly */
		afp_count(&afp->st.tx_too_big, 1);
		return false;
	}
	if (afp->loss_thresh &&
	    (afp->loss_all || netdev_prng_next(&afp->prng) < afp->loss_thresh)) {
		afp_count(&afp->st.tx_fault_drops, 1);
		return false;
	}
	return true;
}

/* Up to ROCE_AFP_TX_BATCH frames; returns how many were taken. */
static unsigned tx_chunk(struct roce_afpacket *afp, const struct roce_frame *f,
			 unsigned n)
{
	uint8_t idx[ROCE_AFP_TX_BATCH];
	unsigned staged = 0, i, sent;

	for (i = 0; i < n; i++) {
		if (!tx_check(afp, &f[i]))
			continue;
		if (!afp->tx->put(afp, f[i].data, f[i].len))
			break;          /* ring full: the rest is not taken */
		idx[staged++] = (uint8_t)i;
	}
	sent = staged ? afp->tx->kick(afp, staged) : 0;
	/* the kernel took the first `sent` staged frames: everything
	 * before the first one it refused is taken */
	return sent < staged ? idx[sent] : i;
}

static unsigned afp_tx_burst(void *ctx, const struct roce_frame *f, unsigned n)
{
	struct roce_afpacket *afp = ctx;
	unsigned done = 0;

	while (done < n) {
		unsigned chunk = n - done < ROCE_AFP_TX_BATCH ? n - done
							      : ROCE_AFP_TX_BATCH;
		unsigned took = tx_chunk(afp, f + done, chunk);

		done += took;
		if (took < chunk)
			break;
	}
	return done;
}

/* ---- receive ---------------------------------------------------------------- */

static void arp_input(struct roce_afpacket *afp, const uint8_t *data, uint32_t len)
{
	struct roce_arp a;
	size_t rlen;

	afp_count(&afp->st.rx_arp, 1);
	if (!afp->answer_arp || roce_arp_parse(data, len, &a) != ROCE_OK)
		return;
	rlen = roce_arp_answer(&a, afp->port.mac, afp->ip, afp->arp_buf);
	if (!rlen)
		return;
	/* the port's own thread: the TX back end is ours to use */
	if (afp->tx->put(afp, afp->arp_buf, (uint32_t)rlen) &&
	    afp->tx->kick(afp, 1) == 1)
		afp_count(&afp->st.arp_replies, 1);
}

bool afp_rx_accept(struct roce_afpacket *afp, const uint8_t *data, uint32_t len)
{
	uint16_t type = len >= ROCE_ETH_HLEN ? roce_eth_type((const struct roce_eth_hdr *)data)
					     : 0;

	if (type == ROCE_ETHERTYPE_ARP) {
		arp_input(afp, data, len);
		return false;
	}
	/* neighbour discovery (the filter lets only that ICMPv6 in) */
	if (type == ROCE_ETHERTYPE_IPV6 && len >= ROCE_ETH_HLEN + ROCE_IPV6_HLEN &&
	    ((const struct roce_ipv6_hdr *)(data + ROCE_ETH_HLEN))->next_hdr ==
		    ROCE_IP6_NH_ICMPV6) {
		afp_nd_input(afp, data, len);
		return false;
	}
	afp_count(&afp->st.rx_frames, 1);
	afp_count(&afp->st.rx_bytes, len);
	return true;
}

int afp_lend_init(struct afp_lend *l, uint32_t slots)
{
	l->rel = l->next = 0;
	l->mask = slots - 1;
	l->lent = calloc(slots, 1);
	return l->lent ? ROCE_OK : ROCE_E_NOMEM;
}

void afp_lend_fini(struct afp_lend *l)
{
	free(l->lent);
	l->lent = NULL;
}

void afp_lend_release(struct roce_afpacket *afp, struct afp_lend *l, unsigned n,
		      void (*give_back)(struct roce_afpacket *, uint32_t slot))
{
	while (l->rel != l->next) {
		uint32_t slot = (uint32_t)l->rel & l->mask;

		if (l->lent[slot]) {
			if (!n)
				break;
			n--;
			l->lent[slot] = 0;
		}
		give_back(afp, slot);
		l->rel++;
	}
}

static unsigned afp_rx_burst(void *ctx, struct roce_frame *f, unsigned max)
{
	struct roce_afpacket *afp = ctx;

	/* frames a failed kick left in the TX ring go out now, even when
	 * the engine has nothing new to send */
	if (afp->tx_pending)
		afp->tx->kick(afp, 0);
	return afp->rx->burst(afp, f, max);
}

static void afp_rx_release(void *ctx, unsigned n)
{
	struct roce_afpacket *afp = ctx;

	afp->rx->release(afp, n);
}

/* A sleeping engine thread polls the receive socket: the kernel wakes it
 * when a frame is in the ring (or the queue, without PACKET_MMAP). */
static void afp_set_wake(void *ctx, struct roce_wake *w)
{
	struct roce_afpacket *afp = ctx;

	if (w)
		w->port_fd = afp->rx_fd;
}

/* Not with the TPACKET_V3 ring, which makes a partial block readable only
 * when its timer (ROCE_AFP_V3_TOV_MS) runs out, longer than a nap; not
 * while frames a failed kick left in the TX ring wait for a poll. */
static bool afp_can_sleep(void *ctx)
{
	const struct roce_afpacket *afp = ctx;

	return afp->mode != ROCE_AFP_RING_V3 && !afp->tx_pending;
}

const struct roce_port_ops afp_port_ops = {
	.tx_burst = afp_tx_burst,
	.rx_burst = afp_rx_burst,
	.rx_release = afp_rx_release,
	.set_wake = afp_set_wake,
	.can_sleep = afp_can_sleep,
};
