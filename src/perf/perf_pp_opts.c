/* SPDX-License-Identifier: MIT */
/* The pingpong tools' shared options (perf_pp_opts.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "perf/perf_pp_opts.h"
#include "roce/status.h"

bool perf_pp_num(const char *s, unsigned long min, unsigned long max, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (end == s || *end || *s == '-' || v < min || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

int perf_pp_bad(const char *prog, const char *what, const char *val)
{
	fprintf(stderr, "%s: bad %s '%s' (try --help)\n", prog, what, val);
	return 2;
}

int perf_pp_net_opt(const char *prog, int c, const char *a, struct perf_pp_net *o)
{
	struct in_addr in;

	switch (c) {
	case 'g':
		if (perf_pp_gid_opt(&o->gid, a))
			return perf_pp_bad(prog, "GID index", a);
		return 0;
	case PERF_PP_OPT_NETDEV: o->netdev = a; return 0;
	case PERF_PP_OPT_LINK:
		if (roce_link_kind_parse(a, &o->link))
			return perf_pp_bad(prog, "--link (packet or xdp)", a);
		return 0;
	case PERF_PP_OPT_XDP_MODE:
		if (roce_afxdp_mode_parse(a, &o->xdp_mode))
			return perf_pp_bad(prog, "--xdp-mode (auto, native or generic)", a);
		return 0;
	case PERF_PP_OPT_IP:
		if (inet_pton(AF_INET, a, &in) != 1 || !in.s_addr)
			return perf_pp_bad(prog, "--ip", a);
		o->ip = ntohl(in.s_addr);
		return 0;
	case PERF_PP_OPT_IP6:
		switch (perf_pp_ip6_opt(&o->gid, a)) {
		case ROCE_OK: return 0;
		case ROCE_E_FULL: return perf_pp_bad(prog, "--ip6 (too many)", a);
		default: return perf_pp_bad(prog, "--ip6 (a unicast IPv6 address)", a);
		}
	case PERF_PP_OPT_TIMEOUT:
		if (!perf_pp_num(a, 1, 86400, &o->timeout_s))
			return perf_pp_bad(prog, "timeout", a);
		return 0;
	case PERF_PP_OPT_COUNTERS: o->counters = true; return 0;
	case PERF_PP_OPT_SELFTEST: o->selftest = true; return 0;
	case PERF_PP_OPT_IBA_STRICT: o->cc.iba_strict = true; return 0;
	default: return 1;
	}
}
