/* SPDX-License-Identifier: MIT */
/* The machine description and the result files: JSON, CSV, Markdown. */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "lib/report.h"
#include "lib/scale.h"
#include "roce/icrc.h"

/* The first line of /proc/cpuinfo that starts with key, after ": ". */
static void cpuinfo(const char *key, char *out, size_t n)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(out, n, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, key, strlen(key)) || !c)
			continue;
		c += 1 + (c[1] == ' ');
		c[strcspn(c, "\n")] = 0;
		snprintf(out, n, "%s", c);
		break;
	}
	fclose(f);
}

void bench_run_info_fill(struct bench_run_info *ri)
{
	static const char *const wanted[] = { "avx2", "avx512f", "avx512bw",
		"vpclmulqdq", "pclmulqdq", "erms", "fsrm", "hypervisor" };
	char flags[4096];
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	char fam[16], model[16];

	cpuinfo("model name", ri->cpu, sizeof(ri->cpu));
	cpuinfo("cpu family", fam, sizeof(fam));
	cpuinfo("model\t", model, sizeof(model));
	/* a hypervisor may show a bare "AMD EPYC": family and model say
	 * which generation (25/1 = Zen 3, Milan) */
	snprintf(ri->cpu + strlen(ri->cpu), sizeof(ri->cpu) - strlen(ri->cpu),
		 " (family %s, model %s)", fam, model);
	cpuinfo("flags", flags, sizeof(flags));
	ri->flags[0] = 0;
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		char pat[32];
		bool has;
		size_t l = strlen(ri->flags);

		snprintf(pat, sizeof(pat), " %s ", wanted[i]);
		strcat(flags, " ");     /* a flag at the end matches too */
		has = strstr(flags, pat) != NULL ||
		      !strncmp(flags, pat + 1, strlen(pat + 1));
		snprintf(ri->flags + l, sizeof(ri->flags) - l, "%s%s%s", l ? " " : "",
			 has ? "" : "no-", wanted[i]);
	}
	ri->ncpus = bench_ncpus();
	if (uname(&u) == 0)
		snprintf(ri->kernel, sizeof(ri->kernel), "%s %s", u.sysname, u.release);
#ifdef __clang__
	snprintf(ri->compiler, sizeof(ri->compiler), "clang %s", __clang_version__);
#elif defined(__GNUC__)
	snprintf(ri->compiler, sizeof(ri->compiler), "gcc %s", __VERSION__);
#endif
	snprintf(ri->crc_impl, sizeof(ri->crc_impl), "%s",
		 roce_crc_impl_name(roce_crc_selected()));
	gmtime_r(&now, &tm);
	strftime(ri->started, sizeof(ri->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- JSON ------------------------------------------------------------------ */

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void jnum(FILE *f, double v)
{
	/* JSON has no NaN or infinity */
	if (v != v || v > 1e300 || v < -1e300)
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

static void json_load(FILE *f, const struct bench_load *l)
{
	fputs("{\"loadavg1\":", f);
	jnum(f, l->loadavg1);
	fputs(",\"others_cpus\":", f);
	jnum(f, l->others_cpus);
	fputs(",\"steal_cpus\":", f);
	jnum(f, l->steal_cpus);
	fputs(",\"self_cpus\":", f);
	jnum(f, l->self_cpus);
	fputc('}', f);
}

static void json_row(FILE *f, const struct bench_row *r)
{
	fputs("{\"section\":", f);
	jstr(f, r->section);
	fputs(",\"name\":", f);
	jstr(f, r->name);
	if (r->op[0]) {
		fputs(",\"op\":", f);
		jstr(f, r->op);
	}
	if (r->cond[0]) {
		fputs(",\"cond\":", f);
		jstr(f, r->cond);
	}
	if (r->size)
		fprintf(f, ",\"size\":%u", r->size);
	if (r->mtu)
		fprintf(f, ",\"mtu\":%u", r->mtu);
	if (r->qps)
		fprintf(f, ",\"qps\":%u", r->qps);
	if (r->cores)
		fprintf(f, ",\"cores\":%u", r->cores);
	fputs(",\"unit\":", f);
	jstr(f, r->unit);
	fputs(",\"value\":", f);
	jnum(f, r->st.best);
	fputs(",\"median\":", f);
	jnum(f, r->st.med);
	fputs(",\"min\":", f);
	jnum(f, r->st.min);
	fputs(",\"max\":", f);
	jnum(f, r->st.max);
	fprintf(f, ",\"reps\":%u,\"spread\":", r->st.reps);
	jnum(f, bench_spread(&r->st));
	if (r->rate > 0) {
		fputs(",\"rate_per_s\":", f);
		jnum(f, r->rate);
	}
	if (r->norm.reps) {
		fputs(",\"norm_value\":", f);
		jnum(f, r->norm.best);
		fputs(",\"norm_median\":", f);
		jnum(f, r->norm.med);
		fputs(",\"norm_min\":", f);
		jnum(f, r->norm.min);
		fputs(",\"norm_max\":", f);
		jnum(f, r->norm.max);
		fputs(",\"norm_rate_per_s\":", f);
		jnum(f, r->rate_norm);
	}
	if (r->msgs)
		fprintf(f, ",\"msgs\":%llu,\"retransmissions\":%llu",
			(unsigned long long)r->msgs, (unsigned long long)r->retx);
	if (r->stage.dunit) {
		fprintf(f, ",\"data_unit\":%u,\"vs_no_stage\":", r->stage.dunit);
		jnum(f, r->stage.vs_none);
		fputs(",\"bound\":", f);
		jnum(f, r->stage.bound);
		fputs(",\"vs_bound\":", f);
		jnum(f, r->stage.vs_bound);
		fprintf(f, ",\"dedup_saved_bytes\":%llu", (unsigned long long)r->stage.saved);
	}
	fputs(",\"load\":", f);
	json_load(f, &r->load);
	if (r->note[0]) {
		fputs(",\"note\":", f);
		jstr(f, r->note);
	}
	fputc('}', f);
}

static void json_target(FILE *f, const struct bench_target *t)
{
	fputs("{\"target\":", f);
	jstr(f, t->what);
	fputs(",\"want\":", f);
	jstr(f, t->want_text);
	fprintf(f, ",\"measured\":%s", t->measured ? "true" : "false");
	if (t->measured) {
		fputs(",\"got\":", f);
		jnum(f, t->got);
		fputs(",\"got_text\":", f);
		jstr(f, t->got_text);
	}
	if (!t->info && t->measured) {
		fputs(",\"ratio_to_target\":", f);
		jnum(f, t->want ? t->got / t->want : 0);
		fprintf(f, ",\"met\":%s", bench_target_met(t) ? "true" : "false");
	}
	if (t->info)
		fputs(",\"info\":true", f);
	if (t->note[0]) {
		fputs(",\"note\":", f);
		jstr(f, t->note);
	}
	fputc('}', f);
}

bool bench_write_json(const char *path, const struct bench_run_info *ri)
{
	const struct bench_row *r;
	const struct bench_target *t;
	unsigned nr = bench_rows(&r), nt = bench_targets(&t);
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fputs("{\"machine\":{\"cpu\":", f);
	jstr(f, ri->cpu);
	fprintf(f, ",\"cpus\":%d,\"flags\":", ri->ncpus);
	jstr(f, ri->flags);
	fputs(",\"kernel\":", f);
	jstr(f, ri->kernel);
	fputs(",\"compiler\":", f);
	jstr(f, ri->compiler);
	fputs(",\"crc\":", f);
	jstr(f, ri->crc_impl);
	fputs("},\"run\":{\"started\":", f);
	jstr(f, ri->started);
	fputs(",\"source\":", f);
	jstr(f, ri->source);
	fprintf(f, ",\"quick\":%s,\"realtime\":%s,\"reps\":%u,\"reps_key\":%u,"
		"\"seconds\":", ri->quick ? "true" : "false", ri->rt ? "true" : "false",
		ri->reps, ri->reps_key);
	jnum(f, ri->secs);
	fputs(",\"seconds_key\":", f);
	jnum(f, ri->secs_key);
	fputs(",\"elapsed_s\":", f);
	jnum(f, ri->elapsed_s);
	fputs(",\"load\":", f);
	json_load(f, &ri->load);
	fprintf(f, ",\"busy\":%s},\n\"results\":[\n",
		ri->load.others_cpus > 0.25 || ri->load.steal_cpus > 0.1 ? "true" : "false");
	for (unsigned i = 0; i < nr; i++) {
		json_row(f, &r[i]);
		fputs(i + 1 < nr ? ",\n" : "\n", f);
	}
	fputs("],\n\"targets\":[\n", f);
	for (unsigned i = 0; i < nt; i++) {
		json_target(f, &t[i]);
		fputs(i + 1 < nt ? ",\n" : "\n", f);
	}
	fputs("]}\n", f);
	return fclose(f) == 0;
}

/* ---- CSV ------------------------------------------------------------------- */

bool bench_write_csv(const char *path)
{
	const struct bench_row *r;
	unsigned nr = bench_rows(&r);
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fputs("section,name,op,cond,size,mtu,qps,cores,unit,value,median,min,max,reps,"
	      "rate_per_s,retransmissions,loadavg1,others_cpus,self_cpus,"
	      "data_unit,vs_no_stage,bound,vs_bound,dedup_saved_bytes\n", f);
	for (unsigned i = 0; i < nr; i++)
		fprintf(f, "%s,%s,%s,%s,%u,%u,%u,%u,%s,%.6g,%.6g,%.6g,%.6g,%u,%.6g,%llu,%.2f,%.2f,%.2f,"
			"%u,%.4g,%.4g,%.4g,%llu\n",
			r[i].section, r[i].name, r[i].op, r[i].cond, r[i].size,
			r[i].mtu, r[i].qps, r[i].cores, r[i].unit, r[i].st.best, r[i].st.med,
			r[i].st.min, r[i].st.max, r[i].st.reps, r[i].rate,
			(unsigned long long)r[i].retx, r[i].load.loadavg1,
			r[i].load.others_cpus, r[i].load.self_cpus, r[i].stage.dunit,
			r[i].stage.vs_none, r[i].stage.bound, r[i].stage.vs_bound,
			(unsigned long long)r[i].stage.saved);
	return fclose(f) == 0;
}

/* ---- Markdown (README) ----------------------------------------------------- */

/* One Markdown row per row of section/name (and op when given). */
static void md_rows(FILE *f, const char *section, const char *name, const char *op,
		    uint32_t mtu, uint32_t qps, uint32_t size)
{
	const struct bench_row *r;
	unsigned nr = bench_rows(&r);

	for (unsigned i = 0; i < nr; i++) {
		char what[128];

		if (strcmp(r[i].section, section) || strcmp(r[i].name, name) ||
		    (op && strcmp(r[i].op, op)) || (mtu && r[i].mtu != mtu) ||
		    (qps && r[i].qps != qps) || (size && r[i].size != size))
			continue;
		char size[24] = "";

		if (r[i].size)
			snprintf(size, sizeof(size), ", %u B", r[i].size);
		snprintf(what, sizeof(what), "%s%s%s %s%s%s%s, %u core%s", r[i].section,
			 r[i].op[0] ? " " : "", r[i].op, r[i].name, size,
			 r[i].cond[0] ? " " : "", r[i].cond, r[i].cores ? r[i].cores : 1,
			 r[i].cores > 1 ? "s" : "");
		fprintf(f, "| %s | %.3g %s | %.0f%% (n=%u) |", what, r[i].st.best,
			r[i].unit, 100 * bench_spread(&r[i].st), r[i].st.reps);
		if (r[i].rate > 0 && !strcmp(r[i].unit, "Gbit/s"))
			fprintf(f, " %.3g M msg/s", r[i].rate * 1e-6);
		else if (r[i].note[0])
			fprintf(f, " %s", r[i].note);
		fputs(" |\n", f);
	}
}

/* The scale section's rows: what each one ran, with its QP count. */
static void md_scale(FILE *f)
{
	const struct bench_row *r;
	unsigned nr = bench_rows(&r);

	for (unsigned i = 0; i < nr; i++) {
		char what[128];

		if (strcmp(r[i].section, "scale"))
			continue;
		if (!strcmp(r[i].name, SCALE_ROW_IDLE))
			snprintf(what, sizeof(what), "scale: 64 B WRITE on QP 0 beside %u idle "
				 "QPs, both engines on 1 core", r[i].qps - 1);
		else if (!strcmp(r[i].name, SCALE_ROW_BUSY))
			snprintf(what, sizeof(what), "scale: 64 B WRITE on %u QP%s, all busy, "
				 "both engines on 1 core", r[i].qps, r[i].qps > 1 ? "s" : "");
		else
			snprintf(what, sizeof(what), "scale: %s, %u of them", r[i].name,
				 r[i].qps);
		fprintf(f, "| %s | %.3g %s | %.0f%% (n=%u) | %s |\n", what, r[i].st.best,
			r[i].unit, 100 * bench_spread(&r[i].st), r[i].st.reps, r[i].note);
	}
}

/* The figures behind the targets, for the README. */
static void key_figures(FILE *f)
{
	fprintf(f, "\n| figure (best of n) | value | spread | |\n|---|---|---|---|\n");
	md_rows(f, "limits", "memcpy", NULL, 0, 0, 0);
	md_rows(f, "limits", "crc32", NULL, 0, 0, 0);
	md_rows(f, "limits", "clock_gettime", NULL, 0, 0, 0);
	md_rows(f, "limits", "cacheline rtt", NULL, 0, 0, 0);
	md_rows(f, "limits", "cross-core copy", NULL, 0, 0, 0);
	md_rows(f, "limits", "bound", NULL, 4096, 0, 0);
	md_rows(f, "engine", "goodput", "WRITE", 4096, 1, 65536);
	md_rows(f, "engine", "goodput", "READ", 4096, 1, 65536);
	md_rows(f, "engine", "goodput", "SEND", 4096, 1, 65536);
	md_rows(f, "engine", "goodput", "WRITE", 4096, 1, 64);
	md_rows(f, "latency", "8 B WRITE round trip", NULL, 0, 0, 0);
	md_scale(f);
	md_rows(f, "veth", "raw frames", NULL, 0, 0, 0);
	md_rows(f, "veth", "engine goodput", NULL, 0, 0, 0);
}

bool bench_write_markdown(const char *path, const struct bench_run_info *ri)
{
	const struct bench_target *t;
	unsigned nt = bench_targets(&t);
	FILE *f = fopen(path, "w");

	if (!f)
		return false;
	fprintf(f, "| target | want | measured | verdict |\n|---|---|---|---|\n");
	for (unsigned i = 0; i < nt; i++) {
		char verdict[200];

		if (!t[i].measured)
			snprintf(verdict, sizeof(verdict), "not measured: %s", t[i].note);
		else if (t[i].info)
			snprintf(verdict, sizeof(verdict), "%s", t[i].note);
		else if (bench_target_met(&t[i]))
			snprintf(verdict, sizeof(verdict), "met");
		else if (t[i].upper)
			snprintf(verdict, sizeof(verdict), "missed (%.2fx over)",
				 t[i].got / t[i].want);
		else
			snprintf(verdict, sizeof(verdict), "missed (%.0f%% of target)",
				 100 * t[i].got / t[i].want);
		fprintf(f, "| %s | %s | %s | %s |\n", t[i].what, t[i].want_text,
			t[i].measured ? t[i].got_text : "-", verdict);
	}
	key_figures(f);
	fprintf(f, "\nMachine: %s, %d CPUs (%s); %s; %s. Run %s%s of %s; load: "
		"loadavg %.2f, other work %.2f CPUs, steal %.2f CPUs.\n",
		ri->cpu, ri->ncpus, ri->flags, ri->kernel, ri->compiler, ri->started,
		ri->quick ? " (--quick)" : ri->rt ? " (--rt)" : "",
		ri->source[0] ? ri->source : "an unnamed source", ri->load.loadavg1,
		ri->load.others_cpus, ri->load.steal_cpus);
	return fclose(f) == 0;
}
