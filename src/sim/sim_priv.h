/* SPDX-License-Identifier: MIT */
/*
 * Inside one simulated NIC (roce/sim.h): the device model, the engine and
 * an in-process port whose frames the simulator pushes and pulls.
 *
 * Every transaction at the device's boundary (register access, frame in
 * and out, DDR access by the caller, completion) passes through
 * sim_boundary(), so a transaction trace (issue 18, point 2) needs one
 * observer there and nothing else.
 */
#ifndef ROCE_SIM_PRIV_H
#define ROCE_SIM_PRIV_H

#include <stdint.h>

#include "engine/engine.h"
#include "roce/sim.h"

/* A FIFO of whole frames: the port's two directions. */
#define SIM_FIFO_FRAMES 256u

struct sim_fifo {
	struct tx_slot *slot;           /* SIM_FIFO_FRAMES frames */
	uint32_t len[SIM_FIFO_FRAMES];
	uint32_t head, tail;            /* free-running: tail - head frames */
};

enum sim_xact_kind {
	SIM_X_REG_WRITE,
	SIM_X_REG_READ,
	SIM_X_FRAME_IN,
	SIM_X_FRAME_OUT,
	SIM_X_MEM_WRITE,
	SIM_X_MEM_READ,
	SIM_X_COMPLETION,
};

struct sim_xact {
	enum sim_xact_kind kind;
	uint64_t addr;                  /* register offset, DDR address; CQE: wr_id */
	uint32_t data;                  /* register value; CQE: QPN */
	int resp;                       /* AXI response; CQE: status */
	const uint8_t *bytes;           /* frame or DDR bytes */
	uint32_t len;
};

typedef void (*sim_observer)(void *arg, uint64_t now_ns, const struct sim_xact *x);

#define SIM_CQ_DEPTH 1024u              /* completions waiting for poll_cq */
#define SIM_WQ_DEPTH 64u                /* per QP, send and receive */

struct roce_sim {
	struct roce_device *dev;
	struct roce_port port;
	struct sim_fifo rx, tx;
	uint64_t now;                   /* ns; only roce_sim_advance moves it */
	uint32_t qp_count;
	struct eng_qp **qp;             /* by QPN, attached on first commit */
	struct eng_cq cq;               /* every QP's send and receive CQ */
	sim_observer observer;          /* NULL: no trace */
	void *observer_arg;
	struct roce_engine eng;         /* last: large */
};

void sim_boundary(struct roce_sim *s, const struct sim_xact *x);
/* Poll the engine until it has nothing left to do now. */
void sim_run(struct roce_sim *s);

/* sim_port.c */
int sim_port_init(struct roce_sim *s);
void sim_port_fini(struct roce_sim *s);
int sim_fifo_put(struct sim_fifo *f, const uint8_t *frame, uint32_t len);

/* sim_wq.c */
int sim_qp_attach(struct roce_sim *s, uint32_t qpn);
int sim_cq_init(struct roce_sim *s);
void sim_wq_fini(struct roce_sim *s);

#endif
