/* SPDX-License-Identifier: MIT */
/*
 * Inside one simulated NIC (roce/sim.h): the device model, the engine and
 * an in-process port whose frames the simulator pushes and pulls.
 *
 * Every transaction at the device's boundary (register access, frame in
 * and out, DDR access by the caller or the engine, work request,
 * completion) passes through sim_boundary() as a trace record
 * (common/trace.h); the transaction trace (sim_trace.c) is the observer
 * there.
 */
#ifndef ROCE_SIM_PRIV_H
#define ROCE_SIM_PRIV_H

#include <stdint.h>

#include "common/trace.h"
#include "engine/engine.h"
#include "roce/sim.h"

/* A FIFO of whole frames: the port's two directions. */
#define SIM_FIFO_FRAMES 256u

struct sim_fifo {
	struct tx_slot *slot;           /* SIM_FIFO_FRAMES frames */
	uint32_t len[SIM_FIFO_FRAMES];
	uint32_t head, tail;            /* free-running: tail - head frames */
};

/* Sees every record with its time and NIC filled in (sim_boundary). */
typedef void (*sim_observer)(void *arg, const struct trace_rec *r);

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
	uint32_t nic;                   /* the trace's NIC number */
	struct trace_rec created;       /* create's arguments, for the trace */
	struct trace_writer *trace;     /* roce_sim_trace_open's */
	struct roce_engine eng;         /* last: large */
};

void sim_boundary(struct roce_sim *s, struct trace_rec *r);
/* Poll the engine until it has nothing left to do now; true when it did
 * something (moved a frame or completed a work request). */
bool sim_run(struct roce_sim *s);

/* sim_port.c */
int sim_port_init(struct roce_sim *s);
void sim_port_fini(struct roce_sim *s);
int sim_fifo_put(struct sim_fifo *f, const uint8_t *frame, uint32_t len);

/* sim_trace.c: fn sees every record (and the engine's DDR accesses) from
 * now on, nic in each, the first one create's; fn NULL stops. */
void sim_observe(struct roce_sim *s, sim_observer fn, void *arg, uint32_t nic);
void sim_trace_fini(struct roce_sim *s);

/* sim_wq.c */
int sim_qp_attach(struct roce_sim *s, uint32_t qpn);
int sim_cq_init(struct roce_sim *s);
void sim_wq_fini(struct roce_sim *s);

#endif
