/* SPDX-License-Identifier: MIT */
/*
 * rocectl cc: the congestion-control block (roce/regs.h, docs/cc.md).
 *   cc                     the block: masks, ECN, window, timers, knobs
 *   cc set NAME=VALUE...   change fields and knobs, then CC_COMMIT
 *   cc qp QPN [window=KB]  a QP's current DCQCN rate, its own window and
 *                          recovery; with window=KB, set that window (0:
 *                          the block's)
 *   cc qp QPN recovery=R   the QP's own loss recovery: device (the block's
 *                          adaptive_rto and adaptive_window), none (IBA's
 *                          alone), rto, window or rto,window
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roce/cc.h"
#include "rocectl/ctl.h"

/* The block's own fields beside the DCQCN knobs, for set and the listing */
static const struct {
	const char *name, *what;
} fields[] = {
	{ "np_prio_mask", "priorities (DSCP >> 3) whose CE marks get CNPs" },
	{ "rp_prio_mask", "priorities whose QPs mark ECT and run DCQCN" },
	{ "ecn", "ECN field of an RP QP's packets: 2 ECT(0), 1 ECT(1)" },
	{ "adaptive_rto", "1: retransmit after the measured round trip" },
	{ "adaptive_window", "1: a window of one BDP that halves on loss" },
	{ "line_mbps", "DCQCN's line rate, Mbit/s" },
	{ "window_kb", "RC bound on unacknowledged KB (0: none)" },
	{ "rto_min_us", "the adaptive timer's floor, us" },
	{ "rtt_us", "the adaptive window's round trip until measured, us" },
};

static uint32_t *field_of(struct roce_cc_config *c, const char *name, uint32_t *tmp, int *kind)
{
	*kind = 0;
	if (!strcmp(name, "line_mbps"))
		return &c->line_mbps;
	if (!strcmp(name, "window_kb"))
		return &c->window_kb;
	if (!strcmp(name, "rto_min_us"))
		return &c->rto_min_us;
	if (!strcmp(name, "rtt_us"))
		return &c->rtt_us;
	*kind = 1;      /* a narrower field: through tmp */
	if (!strcmp(name, "np_prio_mask"))
		*tmp = c->np_prio_mask;
	else if (!strcmp(name, "rp_prio_mask"))
		*tmp = c->rp_prio_mask;
	else if (!strcmp(name, "ecn"))
		*tmp = c->ecn;
	else if (!strcmp(name, "adaptive_rto"))
		*tmp = c->adaptive_rto;
	else if (!strcmp(name, "adaptive_window"))
		*tmp = c->adaptive_window;
	else
		return NULL;
	return tmp;
}

static void store_narrow(struct roce_cc_config *c, const char *name, uint32_t v)
{
	if (!strcmp(name, "np_prio_mask"))
		c->np_prio_mask = (uint8_t)v;
	else if (!strcmp(name, "rp_prio_mask"))
		c->rp_prio_mask = (uint8_t)v;
	else if (!strcmp(name, "ecn"))
		c->ecn = (uint8_t)v;
	else if (!strcmp(name, "adaptive_rto"))
		c->adaptive_rto = v != 0;
	else if (!strcmp(name, "adaptive_window"))
		c->adaptive_window = v != 0;
}

static int show(struct ctl *c, const struct roce_cc_config *cc)
{
	unsigned n;
	const struct roce_dcqcn_knob *k = roce_dcqcn_knobs(&n);
	struct roce_cc_config tmp = *cc;

	if (c->json)
		fputs("{", stdout);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint32_t t, *v;
		int kind;

		v = field_of(&tmp, fields[i].name, &t, &kind);
		if (c->json)
			printf("%s\"%s\":%" PRIu32, i ? "," : "", fields[i].name, *v);
		else
			printf("  %-30s %10" PRIu32 "  %s\n", fields[i].name, *v, fields[i].what);
	}
	for (unsigned i = 0; i < n; i++) {
		uint32_t v = roce_dcqcn_get(&cc->dcqcn, &k[i]);

		if (c->json)
			printf(",\"%s\":%" PRIu32, k[i].name, v);
		else
			printf("  %-30s %10" PRIu32 "  %s%s%s%s\n", k[i].name, v, k[i].unit,
			       *k[i].unit ? "; " : "", k[i].what,
			       v != k[i].def ? " (changed)" : "");
	}
	if (c->json)
		fputs("}\n", stdout);
	return 0;
}

static int set(struct ctl *c, struct roce_cc_config *cc, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char name[64], *eq = strchr(argv[i], '='), *end;
		unsigned long v;
		uint32_t t, *f;
		int kind, rc;

		if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof(name))
			return ctl_fail(c, EXIT_USAGE, "cc set: '%s' is not NAME=VALUE", argv[i]);
		memcpy(name, argv[i], (size_t)(eq - argv[i]));
		name[eq - argv[i]] = '\0';
		v = strtoul(eq + 1, &end, 0);
		if (!eq[1] || *end || v > UINT32_MAX)
			return ctl_fail(c, EXIT_USAGE, "cc set: bad value in '%s'", argv[i]);
		if ((f = field_of(cc, name, &t, &kind))) {
			if (kind)
				store_narrow(cc, name, (uint32_t)v);
			else
				*f = (uint32_t)v;
			continue;
		}
		rc = roce_dcqcn_set(&cc->dcqcn, name, (uint32_t)v);
		if (rc == -1)
			return ctl_fail(c, EXIT_USAGE, "cc set: no field or knob '%s' (rocectl "
					"cc lists them)", name);
		if (rc == -2)
			return ctl_fail(c, EXIT_USAGE, "cc set: %s out of its range", argv[i]);
	}
	if (roce_cc_config_check(cc))
		return ctl_fail(c, EXIT_USAGE, "cc set: %s is out of range",
				roce_cc_config_check(cc));
	if (roce_drv_cc_write(&c->drv, cc) != ROCE_OK)
		return ctl_fail(c, EXIT_DEVICE, "cc set: the device refused the block (%s)",
				c->drv.err);
	return 0;
}

/* The QP's recovery words, CC_QP_RECOVERY's values by name */
static const struct {
	const char *name;
	uint32_t flags;
} recoveries[] = {
	{ "device", ROCE_RECOVERY_DEVICE },
	{ "none", ROCE_RECOVERY_OWN },
	{ "rto", ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_RTO },
	{ "window", ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_WINDOW },
	{ "rto,window", ROCE_RECOVERY_OWN | ROCE_RECOVERY_ADAPTIVE_RTO |
				ROCE_RECOVERY_ADAPTIVE_WINDOW },
};

static const char *recovery_name(uint32_t flags)
{
	for (size_t i = 0; i < sizeof(recoveries) / sizeof(recoveries[0]); i++)
		if (recoveries[i].flags == flags)
			return recoveries[i].name;
	return "?";
}

static int qp_recovery(struct ctl *c, uint32_t qpn, const char *name)
{
	for (size_t i = 0; i < sizeof(recoveries) / sizeof(recoveries[0]); i++)
		if (!strcmp(name, recoveries[i].name))
			return roce_drv_cc_qp_set_recovery(&c->drv, qpn, recoveries[i].flags) !=
					       ROCE_OK ? ctl_drv_fail(c) : 0;
	return ctl_fail(c, EXIT_USAGE, "cc qp: recovery='%s': want device, none, rto, "
			"window or rto,window", name);
}

/* cc qp QPN [window=KB | recovery=R] */
static int qp(struct ctl *c, const struct roce_cc_config *cc, int argc, char **argv)
{
	char *end;
	unsigned long qpn = strtoul(argv[0], &end, 0), kb;
	bool limited;
	uint32_t mbps, win, rec;

	if (!argv[0][0] || *end || qpn > 0xFFFFFF)
		return ctl_fail(c, EXIT_USAGE, "cc qp: bad QPN '%s'", argv[0]);
	if (argc == 2 && !strncmp(argv[1], "recovery=", 9))
		return qp_recovery(c, (uint32_t)qpn, argv[1] + 9);
	if (argc == 2) {
		if (strncmp(argv[1], "window=", 7) || !argv[1][7] ||
		    (kb = strtoul(argv[1] + 7, &end, 0), *end) || kb > (1u << 20))
			return ctl_fail(c, EXIT_USAGE, "cc qp: '%s': want window=KB, KB 0 to "
					"1048576 (0: the block's window_kb)", argv[1]);
		if (roce_drv_cc_qp_set_window(&c->drv, (uint32_t)qpn, (uint32_t)kb) != ROCE_OK)
			return ctl_drv_fail(c);
		return 0;
	}
	if (roce_drv_cc_qp_rate(&c->drv, (uint32_t)qpn, &limited, &mbps) != ROCE_OK ||
	    roce_drv_cc_qp_window(&c->drv, (uint32_t)qpn, &win) != ROCE_OK ||
	    roce_drv_cc_qp_recovery(&c->drv, (uint32_t)qpn, &rec) != ROCE_OK)
		return ctl_drv_fail(c);
	if (c->json) {
		printf("{\"qpn\":%lu,\"limited\":%s,\"rate_mbps\":%" PRIu32
		       ",\"window_kb\":%" PRIu32 ",\"window_own\":%s,\"recovery\":\"%s\"}\n",
		       qpn, limited ? "true" : "false", mbps, win ? win : cc->window_kb,
		       win ? "true" : "false", recovery_name(rec));
		return 0;
	}
	if (!mbps)
		printf("QP 0x%06lx: never rate-limited (line rate)\n", qpn);
	else
		printf("QP 0x%06lx: %" PRIu32 " Mbit/s%s\n", qpn, mbps,
		       limited ? ", limited by DCQCN (paced)" : " (line rate)");
	if (win)
		printf("QP 0x%06lx: window %" PRIu32 " KB (its own)\n", qpn, win);
	else if (cc->window_kb)
		printf("QP 0x%06lx: window %" PRIu32 " KB (the block's)\n", qpn, cc->window_kb);
	else
		printf("QP 0x%06lx: no window\n", qpn);
	if (rec)
		printf("QP 0x%06lx: recovery %s (its own)\n", qpn, recovery_name(rec));
	else
		printf("QP 0x%06lx: recovery%s%s (the block's)\n", qpn,
		       cc->adaptive_rto ? " rto" : "", cc->adaptive_window ? " window" :
		       cc->adaptive_rto ? "" : " none");
	return 0;
}

int cmd_cc(struct ctl *c, int argc, char **argv)
{
	struct roce_cc_config cc;

	if (roce_drv_cc_read(&c->drv, &cc) != ROCE_OK)
		return ctl_drv_fail(c);
	if (argc == 0)
		return show(c, &cc);
	if (!strcmp(argv[0], "set") && argc > 1)
		return set(c, &cc, argc - 1, argv + 1);
	if (!strcmp(argv[0], "qp") && (argc == 2 || argc == 3))
		return qp(c, &cc, argc - 1, argv + 1);
	return ctl_fail(c, EXIT_USAGE,
			"usage: rocectl cc [set NAME=VALUE... | qp QPN [window=KB | "
			"recovery=device|none|rto|window|rto,window]]");
}
