/* SPDX-License-Identifier: MIT */
/*
 * roce-rping: rdma-core's rping (v44, librdmacm/examples/rping.c) on this
 * engine: it connects through the RDMA CM (include/roce/cm.h), so it
 * talks to Linux's rping over rxe or a RoCE NIC.
 *
 *   roce-rping --netdev eth1 -s [-vVd] [-S size] [-C count] [-a addr] [-p port]
 *   roce-rping --netdev eth1 -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]
 *
 * Options, output and the exchange are rping's; the port is --netdev's
 * (--link packet|xdp, --ip as our other tools). Exit status: 0, 255 when
 * the run fails (rping returns -1 from main), 2 for bad usage.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf_ep_priv.h"
#include "roce-rping/rping.h"
#include "roce/status.h"

static const char *prog = "roce-rping";

enum { OPT_NETDEV = 256, OPT_LINK, OPT_XDP_MODE, OPT_IP, OPT_IBA_STRICT };

struct opts {
	struct rping r;
	const char *netdev;
	enum roce_link_kind link;
	enum roce_afxdp_mode xdp_mode;
	uint32_t ip;
	int role;                      /* -1 unset, 1 server, 0 client */
	bool have_addr;
	struct roce_cc_options cc;      /* --iba-strict */
};

static void usage(FILE *f)
{
	fprintf(f,
"%s --netdev IF -s [-vVd] [-S size] [-C count] [-a addr] [-p port]\n"
"%s --netdev IF -c [-vVd] [-S size] [-C count] [-I addr] -a addr [-p port]\n"
"\t-c\t\tclient side\n"
"\t-I\t\tSource address to bind to for client.\n"
"\t-s\t\tserver side.  To bind to any address with IPv6 use -a ::0\n"
"\t-v\t\tdisplay ping data to stdout\n"
"\t-V\t\tvalidate ping data\n"
"\t-d\t\tdebug printfs\n"
"\t-S size \tping data size (%d to %d, default 64)\n"
"\t-C count\tping count times (default: until interrupted)\n"
"\t-a addr\t\taddress\n"
"\t-p port\t\tport (default 7174)\n"
"\t-P\t\tpersistent server mode: one connection after another\n"
"\t-q\t\tuse self-created, self-modified QP\n"
"\t--netdev=IF\tthe interface to send RoCE v2 frames on (required)\n"
"\t--link=packet|xdp  its port: AF_PACKET (default) or AF_XDP\n"
"\t--xdp-mode=auto|native|generic  XDP mode for --link xdp\n"
"\t--ip=A.B.C.D\tour IPv4 (default: the interface's)\n"
"\t--iba-strict\tloss recovery as IBA says alone: no adaptive window,\n"
"\t\t\ttimer or tail-loss probe (docs/cc.md)\n"
"\t-h, --help\tthis text\n"
"Exit status: 0, 255 when the run fails, 2 for bad usage.\n",
		prog, prog, RPING_MIN_BUFSIZE, RPING_BUFSIZE - 1);
}

static int bad(const char *what, const char *a)
{
	fprintf(stderr, "%s: invalid %s '%s' (try --help)\n", prog, what, a);
	return 2;
}

static bool num(const char *a, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(a, &end, 10);
	return !errno && end != a && !*end && *v >= lo && *v <= hi;
}

/* rping's get_addr: a numeric IPv4 or IPv6 address (no name lookups) */
static bool get_addr(const char *a, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *res;

	if (getaddrinfo(a, NULL, &hints, &res))
		return false;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return ss->ss_family == AF_INET || ss->ss_family == AF_INET6;
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "help", 0, NULL, 'h' }, { "netdev", 1, NULL, OPT_NETDEV },
		{ "link", 1, NULL, OPT_LINK }, { "xdp-mode", 1, NULL, OPT_XDP_MODE },
		{ "ip", 1, NULL, OPT_IP }, { "iba-strict", 0, NULL, OPT_IBA_STRICT },
		{ NULL, 0, NULL, 0 },
	};
	struct in_addr in;
	long v;
	int c;

	o->role = -1;
	roce_cc_options_init(&o->cc);
	o->r.size = 64;
	o->r.port = 7174;
	while ((c = getopt_long(argc, argv, "a:I:Pp:C:S:scvVdqh", lo, NULL)) != -1) {
		switch (c) {
		case 'a': if (!get_addr(optarg, &o->r.addr)) return bad("address", optarg);
			o->have_addr = true; break;
		case 'I': if (!get_addr(optarg, &o->r.src)) return bad("source address", optarg);
			break;
		case 'P': o->r.persistent = true; break;
		case 'p': if (!num(optarg, 1, 65535, &v)) return bad("port", optarg);
			o->r.port = (uint16_t)v; break;
		case 's': o->role = 1; break;
		case 'c': o->role = 0; break;
		case 'S': if (!num(optarg, RPING_MIN_BUFSIZE, RPING_BUFSIZE - 1, &v)) {
				fprintf(stderr, "Invalid size %s (valid range is %d to %d)\n",
					optarg, RPING_MIN_BUFSIZE, RPING_BUFSIZE);
				return 2;
			}
			o->r.size = (int)v; break;
		case 'C': if (!num(optarg, 0, INT_MAX, &v)) {
				fprintf(stderr, "Invalid count %s\n", optarg);
				return 2;
			}
			o->r.count = (int)v; break;
		case 'v': o->r.verbose = true; break;
		case 'V': o->r.validate = true; break;
		case 'd': o->r.debug = true; break;
		case 'q': o->r.self_qp = true; break;
		case 'h': usage(stdout); return -1;
		case OPT_NETDEV: o->netdev = optarg; break;
		case OPT_LINK: if (roce_link_kind_parse(optarg, &o->link))
				return bad("--link (packet or xdp)", optarg);
			break;
		case OPT_XDP_MODE: if (roce_afxdp_mode_parse(optarg, &o->xdp_mode))
				return bad("--xdp-mode (auto, native or generic)", optarg);
			break;
		case OPT_IP: if (inet_pton(AF_INET, optarg, &in) != 1 || !in.s_addr)
				return bad("--ip", optarg);
			o->ip = ntohl(in.s_addr); break;
		case OPT_IBA_STRICT: o->cc.iba_strict = true; break;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", prog, argv[optind]);
		return 2;
	}
	if (o->role < 0) {
		usage(stderr);
		return 2;
	}
	if (!o->role && !o->have_addr) {
		fprintf(stderr, "%s: the client needs the server's address (-a)\n", prog);
		return 2;
	}
	if (!o->netdev) {
		fprintf(stderr, "%s: give the interface with --netdev IFNAME (try --help)\n", prog);
		return 2;
	}
	o->r.server = o->role == 1;
	return 0;
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/* The CM's resolver: ARP or neighbour discovery on the endpoint's port */
static int resolve(void *arg, int family, const uint8_t *addr, unsigned ms, uint8_t mac[6])
{
	struct perf_ep *ep = arg;
	uint32_t ip;

	(void)ms;
	if (family == AF_INET) {
		memcpy(&ip, addr, 4);
		return perf_ep_resolve(ep, ntohl(ip), mac);
	}
	return perf_ep_resolve6(ep, addr, mac);
}

/* -q: a QP of rping's own, to INIT with no rights (rping_create_qp's
   self_create_qp branch); the CM's attributes move it on */
static int create_own_qp(struct rping *r, const struct roce_qp_init_attr *qa)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_INIT, .pkey = 0xFFFF };
	int rc = roce_create_qp_status(r->ep.pd, qa, &r->qp);

	if (rc == ROCE_OK)
		rc = roce_modify_qp(r->qp, &at,
				    ROCE_QP_STATE | ROCE_QP_PKEY_INDEX | ROCE_QP_ACCESS_FLAGS);
	return rc;
}

/* rping_self_modify_qp: INIT, RTR and RTS with what rdma_init_qp_attr gives */
static int self_modify_qp(struct rping *r, struct roce_cm_id *id)
{
	static const enum roce_qp_state steps[] = { ROCE_QPS_INIT, ROCE_QPS_RTR, ROCE_QPS_RTS };

	for (unsigned i = 0; i < 3; i++) {
		struct roce_qp_attr at = { .qp_state = steps[i] };
		unsigned mask;
		int rc = roce_cm_init_qp_attr(id, &at, &mask);

		if (rc == ROCE_OK)
			rc = roce_modify_qp(r->qp, &at, mask);
		if (rc != ROCE_OK) {
			fprintf(stderr, "rping_modify_qp: %s\n", roce_status_str(rc));
			return -1;
		}
	}
	return 0;
}

/* The QP of id: the CM's, or with -q rping's own */
static void destroy_qp(struct rping *r, struct roce_cm_id *id)
{
	if (r->self_qp && r->qp)
		roce_destroy_qp(r->qp);
	else
		roce_cm_destroy_qp(id);
	r->qp = NULL;
}

/* What rping_setup_qp makes: an RC QP, 16 sends, 2 receives, on the one CQ */
static int setup_qp(struct rping *r, struct roce_cm_id *id)
{
	struct roce_qp_init_attr qa = {
		.send_cq = r->ep.scq, .recv_cq = r->ep.rcq, .qp_type = ROCE_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 2, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	int rc = r->self_qp ? create_own_qp(r, &qa) : roce_cm_create_qp(id, r->ep.pd, &qa);

	if (rc) {
		fprintf(stderr, "setup_qp failed: %s\n", roce_status_str(rc));
		return -1;
	}
	if (!r->self_qp)
		r->qp = roce_cm_id_qp(id);
	DEBUG_LOG(r, "created qp %p\n", (void *)r->qp);
	if (rping_post_recv(r)) {
		fprintf(stderr, "ibv_post_recv failed\n");
		return -1;
	}
	return 0;
}

/* rping's rping_init_conn_param (-q: with the QP's number) */
static struct roce_conn_param conn_param(const struct rping *r)
{
	return (struct roce_conn_param){
		.responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
		.rnr_retry_count = 7, .qp_num = r->self_qp ? roce_qp_num(r->qp) : 0,
	};
}

/* rping_disconnect: -q moves its QP to ERR first */
static void disconnect(struct rping *r, struct roce_cm_id *id)
{
	struct roce_qp_attr at = { .qp_state = ROCE_QPS_ERR };

	if (r->self_qp && r->qp)
		roce_modify_qp(r->qp, &at, ROCE_QP_STATE);
	roce_cm_disconnect(id);
}

/* Waits (up to ms) for event want; anything else in between is handled. */
static int wait_event(struct rping *r, int want, unsigned ms, struct roce_cm_id **child)
{
	for (unsigned t = 0; t < ms; t += 100) {
		int e = rping_cm_event(r, 100, child);

		if (e == want)
			return 0;
		if (e == RPING_EV_ERROR)
			return -1;
	}
	return -1;
}

static int run_server_once(struct rping *r)
{
	struct roce_cm_id *child = NULL;
	int rc;

	/* rping waits for its connect request without a time limit */
	while (rping_cm_event(r, 1000, &child) != ROCE_CM_EVENT_CONNECT_REQUEST || !child)
		;
	r->child = child;
	r->disconnected = false;
	rc = setup_qp(r, child);
	if (!rc && r->self_qp)
		rc = self_modify_qp(r, child);
	if (!rc) {
		struct roce_conn_param cp = conn_param(r);

		DEBUG_LOG(r, "accepting client connection request\n");
		if (roce_cm_accept(child, &cp) ||
		    wait_event(r, ROCE_CM_EVENT_ESTABLISHED, 10000, NULL)) {
			fprintf(stderr, "connect error %d\n", -1);
			rc = -1;
		}
	}
	if (!rc && (rc = rping_test_server(r)) != 0)
		fprintf(stderr, "rping server failed: %d\n", rc);
	disconnect(r, child);
	if (!r->disconnected)
		wait_event(r, ROCE_CM_EVENT_DISCONNECTED, 3000, NULL);
	destroy_qp(r, child);
	roce_cm_destroy_id(child);
	r->child = NULL;
	return rc;
}

static int run_server(struct rping *r)
{
	int rc;

	if (!r->addr.ss_family)
		r->addr.ss_family = AF_INET; /* INADDR_ANY */
	set_port(&r->addr, r->port);
	if ((rc = roce_cm_bind_addr(r->id, (struct sockaddr *)&r->addr)) != 0) {
		fprintf(stderr, "rdma_bind_addr: %s\n", roce_status_str(rc));
		return -1;
	}
	DEBUG_LOG(r, "rdma_bind_addr successful\n");
	DEBUG_LOG(r, "rdma_listen\n");
	if ((rc = roce_cm_listen(r->id, 3)) != 0) {
		fprintf(stderr, "rdma_listen: %s\n", roce_status_str(rc));
		return -1;
	}
	do {
		rc = run_server_once(r);
	} while (r->persistent);
	return rc;
}

static int run_client(struct rping *r)
{
	int rc;

	set_port(&r->addr, r->port);
	rc = roce_cm_resolve_addr(r->id, r->src.ss_family ? (struct sockaddr *)&r->src : NULL,
				  (struct sockaddr *)&r->addr, 2000);
	if (rc) {
		fprintf(stderr, "rdma_resolve_addr: %s\n", roce_status_str(rc));
		return -1;
	}
	if (wait_event(r, ROCE_CM_EVENT_ADDR_RESOLVED, 3000, NULL) ||
	    roce_cm_resolve_route(r->id, 2000) ||
	    wait_event(r, ROCE_CM_EVENT_ROUTE_RESOLVED, 3000, NULL)) {
		fprintf(stderr, "waiting for addr/route resolution state %d\n", -1);
		return -1;
	}
	DEBUG_LOG(r, "rdma_resolve_addr - rdma_resolve_route successful\n");
	if (setup_qp(r, r->id))
		return -1;
	struct roce_conn_param cp = conn_param(r);

	if ((rc = roce_cm_connect(r->id, &cp)) != 0) {
		fprintf(stderr, "rdma_connect: %s\n", roce_status_str(rc));
		return -1;
	}
	/* the REQ's resends take up to ~70 s (rdma_cm's 15 of 4.6 s); -q:
	   CONNECT_RESPONSE, then the QP moved and rdma_establish */
	if (wait_event(r, r->self_qp ? ROCE_CM_EVENT_CONNECT_RESPONSE : ROCE_CM_EVENT_ESTABLISHED,
		       80000, NULL) ||
	    (r->self_qp && (self_modify_qp(r, r->id) || roce_cm_establish(r->id)))) {
		fprintf(stderr, "connect error %d\n", -1);
		rc = -1;
	} else {
		DEBUG_LOG(r, "rdma_connect successful\n");
		rc = rping_test_client(r);
		if (rc)
			fprintf(stderr, "rping client failed: %d\n", rc);
		disconnect(r, r->id);
		if (!r->disconnected)
			wait_event(r, ROCE_CM_EVENT_DISCONNECTED, 3000, NULL);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct rping *r = &o.r;
	struct perf_ep_config ec = { 0 };
	struct roce_cm_attr ca = { 0 };
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ec.netdev = o.netdev;
	ec.link = o.link;
	ec.xdp_mode = o.xdp_mode;
	ec.ip = o.ip;
	ec.nqp = 1;
	ec.one_cq = 64;
	ec.events = true; /* the engine on its own thread, as the CM needs */
	ec.max_buf = 2u * RPING_BUFSIZE + 4096;
	ec.sq_depth = 16;
	ec.rq_depth = 2;
	ec.timeout_ms = 2000;
	ec.cc = &o.cc;
	if (perf_ep_open(&r->ep, &ec) ||
	    perf_ep_buffer(&r->ep, 2u * RPING_BUFSIZE + 64, 4096,
			   ROCE_ACCESS_LOCAL_WRITE | ROCE_ACCESS_REMOTE_READ |
			   ROCE_ACCESS_REMOTE_WRITE)) {
		fprintf(stderr, "%s: %s\n", prog, r->ep.err);
		perf_ep_close(&r->ep);
		return 255;
	}
	r->rdma_buf = r->ep.buf;
	r->start_buf = r->ep.buf + RPING_BUFSIZE;
	r->recv_buf = r->ep.buf + 2 * RPING_BUFSIZE;
	r->send_buf = r->recv_buf + 32;
	ca.ctx = r->ep.ctx;
	ca.pd = r->ep.pd;
	ca.resolve = resolve;
	ca.resolve_arg = &r->ep;
	rc = roce_cm_open(&ca, &r->cm);
	if (rc) {
		fprintf(stderr, "%s: the CM: %s\n", prog, roce_status_str(rc));
		perf_ep_close(&r->ep);
		return 255;
	}
	r->ch = roce_cm_create_event_channel(r->cm);
	if (!r->ch || roce_cm_create_id(r->ch, &r->id, r, ROCE_PS_TCP)) {
		fprintf(stderr, "rdma_create_id: out of memory\n");
		rc = -1;
	} else {
		DEBUG_LOG(r, "created cm_id %p\n", (void *)r->id);
		rc = r->server ? run_server(r) : run_client(r);
		destroy_qp(r, r->id);
		DEBUG_LOG(r, "destroy cm_id %p\n", (void *)r->id);
		roce_cm_destroy_id(r->id);
	}
	/* events of IDs still in timewait may be queued: taken with the channel */
	if (r->ch && roce_cm_destroy_event_channel(r->ch) == ROCE_OK &&
	    roce_cm_close(r->cm) != ROCE_OK)
		fprintf(stderr, "%s: the CM stays busy\n", prog);
	perf_ep_close(&r->ep);
	return rc ? 255 : 0;
}
