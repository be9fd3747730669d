/* SPDX-License-Identifier: MIT */
/*
 * Setting the AF_XDP port up: the interface (index, MAC, MTU, up and
 * carrier), the XDP mode the driver accepts, the UMEM with its fill and
 * completion rings, the socket (libxdp attaches its default program, which
 * redirects the queue to the socket), and errors that name the interface
 * and the cause.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "link/afxdp_priv.h"
#include "roce/params.h"
#include "roce/status.h"

#define PRIV_HINT " (AF_XDP needs root, or CAP_NET_ADMIN, CAP_NET_RAW and CAP_BPF)"

/* ---- errors --------------------------------------------------------------- */

/* "<ifname>: <what>: <strerror>[ hint]" */
static int afx_err(struct roce_afxdp *afx, char *err, size_t errlen, int errnum,
		   const char *what)
{
	int st = netdev_errno_status(errnum);

	return netdev_fail(err, errlen, st, "%s: %s: %s%s", afx->ifname, what,
			strerror(errnum), st == ROCE_E_PERM ? PRIV_HINT : "");
}

/* ---- interface ---------------------------------------------------------- */

int afx_query_iface(struct roce_afxdp *afx, char *err, size_t errlen)
{
	struct netdev_info ni;
	int st = netdev_query(afx->ifname, PRIV_HINT, &ni, err, errlen);

	if (st)
		return st;
	afx->ifindex = ni.ifindex;
	memcpy(afx->port.mac, ni.mac, 6);
	afx->mtu = ni.mtu;
	return ROCE_OK;
}

/* ---- XDP mode --------------------------------------------------------------- */

/*
 * Whether the driver takes an XDP program in mode flags: attach "return
 * XDP_PASS" and detach it again. Asked before the socket is created
 * because a socket whose program libxdp could not attach stays bound to
 * the queue until the kernel's work queue releases it.
 */
static int probe_mode(struct roce_afxdp *afx, uint32_t flags)
{
	const struct bpf_insn pass[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd, rc;

	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "roce_probe", "GPL", pass, 2, NULL);
	if (fd < 0)
		return fd;
	rc = bpf_xdp_attach(afx->ifindex, fd, flags, NULL);
	if (rc == 0)
		bpf_xdp_detach(afx->ifindex, flags, NULL);
	close(fd);
	return rc;
}

static int choose_mode(struct roce_afxdp *afx, enum roce_afxdp_mode want,
		       uint32_t *flags, char *err, size_t errlen)
{
	int rc = 0;

	if (want != ROCE_AFX_GENERIC) {
		rc = probe_mode(afx, XDP_FLAGS_DRV_MODE);
		if (rc == 0) {
			afx->mode = ROCE_AFX_NATIVE;
			*flags = XDP_FLAGS_DRV_MODE;
			return ROCE_OK;
		}
		if (want == ROCE_AFX_NATIVE || rc == -EPERM) {
			int st = netdev_errno_status(-rc);

			if (st == ROCE_E_IO)
				st = ROCE_E_UNSUPPORTED;
			return netdev_fail(err, errlen, st,
					"%s: the driver refuses native XDP: %s%s",
					afx->ifname, strerror(-rc),
					st == ROCE_E_PERM ? PRIV_HINT : "");
		}
	}
	rc = probe_mode(afx, XDP_FLAGS_SKB_MODE);
	if (rc)
		return netdev_fail(err, errlen, netdev_errno_status(-rc),
				"%s: cannot attach an XDP program (generic): %s%s",
				afx->ifname, strerror(-rc),
				netdev_errno_status(-rc) == ROCE_E_PERM ? PRIV_HINT : "");
	afx->mode = ROCE_AFX_GENERIC;
	*flags = XDP_FLAGS_SKB_MODE;
	return ROCE_OK;
}

/* ---- sharing the interface with the kernel ---------------------------------- */

/*
 * The program of a port that shares its interface (share_kernel): an
 * untagged IPv4 frame without options, or IPv6 frame with UDP right after
 * the fixed header (RoCE v2 has no extension headers), carrying UDP to
 * udp_port goes to the socket of its queue (XDP_PASS when the queue has
 * none); anything else goes on to the kernel's stack, ARP and IPv6
 * neighbour discovery included. The port classifies what it gets as
 * always. Byte-order constants are the frame's bytes read as host u16.
 * Jump offsets count from the next instruction.
 */
static int load_share_prog(struct roce_afxdp *afx)
{
	const int32_t ip4 = (int32_t)htons(0x0800), ip6 = (int32_t)htons(0x86DD);
	const int32_t dport = (int32_t)htons(afx->udp_port);
#define I(c, d, s_, o, i) { .code = (c), .dst_reg = (d), .src_reg = (s_), .off = (o), .imm = (i) }
	struct bpf_insn p[] = {
		/*  0 */ I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0),
		/*  1 */ I(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, 0, 0),  /* data */
		/*  2 */ I(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1, 4, 0),  /* data_end */
		/*  3 */ I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_4, BPF_REG_2, 0, 0),
		/*  4 */ I(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, 42),
		/*  5 */ I(BPF_JMP | BPF_JGT | BPF_X, BPF_REG_4, BPF_REG_3, 23, 0), /* short */
		/*  6 */ I(BPF_LDX | BPF_MEM | BPF_H, BPF_REG_4, BPF_REG_2, 12, 0),
		/*  7 */ I(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_4, 0, 8, ip6),        /* IPv6 */
		/*  8 */ I(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 20, ip4),       /* IPv4 */
		/*  9 */ I(BPF_LDX | BPF_MEM | BPF_B, BPF_REG_4, BPF_REG_2, 14, 0),
		/* 10 */ I(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 18, 0x45),      /* IHL 5 */
		/* 11 */ I(BPF_LDX | BPF_MEM | BPF_B, BPF_REG_4, BPF_REG_2, 23, 0),
		/* 12 */ I(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 16, 17),        /* UDP */
		/* 13 */ I(BPF_LDX | BPF_MEM | BPF_H, BPF_REG_4, BPF_REG_2, 36, 0),
		/* 14 */ I(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 14, dport),     /* port */
		/* 15 */ I(BPF_JMP | BPF_JA, 0, 0, 7, 0),                          /* redirect */
		/* 16 */ I(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_4, BPF_REG_2, 0, 0),
		/* 17 */ I(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_4, 0, 0, 58),
		/* 18 */ I(BPF_JMP | BPF_JGT | BPF_X, BPF_REG_4, BPF_REG_3, 10, 0), /* short */
		/* 19 */ I(BPF_LDX | BPF_MEM | BPF_B, BPF_REG_4, BPF_REG_2, 20, 0),
		/* 20 */ I(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 8, 17),         /* UDP */
		/* 21 */ I(BPF_LDX | BPF_MEM | BPF_H, BPF_REG_4, BPF_REG_2, 56, 0),
		/* 22 */ I(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 6, dport),      /* port */
		/* 23 */ I(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_6, 16, 0), /* queue */
		/* 24 */ I(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, afx->map_fd),
		/* 25 */ I(0, 0, 0, 0, 0),
		/* 26 */ I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, XDP_PASS),
		/* 27 */ I(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map),
		/* 28 */ I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
		/* 29 */ I(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_PASS), /* pass */
		/* 30 */ I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
#undef I

	afx->map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "roce_xsks", 4, 4, 64, NULL);
	if (afx->map_fd < 0)
		return afx->map_fd;
	p[24].imm = afx->map_fd;
	afx->prog_fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "roce_share", "GPL", p,
				     sizeof(p) / sizeof(p[0]), NULL);
	return afx->prog_fd < 0 ? afx->prog_fd : 0;
}

static int attach_share_prog(struct roce_afxdp *afx, uint32_t flags,
			     char *err, size_t errlen)
{
	int rc = load_share_prog(afx);

	if (rc == 0)
		rc = bpf_xdp_attach(afx->ifindex, afx->prog_fd,
				    flags | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
	if (rc)
		return netdev_fail(err, errlen, netdev_errno_status(-rc),
				"%s: the RoCE-only XDP program: %s%s", afx->ifname,
				strerror(-rc), -rc == EBUSY || -rc == EEXIST ?
				" (the interface already has an XDP program)" :
				netdev_errno_status(-rc) == ROCE_E_PERM ? PRIV_HINT : "");
	afx->xdp_flags = flags;
	return ROCE_OK;
}

/* ---- UMEM and socket ------------------------------------------------------ */

static int fifo_init(struct afx_fifo *q, uint32_t cap)
{
	*q = (struct afx_fifo){ .mask = cap - 1 };
	q->slot = calloc(cap, sizeof(*q->slot));
	return q->slot ? ROCE_OK : ROCE_E_NOMEM;
}

int afx_open_socket(struct roce_afxdp *afx, enum roce_afxdp_mode want,
		    char *err, size_t errlen)
{
	/* the fill and TX rings twice the frames they carry: the kernel
	   publishes what it took from them late (afxdp_priv.h) */
	struct xsk_umem_config uc = {
		.fill_size = 2 * afx->rx_n,
		.comp_size = afx->tx_n,
		.frame_size = ROCE_AFX_CHUNK,
		.frame_headroom = 0,
	};
	struct xsk_socket_config sc = {
		.rx_size = afx->rx_n,
		.tx_size = 2 * afx->tx_n,
		.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP,
	};
	uint32_t idx = 0, flags = 0;
	int fd, rc, st;

	/* the plainest question first: does this kernel have AF_XDP, and
	 * may we use it */
	fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return netdev_fail(err, errlen, netdev_errno_status(errno),
				"%s: AF_XDP socket: %s%s", afx->ifname, strerror(errno),
				errno == EPERM || errno == EACCES ? PRIV_HINT :
				errno == EAFNOSUPPORT ? " (kernel without CONFIG_XDP_SOCKETS)" : "");
	close(fd);
	afx->netns_fd = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	st = choose_mode(afx, want, &flags, err, errlen);
	if (st)
		return st;
	sc.xdp_flags = flags;
	if (afx->share_kernel) {
		sc.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
		st = attach_share_prog(afx, flags, err, errlen);
		if (st)
			return st;
	}
	afx->area_len = (size_t)(afx->rx_n + afx->tx_n) * ROCE_AFX_CHUNK;
	afx->area = mmap(NULL, afx->area_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (afx->area == MAP_FAILED) {
		afx->area = NULL;
		return afx_err(afx, err, errlen, errno, "mapping the UMEM");
	}
	if (fifo_init(&afx->lent, afx->rx_n) || fifo_init(&afx->back, afx->rx_n) ||
	    fifo_init(&afx->free, afx->tx_n))
		return netdev_fail(err, errlen, ROCE_E_NOMEM, "%s: out of memory",
				afx->ifname);
	rc = xsk_umem__create(&afx->umem, afx->area, afx->area_len, &afx->fill,
			      &afx->comp, &uc);
	if (rc) {
		afx->umem = NULL;
		return afx_err(afx, err, errlen, -rc, "registering the UMEM");
	}
	/* the queue stays busy until the kernel has released the buffer pool
	 * of a socket just closed on it: try again for up to a second */
	for (int i = 0; i < 100; i++) {
		rc = xsk_socket__create(&afx->xsk, afx->ifname, afx->queue, afx->umem,
					&afx->rx, &afx->tx, &sc);
		if (rc != -EBUSY)
			break;
		nanosleep(&(struct timespec){ 0, 10 * 1000000L }, NULL);
	}
	if (rc) {
		char what[64];

		afx->xsk = NULL;
		snprintf(what, sizeof(what), "AF_XDP socket on queue %u (%s XDP)",
			 afx->queue, roce_afxdp_mode_name(afx->mode));
		return afx_err(afx, err, errlen, -rc, what);
	}
	afx->fd = xsk_socket__fd(afx->xsk);
	if (afx->share_kernel) {
		rc = xsk_socket__update_xskmap(afx->xsk, afx->map_fd);
		if (rc)
			return afx_err(afx, err, errlen, -rc, "the socket into the XSKMAP");
	}
	/* every receive frame to the kernel; every transmit frame free */
	if (xsk_ring_prod__reserve(&afx->fill, afx->rx_n, &idx) != afx->rx_n)
		return netdev_fail(err, errlen, ROCE_E_IO, "%s: fill ring too small",
				afx->ifname);
	for (uint32_t i = 0; i < afx->rx_n; i++)
		*xsk_ring_prod__fill_addr(&afx->fill, idx + i) =
			(uint64_t)i * ROCE_AFX_CHUNK;
	xsk_ring_prod__submit(&afx->fill, afx->rx_n);
	for (uint32_t i = 0; i < afx->tx_n; i++)
		afx_fifo_push(&afx->free, (uint64_t)(afx->rx_n + i) * ROCE_AFX_CHUNK);
	return ROCE_OK;
}

static bool same_ns(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_ino == sb.st_ino &&
	       sa.st_dev == sb.st_dev;
}

void afx_close_socket(struct roce_afxdp *afx)
{
	int cur = -1;

	if (afx->xsk || afx->xdp_flags) {
		/* libxdp detaches its program by interface index, which only
		 * means something in the namespace the port was opened in (so
		 * does our own program) */
		if (afx->netns_fd >= 0) {
			cur = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
			if (cur >= 0 && (same_ns(cur, afx->netns_fd) ||
					 setns(afx->netns_fd, CLONE_NEWNET))) {
				close(cur);
				cur = -1;
			}
		}
		if (afx->xsk)
			xsk_socket__delete(afx->xsk);
		if (afx->xdp_flags)
			bpf_xdp_detach(afx->ifindex, afx->xdp_flags, NULL);
		afx->xdp_flags = 0;
		if (cur >= 0) {
			(void)!setns(cur, CLONE_NEWNET);
			close(cur);
		}
		afx->xsk = NULL;
	}
	if (afx->umem && xsk_umem__delete(afx->umem))
		close(xsk_umem__fd(afx->umem)); /* still counted in use: let go */
	afx->umem = NULL;
	if (afx->area)
		munmap(afx->area, afx->area_len);
	afx->area = NULL;
	free(afx->lent.slot);
	free(afx->back.slot);
	free(afx->free.slot);
	afx->lent.slot = afx->back.slot = afx->free.slot = NULL;
	if (afx->netns_fd >= 0)
		close(afx->netns_fd);
	afx->netns_fd = -1;
	if (afx->prog_fd >= 0)
		close(afx->prog_fd);
	if (afx->map_fd >= 0)
		close(afx->map_fd);
	afx->prog_fd = afx->map_fd = -1;
}
