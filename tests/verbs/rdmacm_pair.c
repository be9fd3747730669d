/* SPDX-License-Identifier: MIT */
/*
 * A librdmacm program of our own, built against rdma-core's headers and
 * run as two processes under roce-run by tests/scripts/rdmacm_pair.sh,
 * one a side of a veth pair: what the drop-in librdmacm.so.1 gives a
 * program, field by field. The server listens on three ports; the client
 * goes through them in order:
 *
 *   1. a port nobody listens on: REJECTED, status 8 (no such service);
 *   2. PORT: the server rejects with private data (REJECTED, status 28,
 *      the data), then accepts the next request with private data that
 *      carries its buffer's address and rkey; the client WRITEs into it
 *      and SENDs; the server finds both, the client disconnects;
 *   3. PORT+1, RDMA_PS_UDP: SIDR (ESTABLISHED with the server's QPN and
 *      RDMA_UDP_QKEY), one datagram;
 *   4. PORT+2: synchronous endpoints (rdma_getaddrinfo, rdma_create_ep,
 *      rdma_get_request) and the inline helpers of rdma_verbs.h;
 *
 * and then resolves an address nobody has (ADDR_ERROR). Each side also
 * checks id->verbs is the context its own ibv_open_device gets (one per
 * process), the events' order and fields, and the refusals (errno, and
 * the line on stderr the script checks). Prints "rdmacm_pair: ok".
 *
 * Usage: rdmacm_pair server ADDR PORT | client ADDR PORT NOBODY_ADDR
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rdma/rsocket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failed;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "rdmacm_pair:%d: %s\n", __LINE__, #c); \
			       failed = 1; } } while (0)
#define REQUIRE(c) do { CHECK(c); if (failed) return; } while (0)

#define BUF 4096
static const char written[] = "written by the client's RDMA WRITE";

/* what the server's accept says: where the client may WRITE */
struct accept_data {
	char word[8];
	uint64_t addr;
	uint32_t rkey;
} __attribute__((packed));

static struct ibv_context *our_context;  /* ibv_open_device's, for id->verbs */
static struct rdma_event_channel *ch;

static void addr_of(const char *ip, int port, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *res;
	char p[16];

	memset(ss, 0, sizeof(*ss));
	snprintf(p, sizeof(p), "%d", port);
	if (getaddrinfo(ip, p, &hints, &res) == 0) {
		memcpy(ss, res->ai_addr, res->ai_addrlen);
		freeaddrinfo(res);
	}
}

/* the next event on the channel, which must be of type t */
static struct rdma_cm_event *expect(enum rdma_cm_event_type t)
{
	struct rdma_cm_event *e = NULL;

	if (rdma_get_cm_event(ch, &e) != 0) {
		CHECK(!"rdma_get_cm_event");
		return NULL;
	}
	if (e->event != t)
		fprintf(stderr, "rdmacm_pair: %s (status %d), expected %s\n",
			rdma_event_str(e->event), e->status, rdma_event_str(t));
	CHECK(e->event == t);
	return e;
}

/* one completion within 10 s (a busy poll: it runs the engine's turns) */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 10);
	return 0;
}

static void refusals(struct rdma_cm_id *id)
{
	struct sockaddr_in mc = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0xe0000101) };
	struct rdma_cm_id *bad;
	uint8_t tos = 32;
	int on = 1;

	errno = 0;
	CHECK(rdma_join_multicast(id, (struct sockaddr *)&mc, NULL) == -1 && errno == EOPNOTSUPP);
	errno = 0;
	CHECK(rsocket(AF_INET, SOCK_DGRAM, 0) == -1 && errno == ENOTSUP);
	{
		/* a stream rsocket never connected: ENOTCONN, no crash */
		int rs = rsocket(AF_INET, SOCK_STREAM, 0);
		char b[8];

		CHECK(rs >= 0);
		errno = 0;
		CHECK(rrecv(rs, b, sizeof(b), 0) == -1 && errno == ENOTCONN);
		errno = 0;
		CHECK(rsend(rs, b, sizeof(b), 0) == -1 && errno == ENOTCONN);
		CHECK(rclose(rs) == 0);
		errno = 0;
		CHECK(rclose(rs) == -1 && errno == EBADF);
	}
	errno = 0;
	CHECK(rdma_create_id(ch, &bad, NULL, RDMA_PS_IB) == -1 && errno == EOPNOTSUPP);
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 1) == 0);
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &on, sizeof(on)) == 0);
	errno = 0;
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &on, sizeof(on)) == -1 &&
	      errno == EINVAL);
	errno = 0;
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, 99, &on, sizeof(on)) == -1 && errno == ENOSYS);
	CHECK(!strcmp(rdma_event_str(RDMA_CM_EVENT_ESTABLISHED), "RDMA_CM_EVENT_ESTABLISHED"));
	CHECK(!strcmp(rdma_event_str((enum rdma_cm_event_type)99), "UNKNOWN EVENT"));
}

static void devices(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context **ctxs;
	int n = 0;

	CHECK(list && list[0]);
	if (!list || !list[0])
		return;
	our_context = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	ctxs = rdma_get_devices(&n);
	/* one engine per process: librdmacm's context is the program's */
	CHECK(ctxs && n == 1 && ctxs[0] == our_context && !ctxs[1]);
	rdma_free_devices(ctxs);
}

/* ---- the server ----------------------------------------------------------- */

static struct rdma_cm_id *listen_on(const char *ip, int port, enum rdma_port_space ps)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *id = NULL;

	addr_of(ip, port, &ss);
	CHECK(rdma_create_id(ch, &id, (void *)(uintptr_t)port, ps) == 0);
	if (!id)
		return NULL;
	CHECK(!id->verbs);                      /* no device before it is bound */
	CHECK(rdma_bind_addr(id, (struct sockaddr *)&ss) == 0);
	CHECK(id->verbs == our_context && id->port_num == 1);
	CHECK(rdma_listen(id, 4) == 0);
	CHECK(ntohs(rdma_get_src_port(id)) == port);
	return id;
}

static struct rdma_cm_event *request(struct rdma_cm_id *lid, const char *priv)
{
	struct rdma_cm_event *e = expect(RDMA_CM_EVENT_CONNECT_REQUEST);

	if (!e)
		return NULL;
	CHECK(e->listen_id == lid && e->id != lid);
	CHECK(e->id->context == lid->context && e->id->ps == lid->ps);
	CHECK(e->id->verbs == our_context && e->id->pd);
	CHECK(e->id->channel == ch);
	CHECK(rdma_get_peer_addr(e->id)->sa_family == rdma_get_local_addr(lid)->sa_family);
	CHECK(rdma_get_dst_port(e->id) != 0 && rdma_get_src_port(e->id) == rdma_get_src_port(lid));
	if (lid->ps == RDMA_PS_UDP)
		CHECK(e->param.ud.private_data_len >= strlen(priv) &&
		      !memcmp(e->param.ud.private_data, priv, strlen(priv)));
	else
		CHECK(e->param.conn.private_data_len >= strlen(priv) &&
		      !memcmp(e->param.conn.private_data, priv, strlen(priv)) &&
		      e->param.conn.initiator_depth == 1 && e->param.conn.responder_resources == 1);
	return e;
}

static void serve_rc(struct rdma_cm_id *lid)
{
	struct ibv_qp_init_attr qa = { .cap = { 8, 8, 1, 1, 0 }, .qp_type = IBV_QPT_RC };
	struct rdma_conn_param cp = { .responder_resources = 1, .initiator_depth = 1,
				      .rnr_retry_count = 7 };
	static char buf[BUF], msg[BUF];
	struct accept_data ad = { "welcome", 0, 0 };
	struct rdma_cm_event *e;
	struct rdma_cm_id *id;
	struct ibv_mr *mr, *rmr;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_recv_wr rw = { .sg_list = &sge, .num_sge = 1 }, *rbad;

	/* the first request: rejected with private data */
	REQUIRE((e = request(lid, "hello, server")) != NULL);
	id = e->id;
	CHECK(rdma_reject(id, "go away", 8) == 0);
	CHECK(rdma_ack_cm_event(e) == 0);
	CHECK(rdma_destroy_id(id) == 0);

	/* the second: accepted */
	REQUIRE((e = request(lid, "hello, server")) != NULL);
	id = e->id;
	CHECK(rdma_ack_cm_event(e) == 0);
	CHECK(rdma_create_qp(id, NULL, &qa) == 0);    /* the ID's PD, CQs made for it */
	REQUIRE(id->qp && id->send_cq && id->recv_cq && id->qp->pd == id->pd &&
		id->recv_cq_channel && id->qp->state == IBV_QPS_INIT);
	mr = ibv_reg_mr(id->pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	rmr = ibv_reg_mr(id->pd, msg, BUF, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(mr && rmr);
	sge = (struct ibv_sge){ (uintptr_t)msg, BUF, rmr->lkey };
	CHECK(ibv_post_recv(id->qp, &rw, &rbad) == 0);
	ad.addr = (uintptr_t)buf;
	ad.rkey = mr->rkey;
	cp.private_data = &ad;
	cp.private_data_len = sizeof(ad);
	CHECK(rdma_accept(id, &cp) == 0);
	CHECK(id->qp->state == IBV_QPS_RTS);
	REQUIRE((e = expect(RDMA_CM_EVENT_ESTABLISHED)) != NULL);
	CHECK(e->id == id);
	rdma_ack_cm_event(e);
	/* the client's SEND comes after its WRITE: the WRITE is in place */
	CHECK(poll_one(id->recv_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_RECV && wc.byte_len == 5 && !memcmp(msg, "done", 5));
	CHECK(!memcmp(buf, written, sizeof(written)));
	REQUIRE((e = expect(RDMA_CM_EVENT_DISCONNECTED)) != NULL);
	CHECK(e->id == id);
	rdma_ack_cm_event(e);
	rdma_destroy_qp(id);
	CHECK(!id->qp && !id->send_cq && !id->recv_cq);
	CHECK(rdma_destroy_id(id) == 0);
	ibv_dereg_mr(mr);
	ibv_dereg_mr(rmr);
}

static void serve_ud(struct rdma_cm_id *lid)
{
	struct ibv_qp_init_attr qa = { .cap = { 4, 4, 1, 1, 0 }, .qp_type = IBV_QPT_UD };
	struct rdma_conn_param cp = { .private_data = "ud welcome", .private_data_len = 11 };
	static char msg[BUF];
	struct rdma_cm_event *e;
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_recv_wr rw = { .sg_list = &sge, .num_sge = 1 }, *rbad;

	REQUIRE((e = request(lid, "hello, ud")) != NULL);
	id = e->id;
	CHECK(id->qp_type == IBV_QPT_UD);
	rdma_ack_cm_event(e);
	CHECK(rdma_create_qp(id, NULL, &qa) == 0);
	REQUIRE(id->qp && id->qp->state == IBV_QPS_RTS);  /* ready at once, as librdmacm's */
	mr = ibv_reg_mr(id->pd, msg, BUF, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(mr);
	sge = (struct ibv_sge){ (uintptr_t)msg, BUF, mr->lkey };
	CHECK(ibv_post_recv(id->qp, &rw, &rbad) == 0);
	CHECK(rdma_accept(id, &cp) == 0);
	/* the datagram after the GRH's 40 bytes */
	CHECK(poll_one(id->recv_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.byte_len == 40 + 9 && !memcmp(msg + 40, "datagram", 9));
	rdma_destroy_qp(id);
	CHECK(rdma_destroy_id(id) == 0);
	ibv_dereg_mr(mr);
}

/* rdma_server's way: a synchronous listener whose requests come with QPs */
static void serve_sync(const char *ip, int port)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE | RAI_NUMERICHOST,
				       .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr qa = { .cap = { 1, 1, 1, 1, 0 }, .sq_sig_all = 1 };
	struct rdma_cm_id *lid, *id;
	struct ibv_wc wc;
	static char msg[16];
	struct ibv_mr *mr;
	char p[16];

	snprintf(p, sizeof(p), "%d", port);
	REQUIRE(rdma_getaddrinfo(ip, p, &hints, &res) == 0);
	CHECK(res->ai_src_addr && res->ai_qp_type == IBV_QPT_RC);
	REQUIRE(rdma_create_ep(&lid, res, NULL, &qa) == 0);
	rdma_freeaddrinfo(res);
	CHECK(rdma_listen(lid, 0) == 0);
	printf("rdmacm_pair: ready\n");
	fflush(stdout);
	REQUIRE(rdma_get_request(lid, &id) == 0);
	REQUIRE(id->qp && id->event && id->event->event == RDMA_CM_EVENT_CONNECT_REQUEST);
	CHECK(id->channel != lid->channel);     /* an ID of its own channel */
	mr = rdma_reg_msgs(id, msg, sizeof(msg));
	REQUIRE(mr);
	CHECK(rdma_post_recv(id, NULL, msg, sizeof(msg), mr) == 0);
	CHECK(rdma_accept(id, NULL) == 0);     /* returns at ESTABLISHED */
	CHECK(rdma_get_recv_comp(id, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
	      !strcmp(msg, "sync ping"));
	/* both ends disconnect: whichever DREQ is first, the other's call
	   finds the connection gone (EINVAL) */
	CHECK(rdma_disconnect(id) == 0 || errno == EINVAL);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(lid);
}

static void server(const char *ip, int port)
{
	struct rdma_cm_id *rc, *ud;

	devices();
	ch = rdma_create_event_channel();
	REQUIRE(ch && ch->fd >= 0);
	rc = listen_on(ip, port, RDMA_PS_TCP);
	ud = listen_on(ip, port + 1, RDMA_PS_UDP);
	REQUIRE(rc && ud);
	refusals(rc);
	serve_sync(ip, port + 2);               /* says "ready" */
	serve_rc(rc);
	serve_ud(ud);
	CHECK(rdma_destroy_id(rc) == 0 && rdma_destroy_id(ud) == 0);
	rdma_destroy_event_channel(ch);
}

/* ---- the client ------------------------------------------------------------ */

static struct rdma_cm_id *resolved(const char *ip, int port, enum rdma_port_space ps)
{
	struct sockaddr_storage ss;
	struct rdma_cm_event *e;
	struct rdma_cm_id *id = NULL;

	addr_of(ip, port, &ss);
	CHECK(rdma_create_id(ch, &id, NULL, ps) == 0);
	if (!id)
		return NULL;
	CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss, 2000) == 0);
	if (!(e = expect(RDMA_CM_EVENT_ADDR_RESOLVED)))
		return NULL;
	CHECK(e->id == id && e->status == 0);
	rdma_ack_cm_event(e);
	CHECK(id->verbs == our_context && id->pd && id->port_num == 1);
	CHECK(rdma_get_local_addr(id)->sa_family == ss.ss_family);
	CHECK(ntohs(rdma_get_dst_port(id)) == port);
	CHECK(rdma_resolve_route(id, 2000) == 0);
	if (!(e = expect(RDMA_CM_EVENT_ROUTE_RESOLVED)))
		return NULL;
	rdma_ack_cm_event(e);
	CHECK(id->route.num_paths == 1 && id->route.path_rec &&
	      !memcmp(&id->route.path_rec->dgid, &id->route.addr.addr.ibaddr.dgid, 16));
	return id;
}

static struct rdma_cm_event *connect_to(struct rdma_cm_id *id, const char *priv,
					enum rdma_cm_event_type want)
{
	struct rdma_conn_param cp = { .private_data = priv,
				      .private_data_len = (uint8_t)(strlen(priv) + 1),
				      .responder_resources = 1, .initiator_depth = 1,
				      /* more than 7: the kernel's cma takes 7 (libfabric
					 asks 15) */
				      .retry_count = 15, .rnr_retry_count = 15 };

	CHECK(rdma_connect(id, &cp) == 0);
	return expect(want);
}

/* rdma_create_qp with fresh attributes: it writes back the CQs it made
   (as librdmacm's), which go with the QP */
static int create_rc_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = { .cap = { 8, 8, 1, 1, 0 }, .qp_type = IBV_QPT_RC,
				       .sq_sig_all = 1 };
	int ret = rdma_create_qp(id, NULL, &qa);

	CHECK(ret != 0 || (qa.send_cq == id->send_cq && qa.recv_cq == id->recv_cq));
	return ret;
}

/* A connection to ip:port REJECTED with status (and private data priv):
   the QP in ERR */
static void rejected(const char *ip, int port, int status, const char *priv)
{
	struct rdma_cm_event *e;
	struct rdma_cm_id *id;

	REQUIRE((id = resolved(ip, port, RDMA_PS_TCP)) != NULL);
	REQUIRE(create_rc_qp(id) == 0);
	REQUIRE((e = connect_to(id, "hello, server", RDMA_CM_EVENT_REJECTED)) != NULL);
	CHECK(e->status == status);
	if (priv)
		CHECK(e->param.conn.private_data_len >= strlen(priv) + 1 &&
		      !memcmp(e->param.conn.private_data, priv, strlen(priv) + 1));
	CHECK(id->qp->state == IBV_QPS_ERR);
	rdma_ack_cm_event(e);
	rdma_destroy_qp(id);
	CHECK(rdma_destroy_id(id) == 0);
}

static void client_rc(const char *ip, int port)
{
	static char buf[BUF];
	struct accept_data ad;
	struct rdma_cm_event *e;
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1 }, *bad;

	rejected(ip, port - 1, 8, NULL);        /* nobody listens: no such service */
	rejected(ip, port, 28, "go away");      /* the server's consumer says no */

	/* accepted: ESTABLISHED with the server's private data */
	REQUIRE((id = resolved(ip, port, RDMA_PS_TCP)) != NULL);
	REQUIRE(create_rc_qp(id) == 0);
	REQUIRE((e = connect_to(id, "hello, server", RDMA_CM_EVENT_ESTABLISHED)) != NULL);
	CHECK(e->id == id && e->param.conn.private_data_len >= sizeof(ad));
	memcpy(&ad, e->param.conn.private_data, sizeof(ad));
	CHECK(!strcmp(ad.word, "welcome"));
	rdma_ack_cm_event(e);
	CHECK(id->qp->state == IBV_QPS_RTS);
	mr = ibv_reg_mr(id->pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(mr);
	memcpy(buf, written, sizeof(written));
	memcpy(buf + 1024, "done", 5);
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(written), mr->lkey };
	w.opcode = IBV_WR_RDMA_WRITE;
	w.wr.rdma.remote_addr = ad.addr;
	w.wr.rdma.rkey = ad.rkey;
	CHECK(ibv_post_send(id->qp, &w, &bad) == 0);
	CHECK(poll_one(id->send_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_RDMA_WRITE);
	sge = (struct ibv_sge){ (uintptr_t)buf + 1024, 5, mr->lkey };
	w.opcode = IBV_WR_SEND;
	CHECK(ibv_post_send(id->qp, &w, &bad) == 0);
	CHECK(poll_one(id->send_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_SEND);
	CHECK(rdma_disconnect(id) == 0);
	CHECK(id->qp->state == IBV_QPS_ERR);
	REQUIRE((e = expect(RDMA_CM_EVENT_DISCONNECTED)) != NULL);
	rdma_ack_cm_event(e);
	rdma_destroy_qp(id);
	CHECK(rdma_destroy_id(id) == 0);
	ibv_dereg_mr(mr);
}

static void client_ud(const char *ip, int port)
{
	struct ibv_qp_init_attr qa = { .cap = { 4, 4, 1, 1, 0 }, .qp_type = IBV_QPT_UD,
				       .sq_sig_all = 1 };
	static char buf[64] = "datagram";
	struct rdma_cm_event *e;
	struct rdma_cm_id *id;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	struct ibv_sge sge;
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND }, *bad;

	REQUIRE((id = resolved(ip, port, RDMA_PS_UDP)) != NULL);
	CHECK(rdma_create_qp(id, NULL, &qa) == 0);
	REQUIRE(id->qp);
	REQUIRE((e = connect_to(id, "hello, ud", RDMA_CM_EVENT_ESTABLISHED)) != NULL);
	CHECK(e->param.ud.qkey == RDMA_UDP_QKEY && e->param.ud.qp_num > 1 &&
	      e->param.ud.ah_attr.is_global &&
	      e->param.ud.private_data_len >= 11 &&
	      !memcmp(e->param.ud.private_data, "ud welcome", 11));
	ah = ibv_create_ah(id->pd, &e->param.ud.ah_attr);
	w.wr.ud.remote_qpn = e->param.ud.qp_num;
	w.wr.ud.remote_qkey = e->param.ud.qkey;
	w.wr.ud.ah = ah;
	rdma_ack_cm_event(e);
	mr = ibv_reg_mr(id->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	REQUIRE(ah && mr);
	sge = (struct ibv_sge){ (uintptr_t)buf, 9, mr->lkey };
	CHECK(ibv_post_send(id->qp, &w, &bad) == 0);
	CHECK(poll_one(id->send_cq, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
	CHECK(rdma_disconnect(id) == 0);
	ibv_destroy_ah(ah);
	rdma_destroy_qp(id);
	CHECK(rdma_destroy_id(id) == 0);
	ibv_dereg_mr(mr);
}

/* rdma_client's way: a synchronous endpoint, the inline helpers */
static void client_sync(const char *ip, int port)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr qa = { .cap = { 1, 1, 1, 1, 0 }, .sq_sig_all = 1 };
	static char msg[16] = "sync ping";
	struct rdma_cm_id *id;
	struct ibv_wc wc;
	struct ibv_mr *mr;
	char p[16];

	snprintf(p, sizeof(p), "%d", port);
	REQUIRE(rdma_getaddrinfo(ip, p, &hints, &res) == 0);
	CHECK(res->ai_dst_addr && !res->ai_src_addr);
	REQUIRE(rdma_create_ep(&id, res, NULL, &qa) == 0);
	rdma_freeaddrinfo(res);
	REQUIRE(id->qp && id->verbs == our_context);
	mr = rdma_reg_msgs(id, msg, sizeof(msg));
	REQUIRE(mr);
	CHECK(rdma_connect(id, NULL) == 0);    /* returns at ESTABLISHED */
	CHECK(id->event && id->event->event == RDMA_CM_EVENT_ESTABLISHED);
	CHECK(rdma_post_send(id, NULL, msg, sizeof(msg), mr, 0) == 0);
	CHECK(rdma_get_send_comp(id, &wc) == 1 && wc.status == IBV_WC_SUCCESS);
	/* the server disconnects: its DREQ is our DISCONNECTED */
	CHECK(rdma_disconnect(id) == 0 || errno == EINVAL);
	rdma_dereg_mr(mr);
	rdma_destroy_ep(id);
}

static void addr_error(const char *nobody)
{
	struct sockaddr_storage ss;
	struct rdma_cm_event *e;
	struct rdma_cm_id *id;

	addr_of(nobody, 7, &ss);
	REQUIRE(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0);
	CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss, 500) == 0);
	if ((e = expect(RDMA_CM_EVENT_ADDR_ERROR)) != NULL) {
		CHECK(e->status < 0);
		rdma_ack_cm_event(e);
	}
	errno = 0;
	CHECK(rdma_resolve_route(id, 500) == -1 && errno == EINVAL);
	CHECK(rdma_destroy_id(id) == 0);
}

/* Binds as the kernel's rdma_cm takes them: port 0 gets an ephemeral
   port (two IDs, two ports); a loopback address binds no device (and a
   listener there hears nothing from the wire); rdma_getaddrinfo with
   neither node nor service gives the hints' addresses back (libfabric's
   verbs provider asks all three) */
static void client_binds(const char *ip)	/* ip: the server's */
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *a, *b, *lo;
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *rai = NULL;

	REQUIRE(rdma_create_id(ch, &a, NULL, RDMA_PS_TCP) == 0);
	REQUIRE(rdma_create_id(ch, &b, NULL, RDMA_PS_TCP) == 0);
	REQUIRE(rdma_create_id(ch, &lo, NULL, RDMA_PS_TCP) == 0);
	addr_of("0.0.0.0", 0, &ss);
	CHECK(rdma_bind_addr(a, (struct sockaddr *)&ss) == 0);
	CHECK(rdma_bind_addr(b, (struct sockaddr *)&ss) == 0);
	CHECK(rdma_get_src_port(a) != 0 && rdma_get_src_port(b) != 0 &&
	      rdma_get_src_port(a) != rdma_get_src_port(b));
	CHECK(a->verbs == NULL);        /* the wildcard binds no device either */
	addr_of("127.0.0.1", 0, &ss);
	CHECK(rdma_bind_addr(lo, (struct sockaddr *)&ss) == 0);
	CHECK(lo->verbs == NULL && rdma_get_src_port(lo) != 0);
	CHECK(rdma_listen(lo, 1) == 0);
	addr_of(ip, 4791, &ss);
	hints.ai_dst_addr = (struct sockaddr *)&ss;
	hints.ai_dst_len = sizeof(struct sockaddr_in);
	CHECK(rdma_getaddrinfo(NULL, NULL, &hints, &rai) == 0);
	CHECK(rai && rai->ai_dst_len == sizeof(struct sockaddr_in) &&
	      !memcmp(rai->ai_dst_addr, &ss, sizeof(struct sockaddr_in)) && !rai->ai_src_len);
	rdma_freeaddrinfo(rai);
	CHECK(rdma_getaddrinfo(NULL, NULL, NULL, &rai) == -1 && errno == EINVAL);
	CHECK(rdma_destroy_id(lo) == 0);
	CHECK(rdma_destroy_id(b) == 0);
	CHECK(rdma_destroy_id(a) == 0);
}

static void client(const char *ip, int port, const char *nobody)
{
	devices();
	ch = rdma_create_event_channel();
	REQUIRE(ch);
	client_binds(ip);
	client_sync(ip, port + 2);
	client_rc(ip, port);
	client_ud(ip, port + 1);
	addr_error(nobody);
	rdma_destroy_event_channel(ch);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		server(argv[2], atoi(argv[3]));
	else if (argc == 5 && !strcmp(argv[1], "client"))
		client(argv[2], atoi(argv[3]), argv[4]);
	else {
		fprintf(stderr, "usage: rdmacm_pair server ADDR PORT | client ADDR PORT NOBODY\n");
		return 2;
	}
	if (our_context)
		ibv_close_device(our_context);
	if (!failed)
		printf("rdmacm_pair: ok\n");
	return failed;
}
