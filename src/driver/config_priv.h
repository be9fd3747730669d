/* SPDX-License-Identifier: MIT */
/* Config keys as data: one table per section kind (config_keys.c). */
#ifndef ROCE_DRIVER_CONFIG_PRIV_H
#define ROCE_DRIVER_CONFIG_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/driver.h"

enum cfg_kind {
	CFG_U8, CFG_U16, CFG_U32,	/* integers, decimal or 0x hex */
	CFG_U64,			/* also with a K/M/G/T suffix */
	CFG_MAC, CFG_IP, CFG_BOOL,
	CFG_QP_TYPE, CFG_QP_STATE, CFG_MTU, CFG_ACCESS_U8, CFG_ACCESS_U32,
	CFG_GID,			/* an IPv6 address: a QP's peer GID */
};

struct cfg_key {
	const char *name;
	enum cfg_kind kind;
	size_t off;			/* into the section's struct */
	uint64_t min, max;		/* integer kinds */
	bool required;
};

/* NULL-terminated; a section's "seen" mask has bit i for key i. */
extern const struct cfg_key roce_cfg_device_keys[];
extern const struct cfg_key roce_cfg_qp_keys[];
extern const struct cfg_key roce_cfg_mr_keys[];

/* Parses val into obj; on error writes the reason into why. */
int roce_cfg_set_value(const struct cfg_key *k, void *obj, const char *val,
		       char *why, size_t whylen);

void roce_cfg_qp_defaults(struct roce_qp_ctx *q, uint32_t qpn);
void roce_cfg_mr_defaults(struct roce_mr_ctx *m, uint32_t index);

/* Rules across keys of a finished [qp] (qp true) or [mr] section. */
int roce_cfg_check_obj(bool qp, void *obj, uint64_t seen, char *why,
		       size_t whylen);

#endif
