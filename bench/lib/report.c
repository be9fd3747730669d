/* SPDX-License-Identifier: MIT */
/* Results and targets, and their human tables. */
#include <string.h>

#include "lib/report.h"
#include "lib/stages.h"

static struct bench_row rows[BENCH_MAX_ROWS];
static unsigned n_rows;
static struct bench_target targets[BENCH_MAX_TARGETS];
static unsigned n_targets;

struct bench_row *bench_row_add(const char *section, const char *name)
{
	struct bench_row *r;

	if (n_rows == BENCH_MAX_ROWS)
		bench_die("internal: more than %u result rows", BENCH_MAX_ROWS);
	r = &rows[n_rows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->section, sizeof(r->section), "%s", section);
	snprintf(r->name, sizeof(r->name), "%s", name);
	return r;
}

unsigned bench_rows(const struct bench_row **out)
{
	*out = rows;
	return n_rows;
}

unsigned bench_targets(const struct bench_target **out)
{
	*out = targets;
	return n_targets;
}

const struct bench_row *bench_row_find(const char *section, const char *name,
				       const char *op, const char *cond,
				       uint32_t size, uint32_t mtu, uint32_t qps,
				       uint32_t cores)
{
	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];

		if (strcmp(r->section, section) || strcmp(r->name, name) ||
		    (op && strcmp(r->op, op)) || (cond && strcmp(r->cond, cond)) ||
		    (size && r->size != size) || (mtu && r->mtu != mtu) ||
		    (qps && r->qps != qps) || (cores && r->cores != cores))
			continue;
		return r;
	}
	return NULL;
}

struct bench_target *bench_target_add(const char *what)
{
	struct bench_target *t;

	if (n_targets == BENCH_MAX_TARGETS)
		bench_die("internal: more than %u targets", BENCH_MAX_TARGETS);
	t = &targets[n_targets++];
	memset(t, 0, sizeof(*t));
	snprintf(t->what, sizeof(t->what), "%s", what);
	return t;
}

bool bench_target_met(const struct bench_target *t)
{
	if (!t->measured || t->info)
		return false;
	return t->upper ? t->got <= t->want : t->got >= t->want;
}

/* ---- human tables ------------------------------------------------------- */

static void size_text(uint32_t b, char *s, size_t n)
{
	if (b >= (1u << 20) && b % (1u << 20) == 0)
		snprintf(s, n, "%uM", b >> 20);
	else if (b >= 1024 && b % 1024 == 0)
		snprintf(s, n, "%uK", b >> 10);
	else
		snprintf(s, n, "%u", b);
}

static void spread_text(const struct bench_stat *s, char *t, size_t n)
{
	if (s->reps > 1)
		snprintf(t, n, "%3.0f%% (n=%u)", 100 * bench_spread(s), s->reps);
	else
		snprintf(t, n, "  - (n=1)");
}

void bench_print_limits(FILE *out)
{
	char sz[16], sp[24];

	fprintf(out, "\n== Limits of this machine (single core unless noted)\n");
	fprintf(out, "  %-34s %6s %5s %12s %-8s %s\n", "what", "size", "cores",
		"best", "unit", "spread");
	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];
		char what[64];

		if (strcmp(r->section, "limits"))
			continue;
		size_text(r->size, sz, sizeof(sz));
		spread_text(&r->st, sp, sizeof(sp));
		snprintf(what, sizeof(what), "%s%s%s%s%s", r->name,
			 r->cond[0] ? " " : "", r->cond, r->mtu ? " mtu " : "",
			 r->mtu ? (r->mtu == 4096 ? "4096" : "1024") : "");
		fprintf(out, "  %-34s %6s %5u %12.3f %-8s %s\n", what,
			r->size ? sz : "-", r->cores ? r->cores : 1, r->st.best,
			r->unit, sp);
	}
}

/* Engine goodput: one line per (op, MTU, QPs, cores), one column per size;
 * norm: over the CPU time the process got instead of wall time. */
static void print_matrix(FILE *out, bool norm)
{
	uint32_t sizes[16];
	unsigned ns = 0;
	double worst = 0;
	bool any_retx = false;
	char sz[16];

	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];
		unsigned k;

		if (strcmp(r->section, "engine") || strcmp(r->name, "goodput"))
			continue;
		for (k = 0; k < ns && sizes[k] != r->size; k++)
			;
		if (k == ns && ns < 16) {
			/* insertion keeps the columns sorted */
			while (k > 0 && sizes[k - 1] > r->size) {
				sizes[k] = sizes[k - 1];
				k--;
			}
			sizes[k] = r->size;
			ns++;
		}
	}
	if (!ns)
		return;
	if (norm)
		fprintf(out, "\n== The same per CPU time the process got (goodput x cores "
			"/ CPUs used): what dedicated cores would give\n");
	else
		fprintf(out, "\n== In memory: engine <-> engine goodput, Gbit/s of message "
			"payload (best of the repeats)\n");
	fprintf(out, "  %-5s %4s %3s %5s", "op", "mtu", "qps", "cores");
	for (unsigned k = 0; k < ns; k++) {
		size_text(sizes[k], sz, sizeof(sz));
		fprintf(out, " %7s", sz);
	}
	fputc('\n', out);
	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];
		bool first = true;

		if (strcmp(r->section, "engine") || strcmp(r->name, "goodput"))
			continue;
		/* print a line at the first row of each (op, mtu, qps, cores) */
		for (unsigned j = 0; j < i && first; j++)
			first = !(!strcmp(rows[j].section, "engine") &&
				  !strcmp(rows[j].name, "goodput") &&
				  !strcmp(rows[j].op, r->op) && rows[j].mtu == r->mtu &&
				  rows[j].qps == r->qps && rows[j].cores == r->cores);
		if (!first)
			continue;
		fprintf(out, "  %-5s %4u %3u %5u", r->op, r->mtu, r->qps, r->cores);
		for (unsigned k = 0; k < ns; k++) {
			const struct bench_row *c = bench_row_find("engine", "goodput",
				r->op, NULL, sizes[k], r->mtu, r->qps, r->cores);

			if (!c) {
				fprintf(out, " %7s", "-");
				continue;
			}
			const struct bench_stat *st = norm ? &c->norm : &c->st;

			fprintf(out, " %6.2f%c", st->best, c->retx ? '!' : ' ');
			any_retx |= c->retx != 0;
			if (bench_spread(st) > worst)
				worst = bench_spread(st);
		}
		fputc('\n', out);
	}
	fprintf(out, "  largest spread (max-min)/median of a cell: %.0f%%", 100 * worst);
	fprintf(out, "%s\n", any_retx ? "; ! = retransmissions during the cell" : "");
	if (!norm)
		fprintf(out, "  cores 1: both engines and the application on one core; "
			"cores 2: requester + application on one CPU, responder engine "
			"thread on the other\n");
}

void bench_print_engine(FILE *out)
{
	print_matrix(out, false);
	print_matrix(out, true);
}

void bench_print_latency(FILE *out)
{
	char sp[24];

	fprintf(out, "\n== Latency\n");
	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];

		if (strcmp(r->section, "latency"))
			continue;
		spread_text(&r->st, sp, sizeof(sp));
		fprintf(out, "  %-34s cores %u  %-3s %9.3f %-3s %s %s\n", r->name,
			r->cores, r->cond, r->st.best, r->unit, sp, r->note);
	}
}

void bench_print_scale(FILE *out)
{
	char sp[24], cpu[16];

	fprintf(out, "\n== Scale: 64 B WRITEs with many QPs, both engines polled by this "
		"thread on one core\n");
	fprintf(out, "  %-26s %5s %9s %9s %-7s %-11s %s\n", "what", "qps", "best",
		"per CPU s", "unit", "spread", "note");
	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];

		if (strcmp(r->section, "scale"))
			continue;
		spread_text(&r->st, sp, sizeof(sp));
		if (r->norm.reps)
			snprintf(cpu, sizeof(cpu), "%9.3f", r->norm.best);
		else
			snprintf(cpu, sizeof(cpu), "%9s", "-");
		fprintf(out, "  %-26s %5u %9.3f %s %-7s %-11s %s\n", r->name, r->qps,
			r->st.best, cpu, r->unit, sp, r->note);
	}
}

void bench_print_veth(FILE *out)
{
	char sp[24];
	bool any = false;

	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];

		if (strcmp(r->section, "veth"))
			continue;
		if (!any)
			fprintf(out, "\n== Over veth between two network namespaces\n");
		any = true;
		spread_text(&r->st, sp, sizeof(sp));
		fprintf(out, "  %-16s %-5s %7u B %9.3f %-9s %s %s\n", r->name, r->op,
			r->size, r->st.best, r->unit, sp, r->note);
	}
}

void bench_print_loss(FILE *out)
{
	bool any = false;

	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];

		if (strcmp(r->section, "loss"))
			continue;
		if (!any)
			fprintf(out, "\n== Loss: 64 KB WRITE, MTU 4096, 128 in flight, random "
				"loss on the link, virtual time (a 100 Gbit/s wire)\n");
		any = true;
		fprintf(out, "  %-14s %-4s %6.2f %% %9.3f %-7s %s\n", r->name, r->cond,
			r->qps / 1e4, r->st.best, r->unit, r->note);
	}
}

/* The stages' primitives, then one line per (op, MTU, unit, chain) with
 * its ratios; the target beside each (stages.h). */
void bench_print_stages(FILE *out)
{
	char sp[24];

	if (!bench_row_find("stages", "goodput", NULL, NULL, 0, 0, 0, 0))
		return;
	fprintf(out, "\n== Inline stages: the primitives alone, one core\n");
	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];

		if (strcmp(r->section, "stages") || !strcmp(r->name, "goodput"))
			continue;
		spread_text(&r->st, sp, sizeof(sp));
		fprintf(out, "  %-14s %-8s %5u B %8.2f %-5s %s %s\n", r->name, r->cond,
			r->size, r->st.best, r->unit, sp, r->note);
	}
	fprintf(out, "\n== Inline stages: 64 KB to and from B's staged MR, one engine "
		"thread a side; bound = 1 / (1/none + 1/primitive)\n"
		"  %-5s %4s %4s %-16s %8s %7s %8s %8s %-9s %s\n", "op", "mtu", "unit",
		"chain", "Gbit/s", "/ none", "bound", "/ bound", "(>= 0.8)",
		"dedup saved, primitives GB/s");
	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];
		char unit[12] = "-", ratios[64], saved[32] = "";

		if (strcmp(r->section, "stages") || strcmp(r->name, "goodput"))
			continue;
		if (r->stage.dunit) {
			snprintf(unit, sizeof(unit), "%u", r->stage.dunit);
			snprintf(ratios, sizeof(ratios), "%7.2f %8.2f %8.2f %-9s",
				 r->stage.vs_none, r->stage.bound, r->stage.vs_bound,
				 r->stage.vs_bound >= STAGE_BOUND_TARGET ? "met" : "MISSED");
		} else {
			snprintf(ratios, sizeof(ratios), "%7s %8s %8s %-9s", "1", "-", "-", "");
		}
		if (strstr(r->cond, "dedup"))
			snprintf(saved, sizeof(saved), "%llu KB; ",
				 (unsigned long long)(r->stage.saved >> 10));
		fprintf(out, "  %-5s %4u %4s %-16s %7.2f%c %s %s%s\n", r->op, r->mtu, unit,
			r->cond, r->st.best, r->retx ? '!' : ' ', ratios, saved, r->note);
	}
	fprintf(out, "  ratios: medians of the repeats, each run beside no stage; "
		"! = retransmissions\n");
}

void bench_print_ratios(FILE *out)
{
	char sp[24];
	bool any = false;

	for (unsigned i = 0; i < n_rows; i++) {
		const struct bench_row *r = &rows[i];

		if (strcmp(r->section, "ratio"))
			continue;
		if (!any)
			fprintf(out, "\n== Ratios measured side by side (each repeat runs "
				"both; median of the repeats)\n");
		any = true;
		spread_text(&r->st, sp, sizeof(sp));
		fprintf(out, "  %-26s %7u B qps %5u cores %u %6.2f %s %s\n", r->name,
			r->size, r->qps, r->cores, r->st.best, sp, r->note);
	}
}

void bench_print_targets(FILE *out)
{
	fprintf(out, "\n== Targets\n");
	fprintf(out, "  %-52s %-22s %-26s %s\n", "target", "want", "measured", "verdict");
	for (unsigned i = 0; i < n_targets; i++) {
		const struct bench_target *t = &targets[i];
		char verdict[96];

		if (!t->measured)
			snprintf(verdict, sizeof(verdict), "not measured: %s", t->note);
		else if (t->info)
			snprintf(verdict, sizeof(verdict), "%s", t->note);
		else if (bench_target_met(t))
			snprintf(verdict, sizeof(verdict), "met");
		else if (t->upper)
			snprintf(verdict, sizeof(verdict), "MISSED: %.2fx over", t->got / t->want);
		else
			snprintf(verdict, sizeof(verdict), "MISSED: gap x%.2f (%.0f%% of target)",
				 t->got > 0 ? t->want / t->got : 0, 100 * t->got / t->want);
		fprintf(out, "  %-52s %-22s %-26s %s\n", t->what, t->want_text,
			t->measured ? t->got_text : "-", verdict);
		if (t->measured && !t->info && t->note[0])
			fprintf(out, "  %-52s %s\n", "", t->note);
	}
}

void bench_print_machine(FILE *out, const struct bench_run_info *ri)
{
	fprintf(out, "\n== Machine\n");
	fprintf(out, "  CPU %s, %d CPUs online; flags: %s\n", ri->cpu, ri->ncpus, ri->flags);
	fprintf(out, "  kernel %s; compiler %s; CRC %s%s\n", ri->kernel, ri->compiler,
		ri->crc_impl, ri->rt ? "; run at SCHED_FIFO priority (--rt)" : "");
	if (ri->source[0])
		fprintf(out, "  source %s\n", ri->source);
	fprintf(out, "  load during the run: loadavg %.2f at the end, other work %.2f "
		"CPUs on average, steal %.2f CPUs; %.0f s\n", ri->load.loadavg1,
		ri->load.others_cpus, ri->load.steal_cpus, ri->elapsed_s);
	if (ri->load.others_cpus > 0.25 || ri->load.steal_cpus > 0.1)
		fprintf(out, "  (the machine was busy: figures may be low; compare "
			"ratios measured in the same run%s)\n", ri->rt ? "" :
			", or measure at real-time priority: scripts/bench --rt");
}
