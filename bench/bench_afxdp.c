/* SPDX-License-Identifier: MIT */
/*
 * AF_XDP against PACKET_MMAP on the veth path, side by side: the raw-frame
 * rate of bench_afpacket and the suite's veth section (one thread on CPU 0
 * sends bursts of UDP/4791 RoCE frames from one namespace, another on CPU 1
 * counts them in a second namespace, over a veth pair at MTU 9000), through
 * AF_XDP sockets (libxdp, copy mode: veth has no zero-copy, need-wakeup)
 * with the receiver's XDP program attached natively (XDP_FLAGS_DRV_MODE)
 * and generically (XDP_FLAGS_SKB_MODE), and, in the same run, through the
 * project's PACKET_MMAP TPACKET_V2 port (roce_afpacket_*) for each row.
 * The frames are the engine's: a 62 B ACK, a 138 B 64 B WRITE ONLY, a
 * 4154 B path-MTU WRITE MIDDLE (valid ICRC). The AF_XDP sender transmits
 * frames written once into its UMEM; the port copies each frame into its
 * ring. Needs root; exits 77 (skip), saying why, when AF_XDP cannot be
 * set up.
 *
 * Then the engines themselves: two transport engines (one thread drives
 * both) on the project's AF_XDP ports (roce/afxdp.h) and, in the same run,
 * on its AF_PACKET ports, over the same veth pair at MTU 1500 (path MTU
 * 1024): WRITE 64 KB goodput and WRITE 64 B message rate, side by side
 * with the ratio. In CSV, a second table after a blank line.
 *
 *   bench_afxdp [--seconds S] [--csv]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "lib/pair.h"
#include "lib/traffic.h"
#include "lib/util.h"
#include "roce/afpacket.h"
#include "roce/afxdp.h"
#include "roce/packet.h"
#include "roce/params.h"
#include "roce/status.h"

#ifndef XDP_USE_SG                       /* UAPI of Linux 6.6, older headers */
#define XDP_USE_SG    (1 << 4)
#define XDP_PKT_CONTD (1 << 0)
#endif

#define BURST  ROCE_AFP_TX_BATCH        /* frames per send burst, as the port */
#define RING   2048u                    /* every AF_XDP ring, and RX UMEM frames */
#define CHUNK  4096u                    /* UMEM frame (larger needs HugeTLB) */
#define NATIVE_MTU 3500u                /* veth: native XDP without frags */
#define SKIP   77
#define MAC_A  "02:58:44:50:00:01"       /* the veth ends' MACs */
#define MAC_B  "02:58:44:50:00:02"

static const uint8_t mac_a[6] = { 2, 0x58, 0x44, 0x50, 0, 1 };
static const uint8_t mac_b[6] = { 2, 0x58, 0x44, 0x50, 0, 2 };

static char g_nsa[32], g_nsb[32], g_ifa[16], g_ifb[16];
static volatile sig_atomic_t g_stop;    /* SIGINT/SIGTERM: finish, clean up */
static char g_log[256];                 /* libbpf/libxdp's last warning */

static void on_signal(int sig) { (void)sig; g_stop = 1; }

static void keep_log(const char *fmt, va_list ap)
{
	size_t n;

	vsnprintf(g_log, sizeof(g_log), fmt, ap);
	n = strlen(g_log);
	while (n && (g_log[n - 1] == '\n' || g_log[n - 1] == ' '))
		g_log[--n] = 0;
}

static int bpf_log(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	if (l != LIBBPF_DEBUG)
		keep_log(fmt, ap);
	return 0;
}

static int xdp_log(enum libxdp_print_level l, const char *fmt, va_list ap)
{
	if (l != LIBXDP_DEBUG)
		keep_log(fmt, ap);
	return 0;
}

static void teardown(void)
{
	bench_veth_del(g_nsa, g_nsb);
}

static int set_mtu(unsigned mtu)
{
	return bench_sh("ip -n %s link set %s mtu %u && ip -n %s link set %s mtu %u",
		  g_nsa, g_ifa, mtu, g_nsb, g_ifb, mtu);
}

/* One AF_XDP socket with its own UMEM (area mapped once, reused). */
struct xsk {
	struct xsk_umem *umem;
	struct xsk_socket *sk;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	uint8_t *area;
	int fd;
};

/* One measurement: a side's two ends (AF_XDP sockets or ports). */
struct run {
	bool xdp;
	struct xsk *xa, *xb;
	struct roce_afpacket *pa, *pb;
	struct roce_frame f[BURST];
	uint32_t len, segs, acc;                /* segs: descriptors a frame */
	double secs;
	atomic_bool stop;
	int err;                                /* sender: errno of a failure */
	uint64_t sent, rcvd;
	double tx_secs, rx_secs;
};

/* Copy mode sends up to 32 descriptors a call (EAGAIN: more are left);
 * EBUSY/ENOBUFS: completion ring or skbs short for now. */
static void kick(struct run *r)
{
	for (unsigned i = 0; i <= BURST * r->segs / 32; i++) {
		if (sendto(r->xa->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
			return;
		if (errno == EAGAIN)
			continue;
		if (errno != EBUSY && errno != ENOBUFS)
			r->err = errno;
		return;
	}
}

/* AF_XDP sender: reap completions (what the kernel has sent, one a
 * descriptor), queue a burst of frames in the UMEM, kick. A frame longer
 * than a UMEM frame goes as segs descriptors (multi-buffer). */
static unsigned xdp_tx(struct run *r, bool more)
{
	struct xsk *x = r->xa;
	uint32_t i, idx, n = xsk_ring_cons__peek(&x->comp, RING, &idx), nd = BURST * r->segs;

	if (n)
		xsk_ring_cons__release(&x->comp, n);
	if (more && xsk_ring_prod__reserve(&x->tx, nd, &idx) == nd) {
		for (i = 0; i < nd; i++) {
			struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, idx + i);
			uint32_t seg = i % r->segs;

			d->addr = (uint64_t)i * CHUNK;
			d->len = seg + 1 < r->segs ? CHUNK : r->len - seg * CHUNK;
			d->options = seg + 1 < r->segs ? XDP_PKT_CONTD : 0;
		}
		xsk_ring_prod__submit(&x->tx, nd);
	}
	if (xsk_ring_prod__needs_wakeup(&x->tx))
		kick(r);
	return n;
}

/* AF_XDP receiver: count our frames, give their UMEM frames back. */
static unsigned xdp_rx(struct run *r)
{
	struct xsk *x = r->xb;
	uint32_t i, idx, fidx, k = 0, n = xsk_ring_cons__peek(&x->rx, BURST, &idx);

	if (!n) {
		if (xsk_ring_prod__needs_wakeup(&x->fill))
			recvfrom(x->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		return 0;
	}
	while (xsk_ring_prod__reserve(&x->fill, n, &fidx) != n)
		;                               /* we hold them: room is there */
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&x->rx, idx + i);

		r->acc += d->len;
		if (!(d->options & XDP_PKT_CONTD)) {
			k += r->acc == r->len;
			r->acc = 0;
		}
		*xsk_ring_prod__fill_addr(&x->fill, fidx + i) = d->addr & ~(uint64_t)(CHUNK - 1);
	}
	xsk_ring_prod__submit(&x->fill, n);
	xsk_ring_cons__release(&x->rx, n);
	return k;
}

static unsigned afp_rx(struct run *r)
{
	struct roce_port *p = roce_afpacket_port(r->pb);
	struct roce_frame f[ROCE_RX_BURST];
	unsigned k = 0, n = roce_port_rx(p, f, ROCE_RX_BURST);

	for (unsigned i = 0; i < n; i++)
		k += f[i].len == r->len;
	if (n)
		roce_port_rx_release(p, n);
	return k;
}

static void *sender(void *arg)
{
	struct run *r = arg;
	double t0, end;

	bench_pin(0);
	t0 = bench_now();
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed) && !r->err)
		r->sent += r->xdp ? xdp_tx(r, true)
				  : roce_port_tx(roce_afpacket_port(r->pa), r->f, BURST);
	r->tx_secs = bench_now() - t0;
	for (end = bench_now() + 0.01; r->xdp && bench_now() < end && !r->err;)
		r->sent += xdp_tx(r, false);    /* completions still in flight */
	r->sent /= r->segs;
	return NULL;
}

static void *receiver(void *arg)
{
	struct run *r = arg;
	double t0 = 0, end;

	bench_pin(1);
	for (end = bench_now() + r->secs + 1.0; bench_now() < end && !g_stop;) {
		unsigned n = r->xdp ? xdp_rx(r) : afp_rx(r);

		if (!n)
			continue;
		if (!t0)
			t0 = bench_now();     /* from the first frame on */
		r->rcvd += n;
		if (bench_now() - t0 >= r->secs)
			break;
	}
	r->rx_secs = t0 ? bench_now() - t0 : 0;
	atomic_store(&r->stop, true);
	return NULL;
}

static void xsk_close(struct xsk *x, const char *ns)
{
	if (bench_enter_ns(ns) == 0 && x->sk)         /* libxdp detaches in this netns */
		xsk_socket__delete(x->sk);
	if (x->umem && xsk_umem__delete(x->umem))
		close(xsk_umem__fd(x->umem));   /* still counted in use: let go */
	x->sk = NULL;
	x->umem = NULL;
}

/* The socket on ifname in ns: the receiver (rx, with libxdp's program
 * attached in xdp_flags' mode) or the sender (tx, no program). */
static int xsk_open(struct xsk *x, const char *ns, const char *ifname, bool rx,
		    uint32_t xdp_flags, int *code, char *why, size_t n)
{
	struct xsk_umem_config uc = { RING, RING, CHUNK, 0, 0 };
	struct xsk_socket_config sc = { .rx_size = RING, .tx_size = RING,
					.xdp_flags = xdp_flags,
					.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP |
						      XDP_USE_SG };
	uint32_t idx = 0;
	int rc;

	sc.libxdp_flags = rx ? 0 : XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
	*x = (struct xsk){ .area = x->area };   /* libxdp expects zeroed rings */
	g_log[0] = 0;
	if (bench_enter_ns(ns)) {
		snprintf(why, n, "cannot enter network namespace %s", ns);
		return -1;
	}
	rc = xsk_umem__create(&x->umem, x->area, (uint64_t)RING * CHUNK, &x->fill,
			      &x->comp, &uc);
	/* the queue is busy until the kernel's work queue has released the
	 * last socket's buffer pool: try again for up to 1 s */
	for (int i = 0; rc == 0 && i < 100; i++) {
		rc = xsk_socket__create(&x->sk, ifname, 0, x->umem, rx ? &x->rx : NULL,
					rx ? NULL : &x->tx, &sc);
		if (rc != -EBUSY)
			break;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	if (rc) {
		*code = -rc;
		snprintf(why, n, "%s %s: %s%s%s", rx ? "receiver" : "sender", ifname,
			 strerror(-rc), g_log[0] ? "; " : "", g_log);
		xsk_close(x, ns);
		return -1;
	}
	x->fd = xsk_socket__fd(x->sk);
	if (rx) {       /* every UMEM frame to the kernel */
		xsk_ring_prod__reserve(&x->fill, RING, &idx);
		for (uint32_t i = 0; i < RING; i++)
			*xsk_ring_prod__fill_addr(&x->fill, idx + i) = (uint64_t)i * CHUNK;
		xsk_ring_prod__submit(&x->fill, RING);
	}
	return 0;
}

/* Whether the kernel takes an XDP program on ifname in ns in mode flags
 * (a failed xsk_socket__create would leave its socket bound): attach
 * "return XDP_PASS" and detach it. */
static int probe_xdp(const char *ns, const char *ifname, uint32_t flags, int *code,
		     char *why, size_t n)
{
	const struct bpf_insn pass[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd, rc = -ENODEV, ifindex;

	g_log[0] = 0;
	ifindex = bench_enter_ns(ns) ? 0 : (int)if_nametoindex(ifname);
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "probe", "GPL", pass, 2, NULL);
	if (fd < 0)
		rc = fd;
	else if (ifindex > 0 && (rc = bpf_xdp_attach(ifindex, fd, flags, NULL)) == 0)
		bpf_xdp_detach(ifindex, flags, NULL);
	if (fd >= 0)
		close(fd);
	if (rc) {
		*code = -rc;
		snprintf(why, n, "%s %s: %s%s%s", fd < 0 ? "loading an XDP program" :
			 "attaching XDP to", ifname, strerror(-rc), g_log[0] ? "; " : "",
			 g_log);
	}
	return rc;
}

static void measure(struct run *r)
{
	pthread_t ts, tr;

	pthread_create(&tr, NULL, receiver, r);
	pthread_create(&ts, NULL, sender, r);
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
}

struct fig { double sent_ps, rcvd_ps, gbps, share; uint64_t sent, rcvd; };

static struct fig figures(const struct run *r)
{
	struct fig f = { 0 };

	f.sent = r->sent;
	f.rcvd = r->rcvd;
	f.sent_ps = r->tx_secs > 0 ? (double)r->sent / r->tx_secs : 0;
	f.rcvd_ps = r->rx_secs > 0 ? (double)r->rcvd / r->rx_secs : 0;
	f.gbps = f.rcvd_ps * r->len * 8e-9;
	f.share = r->sent ? (double)r->rcvd / (double)r->sent : 0;
	return f;
}

static uint8_t g_frames[BURST][ROCE_MAX_FRAME];

/* The frame of one row, A to B, built as the engine builds it: a 62-byte
 * ACK, a 138-byte 64 B WRITE ONLY, else a WRITE MIDDLE of that size. */
static uint32_t build(uint8_t *buf, const uint8_t *src, const uint8_t *dst, uint32_t size)
{
	if (size == 62)
		return bench_roce_frame(buf, src, dst, ROCE_OP_RC_ACK, 0);
	if (size == 138)
		return bench_roce_frame(buf, src, dst, ROCE_OP_RC_WRITE_ONLY, 64);
	return bench_roce_frame(buf, src, dst, ROCE_OP_RC_WRITE_MIDDLE, size - 58);
}

/* One row: AF_XDP in mode xdp_flags, then the PACKET_MMAP port, size B
 * frames. Returns 0, SKIP when the kernel refuses the mode (why says so,
 * *code is the errno), or -1 when something broke. */
static int row(const char *mode, uint32_t xdp_flags, unsigned mtu, uint32_t size,
	       double secs, struct xsk *xa, struct xsk *xb, bool csv, int *code,
	       char *why, size_t n)
{
	struct roce_afpacket_config c = { .mode = ROCE_AFP_RING };
	struct run x = { .xdp = true, .xa = xa, .xb = xb, .len = size,
			 .segs = (size + CHUNK - 1) / CHUNK, .secs = secs };
	struct run p = { .len = size, .segs = 1, .secs = secs };
	struct fig fx, fp;
	char err[256];

	if (probe_xdp(g_nsb, g_ifb, xdp_flags, code, why, n) ||
	    xsk_open(xb, g_nsb, g_ifb, true, xdp_flags, code, why, n))
		return SKIP;
	if (xsk_open(xa, g_nsa, g_ifa, false, 0, code, why, n)) {
		xsk_close(xb, g_nsb);
		return SKIP;
	}
	for (unsigned i = 0; i < BURST; i++)
		build(xa->area + (size_t)i * x.segs * CHUNK, mac_a, mac_b, size);
	measure(&x);
	xsk_close(xa, g_nsa);
	xsk_close(xb, g_nsb);
	if (x.err) {
		snprintf(why, n, "AF_XDP send: %s", strerror(x.err));
		return -1;
	}
	c.ifname = g_ifa;
	if (bench_enter_ns(g_nsa) || roce_afpacket_open(&c, &p.pa, err, sizeof(err)) != ROCE_OK ||
	    (c.ifname = g_ifb, bench_enter_ns(g_nsb)) ||
	    roce_afpacket_open(&c, &p.pb, err, sizeof(err)) != ROCE_OK) {
		snprintf(why, n, "PACKET_MMAP port: %s", err);
		roce_afpacket_close(p.pa);
		return -1;
	}
	for (unsigned i = 0; i < BURST; i++)
		p.f[i] = (struct roce_frame){ g_frames[i],
			build(g_frames[i], roce_afpacket_port(p.pa)->mac,
			      roce_afpacket_port(p.pb)->mac, size) };
	measure(&p);
	roce_afpacket_close(p.pa);
	roce_afpacket_close(p.pb);
	if (g_stop) {
		snprintf(why, n, "interrupted");
		return -1;
	}
	fx = figures(&x);
	fp = figures(&p);
	if (csv)
		printf("%s,%u,%u,%.0f,%.0f,%.3f,%.4f,%.0f,%.0f,%.3f,%.4f,%.3f,%llu,%llu,%llu,%llu\n",
		       mode, mtu, size, fx.sent_ps, fx.rcvd_ps, fx.gbps, fx.share, fp.sent_ps,
		       fp.rcvd_ps, fp.gbps, fp.share, fp.rcvd_ps > 0 ? fx.rcvd_ps / fp.rcvd_ps : 0,
		       (unsigned long long)fx.sent, (unsigned long long)fx.rcvd,
		       (unsigned long long)fp.sent, (unsigned long long)fp.rcvd);
	else
		printf("%-7s MTU %4u %4u B  AF_XDP sent %8.0f/s rcvd %8.0f/s %6.3f Gbit/s "
		       "%5.1f%% | PACKET_MMAP sent %8.0f/s rcvd %8.0f/s %6.3f Gbit/s %5.1f%% "
		       "| x%.2f\n", mode, mtu, size, fx.sent_ps, fx.rcvd_ps, fx.gbps, 100 * fx.share,
		       fp.sent_ps, fp.rcvd_ps, fp.gbps, 100 * fp.share,
		       fp.rcvd_ps > 0 ? fx.rcvd_ps / fp.rcvd_ps : 0);
	fflush(stdout);
	return 0;
}

/* ---- the engines over the ports ------------------------------------------- */

#define ENG_MTU  1500u                  /* interface MTU: path MTU 1024 */

struct eng_fig { double gbps, rate; };

/* WRITE 64 KB goodput and WRITE 64 B message rate between two engines on
 * ports pa and pb (one thread drives both). */
static void eng_measure(struct roce_port *pa, struct roce_port *pb, double secs,
			uint64_t seed, struct eng_fig *f)
{
	struct pair p;
	struct traffic_result r;

	pair_open_ports(&p, pa, pb, ROCE_MTU_1024, 1);
	traffic_bw(&p, ROCE_WR_RDMA_WRITE, 65536, secs, seed, &r);
	f->gbps = r.gbps;
	traffic_bw(&p, ROCE_WR_RDMA_WRITE, 64, secs, seed + 1, &r);
	f->rate = r.msgs_per_s;
	pair_teardown(&p);
}

static int eng_xdp(double secs, struct eng_fig *f, const char **mode, char *why,
		   size_t n)
{
	struct roce_afxdp_config c = { .mode = ROCE_AFX_AUTO };
	struct roce_afxdp *a = NULL, *b = NULL;
	char err[256];

	c.ifname = g_ifa;
	if (bench_enter_ns(g_nsa) || roce_afxdp_open(&c, &a, err, sizeof(err)) != ROCE_OK ||
	    (c.ifname = g_ifb, bench_enter_ns(g_nsb)) ||
	    roce_afxdp_open(&c, &b, err, sizeof(err)) != ROCE_OK) {
		snprintf(why, n, "AF_XDP port: %s", err);
		roce_afxdp_close(a);
		return -1;
	}
	*mode = roce_afxdp_mode_name(roce_afxdp_mode(b));
	eng_measure(roce_afxdp_port(a), roce_afxdp_port(b), secs, 1, f);
	roce_afxdp_close(a);    /* each in its own namespace */
	roce_afxdp_close(b);
	return 0;
}

static int eng_afp(double secs, struct eng_fig *f, char *why, size_t n)
{
	struct roce_afpacket_config c = { .mode = ROCE_AFP_RING };
	struct roce_afpacket *a = NULL, *b = NULL;
	char err[256];

	c.ifname = g_ifa;
	if (bench_enter_ns(g_nsa) || roce_afpacket_open(&c, &a, err, sizeof(err)) != ROCE_OK ||
	    (c.ifname = g_ifb, bench_enter_ns(g_nsb)) ||
	    roce_afpacket_open(&c, &b, err, sizeof(err)) != ROCE_OK) {
		snprintf(why, n, "PACKET_MMAP port: %s", err);
		roce_afpacket_close(a);
		return -1;
	}
	eng_measure(roce_afpacket_port(a), roce_afpacket_port(b), secs, 3, f);
	roce_afpacket_close(a);
	roce_afpacket_close(b);
	return 0;
}

/* Engines over AF_XDP ports, then over AF_PACKET ports, on the veth pair
 * at MTU 1500: two rows with the ratio. */
static int engines(double secs, bool csv, char *why, size_t n)
{
	struct eng_fig fx, fp;
	const char *mode = "?";

	if (set_mtu(ENG_MTU)) {
		snprintf(why, n, "cannot set the veth MTU to %u", ENG_MTU);
		return -1;
	}
	if (eng_xdp(secs, &fx, &mode, why, n) || eng_afp(secs, &fp, why, n))
		return -1;
	if (csv) {
		printf("\nsection,xdp_mode,mtu,path_mtu,op,msg_bytes,unit,afxdp,afpacket,ratio\n");
		printf("engines,%s,%u,1024,WRITE,65536,gbit_per_s,%.3f,%.3f,%.3f\n", mode,
		       ENG_MTU, fx.gbps, fp.gbps, fp.gbps > 0 ? fx.gbps / fp.gbps : 0);
		printf("engines,%s,%u,1024,WRITE,64,msgs_per_s,%.0f,%.0f,%.3f\n", mode,
		       ENG_MTU, fx.rate, fp.rate, fp.rate > 0 ? fx.rate / fp.rate : 0);
	} else {
		printf("engines MTU %u (path 1024), AF_XDP %s XDP vs AF_PACKET ring:\n",
		       ENG_MTU, mode);
		printf("  WRITE 64 KB  AF_XDP %8.3f Gbit/s | AF_PACKET %8.3f Gbit/s | x%.2f\n",
		       fx.gbps, fp.gbps, fp.gbps > 0 ? fx.gbps / fp.gbps : 0);
		printf("  WRITE 64 B   AF_XDP %8.0f msg/s  | AF_PACKET %8.0f msg/s  | x%.2f\n",
		       fx.rate, fp.rate, fp.rate > 0 ? fx.rate / fp.rate : 0);
	}
	fflush(stdout);
	return 0;
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: bench_afxdp [--seconds S] [--csv]\n"
		"AF_XDP (libxdp, copy mode; native and generic XDP) against PACKET_MMAP\n"
		"frame rates between two network namespaces over veth, side by side;\n"
		"then two engines over AF_XDP ports and over AF_PACKET ports (MTU 1500).\n"
		"  --seconds S  seconds per measurement, 0 < S <= 60 (default 2)\n"
		"  --csv        CSV on stdout\n"
		"Needs root; exits 77 (skipped) when AF_XDP cannot be set up.\n");
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "csv", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static const struct { const char *name; uint32_t flags; } modes[] = {
		{ "generic", XDP_FLAGS_SKB_MODE }, { "native", XDP_FLAGS_DRV_MODE },
	};
	static const uint32_t sizes[] = { 62, 138, 4154 };
	struct xsk xa = { 0 }, xb = { 0 };
	double secs = 2.0;
	unsigned rows = 0;
	bool csv = false;
	char why[512], *end;
	int c, pid = (int)getpid(), fd;

	while ((c = getopt_long(argc, argv, "s:ch", lopts, NULL)) != -1) {
		switch (c) {
		case 's':
			secs = strtod(optarg, &end);
			if (end == optarg || *end || !(secs > 0 && secs <= 60)) {
				fprintf(stderr, "bench_afxdp: --seconds '%s': want 0 < S <= 60\n",
					optarg);
				return 2;
			}
			break;
		case 'c':
			csv = true;
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bench_afxdp: unexpected argument '%s' (try --help)\n", argv[optind]);
		return 2;
	}
	if (geteuid() != 0) {
		printf("bench_afxdp: skipped: needs root (namespaces, XDP, AF_XDP)\n");
		return SKIP;
	}
	fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		printf("bench_afxdp: skipped: no AF_XDP sockets: %s\n", strerror(errno));
		return SKIP;
	}
	close(fd);
	libbpf_set_print(bpf_log);
	libxdp_set_print(xdp_log);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	snprintf(g_nsa, sizeof(g_nsa), "bxda%d", pid);
	snprintf(g_nsb, sizeof(g_nsb), "bxdb%d", pid);
	snprintf(g_ifa, sizeof(g_ifa), "bxda%d", pid);
	snprintf(g_ifb, sizeof(g_ifb), "bxdb%d", pid);
	atexit(teardown);
	if (bench_veth_add(g_nsa, g_ifa, MAC_A, g_nsb, g_ifb, MAC_B)) {
		printf("bench_afxdp: skipped: cannot create namespaces and veth (iproute2?)\n");
		return SKIP;
	}
	xa.area = mmap(NULL, (size_t)RING * CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	xb.area = mmap(NULL, (size_t)RING * CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (xa.area == MAP_FAILED || xb.area == MAP_FAILED) {
		fprintf(stderr, "bench_afxdp: cannot map the UMEM: %s\n", strerror(errno));
		return 1;
	}
	if (csv)
		printf("mode,mtu,frame_bytes,xdp_sent_per_s,xdp_rcvd_per_s,xdp_gbit_per_s,"
		       "xdp_delivered,mmap_sent_per_s,mmap_rcvd_per_s,mmap_gbit_per_s,"
		       "mmap_delivered,ratio,xdp_sent,xdp_received,mmap_sent,mmap_received\n");
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]) && !g_stop; m++) {
		unsigned mtu = 9000;

		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && !g_stop; s++) {
			int code = 0, rc;

			if (sizes[s] > mtu + 14) {
				fprintf(stderr, "bench_afxdp: %s %u B: skipped: longer than MTU "
					"%u + 14\n", modes[m].name, sizes[s], mtu);
				continue;
			}
			rc = row(modes[m].name, modes[m].flags, mtu, sizes[s], secs, &xa, &xb,
				 csv, &code, why, sizeof(why));
			if (rc < 0) {
				fprintf(stderr, "bench_afxdp: %s %u B: %s\n", modes[m].name,
					sizes[s], why);
				return 1;       /* atexit removes the namespaces */
			}
			if (rc == 0) {
				rows++;
				continue;
			}
			fprintf(stderr, "bench_afxdp: %s XDP at MTU %u refused: %s\n",
				modes[m].name, mtu, why);
			/* veth takes a program without frags support only
			 * when a frame fits a page: measure what fits */
			if (code != ERANGE || mtu == NATIVE_MTU || set_mtu(NATIVE_MTU))
				break;
			mtu = NATIVE_MTU;
			s--;
		}
		if (mtu != 9000 && set_mtu(9000)) {
			fprintf(stderr, "bench_afxdp: cannot set the veth MTU back to 9000\n");
			return 1;
		}
	}
	if (g_stop) {
		fprintf(stderr, "bench_afxdp: interrupted\n");
		return 1;
	}
	if (!rows) {
		printf("bench_afxdp: skipped: AF_XDP could not be set up in any mode\n");
		return SKIP;
	}
	if (engines(secs, csv, why, sizeof(why))) {
		fprintf(stderr, "bench_afxdp: engines: %s\n", why);
		return 1;
	}
	return 0;
}
