/* SPDX-License-Identifier: MIT */
/*
 * --compare A B: the outputs of two traces, e.g. the model's and one an
 * RTL simulation wrote. Outputs fall into streams per NIC: register
 * accesses (read data, every response), frames out, the engine's DDR
 * writes, its host-memory writes, the host's DDR reads, completions. Each stream is compared in
 * order, record by record, on its fields and bytes (and, with a
 * tolerance, on its time): the streams' interleaving may differ between a
 * model and an RTL (a DMA write before or after the frame that follows
 * it), their contents may not. Inputs are the testbench's, not compared.
 */
#include <stdio.h>
#include <stdlib.h>

#include "roce-replay/replay.h"

enum stream { S_REG, S_FOUT, S_DMAWR, S_HDMAWR, S_MEMRD, S_CQE, S_NONE };

static enum stream stream_of(const struct trace_rec *r, const struct compare_opts *o)
{
	if (o->skip[r->kind])
		return S_NONE;
	switch (r->kind) {
	case TR_REG_WR:
	case TR_REG_RD:
		return S_REG;
	case TR_FRAME_OUT:
		return S_FOUT;
	case TR_DMA_WR:
		return S_DMAWR;
	case TR_HDMA_WR:
		return S_HDMAWR;
	case TR_MEM_RD:
		return S_MEMRD;
	case TR_CQE:
		return S_CQE;
	default:
		return S_NONE;
	}
}

/* The next record of t from *i on in stream s of NIC nic, or -1. */
static int next_in(const struct trace_file *t, unsigned *i, uint32_t nic, enum stream s,
		   const struct compare_opts *o)
{
	for (; *i < t->n; (*i)++)
		if (t->rec[*i].r.nic == nic && stream_of(&t->rec[*i].r, o) == s)
			return (int)(*i)++;
	return -1;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* 0 when every stream of nic matches; else the mismatch is shown. */
static int compare_stream(const struct trace_file *a, const struct trace_file *b,
			  uint32_t nic, enum stream s, const struct compare_opts *o,
			  unsigned *count)
{
	unsigned ia = 0, ib = 0;

	for (;;) {
		int ra = next_in(a, &ia, nic, s, o), rb = next_in(b, &ib, nic, s, o);
		const char *why = NULL;

		if (ra < 0 && rb < 0)
			return 0;
		if (rb < 0)
			why = "B has no such record";
		else if (ra < 0)
			why = "A has no such record";
		else if (!trace_rec_equal(&a->rec[ra].r, &b->rec[rb].r))
			why = "the records differ";
		else if (o->use_time &&
			 absdiff(a->rec[ra].r.t, b->rec[rb].r.t) > o->tolerance_ns)
			why = "the times differ by more than the tolerance";
		if (why) {
			char msg[200];

			snprintf(msg, sizeof(msg), "%s (%s:%u)", why, b->path,
				 rb >= 0 ? b->rec[rb].line : 0);
			if (ra >= 0)
				show_mismatch(a, ra, rb >= 0 ? b->rec[rb].text : NULL, msg);
			else
				show_mismatch(b, rb, NULL, msg);
			return 1;
		}
		(*count)++;
	}
}

int compare_run(const struct trace_file *a, const struct trace_file *b,
		const struct compare_opts *o)
{
	bool seen[256] = { false };
	unsigned count = 0;

	for (unsigned i = 0; i < a->n; i++)
		seen[a->rec[i].r.nic & 255] = true;
	for (unsigned i = 0; i < b->n; i++)
		seen[b->rec[i].r.nic & 255] = true;
	for (uint32_t nic = 0; nic < 256; nic++)
		for (enum stream s = S_REG; seen[nic] && s < S_NONE; s++)
			if (compare_stream(a, b, nic, s, o, &count))
				return 1;
	printf("roce-replay: %s and %s: %u outputs compared, all equal\n", a->path,
	       b->path, count);
	return 0;
}
