/* SPDX-License-Identifier: MIT */
/*
 * The CM's status: every ID with its connection's state, how long it has
 * been there and what it waits for, and the CM's counters. It is what a
 * user reads when a connection hangs ("req_sent for 3 s, 4 of 15 REQs
 * sent, no answer": the peer's QP1 is not reached), as `rdma resource
 * show cm_id` and the MAD agent's counters are on Linux.
 *
 * roce_cm_print_status() writes it to a stream. The CM thread also serves
 * it on an abstract unix socket, ROCE_CM_STATUS_PREFIX "<pid>.<n>", in the
 * process's network namespace: `rocectl cm` lists and reads them. Only
 * the CM's own user (or root) is answered; a request is one line, "text"
 * or "json"; the answer is the status, then the socket closes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cm/rdma_cm_status.h"
#include "roce/status.h"

/* ---- formatting ------------------------------------------------------------ */

static void fmt_addr(const struct sockaddr_storage *ss, char *out, size_t cap)
{
	char ip[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
		snprintf(out, cap, "%s:%u", ip, ntohs(a->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
		snprintf(out, cap, "[%s]:%u", ip, ntohs(a->sin6_port));
	} else {
		snprintf(out, cap, "-");
	}
}

/* What the ID is doing, in librdmacm's words where it has them. */
static const char *id_state(const struct roce_cm_id *id, const struct cm_conn_info *ci)
{
	if (id->listener >= 0)
		return "listen";
	if (ci)
		return cm_state_name(ci->state);
	if (id->route_resolved)
		return "route_resolved";
	return id->addr_resolved ? "addr_resolved" : "idle";
}

static const char *id_role(const struct roce_cm_id *id, const struct cm_conn_info *ci)
{
	if (id->listener >= 0)
		return "listener";
	if (!ci)
		return "-";
	return ci->active ? "active" : "passive";
}

struct id_row {
	const struct roce_cm_id *id;
	struct cm_conn_info ci;
	bool has_conn;
	char src[64], dst[64];
};

static void id_row(struct cm *c, const struct roce_cm_id *id, struct id_row *r)
{
	r->id = id;
	r->has_conn = id->conn >= 0 && cm_conn_info(c, id->conn, &r->ci) == ROCE_OK;
	fmt_addr(&id->src, r->src, sizeof(r->src));
	fmt_addr(&id->dst, r->dst, sizeof(r->dst));
}

static void print_ids_text(struct roce_cm *cm, struct cm *c, FILE *f)
{
	unsigned n = 0;

	fprintf(f, "  %-3s %-8s %-14s %9s %7s %9s %-8s %-8s %-22s %s\n", "id", "role",
		"state", "in state", "resends", "timeout", "qpn", "peer qpn", "local",
		"remote");
	for (const struct roce_cm_id *id = cm->ids; id; id = id->next, n++) {
		struct id_row r;
		char since[16] = "-", rs[16] = "-", to[16] = "-", qpn[12] = "-", pq[12] = "-";

		if (id->destroyed && id->conn < 0)
			continue;
		id_row(c, id, &r);
		if (r.has_conn) {
			snprintf(since, sizeof(since), "%.2f s", r.ci.in_state_us / 1e6);
			if (r.ci.max_retries)
				snprintf(rs, sizeof(rs), "%u/%u", r.ci.retries, r.ci.max_retries);
			if (r.ci.timer_on)
				snprintf(to, sizeof(to), "%.2f s", r.ci.next_timeout_us / 1e6);
			snprintf(qpn, sizeof(qpn), "0x%06" PRIx32, r.ci.local_qpn);
			if (r.ci.remote_qpn)
				snprintf(pq, sizeof(pq), "0x%06" PRIx32, r.ci.remote_qpn);
		} else if (id->qp) {
			snprintf(qpn, sizeof(qpn), "0x%06" PRIx32, roce_qp_num(id->qp));
		}
		fprintf(f, "  %-3u %-8s %-14s %9s %7s %9s %-8s %-8s %-22s %s\n", n,
			id_role(id, r.has_conn ? &r.ci : NULL),
			id_state(id, r.has_conn ? &r.ci : NULL), since, rs, to, qpn, pq, r.src,
			id->listener >= 0 ? "-" : r.dst);
	}
}

static void print_ids_json(struct roce_cm *cm, struct cm *c, FILE *f)
{
	unsigned n = 0;
	bool first = true;

	fputs("\"ids\":[", f);
	for (const struct roce_cm_id *id = cm->ids; id; id = id->next, n++) {
		struct id_row r;

		if (id->destroyed && id->conn < 0)
			continue;
		id_row(c, id, &r);
		fprintf(f, "%s{\"id\":%u,\"role\":\"%s\",\"state\":\"%s\",\"local\":\"%s\","
			"\"remote\":\"%s\"", first ? "" : ",", n,
			id_role(id, r.has_conn ? &r.ci : NULL),
			id_state(id, r.has_conn ? &r.ci : NULL), r.src,
			id->listener >= 0 ? "" : r.dst);
		if (r.has_conn)
			fprintf(f, ",\"in_state_us\":%" PRIu64 ",\"resends\":%u,\"max_resends\":%u,"
				"\"timeout_us\":%" PRIu64 ",\"qpn\":%" PRIu32 ",\"peer_qpn\":%" PRIu32
				",\"local_comm_id\":%" PRIu32 ",\"remote_comm_id\":%" PRIu32
				",\"service_id\":\"0x%016" PRIx64 "\"",
				r.ci.in_state_us, r.ci.retries, r.ci.max_retries,
				r.ci.timer_on ? r.ci.next_timeout_us : 0, r.ci.local_qpn,
				r.ci.remote_qpn, r.ci.local_id, r.ci.remote_id, r.ci.service_id);
		fputc('}', f);
		first = false;
	}
	fputc(']', f);
}

/* The counters as name/value pairs, for both formats. */
struct counter_list {
	unsigned n;
	char name[64][32];
	uint64_t val[64];
};

static void add(struct counter_list *l, const char *prefix, const char *name, uint64_t v)
{
	snprintf(l->name[l->n], sizeof(l->name[0]), "%s%s", prefix, name);
	l->val[l->n++] = v;
}

/* The lock is held. The names are roce_cm_print_counters' (without its
   "cm_" prefix): the same counters read the same everywhere. */
static void counter_list(struct roce_cm *cm, struct counter_list *l)
{
	static const char *const msg[9] = {
		"req", "mra", "rej", "rep", "rtu", "dreq", "drep", "sidr_req", "sidr_rep",
	};
	const struct cm_counters *k = cm_counters(cm_qp1_cm(cm->port));
	const struct cm_qp1_stats *q = cm_qp1_stats(cm->port);

	l->n = 0;
	add(l, "", "mads_rx", k->rx_mads);
	add(l, "", "mads_tx", k->tx_mads);
	add(l, "", "resends", k->retries);
	add(l, "", "send_failed", k->tx_failed);
	for (int a = 0; a < 9; a++) {
		add(l, msg[a], "_rx", k->rx_attr[a]);
		add(l, msg[a], "_tx", k->tx_attr[a]);
	}
	for (int e = 1; e < MAD_ERR_COUNT; e++)
		add(l, "dropped_", mad_err_name(e), k->rx_dropped[e]);
	add(l, "", "unknown_conn", k->rx_unknown_conn);
	add(l, "", "stale", k->rx_stale);
	add(l, "", "repeated_req", k->rx_dup_req);
	add(l, "", "repeated_rep", k->rx_dup_rep);
	add(l, "", "rej_sent", k->rej_sent);
	add(l, "", "rej_rcvd", k->rej_rcvd);
	add(l, "", "backlog_full", k->backlog_full);
	add(l, "", "no_slot", k->no_slot);
	add(l, "", "expired", k->timeouts);
	add(l, "qp1_", "rx_bad", q->rx_bad);
	add(l, "qp1_", "tx_no_mac", q->tx_no_mac);
	add(l, "qp1_", "tx_full", q->tx_full);
	add(l, "qp1_", "tx_error", q->tx_error);
	add(l, "qp1_", "modify_failed", q->modify_failed);
}

void roce_cm_print_counters(struct roce_cm *cm, FILE *f, int all)
{
	struct counter_list l;

	if (!cm || !f)
		return;
	pthread_mutex_lock(&cm->lock);
	counter_list(cm, &l);
	pthread_mutex_unlock(&cm->lock);
	for (unsigned i = 0; i < l.n; i++)
		if (all || l.val[i])
			fprintf(f, "cm_%s %llu\n", l.name[i], (unsigned long long)l.val[i]);
}

int roce_cm_print_status(struct roce_cm *cm, FILE *f, bool json)
{
	struct counter_list l;
	struct cm *c;

	if (!cm || !f)
		return ROCE_E_INVAL;
	pthread_mutex_lock(&cm->lock);
	c = cm_qp1_cm(cm->port);
	counter_list(cm, &l);
	if (json) {
		fprintf(f, "{\"name\":\"%s\",\"pid\":%ld,", cm->status_name, (long)getpid());
		print_ids_json(cm, c, f);
		fputs(",\"counters\":{", f);
		for (unsigned i = 0; i < l.n; i++)
			fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", l.name[i], l.val[i]);
		fputs("}}\n", f);
	} else {
		fprintf(f, "CM %s (pid %ld): %u connection(s) in use\n", cm->status_name,
			(long)getpid(), cm_conns_in_use(c));
		print_ids_text(cm, c, f);
		fputs("  counters:", f);
		for (unsigned i = 0, col = 0; i < l.n; i++) {
			/* the zero ones are noise when looking for a cause */
			if (!l.val[i] && strncmp(l.name[i], "mads_", 5))
				continue;
			fprintf(f, "%s%s %" PRIu64, col++ % 6 ? ", " : "\n    ", l.name[i],
				l.val[i]);
		}
		fputc('\n', f);
	}
	pthread_mutex_unlock(&cm->lock);
	return ferror(f) ? ROCE_E_IO : ROCE_OK;
}

/* ---- the status socket ----------------------------------------------------- */

int rcm_status_open(struct roce_cm *cm)
{
	static atomic_uint seq;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, len;

	cm->status_fd = -1;
	len = snprintf(cm->status_name, sizeof(cm->status_name), "%s%ld.%u",
		       ROCE_CM_STATUS_PREFIX, (long)getpid(), atomic_fetch_add(&seq, 1));
	/* abstract: sun_path[0] is NUL, the name follows, no file to clean up */
	memcpy(sa.sun_path + 1, cm->status_name, (size_t)len);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ROCE_E_IO;
	if (bind(fd, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len)) ||
	    listen(fd, 4)) {
		close(fd);
		return ROCE_E_IO;
	}
	cm->status_fd = fd;
	return ROCE_OK;
}

void rcm_status_close(struct roce_cm *cm)
{
	if (cm->status_fd >= 0)
		close(cm->status_fd);
	cm->status_fd = -1;
}

static bool peer_allowed(int fd)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l))
		return false;
	return cr.uid == 0 || cr.uid == geteuid();
}

/* One pending request, if any; never blocks the CM thread for long. */
void rcm_status_serve(struct roce_cm *cm)
{
	const struct timeval tmo = { 0, 100000 };
	char req[16] = "";
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int fd;

	fd = accept4(cm->status_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (!peer_allowed(fd)) {
		close(fd);
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tmo, sizeof(tmo));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tmo, sizeof(tmo));
	if (recv(fd, req, sizeof(req) - 1, 0) < 0)
		req[0] = '\0';
	f = open_memstream(&text, &len);
	if (f) {
		roce_cm_print_status(cm, f, strncmp(req, "json", 4) == 0);
		fclose(f);
		for (size_t off = 0; off < len;) {
			ssize_t w = send(fd, text + off, len - off, MSG_NOSIGNAL);

			if (w <= 0)
				break;
			off += (size_t)w;
		}
		free(text);
	}
	close(fd);
}
