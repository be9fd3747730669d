/* SPDX-License-Identifier: MIT */
/*
 * Plain socket calls: recvmmsg() fills slots of a buffer the port owns
 * (one system call per burst, lent in place until rx_release), sendmmsg()
 * sends a burst straight from the caller's buffers (the kernel copies, so
 * the frames are taken when the call returns). For hosts where
 * PACKET_MMAP is not available; one copy more each way than the rings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "link/afpacket_priv.h"
#include "roce/status.h"

/* The socket queue is the ring here: make it hold as many frames as the
 * ring would (the kernel charges about twice a frame's length for each).
 * The FORCE variant passes the rmem/wmem_max limits with CAP_NET_ADMIN. */
static void sock_buf(int fd, int force_opt, int opt, size_t bytes)
{
	int v = bytes > INT32_MAX / 2 ? INT32_MAX / 2 : (int)bytes;

	if (setsockopt(fd, SOL_SOCKET, force_opt, &v, sizeof(v)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v));
}

/* ---- receive ------------------------------------------------------------------ */

static int rx_setup(struct roce_afpacket *afp, char *err, size_t errlen)
{
	struct afp_mmsg *m = &afp->mm;
	uint32_t n = afp->rx_frames;

	(void)err;
	(void)errlen;
	m->slot_size = (afp->snap + 63u) & ~63u;
	sock_buf(afp->rx_fd, SO_RCVBUFFORCE, SO_RCVBUF, (size_t)n * m->slot_size);
	m->rx_buf = aligned_alloc(64, (size_t)n * m->slot_size);
	m->rx_msg = calloc(n, sizeof(*m->rx_msg));
	m->rx_iov = calloc(n, sizeof(*m->rx_iov));
	if (!m->rx_buf || !m->rx_msg || !m->rx_iov ||
	    afp_lend_init(&afp->lend, n))
		return ROCE_E_NOMEM;
	for (uint32_t i = 0; i < n; i++) {
		m->rx_iov[i].iov_base = m->rx_buf + (size_t)i * m->slot_size;
		m->rx_iov[i].iov_len = m->slot_size;
		m->rx_msg[i].msg_hdr.msg_iov = &m->rx_iov[i];
		m->rx_msg[i].msg_hdr.msg_iovlen = 1;
	}
	return ROCE_OK;
}

static void rx_fini(struct roce_afpacket *afp)
{
	struct afp_mmsg *m = &afp->mm;

	free(m->rx_buf);
	free(m->rx_msg);
	free(m->rx_iov);
	m->rx_buf = NULL;
	m->rx_msg = NULL;
	m->rx_iov = NULL;
	afp_lend_fini(&afp->lend);
}

static void rx_give_back(struct roce_afpacket *afp, uint32_t slot)
{
	(void)afp;              /* a slot is free once rel passes it */
	(void)slot;
}

/* Look at the r frames just received into slots start.. */
static unsigned rx_take(struct roce_afpacket *afp, uint32_t start, int r,
			struct roce_frame *f)
{
	struct afp_mmsg *m = &afp->mm;
	struct afp_lend *l = &afp->lend;
	unsigned out = 0;

	for (int j = 0; j < r; j++) {
		uint32_t slot = start + (uint32_t)j;
		struct mmsghdr *h = &m->rx_msg[slot];
		uint8_t *data = m->rx_iov[slot].iov_base;

		l->lent[slot] = 0;
		if (h->msg_hdr.msg_flags & MSG_TRUNC)
			afp_count(&afp->st.rx_truncated, 1);
		else if (afp_rx_accept(afp, data, h->msg_len)) {
			l->lent[slot] = 1;
			f[out].data = data;
			f[out].len = h->msg_len;
			out++;
		}
	}
	l->next += (unsigned)r;
	return out;
}

static unsigned rx_burst(struct roce_afpacket *afp, struct roce_frame *f,
			 unsigned max)
{
	struct afp_lend *l = &afp->lend;
	uint32_t frames = l->mask + 1;
	unsigned out = 0;

	afp_lend_release(afp, l, 0, rx_give_back);
	/* at most two calls: up to the end of the slot array, then from 0 */
	for (int round = 0; round < 2 && out < max; round++) {
		uint32_t start = (uint32_t)l->next & l->mask;
		uint32_t room = frames - (uint32_t)(l->next - l->rel);
		uint32_t k = max - out;
		int r;

		if (k > room)
			k = room;
		if (k > frames - start)
			k = frames - start;
		if (!k)
			break;
		r = recvmmsg(afp->rx_fd, &afp->mm.rx_msg[start], k, MSG_DONTWAIT, NULL);
		if (r <= 0)
			break;
		out += rx_take(afp, start, r, f + out);
		if ((uint32_t)r < k)
			break;
	}
	return out;
}

static void rx_release(struct roce_afpacket *afp, unsigned n)
{
	afp_lend_release(afp, &afp->lend, n, rx_give_back);
}

const struct afp_rx_ops afp_mmsg_rx_ops = {
	.setup = rx_setup,
	.fini = rx_fini,
	.burst = rx_burst,
	.release = rx_release,
};

/* ---- transmit ----------------------------------------------------------------- */

static int tx_setup(struct roce_afpacket *afp, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	sock_buf(afp->tx_fd, SO_SNDBUFFORCE, SO_SNDBUF,
		 (size_t)afp->tx_frames * afp->max_tx);
	afp->mm.tx_n = 0;
	return ROCE_OK;
}

static void tx_fini(struct roce_afpacket *afp)
{
	(void)afp;
}

static bool tx_put(struct roce_afpacket *afp, const uint8_t *data, uint32_t len)
{
	struct afp_mmsg *m = &afp->mm;
	unsigned i = m->tx_n;

	if (i == ROCE_AFP_TX_BATCH)
		return false;
	/* no copy: kick() runs before tx_burst returns */
	m->tx_iov[i].iov_base = (void *)data;
	m->tx_iov[i].iov_len = len;
	memset(&m->tx_msg[i], 0, sizeof(m->tx_msg[i]));
	m->tx_msg[i].msg_hdr.msg_iov = &m->tx_iov[i];
	m->tx_msg[i].msg_hdr.msg_iovlen = 1;
	m->tx_n++;
	return true;
}

static unsigned tx_kick(struct roce_afpacket *afp, unsigned staged)
{
	struct afp_mmsg *m = &afp->mm;
	unsigned done = 0, sent = 0;
	uint64_t bytes = 0;

	while (done < staged) {
		int r = sendmmsg(afp->tx_fd, &m->tx_msg[done], staged - done,
				 MSG_DONTWAIT);

		if (r > 0) {
			for (int k = 0; k < r; k++)
				bytes += m->tx_iov[done + (unsigned)k].iov_len;
			done += (unsigned)r;
			sent += (unsigned)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == ENOBUFS))
			break;          /* the queue is full: not taken */
		/* the kernel refused this frame: count it, go on */
		afp_count(&afp->st.tx_errors, 1);
		done++;
	}
	m->tx_n = 0;
	afp_count(&afp->st.tx_frames, sent);
	afp_count(&afp->st.tx_bytes, bytes);
	return done;
}

const struct afp_tx_ops afp_mmsg_tx_ops = {
	.setup = tx_setup,
	.fini = tx_fini,
	.put = tx_put,
	.kick = tx_kick,
};
