/* SPDX-License-Identifier: MIT */
/*
 * rocectl's shared state and the functions its files call across.
 *
 *   rocectl.c   command line, bus selection, dispatch
 *   output.c    errors and JSON strings
 *   regs.c      read, write, dump: registers with their fields decoded
 *   device.c    info, qp, mr: the device and its table entries
 *   config.c    init, verify: the power-on sequence from a config file
 *   counters.c  counters, --watch
 *   cm.c        cm: the RDMA CM's status in the programs running one
 *   cc.c        cc: the congestion-control block
 *   stage.c     stage: the inline stages' key slots, bindings, counters
 *   ddr.c       ddr: the device's DDR through the bus's debug port
 */
#ifndef ROCECTL_CTL_H
#define ROCECTL_CTL_H

#include "roce/bus.h"
#include "roce/device.h"
#include "roce/driver.h"

/* Exit status: 0 success; 1 the device or bus said no (error response,
 * mismatch, timeout); 2 a bad command line or config file. */
#define EXIT_DEVICE 1
#define EXIT_USAGE 2

struct ctl {
	const char *sock;		/* bus selection */
	const char *mmap_spec;
	int local;
	int json;
	struct roce_bus bus;
	struct roce_device *dev;	/* --local */
	struct roce_drv drv;
};

/* rocectl.c: --local's device anew, with qp_count QPs (0 = the default):
 * init and verify build the device their config describes. Returns 0 or
 * the exit status after saying why. */
int ctl_local_device(struct ctl *c, uint32_t qp_count);

/* output.c */
void ctl_json_str(const char *s);
/* Say what went wrong on stderr (and as {"error":...} with --json; c may
 * be NULL before the options are read); returns code. */
int ctl_fail(struct ctl *c, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The driver's message for its last failure; returns EXIT_DEVICE. */
int ctl_drv_fail(struct ctl *c);

/* The commands: argv holds the command's arguments; each returns the exit
 * status. */
int cmd_read(struct ctl *c, int argc, char **argv);
int cmd_write(struct ctl *c, int argc, char **argv);
int cmd_dump(struct ctl *c, int argc, char **argv);
int cmd_info(struct ctl *c, int argc, char **argv);
int cmd_qp(struct ctl *c, int argc, char **argv);
int cmd_mr(struct ctl *c, int argc, char **argv);
int cmd_init(struct ctl *c, int argc, char **argv);
int cmd_verify(struct ctl *c, int argc, char **argv);
int cmd_counters(struct ctl *c, int argc, char **argv);
int cmd_cm(struct ctl *c, int argc, char **argv);
int cmd_cc(struct ctl *c, int argc, char **argv);
int cmd_stage(struct ctl *c, int argc, char **argv);
int cmd_ddr(struct ctl *c, int argc, char **argv);

/* A command's own --help (stage.c, ddr.c) */
extern const char ctl_stage_help[];
extern const char ctl_ddr_help[];

#endif
