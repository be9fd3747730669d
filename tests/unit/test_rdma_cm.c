/* SPDX-License-Identifier: MIT */
/*
 * The rdma_cm-shaped API (roce/cm.h) between two engines on the in-memory
 * link, each engine and CM on threads of their own: address and route
 * resolution, connect and accept with private data both ways (IPv4 and
 * IPv6), a SEND over the connection, disconnect and timewait; a consumer
 * reject (REJECTED, 28), a port nobody listens on (REJECTED, 8), a peer
 * that never answers (UNREACHABLE after the retries), an address the
 * resolver does not know (ADDR_ERROR), the calls' bad input, and a close
 * that waits for a lost DREQ's resend to be answered; UD IDs (SIDR): accept,
 * a SEND by what ESTABLISHED gave, reject, a port nobody listens on; QPs
 * the callers make and move (init_qp_attr, CONNECT_RESPONSE, establish).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>

#include "pair.h"
#include "roce/cm.h"

#define PORT 7174

struct side {
	struct pair_side *s;
	struct roce_cm *cm;
	struct roce_cm_event_channel *ch;
	int af;
};

static int resolver(void *arg, int family, const uint8_t *addr, unsigned ms, uint8_t mac[6])
{
	struct pair *p = arg;
	const struct pair_side *to[2] = { &p->a, &p->b };

	uint32_t ip4 = 0;

	(void)ms;
	if (family == AF_INET)
		memcpy(&ip4, addr, 4);
	for (int i = 0; i < 2; i++) {
		if (family == AF_INET && roce_gid_is_v4mapped(to[i]->gid) &&
		    roce_gid_to_ipv4(to[i]->gid) == ntohl(ip4)) {
			memcpy(mac, to[1 - i]->peer_mac, 6);
			return 0;
		}
		if (family == AF_INET6 && !memcmp(to[i]->gid, addr, 16)) {
			memcpy(mac, to[1 - i]->peer_mac, 6);
			return 0;
		}
	}
	return -ROCE_E_TIMEOUT;
}

static void side_open(struct pair *p, struct side *d, struct pair_side *s, uint8_t retries, int af)
{
	struct roce_cm_attr a = {
		.ctx = s->ctx, .pd = s->pd, .resolve = resolver, .resolve_arg = p,
		.packet_life_time = 8, .cm_response_timeout = 14, .max_cm_retries = retries,
	};

	d->s = s;
	d->af = af;
	assert_int_equal(roce_cm_open(&a, &d->cm), ROCE_OK);
	d->ch = roce_cm_create_event_channel(d->cm);
	assert_non_null(d->ch);
	assert_int_equal(fcntl(roce_cm_channel_fd(d->ch), F_SETFL, O_NONBLOCK), 0);
}

static void side_close(struct side *d)
{
	assert_int_equal(roce_cm_destroy_event_channel(d->ch), ROCE_OK);
	assert_int_equal(roce_cm_close(d->cm), ROCE_OK);
}

/* The next event within ms, which must be `want` (and of id when given). */
static struct roce_cm_event *expect(struct side *d, enum roce_cm_event_type want, unsigned ms)
{
	struct pollfd pf = { .fd = roce_cm_channel_fd(d->ch), .events = POLLIN };
	struct roce_cm_event *ev = NULL;

	if (poll(&pf, 1, (int)ms) != 1)
		fail_msg("no event in %u ms (want %s)", ms, roce_cm_event_str(want));
	assert_int_equal(roce_cm_get_cm_event(d->ch, &ev), ROCE_OK);
	if (ev->event != want)
		fail_msg("event %s (status %d), want %s", roce_cm_event_str(ev->event), ev->status,
			 roce_cm_event_str(want));
	return ev;
}

static void ack(struct roce_cm_event *ev)
{
	assert_int_equal(roce_cm_ack_cm_event(ev), ROCE_OK);
}

/* The address of side s, port port, of its family */
static void addr_of(const struct side *d, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (d->af == AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		s4->sin_addr.s_addr = htonl(d->s->ip);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(s6->sin6_addr.s6_addr, d->s->gid, 16);
	}
}

/* An RC QP through the CM (a UD one on a UDP ID: ready at once) */
static void make_qp_of(struct side *d, struct roce_cm_id *id, enum roce_qp_type type)
{
	struct roce_qp_init_attr qa = {
		.send_cq = d->s->scq, .recv_cq = d->s->rcq, .qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	assert_int_equal(roce_cm_create_qp(id, d->s->pd, &qa), ROCE_OK);
}

static void make_qp(struct side *d, struct roce_cm_id *id)
{
	make_qp_of(d, id, ROCE_QPT_RC);
}

/* Client c's ID of port space ps, resolved to server s's address:port */
static struct roce_cm_id *client_id(struct side *c, struct side *s, uint16_t port,
				    enum roce_port_space ps)
{
	struct sockaddr_storage dst;
	struct roce_cm_id *id;

	addr_of(s, port, &dst);
	assert_int_equal(roce_cm_create_id(c->ch, &id, c, ps), ROCE_OK);
	assert_int_equal(roce_cm_resolve_addr(id, NULL, (struct sockaddr *)&dst, 1000), ROCE_OK);
	ack(expect(c, ROCE_CM_EVENT_ADDR_RESOLVED, 2000));
	assert_int_equal(roce_cm_resolve_route(id, 1000), ROCE_OK);
	ack(expect(c, ROCE_CM_EVENT_ROUTE_RESOLVED, 2000));
	return id;
}

/* Client c resolves server s's address:port and route, makes its QP. */
static struct roce_cm_id *client_ready(struct side *c, struct side *s, uint16_t port)
{
	struct roce_cm_id *id = client_id(c, s, port, ROCE_PS_TCP);

	make_qp(c, id);
	return id;
}

static struct roce_cm_id *server_listen_ps(struct side *s, enum roce_port_space ps)
{
	struct sockaddr_storage a;
	struct roce_cm_id *id;

	addr_of(s, PORT, &a);
	assert_int_equal(roce_cm_create_id(s->ch, &id, s, ps), ROCE_OK);
	assert_int_equal(roce_cm_bind_addr(id, (struct sockaddr *)&a), ROCE_OK);
	assert_int_equal(roce_cm_listen(id, 4), ROCE_OK);
	return id;
}

static struct roce_cm_id *server_listen(struct side *s)
{
	return server_listen_ps(s, ROCE_PS_TCP);
}

/* A SEND of len bytes from A's QP aq to B's QP bq, the data checked */
static void send_over(struct pair *p, struct roce_qp *aq, struct roce_qp *bq, uint32_t len)
{
	struct roce_sge rs = { (uint64_t)(uintptr_t)p->b.buf, len, p->b.mr->lkey };
	struct roce_recv_wr rw = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 };
	struct roce_sge ss = { (uint64_t)(uintptr_t)p->a.buf, len, p->a.mr->lkey };
	struct roce_send_wr sw = { .wr_id = 2, .sg_list = &ss, .num_sge = 1,
				   .opcode = ROCE_WR_SEND, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *bad;
	struct roce_wc wc;

	pair_pattern(p->a.buf, len, 9);
	memset(p->b.buf, 0, len);
	assert_int_equal(roce_post_recv(bq, &rw, NULL), ROCE_OK);
	assert_int_equal(roce_post_send(aq, &sw, &bad), ROCE_OK);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.qp_num, roce_qp_num(bq));
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_memory_equal(p->a.buf, p->b.buf, len);
}

static struct pair *open_pair(bool ipv6)
{
	struct pair_opts o = { .ipv6 = ipv6,
			       .ip6 = { { 0xfd, 0, [15] = 1 }, { 0xfd, 0, [15] = 2 } },
			       .timeout = PAIR_THREAD_TIMEOUT };
	struct pair *p = pair_open(&o);

	assert_int_equal(pair_start(&p->a, -1), ROCE_OK);
	assert_int_equal(pair_start(&p->b, -1), ROCE_OK);
	return p;
}

static void cycle(bool ipv6)
{
	struct pair *p = open_pair(ipv6);
	int af = ipv6 ? AF_INET6 : AF_INET;
	struct side c = { 0 }, s = { 0 };
	struct roce_cm_id *lid, *cid, *sid;
	struct roce_cm_event *ev;
	struct roce_conn_param cp = { .private_data = "ping", .private_data_len = 4,
				      .responder_resources = 1, .initiator_depth = 1,
				      .retry_count = 7, .rnr_retry_count = 7 };
	struct roce_conn_param ap = { .private_data = "pong", .private_data_len = 4,
				      .responder_resources = 1, .initiator_depth = 1,
				      .rnr_retry_count = 7 };
	struct sockaddr_storage want;

	side_open(p, &c, &p->a, 15, af);
	side_open(p, &s, &p->b, 15, af);
	lid = server_listen(&s);
	cid = client_ready(&c, &s, PORT);
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);

	ev = expect(&s, ROCE_CM_EVENT_CONNECT_REQUEST, 3000);
	assert_ptr_equal(ev->listen_id, lid);
	sid = ev->id;
	assert_ptr_not_equal(sid, lid);
	assert_ptr_equal(roce_cm_id_context(sid), &s);
	assert_true(ev->param.private_data_len >= 4);
	assert_memory_equal(ev->param.private_data, "ping", 4);
	assert_int_equal(ev->param.initiator_depth, 1);
	/* the peer's address and port are those the client's REQ header says */
	addr_of(&c, 0, &want);
	assert_int_equal(roce_cm_peer_addr(sid)->sa_family, af);
	if (af == AF_INET)
		assert_memory_equal(&((const struct sockaddr_in *)roce_cm_peer_addr(sid))->sin_addr,
				    &((struct sockaddr_in *)&want)->sin_addr, 4);
	else
		assert_memory_equal(&((const struct sockaddr_in6 *)roce_cm_peer_addr(sid))->sin6_addr,
				    &((struct sockaddr_in6 *)&want)->sin6_addr, 16);
	assert_int_equal(((const struct sockaddr_in *)roce_cm_peer_addr(sid))->sin_port,
			 ((const struct sockaddr_in *)roce_cm_local_addr(cid))->sin_port);
	ack(ev);
	make_qp(&s, sid);
	assert_int_equal(roce_cm_accept(sid, &ap), ROCE_OK);

	ev = expect(&c, ROCE_CM_EVENT_ESTABLISHED, 3000);
	assert_ptr_equal(ev->id, cid);
	assert_memory_equal(ev->param.private_data, "pong", 4);
	ack(ev);
	ack(expect(&s, ROCE_CM_EVENT_ESTABLISHED, 3000));

	send_over(p, roce_cm_id_qp(cid), roce_cm_id_qp(sid), 256);

	assert_int_equal(roce_cm_disconnect(cid), ROCE_OK);
	ack(expect(&c, ROCE_CM_EVENT_DISCONNECTED, 3000));
	ack(expect(&s, ROCE_CM_EVENT_DISCONNECTED, 3000));
	/* timewait: the local ACK timeout (2^19 * 4 us, ~2 s) */
	ack(expect(&c, ROCE_CM_EVENT_TIMEWAIT_EXIT, 5000));
	/* the server's ID goes while its slot is in timewait: kept till then */
	roce_cm_destroy_qp(sid);
	assert_int_equal(roce_cm_destroy_id(sid), ROCE_OK);
	roce_cm_destroy_qp(cid);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);
	assert_int_equal(roce_cm_destroy_event_channel(s.ch), ROCE_E_BUSY); /* lid */
	assert_int_equal(roce_cm_destroy_id(lid), ROCE_OK);
	side_close(&c);
	side_close(&s);
	pair_close(p);
}

static void test_connect_ipv4(void **state)
{
	(void)state;
	cycle(false);
}

static void test_connect_ipv6(void **state)
{
	(void)state;
	cycle(true);
}

/* A consumer reject and a port nobody listens on. */
static void test_reject(void **state)
{
	struct pair *p = open_pair(false);
	struct side c = { 0 }, s = { 0 };
	struct roce_cm_id *lid, *cid;
	struct roce_cm_event *ev;
	struct roce_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7 };

	(void)state;
	side_open(p, &c, &p->a, 15, AF_INET);
	side_open(p, &s, &p->b, 15, AF_INET);
	lid = server_listen(&s);
	cid = client_ready(&c, &s, PORT);
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);
	ev = expect(&s, ROCE_CM_EVENT_CONNECT_REQUEST, 3000);
	struct roce_cm_id *sid = ev->id;
	ack(ev);
	assert_int_equal(roce_cm_reject(sid, "busy", 4), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(sid), ROCE_OK);
	ev = expect(&c, ROCE_CM_EVENT_REJECTED, 3000);
	assert_int_equal(ev->status, 28);
	assert_memory_equal(ev->param.private_data, "busy", 4);
	ack(ev);
	roce_cm_destroy_qp(cid);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);

	/* no listener on PORT + 1: the CM answers REJ 8 */
	cid = client_ready(&c, &s, PORT + 1);
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);
	ev = expect(&c, ROCE_CM_EVENT_REJECTED, 3000);
	assert_int_equal(ev->status, 8);
	ack(ev);
	roce_cm_destroy_qp(cid);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);

	/* destroying a CONNECT_REQUEST's ID unanswered rejects it */
	cid = client_ready(&c, &s, PORT);
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);
	ev = expect(&s, ROCE_CM_EVENT_CONNECT_REQUEST, 3000);
	sid = ev->id;
	ack(ev);
	assert_int_equal(roce_cm_destroy_id(sid), ROCE_OK);
	ev = expect(&c, ROCE_CM_EVENT_REJECTED, 3000);
	assert_int_equal(ev->status, 28);
	ack(ev);
	roce_cm_destroy_qp(cid);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(lid), ROCE_OK);
	side_close(&c);
	side_close(&s);
	pair_close(p);
}

/* A peer that never answers: the REQ is resent, then UNREACHABLE. */
/* The CM's status as text (json false) or JSON into buf. */
#define STATUS_MAX 8192
static void status_of(struct side *d, bool json, char buf[STATUS_MAX])
{
	FILE *f = fmemopen(buf, STATUS_MAX, "w");

	assert_non_null(f);
	assert_int_equal(roce_cm_print_status(d->cm, f, json), ROCE_OK);
	assert_int_equal(fclose(f), 0);
	assert_non_null(memchr(buf, '\0', STATUS_MAX)); /* not cut short */
}

/* The value of "name":N in a JSON status, -1 if it is not there. */
static long json_counter(const char *j, const char *name)
{
	char key[64];
	const char *at;

	snprintf(key, sizeof(key), "\"%s\":", name);
	at = strstr(j, key);
	return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

static void test_timeout(void **state)
{
	struct pair *p = open_pair(false);
	struct side c = { 0 }, s = { 0 };
	struct roce_cm_id *cid, *lid;
	struct roce_cm_event *ev;
	struct roce_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7 };
	uint64_t t0;

	(void)state;
	side_open(p, &c, &p->a, 3, AF_INET);
	side_open(p, &s, &p->b, 3, AF_INET);
	lid = server_listen(&s);
	cid = client_ready(&c, &s, PORT);
	assert_int_equal(roce_memlink_set_faults(p->link, 1.0, 0, 0, 0), ROCE_OK);
	t0 = pair_now_ms();
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);
	{
		/* while it waits: the status says where and for how long */
		static char t[STATUS_MAX], j[STATUS_MAX], st[STATUS_MAX];
		char dst[64];

		status_of(&c, false, t);
		status_of(&c, true, j);
		status_of(&s, false, st);
		assert_non_null(strstr(t, " active   req_sent "));
		assert_non_null(strstr(t, "/3 "));  /* resends of 3 */
		snprintf(dst, sizeof(dst), " %u.%u.%u.%u:%u\n", s.s->ip >> 24, s.s->ip >> 16 & 255,
			 s.s->ip >> 8 & 255, s.s->ip & 255, PORT);
		assert_non_null(strstr(t, dst));
		assert_non_null(strstr(j, "\"state\":\"req_sent\""));
		assert_true(json_counter(j, "req_tx") >= 1);
		assert_int_equal(json_counter(j, "expired"), 0);
		assert_non_null(strstr(st, " listener listen "));
	}
	ev = expect(&c, ROCE_CM_EVENT_UNREACHABLE, 5000);
	assert_int_equal(ev->status, -ETIMEDOUT);
	ack(ev);
	/* 4 REQs 66 ms apart (2 * 1 ms + 64 ms) */
	assert_true(pair_now_ms() - t0 >= 4 * 66);
	{
		static char j[STATUS_MAX];

		/* the REQ sent 4 times, then given up: no connection in use */
		status_of(&c, true, j);
		assert_int_equal(json_counter(j, "req_tx"), 4);
		assert_int_equal(json_counter(j, "resends"), 3);
		assert_int_equal(json_counter(j, "expired"), 1);
		assert_null(strstr(j, "req_sent"));
	}
	/* the counters say so: 4 REQs, 3 of them resends, retries ran out,
	   and the REJ (timeout) sent at the end */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		roce_cm_print_counters(c.cm, f, 0);
		fclose(f);
		assert_non_null(strstr(text, "cm_req_tx 4\n"));
		assert_non_null(strstr(text, "cm_resends 3\n"));
		assert_non_null(strstr(text, "cm_expired 1\n"));
		assert_non_null(strstr(text, "cm_rej_tx 1\n"));
		assert_null(strstr(text, " 0\n"));     /* the non-zero ones only */
		free(text);
	}
	roce_cm_destroy_qp(cid);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);
	side_close(&c);
	/* the listener still holds s's CM */
	assert_int_equal(roce_cm_close(s.cm), ROCE_E_BUSY);
	assert_int_equal(roce_cm_destroy_id(lid), ROCE_OK);
	side_close(&s);
	pair_close(p);
}

/* An address nobody resolves, and the calls' bad input. */
static void test_bad_input(void **state)
{
	struct pair *p = open_pair(false);
	struct side c = { 0 };
	struct roce_cm_id *id;
	struct roce_conn_param cp = { 0 };
	struct sockaddr_in nowhere = { .sin_family = AF_INET, .sin_port = htons(1),
				       .sin_addr.s_addr = htonl(0x0a0000feu) };
	struct sockaddr_in other = nowhere;
	struct sockaddr un = { .sa_family = AF_UNIX };
	struct roce_cm_event *ev;

	(void)state;
	side_open(p, &c, &p->a, 15, AF_INET);
	assert_int_equal(roce_cm_create_id(c.ch, &id, NULL, (enum roce_port_space)0x013F),
			 ROCE_E_UNSUPPORTED);
	assert_int_equal(roce_cm_create_id(c.ch, &id, NULL, ROCE_PS_TCP), ROCE_OK);
	assert_int_equal(roce_cm_get_cm_event(c.ch, &ev), ROCE_E_AGAIN);
	assert_int_equal(roce_cm_resolve_addr(id, NULL, &un, 100), ROCE_E_INVAL);
	assert_int_equal(roce_cm_resolve_addr(id, NULL, NULL, 100), ROCE_E_INVAL);
	assert_int_equal(roce_cm_resolve_route(id, 100), ROCE_E_STATE);
	assert_int_equal(roce_cm_connect(id, &cp), ROCE_E_STATE);
	assert_int_equal(roce_cm_listen(id, 1), ROCE_E_STATE);
	assert_int_equal(roce_cm_accept(id, &cp), ROCE_E_STATE);
	assert_int_equal(roce_cm_disconnect(id), ROCE_E_STATE);
	other.sin_addr.s_addr = htonl(0x0b000001u);
	assert_int_equal(roce_cm_bind_addr(id, (struct sockaddr *)&other), ROCE_E_INVAL);
	cp.private_data = "x";
	cp.private_data_len = 57;
	assert_int_equal(roce_cm_connect(id, &cp), ROCE_E_INVAL);
	assert_int_equal(roce_cm_resolve_addr(id, NULL, (struct sockaddr *)&nowhere, 100), ROCE_OK);
	ev = expect(&c, ROCE_CM_EVENT_ADDR_ERROR, 2000);
	assert_int_equal(ev->status, -ETIMEDOUT);
	/* an ID with an event not acknowledged stays */
	assert_int_equal(roce_cm_destroy_id(id), ROCE_E_BUSY);
	ack(ev);
	assert_int_equal(roce_cm_destroy_id(id), ROCE_OK);
	side_close(&c);
	pair_close(p);
}

/* Restores the link after ms: the peer comes back while roce_cm_close()
   lingers. */
struct heal {
	struct roce_memlink *link;
	unsigned ms;
};

static void *heal_later(void *arg)
{
	const struct heal *h = arg;
	const struct timespec t = { h->ms / 1000, (long)(h->ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
	roce_memlink_set_faults(h->link, 0, 0, 0, 0);
	return NULL;
}

/*
 * The client's DREQ is lost and the client closes its CM at once, as
 * rping does after rdma_disconnect: roce_cm_close() keeps the CM answering
 * until the DREQ's resend reaches the server, which then sees
 * DISCONNECTED (without the wait it stays connected for good).
 */
static void test_close_lingers(void **state)
{
	struct pair *p = open_pair(false);
	struct side c = { 0 }, s = { 0 };
	struct roce_cm_id *lid, *cid, *sid;
	struct roce_cm_event *ev;
	struct roce_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7 };
	struct heal h = { p->link, 100 };
	struct timespec t0, t1;
	pthread_t th;
	long ms;

	(void)state;
	side_open(p, &c, &p->a, 15, AF_INET);
	side_open(p, &s, &p->b, 15, AF_INET);
	lid = server_listen(&s);
	cid = client_ready(&c, &s, PORT);
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);
	ev = expect(&s, ROCE_CM_EVENT_CONNECT_REQUEST, 3000);
	sid = ev->id;
	ack(ev);
	make_qp(&s, sid);
	assert_int_equal(roce_cm_accept(sid, &cp), ROCE_OK);
	ack(expect(&c, ROCE_CM_EVENT_ESTABLISHED, 3000));
	ack(expect(&s, ROCE_CM_EVENT_ESTABLISHED, 3000));

	assert_int_equal(roce_memlink_set_faults(p->link, 1.0, 0, 0, 0), ROCE_OK);
	assert_int_equal(roce_cm_disconnect(cid), ROCE_OK);
	roce_cm_destroy_qp(cid);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);
	assert_int_equal(pthread_create(&th, NULL, heal_later, &h), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	side_close(&c);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(pthread_join(th, NULL), 0);
	/* the close waited for the link to heal and the DREP to come back */
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 100);
	ack(expect(&s, ROCE_CM_EVENT_DISCONNECTED, 3000));

	roce_cm_destroy_qp(sid);
	assert_int_equal(roce_cm_destroy_id(sid), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(lid), ROCE_OK);
	side_close(&s);
	pair_close(p);
}


/*
 * UD through the CM (SIDR): the client's connect reaches the server as
 * CONNECT_REQUEST with the private data; the server's accept gives the
 * client ESTABLISHED with the QPN, the Q_Key and an address vector a SEND
 * reaches the server's QP by. A reject and a port nobody listens on end
 * in UNREACHABLE with the SIDR_REP's status (2 and 1).
 */
static void test_ud(void **state)
{
	struct pair *p = open_pair(false);
	struct side c = { 0 }, s = { 0 };
	struct roce_cm_id *lid, *cid, *sid;
	struct roce_cm_event *ev;
	struct roce_conn_param cp = { .private_data = "ping", .private_data_len = 4 };
	struct roce_conn_param ap = { .private_data = "pong", .private_data_len = 4 };
	struct roce_qp_attr at;
	struct roce_ah *ah;
	struct roce_wc wc;
	uint32_t sqpn;

	(void)state;
	side_open(p, &c, &p->a, 15, AF_INET);
	side_open(p, &s, &p->b, 15, AF_INET);
	lid = server_listen_ps(&s, ROCE_PS_UDP);
	cid = client_id(&c, &s, PORT, ROCE_PS_UDP);
	/* an RC QP on a UDP ID is refused */
	struct roce_qp_init_attr rc_attr = { .send_cq = c.s->scq, .recv_cq = c.s->rcq,
					     .qp_type = ROCE_QPT_RC,
					     .cap = { .max_send_wr = 1, .max_recv_wr = 1 } };
	assert_int_equal(roce_cm_create_qp(cid, c.s->pd, &rc_attr), ROCE_E_INVAL);
	make_qp_of(&c, cid, ROCE_QPT_UD);
	assert_int_equal(roce_query_qp(roce_cm_id_qp(cid), &at), ROCE_OK);
	assert_int_equal(at.qp_state, ROCE_QPS_RTS);
	assert_int_equal(at.qkey, ROCE_UDP_QKEY);
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);

	ev = expect(&s, ROCE_CM_EVENT_CONNECT_REQUEST, 3000);
	assert_ptr_equal(ev->listen_id, lid);
	sid = ev->id;
	assert_true(ev->ud.private_data_len >= 4);
	assert_memory_equal(ev->ud.private_data, "ping", 4);
	/* where the requester is */
	assert_true(ev->ud.ah_attr.is_global);
	assert_memory_equal(ev->ud.ah_attr.grh.dgid, p->a.gid, 16);
	assert_memory_equal(ev->ud.ah_attr.dest_mac, p->b.peer_mac, 6);
	ack(ev);
	make_qp_of(&s, sid, ROCE_QPT_UD);
	sqpn = roce_qp_num(roce_cm_id_qp(sid));
	/* the server's receive first, then its answer */
	struct roce_sge rs = { (uint64_t)(uintptr_t)p->b.buf, ROCE_GRH_LEN + 256, p->b.mr->lkey };
	struct roce_recv_wr rw = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 };

	assert_int_equal(roce_post_recv(roce_cm_id_qp(sid), &rw, NULL), ROCE_OK);
	assert_int_equal(roce_cm_accept(sid, &ap), ROCE_OK);
	/* answered: a second answer has nothing to answer */
	assert_int_equal(roce_cm_accept(sid, &ap), ROCE_E_STATE);

	ev = expect(&c, ROCE_CM_EVENT_ESTABLISHED, 3000);
	assert_ptr_equal(ev->id, cid);
	assert_int_equal(ev->ud.qp_num, sqpn);
	assert_int_equal(ev->ud.qkey, ROCE_UDP_QKEY);
	assert_memory_equal(ev->ud.private_data, "pong", 4);
	assert_true(ev->ud.ah_attr.is_global);
	assert_memory_equal(ev->ud.ah_attr.grh.dgid, p->b.gid, 16);
	ah = roce_create_ah(p->a.pd, &ev->ud.ah_attr);
	assert_non_null(ah);
	struct roce_sge ss = { (uint64_t)(uintptr_t)p->a.buf, 256, p->a.mr->lkey };
	struct roce_send_wr sw = { .wr_id = 2, .sg_list = &ss, .num_sge = 1,
				   .opcode = ROCE_WR_SEND, .send_flags = ROCE_SEND_SIGNALED };
	struct roce_send_wr *bad;

	sw.wr.ud.ah = ah;
	sw.wr.ud.remote_qpn = ev->ud.qp_num;
	sw.wr.ud.remote_qkey = ev->ud.qkey;
	ack(ev);
	pair_pattern(p->a.buf, 256, 5);
	assert_int_equal(roce_post_send(roce_cm_id_qp(cid), &sw, &bad), ROCE_OK);
	assert_int_equal(pair_wait(p, p->b.rcq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(wc.qp_num, sqpn);
	assert_int_equal(wc.src_qp, roce_qp_num(roce_cm_id_qp(cid)));
	assert_memory_equal(p->b.buf + ROCE_GRH_LEN, p->a.buf, 256);
	assert_int_equal(pair_wait(p, p->a.scq, &wc, 1, 5000), 1);
	assert_int_equal(wc.status, ROCE_WC_SUCCESS);
	assert_int_equal(roce_destroy_ah(ah), ROCE_OK);
	/* disconnect on UD: the QP to ERR, no event */
	assert_int_equal(roce_cm_disconnect(cid), ROCE_OK);
	assert_int_equal(roce_query_qp(roce_cm_id_qp(cid), &at), ROCE_OK);
	assert_int_equal(at.qp_state, ROCE_QPS_ERR);
	roce_cm_destroy_qp(cid);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);
	roce_cm_destroy_qp(sid);
	assert_int_equal(roce_cm_destroy_id(sid), ROCE_OK);

	/* the consumer says no: UNREACHABLE, status 2, its private data */
	cid = client_id(&c, &s, PORT, ROCE_PS_UDP);
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);
	ev = expect(&s, ROCE_CM_EVENT_CONNECT_REQUEST, 3000);
	sid = ev->id;
	ack(ev);
	assert_int_equal(roce_cm_reject(sid, "busy", 4), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(sid), ROCE_OK);
	ev = expect(&c, ROCE_CM_EVENT_UNREACHABLE, 3000);
	assert_int_equal(ev->status, 2);
	assert_memory_equal(ev->ud.private_data, "busy", 4);
	ack(ev);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);

	/* nobody on PORT + 1: status 1 */
	cid = client_id(&c, &s, PORT + 1, ROCE_PS_UDP);
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);
	ev = expect(&c, ROCE_CM_EVENT_UNREACHABLE, 3000);
	assert_int_equal(ev->status, 1);
	ack(ev);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(lid), ROCE_OK);
	side_close(&c);
	side_close(&s);
	pair_close(p);
}

/* A QP the caller made, to state st with the CM's attributes */
static void move_own(struct roce_cm_id *id, struct roce_qp *qp, enum roce_qp_state st)
{
	struct roce_qp_attr at = { .qp_state = st };
	unsigned mask;

	assert_int_equal(roce_cm_init_qp_attr(id, &at, &mask), ROCE_OK);
	assert_true(mask & ROCE_QP_STATE);
	assert_int_equal(roce_modify_qp(qp, &at, mask), ROCE_OK);
}

/*
 * QPs the callers make and move (rping -q): conn_param.qp_num instead of
 * roce_cm_create_qp, roce_cm_init_qp_attr for INIT, RTR and RTS, the
 * client's CONNECT_RESPONSE and roce_cm_establish; a SEND then goes
 * through. roce_cm_init_qp_attr refuses RTR before there is anything to
 * give, and a state it does not give.
 */
static void test_own_qps(void **state)
{
	struct pair *p = open_pair(false);
	struct side c = { 0 }, s = { 0 };
	struct roce_cm_id *lid, *cid, *sid;
	struct roce_cm_event *ev;
	struct roce_qp_init_attr qa = {
		.send_cq = p->a.scq, .recv_cq = p->a.rcq, .qp_type = ROCE_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct roce_qp *cqp, *sqp;
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_RTR };
	unsigned mask;

	(void)state;
	side_open(p, &c, &p->a, 15, AF_INET);
	side_open(p, &s, &p->b, 15, AF_INET);
	lid = server_listen(&s);
	cid = client_id(&c, &s, PORT, ROCE_PS_TCP);
	assert_int_equal(roce_create_qp_status(p->a.pd, &qa, &cqp), ROCE_OK);
	qa.send_cq = p->b.scq, qa.recv_cq = p->b.rcq;
	assert_int_equal(roce_create_qp_status(p->b.pd, &qa, &sqp), ROCE_OK);
	/* nothing to give yet but INIT */
	assert_int_equal(roce_cm_init_qp_attr(cid, &at, &mask), ROCE_E_STATE);
	at.qp_state = ROCE_QPS_SQD;
	assert_int_equal(roce_cm_init_qp_attr(cid, &at, &mask), ROCE_E_INVAL);
	move_own(cid, cqp, ROCE_QPS_INIT);
	struct roce_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7,
				      .qp_num = roce_qp_num(cqp) };

	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);
	ev = expect(&s, ROCE_CM_EVENT_CONNECT_REQUEST, 3000);
	sid = ev->id;
	ack(ev);
	move_own(sid, sqp, ROCE_QPS_INIT);
	move_own(sid, sqp, ROCE_QPS_RTR);
	move_own(sid, sqp, ROCE_QPS_RTS);
	cp.qp_num = roce_qp_num(sqp);
	assert_int_equal(roce_cm_accept(sid, &cp), ROCE_OK);
	ack(expect(&c, ROCE_CM_EVENT_CONNECT_RESPONSE, 3000));
	move_own(cid, cqp, ROCE_QPS_RTR);
	move_own(cid, cqp, ROCE_QPS_RTS);
	assert_int_equal(roce_query_qp(cqp, &at), ROCE_OK);
	assert_int_equal(at.qp_state, ROCE_QPS_RTS);
	assert_int_equal(at.dest_qp_num, roce_qp_num(sqp));
	assert_int_equal(roce_cm_establish(cid), ROCE_OK);
	assert_int_equal(roce_cm_establish(cid), ROCE_E_STATE);
	ack(expect(&s, ROCE_CM_EVENT_ESTABLISHED, 3000));

	send_over(p, cqp, sqp, 128);

	assert_int_equal(roce_cm_disconnect(cid), ROCE_OK);
	ack(expect(&c, ROCE_CM_EVENT_DISCONNECTED, 3000));
	ack(expect(&s, ROCE_CM_EVENT_DISCONNECTED, 3000));
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(sid), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(lid), ROCE_OK);
	assert_int_equal(roce_destroy_qp(cqp), ROCE_OK);
	assert_int_equal(roce_destroy_qp(sqp), ROCE_OK);
	side_close(&c);
	side_close(&s);
	pair_close(p);
}

/*
 * rdma_migrate_id: an event queued and not yet taken moves with its ID to
 * the new channel (the old one has none left); a destroyed ID's queued
 * events are dropped (the count left on the eventfd reads as nothing:
 * ROCE_E_AGAIN, not an error); a channel of another CM is refused.
 */
static void test_migrate_and_drop(void **state)
{
	struct pair *p = open_pair(false);
	struct side c = { 0 }, s = { 0 };
	struct roce_cm_event_channel *ch2;
	struct roce_cm_event *ev;
	struct sockaddr_storage dst;
	struct roce_cm_id *cid;

	(void)state;
	side_open(p, &c, &p->a, 15, AF_INET);
	side_open(p, &s, &p->b, 15, AF_INET);
	ch2 = roce_cm_create_event_channel(c.cm);
	assert_non_null(ch2);
	assert_int_equal(fcntl(roce_cm_channel_fd(ch2), F_SETFL, O_NONBLOCK), 0);
	addr_of(&s, PORT, &dst);
	assert_int_equal(roce_cm_create_id(c.ch, &cid, &c, ROCE_PS_TCP), ROCE_OK);
	assert_int_equal(roce_cm_resolve_addr(cid, NULL, (struct sockaddr *)&dst, 1000), ROCE_OK);
	assert_int_equal(roce_cm_migrate_id(cid, s.ch), ROCE_E_INVAL); /* another CM's */
	assert_int_equal(roce_cm_migrate_id(cid, ch2), ROCE_OK);
	assert_int_equal(roce_cm_get_cm_event(c.ch, &ev), ROCE_E_AGAIN);
	assert_int_equal(roce_cm_destroy_event_channel(ch2), ROCE_E_BUSY); /* its ID */
	assert_int_equal(roce_cm_get_cm_event(ch2, &ev), ROCE_OK);
	assert_ptr_equal(ev->id, cid);
	assert_int_equal(ev->event, ROCE_CM_EVENT_ADDR_RESOLVED);
	ack(ev);
	/* ROUTE_RESOLVED queued, never taken: gone with the ID */
	assert_int_equal(roce_cm_resolve_route(cid, 1000), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);
	assert_int_equal(roce_cm_get_cm_event(ch2, &ev), ROCE_E_AGAIN);
	assert_int_equal(roce_cm_destroy_event_channel(ch2), ROCE_OK);
	side_close(&c);
	side_close(&s);
	pair_close(p);
}

/* A UDP ID's answer with a UD QP the caller made (conn_param.qp_num, as
   librdmacm's rdma_accept gives its own QP's number) */
static void test_ud_own_qp(void **state)
{
	struct pair *p = open_pair(false);
	struct side c = { 0 }, s = { 0 };
	struct roce_qp_init_attr qa = {
		.send_cq = p->b.scq, .recv_cq = p->b.rcq, .qp_type = ROCE_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct roce_conn_param cp = { .private_data = "ping", .private_data_len = 4 };
	struct roce_cm_id *lid, *cid, *sid;
	struct roce_cm_event *ev;
	struct roce_qp *sqp;

	(void)state;
	side_open(p, &c, &p->a, 15, AF_INET);
	side_open(p, &s, &p->b, 15, AF_INET);
	lid = server_listen_ps(&s, ROCE_PS_UDP);
	cid = client_id(&c, &s, PORT, ROCE_PS_UDP);
	assert_int_equal(roce_cm_connect(cid, &cp), ROCE_OK);
	ev = expect(&s, ROCE_CM_EVENT_CONNECT_REQUEST, 3000);
	sid = ev->id;
	ack(ev);
	assert_int_equal(roce_create_qp_status(p->b.pd, &qa, &sqp), ROCE_OK);
	/* neither a QP of the ID's nor one named: nothing to answer with */
	assert_int_equal(roce_cm_accept(sid, &cp), ROCE_E_STATE);
	cp.qp_num = roce_qp_num(sqp);
	assert_int_equal(roce_cm_accept(sid, &cp), ROCE_OK);
	ev = expect(&c, ROCE_CM_EVENT_ESTABLISHED, 3000);
	assert_int_equal(ev->ud.qp_num, roce_qp_num(sqp));
	assert_int_equal(ev->ud.qkey, ROCE_UDP_QKEY);
	ack(ev);
	assert_int_equal(roce_cm_destroy_id(cid), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(sid), ROCE_OK);
	assert_int_equal(roce_cm_destroy_id(lid), ROCE_OK);
	assert_int_equal(roce_destroy_qp(sqp), ROCE_OK);
	side_close(&c);
	side_close(&s);
	pair_close(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_ipv4),
		cmocka_unit_test(test_connect_ipv6),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_close_lingers),
		cmocka_unit_test(test_ud),
		cmocka_unit_test(test_own_qps),
		cmocka_unit_test(test_migrate_and_drop),
		cmocka_unit_test(test_ud_own_qp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
