/* SPDX-License-Identifier: MIT */
/* The tools' inline-stage options (perf_stage_opts.h). */
#include <string.h>

#include "perf/perf_stage_opts.h"
#include "roce/stage_config.h"
#include "roce/status.h"

void perf_stage_opts_init(struct perf_ep_stage *s)
{
	memset(s, 0, sizeof(*s));
	s->cfg.unit_shift = ROCE_STAGE_UNIT_MAX_SHIFT;
}

int perf_stage_opt(int c, const char *a, struct perf_ep_stage *s, const char **what,
		   char *why, size_t len)
{
	switch (c) {
	case PERF_STAGE_OPT_STAGE:
		*what = "--stage";
		return roce_stage_chain_parse(a, s->cfg.chain, why, len);
	case PERF_STAGE_OPT_KEY_FILE:
		*what = "--key-file";
		if (!*a)
			break;
		s->cfg.key_file = a;
		return ROCE_OK;
	case PERF_STAGE_OPT_DATA_UNIT:
		*what = "--data-unit";
		if (roce_stage_unit_parse(a, &s->cfg.unit_shift) == ROCE_OK)
			return ROCE_OK;
		snprintf(why, len, "512 or 4096");
		return ROCE_E_INVAL;
	case PERF_STAGE_OPT_DUN_BASE:
		*what = "--dun-base";
		return roce_stage_dun_parse(a, &s->cfg.dun_base, why, len);
	case PERF_STAGE_OPT_SAVE_DDR:
		*what = "--save-ddr";
		if (!*a)
			break;
		s->save_ddr = a;
		return ROCE_OK;
	default:
		return ROCE_E_NOENT;
	}
	snprintf(why, len, "name a file");
	return ROCE_E_INVAL;
}

int perf_stage_opts_check(const struct perf_ep_stage *s, char *why, size_t len)
{
	if (s->cfg.chain[0] == ROCE_STAGE_NONE && (s->cfg.key_file || s->cfg.dun_base)) {
		snprintf(why, len, "--key-file and --dun-base need --stage");
		return ROCE_E_INVAL;
	}
	return ROCE_OK;
}

void perf_stage_usage(FILE *f, const char *what, int col)
{
	static const char *const lines[][2] = {
		{ "--stage=LIST", "xts, pi, dedup or a list, wire side first (xts,pi;" },
		{ "", "dedup,xts,pi): every byte the peer or we put into the" },
		{ "", "MR or take from it goes through them; the wire carries" },
		{ "", "plaintext, DDR what they store" },
		{ "--key-file=FILE", "XTS key: 64 bytes (default: a random one, said so)" },
		{ "--data-unit=512|4096", "XTS and PI unit (default 4096; dedup: 4096)" },
		{ "--dun-base=N", "tweak and reference tag of unit 0 (default 0)" },
		{ "--save-ddr=FILE", "at the end, our MR's bytes as stored in DDR" },
	};

	fprintf(f, "inline stages (docs/stages.md), on %s:\n", what);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		fprintf(f, "  %-*s%s\n", col - 2, lines[i][0], lines[i][1]);
}
