/* SPDX-License-Identifier: MIT */
/* Names of the engine counters and the drop-reason mapping (counters.h). */
#include <stddef.h>
#include <strings.h>

#include "roce/counters.h"

/* The drop list must follow status.h code for code: a counter per
 * receive-rejection status, in order, and nothing else. */
#define ROCE_X_CHECK(code, name)                                              \
	_Static_assert(ROCE_CNT_DROP_##code - ROCE_CNT_DROP_FIRST ==          \
		       ROCE_E_##code - ROCE_DROP_FIRST_STATUS,                \
		       "ROCE_DROP_LIST out of step with status.h at " #code);
ROCE_DROP_LIST(ROCE_X_CHECK)
#undef ROCE_X_CHECK
#define ROCE_X_CHECK2(code, name)                                             \
	_Static_assert(ROCE_CNT_DROP_##code - ROCE_CNT_DROP2_FIRST ==         \
		       ROCE_E_##code - ROCE_DROP2_FIRST_STATUS,               \
		       "ROCE_DROP_LIST2 out of step with status.h at " #code);
ROCE_DROP_LIST2(ROCE_X_CHECK2)
#undef ROCE_X_CHECK2
#define ROCE_X_CHECK3(code, name)                                             \
	_Static_assert(ROCE_CNT_DROP_##code - ROCE_CNT_DROP3_FIRST ==         \
		       ROCE_E_##code - ROCE_DROP3_FIRST_STATUS,               \
		       "ROCE_DROP_LIST3 out of step with status.h at " #code);
ROCE_DROP_LIST3(ROCE_X_CHECK3)
#undef ROCE_X_CHECK3
_Static_assert(ROCE_CNT_DROP2_FIRST - ROCE_CNT_DROP_FIRST ==
	       ROCE_DROP_LAST_STATUS - ROCE_DROP_FIRST_STATUS + 1,
	       "every receive-rejection status needs a DROP_ counter");
_Static_assert(ROCE_CNT_DROP3_FIRST - ROCE_CNT_DROP2_FIRST ==
	       ROCE_DROP2_LAST_STATUS - ROCE_DROP2_FIRST_STATUS + 1,
	       "every appended receive-rejection status needs a DROP_ counter");
_Static_assert(ROCE_CNT_DROP3_END - ROCE_CNT_DROP3_FIRST ==
	       ROCE_DROP3_LAST_STATUS - ROCE_DROP3_FIRST_STATUS + 1,
	       "every receive-rejection status appended last needs a DROP_ counter");

static const char *const cnt_names[ROCE_CNT_COUNT] = {
#define ROCE_X_NAME(id, name, desc) [ROCE_CNT_##id] = name,
	ROCE_COUNTER_LIST(ROCE_X_NAME)
#undef ROCE_X_NAME
#define ROCE_X_DNAME(code, name) [ROCE_CNT_DROP_##code] = "drop_" name,
	ROCE_DROP_LIST(ROCE_X_DNAME)
	ROCE_DROP_LIST2(ROCE_X_DNAME)
	ROCE_DROP_LIST3(ROCE_X_DNAME)
#undef ROCE_X_DNAME
#define ROCE_X_NAME(id, name, desc) [ROCE_CNT_##id] = name,
	ROCE_COUNTER_LIST2(ROCE_X_NAME)
#undef ROCE_X_NAME
};

static const char *const cnt_descs[ROCE_CNT_COUNT] = {
#define ROCE_X_DESC(id, name, desc) [ROCE_CNT_##id] = desc,
	ROCE_COUNTER_LIST(ROCE_X_DESC)
#undef ROCE_X_DESC
#define ROCE_X_DDESC(code, name) \
	[ROCE_CNT_DROP_##code] = "Frames dropped with status ROCE_E_" #code,
	ROCE_DROP_LIST(ROCE_X_DDESC)
	ROCE_DROP_LIST2(ROCE_X_DDESC)
	ROCE_DROP_LIST3(ROCE_X_DDESC)
#undef ROCE_X_DDESC
#define ROCE_X_DESC(id, name, desc) [ROCE_CNT_##id] = desc,
	ROCE_COUNTER_LIST2(ROCE_X_DESC)
#undef ROCE_X_DESC
};

void roce_counters_clear(struct roce_counters *c)
{
	for (int i = 0; i < ROCE_CNT_COUNT; i++)
		__atomic_store_n(&c->v[i], 0, __ATOMIC_RELAXED);
}

const char *roce_cnt_name(int id)
{
	return id >= 0 && id < ROCE_CNT_COUNT ? cnt_names[id] : NULL;
}

const char *roce_cnt_desc(int id)
{
	return id >= 0 && id < ROCE_CNT_COUNT ? cnt_descs[id] : NULL;
}

int roce_cnt_drop_status(int id)
{
	if (id < ROCE_CNT_DROP_FIRST || id >= ROCE_CNT_DROP3_END)
		return -1;
	if (id >= ROCE_CNT_DROP3_FIRST)
		return ROCE_DROP3_FIRST_STATUS + (id - ROCE_CNT_DROP3_FIRST);
	if (id >= ROCE_CNT_DROP2_FIRST)
		return ROCE_DROP2_FIRST_STATUS + (id - ROCE_CNT_DROP2_FIRST);
	return ROCE_DROP_FIRST_STATUS + (id - ROCE_CNT_DROP_FIRST);
}

int roce_cnt_find(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < ROCE_CNT_COUNT; i++)
		if (strcasecmp(cnt_names[i], name) == 0)
			return i;
	return -1;
}

void roce_counters_print(FILE *stream, const struct roce_counters *c, bool all)
{
	for (int id = 0; id < ROCE_CNT_COUNT; id++) {
		uint64_t v = roce_cnt_read(c, (enum roce_cnt)id);

		if (v || all)
			fprintf(stream, "%s %llu\n", roce_cnt_name(id), (unsigned long long)v);
	}
}
