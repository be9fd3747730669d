/* SPDX-License-Identifier: MIT */
/*
 * The host driver: typed calls over a struct roce_bus, the seed's power-on
 * sequence (seed 000 section 3.3) driven by a configuration, and the seed's
 * register regression check (section 6.3: read every register back and
 * compare with the expected configuration).
 *
 * Every call checks every response. On failure it returns the status and
 * leaves a message in drv->err that names the register, its offset and the
 * response, e.g. "write MAC_LOW (0x004): slverr (AXI-Lite SLVERR: slave
 * error)".
 *
 * Register encodings chosen here (the data path reads them the same way):
 *   MAC  MAC_HIGH[15:8] = byte 0 (first on the wire), MAC_HIGH[7:0] =
 *        byte 1, MAC_LOW[31:24] = byte 2 ... MAC_LOW[7:0] = byte 5.
 *   IPv4 host-order value: 10.0.0.1 is 0x0A000001.
 */
#ifndef ROCE_DRIVER_H
#define ROCE_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "roce/bus.h"
#include "roce/layout.h"
#include "roce/params.h"
#include "roce/regs.h"

#define ROCE_DRV_ERR_LEN 256

struct roce_drv {
	struct roce_bus *bus;
	uint32_t cmd_timeout_ms;	/* table command BUSY poll limit */
	char err[ROCE_DRV_ERR_LEN];	/* why the last call failed */
};

struct roce_dev_info {
	uint32_t dev_id;
	uint32_t version;		/* major[31:16] minor[15:8] patch[7:0] */
	uint32_t qp_count;
	uint32_t mr_count;
	uint32_t mem_size_kb;
	uint32_t status;		/* STATUS register */
};

struct roce_endpoint {
	uint8_t mac[6];
	uint32_t ip;			/* IPv4, host order */
	uint16_t udp_port;
};

/*
 * A QP context and an MR entry are the structs the device's tables use
 * (roce/layout.h); these names stay for the driver's users.
 */
#define roce_qp_ctx roce_qp_cfg
#define roce_mr_ctx roce_mr_entry

/* The whole configuration a power-on sequence programs (see config files). */
struct roce_config {
	struct roce_endpoint local;
	struct roce_endpoint peer;
	bool loopback;			/* CTRL bit2 */
	uint32_t link_timeout_ms;	/* wait for link-ready */
	uint32_t qp_count;		/* the device's QP_COUNT (key qp_count);
					 * 0 = not stated */
	uint32_t n_qp;
	uint32_t n_mr;
	struct roce_qp_ctx qp[ROCE_CFG_MAX_QP];
	struct roce_mr_ctx mr[ROCE_CFG_MAX_MR];
};

/* ---- basic access ------------------------------------------------------ */

void roce_drv_init(struct roce_drv *drv, struct roce_bus *bus);
/* Register reads and writes that name the register in drv->err. */
int roce_drv_read(struct roce_drv *drv, uint32_t off, uint32_t *val);
/* The CC block (roce/cc.h): written and committed (ROCE_E_INVAL when the
 * device refuses it), read back; a QP's current DCQCN rate. */
struct roce_cc_config;
int roce_drv_cc_write(struct roce_drv *drv, const struct roce_cc_config *c);
int roce_drv_cc_read(struct roce_drv *drv, struct roce_cc_config *c);
int roce_drv_cc_qp_rate(struct roce_drv *drv, uint32_t qpn, bool *limited, uint32_t *mbps);
/* A QP's own bounded window (CC_QP_WINDOW_KB; 0: the block's window_kb):
   read, or written (ROCE_E_INVAL past 1 GiB). */
int roce_drv_cc_qp_window(struct roce_drv *drv, uint32_t qpn, uint32_t *kb);
int roce_drv_cc_qp_set_window(struct roce_drv *drv, uint32_t qpn, uint32_t kb);
/* A QP's own loss recovery (CC_QP_RECOVERY: roce/cc.h's
   roce_recovery_flags; 0: the block's): read, or written (ROCE_E_INVAL
   for bits without ROCE_RECOVERY_OWN or unknown ones). */
int roce_drv_cc_qp_recovery(struct roce_drv *drv, uint32_t qpn, uint32_t *flags);
int roce_drv_cc_qp_set_recovery(struct roce_drv *drv, uint32_t qpn, uint32_t flags);
/* A QP's own algorithm (CC_QP_ALGO; enum roce_cc_algo, -1: the block's
   algo): read, or written (ROCE_E_INVAL for an unknown one). */
int roce_drv_cc_qp_algo(struct roce_drv *drv, uint32_t qpn, int *algo);
int roce_drv_cc_qp_set_algo(struct roce_drv *drv, uint32_t qpn, int algo);
int roce_drv_write(struct roce_drv *drv, uint32_t off, uint32_t val);

/*
 * Reads DEV_ID, VERSION, sizes and STATUS. ROCE_E_NODEV when DEV_ID reads
 * all-ones (nothing behind the window), ROCE_E_UNSUPPORTED for another ID
 * or major version.
 */
int roce_drv_probe(struct roce_drv *drv, struct roce_dev_info *info);

/* CTRL: assert soft reset (engine disabled) or release it with enable. */
int roce_drv_soft_reset(struct roce_drv *drv);
int roce_drv_enable(struct roce_drv *drv, bool loopback);

int roce_drv_set_local(struct roce_drv *drv, const struct roce_endpoint *ep);
int roce_drv_set_peer(struct roce_drv *drv, const struct roce_endpoint *ep);
int roce_drv_get_local(struct roce_drv *drv, struct roce_endpoint *ep);
int roce_drv_get_peer(struct roce_drv *drv, struct roce_endpoint *ep);

/*
 * Table entries: write the shadow registers, then COMMIT (atomic update);
 * reads LOAD the entry into the shadow first. Both poll COMMIT until BUSY
 * clears (bounded by cmd_timeout_ms: ROCE_E_TIMEOUT) and return the
 * command's CMD_STATUS when it is not ROCE_OK.
 */
int roce_drv_qp_write(struct roce_drv *drv, const struct roce_qp_ctx *qp);
int roce_drv_qp_read(struct roce_drv *drv, uint32_t qpn,
		     struct roce_qp_ctx *qp);
int roce_drv_mr_write(struct roce_drv *drv, const struct roce_mr_ctx *mr);
int roce_drv_mr_read(struct roce_drv *drv, uint32_t index,
		     struct roce_mr_ctx *mr);
/* The same, for an entry that is valid and has a stage binding (*bound);
 * of any other only MR_ACCESS (and MR_STAGE) are read, *mr untouched. */
int roce_drv_mr_read_bound(struct roce_drv *drv, uint32_t index,
			   struct roce_mr_ctx *mr, bool *bound);

/* Register images of an entry: roce_qp_to_regs() and the others in
 * roce/layout.h. */
/* Raw register images (for the regression check). */
int roce_drv_qp_read_regs(struct roce_drv *drv, uint32_t qpn,
			  uint32_t regs[ROCE_QP_NREGS]);
int roce_drv_mr_read_regs(struct roce_drv *drv, uint32_t index,
			  uint32_t regs[ROCE_MR_NREGS]);

/*
 * Waits until STATUS shows LINK_READY, polling every millisecond; returns
 * ROCE_E_TIMEOUT after timeout_ms (the message lists the missing bits).
 */
int roce_drv_wait_link(struct roce_drv *drv, uint32_t timeout_ms);

/* ---- the STAGE block: XTS key slots (roce/stage.h) --------------------- */

/*
 * A 64-byte AES-256-XTS key into a slot through the write-only key words
 * and STAGE_KEY_CMD; STAGE_KEY_STATUS's code is returned: ROCE_E_INVAL for
 * a key whose halves are equal (the slot keeps what it held), ROCE_E_NOENT
 * for no such slot. Clear empties a slot; loaded reads the bit per slot
 * that holds a key. No call reads a key back: no register can.
 */
int roce_drv_stage_key_load(struct roce_drv *drv, unsigned slot,
			    const uint8_t key[ROCE_STAGE_KEY_LEN]);
int roce_drv_stage_key_clear(struct roce_drv *drv, unsigned slot);
int roce_drv_stage_keys_loaded(struct roce_drv *drv, uint32_t *bits);

/* ---- counters (the STAT region) ---------------------------------------- */

/* A 64-bit counter: read LOW (latches HIGH), then HIGH. */
int roce_drv_counter_read_at(struct roce_drv *drv, uint32_t low_off,
			     uint64_t *val);
/* By name as in the register map, with or without the _LOW suffix. */
int roce_drv_counter_read(struct roce_drv *drv, const char *name,
			  uint64_t *val);

struct roce_counter_value {
	const char *name;		/* register map name, without _LOW */
	uint32_t low_off;
	uint64_t value;
};
/*
 * Reads every counter of the register map in map order; *n is set to the
 * number read (at most max). ROCE_E_FULL if there are more than max.
 */
int roce_drv_counters_read(struct roce_drv *drv,
			   struct roce_counter_value *out, size_t max,
			   size_t *n);

/* ---- power-on sequence and regression check ---------------------------- */

/*
 * The seed's power-on sequence:
 *   1. probe (DEV_ID, VERSION; table sizes cover the config, QP_COUNT
 *      is cfg->qp_count when the config states one: ROCE_E_MISMATCH);
 *   2. assert soft reset;
 *   3. program local and peer MAC / IP / UDP port;
 *   4. write every QP context in state RESET;
 *   5. write every MR entry;
 *   6. wait for link-ready (cfg->link_timeout_ms);
 *   7. release soft reset and set engine enable (and loopback);
 *   8. walk each QP whose configured state is past RESET up the IBA
 *      ladder RESET -> INIT -> RTR -> RTS (-> SQD / SQE), or to ERR.
 * Stops at the first failure (drv->err says which step and register).
 */
int roce_drv_power_on(struct roce_drv *drv, const struct roce_config *cfg);

struct roce_verify_diff {
	char reg[48];			/* "MAC_LOW", "QP[17].QP_DEST_QPN" */
	uint32_t off;
	uint32_t expected;
	uint32_t actual;
	int status;			/* ROCE_OK, or the failed read's status */
};

typedef void (*roce_verify_cb)(const struct roce_verify_diff *d, void *arg);

/*
 * Reads back every device register the config determines (CTRL's enable
 * and loopback bits, addresses, ports, QP_COUNT when the config states
 * one) and, via LOAD, every register of
 * every QP and MR entry in cfg, and calls cb for each difference (cb may
 * be NULL). Returns ROCE_OK when all match, ROCE_E_MISMATCH when some
 * differ (*ndiff tells how many), or a bus error that stops the check.
 */
int roce_drv_verify(struct roce_drv *drv, const struct roce_config *cfg,
		    roce_verify_cb cb, void *arg, unsigned *ndiff);

/* ---- configuration files ----------------------------------------------- */

/*
 * Parses the text format of the files in examples/ into cfg (defaults first).
 * On error returns ROCE_E_FORMAT (or ROCE_E_RANGE / ROCE_E_FULL) with
 * "NAME:LINE: message" in err.
 */
int roce_config_parse(const char *text, size_t len, const char *name,
		      struct roce_config *cfg, char *err, size_t errlen);
/* Reads and parses a file; ROCE_E_IO with the reason if it cannot be read. */
int roce_config_load(const char *path, struct roce_config *cfg, char *err,
		     size_t errlen);
/* Defaults: ports 4791, link timeout ROCE_DRV_LINK_TIMEOUT_MS, no entries. */
void roce_config_defaults(struct roce_config *cfg);

/* Format helpers shared by the parser and the tools. */
/*
 * Unsigned number, decimal or 0x hex (or 0 octal); with suffix, a trailing
 * K/M/G/T multiplies by 2^10/20/30/40. ROCE_E_FORMAT or ROCE_E_RANGE.
 */
int roce_parse_u64(const char *s, bool suffix, uint64_t *out);
int roce_parse_mac(const char *s, uint8_t mac[6]);
int roce_parse_ipv4(const char *s, uint32_t *ip);
void roce_format_mac(const uint8_t mac[6], char buf[18]);
void roce_format_ipv4(uint32_t ip, char buf[16]);
/* MAC register pair: roce_mac_low() and the others in roce/layout.h. */
/* "rc", "local_write,remote_read" ("none" for 0); "?" if unknown. State
 * names: roce_qp_state_name() in roce/tables.h. */
const char *roce_qp_type_name(unsigned type);
void roce_format_access(uint32_t access, char *buf, size_t len);

#endif
