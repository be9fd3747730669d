/* SPDX-License-Identifier: MIT */
/*
 * Addresses of the drop-in librdmacm.so.1: bind, address and route
 * resolution (on the addresses of roce-run's interface, IPv4 and IPv6,
 * through the engine's CM: roce/cm.h), the ID's options, its ports, and
 * rdma_getaddrinfo (librdmacm's addrinfo.c: getaddrinfo(3) with the port
 * space and QP type added; there is no ib_acm to ask for routes).
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm/rc.h"
#include "roce/status.h"

static bool wildcard(const struct sockaddr *sa)
{
	static const struct in6_addr any6;

	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == 0;
	return !memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr, &any6, sizeof(any6));
}

/* AF_INET and AF_INET6 only: AF_IB names IB's own addresses (and the
   kernel's AF_IB support is what librdmacm asks before it uses them) */
static int addr_ok(const char *verb, const struct sockaddr *sa)
{
	if (!sa)
		return rc_err(EINVAL);
	if (sa->sa_family == AF_IB)
		return rc_refuse(verb, "AF_IB addresses are not supported (RoCE: IPv4 and "
				 "IPv6 addresses only)", EOPNOTSUPP);
	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return rc_err(EAFNOSUPPORT);
	return 0;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rc_id *r = RC_OF(rc_id, id);
	int st;

	if (!id || addr_ok("rdma_bind_addr", addr))
		return -1;
	st = roce_cm_bind_addr(r->rid, addr);
	if (st == ROCE_E_INVAL)
		return rc_err(EADDRNOTAVAIL);  /* not an address of the interface's */
	if (st != ROCE_OK)
		return rc_status(st);
	/* bound to an address of the device's: the ID is the device's (the
	   wildcard and a loopback address bind no device, as with the
	   kernel's rdma_cm) */
	if (!wildcard(addr) && !roce_cm_addr_is_loopback(addr))
		rc_id_bind_device(r);
	rc_id_fill_addr(r);
	return 0;
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      struct sockaddr *dst_addr, int timeout_ms)
{
	struct rc_id *r = RC_OF(rc_id, id);
	int st;

	if (!id || addr_ok("rdma_resolve_addr", dst_addr) ||
	    (src_addr && addr_ok("rdma_resolve_addr", src_addr)))
		return -1;
	/* the event (ADDR_RESOLVED or ADDR_ERROR) fills the route */
	st = roce_cm_resolve_addr(r->rid, src_addr, dst_addr, timeout_ms);
	if (st == ROCE_E_INVAL)
		return rc_err(EADDRNOTAVAIL); /* no address of ours of that family */
	if (st != ROCE_OK)
		return rc_status(st);
	memcpy(&id->route.addr.dst_storage, dst_addr,
	       dst_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
					      : sizeof(struct sockaddr_in6));
	return rc_complete(r);
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	struct rc_id *r = RC_OF(rc_id, id);
	int st;

	if (!id)
		return rc_err(EINVAL);
	st = roce_cm_resolve_route(r->rid, timeout_ms);
	if (st != ROCE_OK)
		return rc_status(st);
	return rc_complete(r);
}

static __be16 sa_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)sa)->sin_port;
	if (sa->sa_family == AF_INET6)
		return ((const struct sockaddr_in6 *)sa)->sin6_port;
	return 0;
}

__be16 rdma_get_src_port(struct rdma_cm_id *id)
{
	return sa_port(&id->route.addr.src_addr);
}

__be16 rdma_get_dst_port(struct rdma_cm_id *id)
{
	return sa_port(&id->route.addr.dst_addr);
}

/*
 * The kernel's rdma_set_option (ucma_set_option_id): each option's size
 * exactly, EINVAL else; ENOSYS for an option it does not know. TOS is the
 * traffic class of the QP's address vector (and of the route), the ACK
 * timeout the QP's local ACK timeout at RTS. REUSEADDR and AFONLY are
 * kept: the engine's CM binds no socket port, so neither changes what it
 * accepts (a listener takes its port's requests, of either family).
 */
int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval,
		    size_t optlen)
{
	struct rc_id *r = RC_OF(rc_id, id);

	if (!id || !optval)
		return rc_err(EINVAL);
	if (level == RDMA_OPTION_IB)
		return rc_refuse("rdma_set_option RDMA_OPTION_IB", "IB path records are not "
				 "supported (RoCE resolves its route from the addresses)",
				 EOPNOTSUPP);
	if (level != RDMA_OPTION_ID)
		return rc_err(ENOSYS);
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(uint8_t))
			return rc_err(EINVAL);
		if (optname == RDMA_OPTION_ID_TOS)
			r->tos = *(uint8_t *)optval, r->tos_set = true;
		else
			r->ack_timeout = *(uint8_t *)optval, r->ack_timeout_set = true;
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		return optlen == sizeof(int) ? 0 : rc_err(EINVAL);
	default:
		return rc_err(ENOSYS);
	}
}

/* ---- rdma_getaddrinfo -------------------------------------------------------- */

static int copy_sa(const struct sockaddr *sa, socklen_t len, struct sockaddr **out,
		   socklen_t *out_len)
{
	*out = malloc(len);
	if (!*out)
		return -1;
	memcpy(*out, sa, len);
	*out_len = len;
	return 0;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res) {
		struct rdma_addrinfo *next = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = next;
	}
}

/* As librdmacm's: the node is the destination, or with RAI_PASSIVE our
 * own (the wildcard without a node); the hints' port space and QP type,
 * else TCP and RC (UDP and UD go together); the hints' source address
 * where none was found; getaddrinfo(3)'s error codes. Neither node nor
 * service: the hints' fields and addresses as they are (libfabric's
 * verbs provider asks so with the peer's address). */
int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	struct addrinfo ai = { 0 }, *gai = NULL;
	struct rdma_addrinfo *r;
	bool passive = hints && (hints->ai_flags & RAI_PASSIVE);
	int ret;

	if (!res || (!node && !service && !hints))
		return rc_err(EINVAL);
	if (hints && hints->ai_family == AF_IB)
		return rc_refuse("rdma_getaddrinfo", "AF_IB addresses are not supported "
				 "(RoCE: IPv4 and IPv6 addresses only)", EOPNOTSUPP);
	r = calloc(1, sizeof(*r));
	if (!r)
		return rc_err(ENOMEM);
	if (hints) {
		r->ai_flags = hints->ai_flags;
		r->ai_family = hints->ai_family;
		r->ai_qp_type = hints->ai_qp_type;
		r->ai_port_space = hints->ai_port_space;
	}
	if (!r->ai_port_space && (node || service))
		r->ai_port_space = r->ai_qp_type == IBV_QPT_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
	if (!r->ai_qp_type && (node || service))
		r->ai_qp_type = r->ai_port_space == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;
	ai.ai_family = r->ai_family;
	ai.ai_flags = (passive ? AI_PASSIVE : 0) |
		      (r->ai_flags & RAI_NUMERICHOST ? AI_NUMERICHOST : 0);
	ai.ai_socktype = r->ai_port_space == RDMA_PS_UDP ? SOCK_DGRAM : SOCK_STREAM;
	if (node || service) {
		ret = getaddrinfo(node, service, &ai, &gai);
		if (ret) {
			free(r);
			return ret;
		}
		r->ai_family = gai->ai_family;
		ret = passive ? copy_sa(gai->ai_addr, gai->ai_addrlen, &r->ai_src_addr,
					&r->ai_src_len)
			      : copy_sa(gai->ai_addr, gai->ai_addrlen, &r->ai_dst_addr,
					&r->ai_dst_len);
		if (!ret && gai->ai_canonname)
			r->ai_dst_canonname = strdup(gai->ai_canonname);
		freeaddrinfo(gai);
		if (ret) {
			rdma_freeaddrinfo(r);
			return rc_err(ENOMEM);
		}
	} else if (hints->ai_dst_addr && hints->ai_dst_len &&
		   copy_sa(hints->ai_dst_addr, hints->ai_dst_len, &r->ai_dst_addr,
			   &r->ai_dst_len)) {
		rdma_freeaddrinfo(r);
		return rc_err(ENOMEM);
	}
	if (!r->ai_src_len && hints && hints->ai_src_addr && hints->ai_src_len &&
	    copy_sa(hints->ai_src_addr, hints->ai_src_len, &r->ai_src_addr, &r->ai_src_len)) {
		rdma_freeaddrinfo(r);
		return rc_err(ENOMEM);
	}
	if (hints && hints->ai_connect_len) {
		r->ai_connect = malloc(hints->ai_connect_len);
		if (!r->ai_connect) {
			rdma_freeaddrinfo(r);
			return rc_err(ENOMEM);
		}
		memcpy(r->ai_connect, hints->ai_connect, hints->ai_connect_len);
		r->ai_connect_len = hints->ai_connect_len;
	}
	*res = r;
	return 0;
}
