/* SPDX-License-Identifier: MIT */
/*
 * A libibverbs program of our own, built against rdma-core's header and
 * run under roce-run by tests/scripts/verbs_process.sh, two of it on a
 * veth pair: what the drop-in does for a process (docs/verbs.md, "Who runs
 * the engine").
 *   server  opens the device twice: one engine (one QPN space: the two
 *           contexts' QPs differ), and closing one leaves the other
 *           working; then answers the client's SENDs.
 *   client  forks after its QP is connected: the child's copy of the
 *           context refuses to run the parent's engine (EIO) and the
 *           child exits; the parent then pings; at the end a thread
 *           spins on the CQ (running the engine's turns) while the main
 *           thread exits the program.
 * Usage: verbs_process server PORT ITERS | client SERVER_IPV4 PORT ITERS.
 * Prints "verbs_process: ok" and exits 0 when every check held.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "oob.h"
#include "qp_rts.h"

static int failed;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "verbs_process:%d: %s\n", __LINE__, #c); \
			       failed = 1; } } while (0)
#define MSG 4096

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;
	union ibv_gid gid;
};

static int open_side(struct side *s, struct ibv_context *ctx)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	s->ctx = ctx;
	s->pd = ibv_alloc_pd(ctx);
	s->cq = s->pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	s->buf = calloc(1, 2 * MSG);
	s->mr = s->cq && s->buf ? ibv_reg_mr(s->pd, s->buf, 2 * MSG, IBV_ACCESS_LOCAL_WRITE) : NULL;
	ia.send_cq = ia.recv_cq = s->cq;
	s->qp = s->mr ? ibv_create_qp(s->pd, &ia) : NULL;
	return s->qp && !ibv_query_gid(ctx, 1, 1, &s->gid) ? 0 : -1;
}

static void close_side(struct side *s)
{
	CHECK(ibv_destroy_qp(s->qp) == 0);
	CHECK(ibv_dereg_mr(s->mr) == 0);
	CHECK(ibv_destroy_cq(s->cq) == 0);
	CHECK(ibv_dealloc_pd(s->pd) == 0);
	free(s->buf);
}


/* Each side's QPN and GID over the TCP socket */
static int exchange(int fd, struct side *s, uint32_t *qpn, union ibv_gid *gid)
{
	unsigned char out[20], in[20];
	uint32_t n = htonl(s->qp->qp_num);

	memcpy(out, &n, 4);
	memcpy(out + 4, s->gid.raw, 16);
	if (oob_swap(fd, out, in, sizeof(in)))
		return -1;
	memcpy(&n, in, 4);
	*qpn = ntohl(n);
	memcpy(gid->raw, in + 4, 16);
	return 0;
}

static int post(struct side *s, bool send, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + (send ? MSG : 0), MSG, s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rwr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *rbad;

	return send ? ibv_post_send(s->qp, &wr, &bad) : ibv_post_recv(s->qp, &rwr, &rbad);
}

/* Spin on the CQ (as ibv_rc_pingpong does) for n successful completions;
   10 s at most */
static int wait_wc(struct side *s, int n)
{
	time_t end = time(NULL) + 10;
	struct ibv_wc wc;

	while (n > 0 && time(NULL) < end) {
		int k = ibv_poll_cq(s->cq, 1, &wc);

		if (k < 0 || (k == 1 && wc.status != IBV_WC_SUCCESS))
			return -1;
		n -= k;
	}
	return n ? -1 : 0;
}

static struct ibv_context *open_dev(void)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	struct ibv_context *c = l && n == 1 ? ibv_open_device(l[0]) : NULL;

	ibv_free_device_list(l);
	return c;
}

static int server(int port, int iters)
{
	struct side s, other;
	struct ibv_context *c2;
	union ibv_gid gid = { .raw = { 0 } };
	uint32_t qpn = 0;
	int ls, fd;

	CHECK(open_side(&s, open_dev()) == 0);
	/* a second open: the same engine (one QPN space), closed first */
	c2 = open_dev();
	CHECK(c2 && open_side(&other, c2) == 0);
	CHECK(other.qp->qp_num != s.qp->qp_num);
	close_side(&other);
	CHECK(ibv_close_device(c2) == 0);
	if (failed)
		return 1;
	fd = oob_accept(port, &ls);
	CHECK(fd >= 0 && exchange(fd, &s, &qpn, &gid) == 0);
	CHECK(qp_to_rts(s.qp, qpn, &gid, 0) == 0);
	for (int i = 0; i < iters && !failed; i++) {
		CHECK(post(&s, false, 1) == 0);
		if (i == 0)
			CHECK(write(fd, "go", 2) == 2);   /* the first receive is up */
		CHECK(wait_wc(&s, 1) == 0);
		CHECK(post(&s, true, 2) == 0 && wait_wc(&s, 1) == 0);
	}
	close(fd);
	close(ls);
	close_side(&s);
	CHECK(ibv_close_device(s.ctx) == 0);
	return failed;
}

static void *spinner(void *arg)
{
	struct side *s = arg;
	struct ibv_wc wc;

	for (;;)
		if (ibv_poll_cq(s->cq, 1, &wc) < 0)
			return NULL;
}

static int client(const char *ip, int port, int iters)
{
	struct ibv_send_wr wr = { 0 }, *bad = NULL;
	struct ibv_wc wc;
	struct side s;
	union ibv_gid gid = { .raw = { 0 } };
	uint32_t qpn = 0;
	pthread_t th;
	char go[2];
	pid_t pid;
	int fd, st = 0;

	CHECK(open_side(&s, open_dev()) == 0);
	fd = oob_connect(ip, port);
	CHECK(exchange(fd, &s, &qpn, &gid) == 0);
	CHECK(qp_to_rts(s.qp, qpn, &gid, 0) == 0);
	CHECK(read(fd, go, 2) == 2);
	if (failed)
		return 1;
	/* the child's copy of the context is the parent's engine: refused */
	pid = fork();
	if (pid == 0) {
		errno = 0;
		CHECK(ibv_poll_cq(s.cq, 1, &wc) == -1 && errno == EIO);
		CHECK(ibv_post_send(s.qp, &wr, &bad) == EIO && bad == &wr);
		_exit(failed);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* the parent's engine goes on */
	for (int i = 0; i < iters && !failed; i++) {
		CHECK(post(&s, false, 1) == 0);
		CHECK(post(&s, true, 2) == 0);
		CHECK(wait_wc(&s, 2) == 0);
	}
	/* exit while another thread runs the engine's turns */
	CHECK(pthread_create(&th, NULL, spinner, &s) == 0);
	usleep(50000);
	if (!failed)
		printf("verbs_process: ok\n");
	fflush(stdout);
	exit(failed);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		return server(atoi(argv[2]), atoi(argv[3])) ? 1 :
		       (printf("verbs_process: ok\n"), 0);
	if (argc == 5 && !strcmp(argv[1], "client"))
		return client(argv[2], atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: verbs_process server PORT ITERS | client SERVER_IPV4 PORT ITERS\n");
	return 2;
}
