/* SPDX-License-Identifier: MIT */
/*
 * The IOMMU's window table (src/engine/iommu.h): IOVAs per slot, next-fit,
 * translation only inside one window, bounded count, clear errors; and the
 * MR table's view of a HOST entry (only its width is checked there, the
 * windows are the data path's question).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engine/iommu.h"
#include "roce/status.h"
#include "roce/tables.h"

static void test_map_translate(void **state)
{
	struct iommu *io = iommu_create();
	uint8_t *buf = malloc(10000);
	uint64_t a, b;

	(void)state;
	assert_non_null(io);
	assert_non_null(buf);
	assert_int_equal(iommu_map(io, buf + 100, 5000, &a), ROCE_OK);
	/* the IOVA keeps the page offset, in the host range */
	assert_int_equal(a & (IOMMU_PAGE - 1), (uintptr_t)(buf + 100) & (IOMMU_PAGE - 1));
	assert_true(a >= IOMMU_IOVA_BASE && a < 2 * IOMMU_IOVA_BASE);
	assert_int_equal(iommu_count(io), 1);
	/* inside: the host bytes; the window's edges exactly */
	assert_ptr_equal(iommu_translate(io, a, 5000), buf + 100);
	assert_ptr_equal(iommu_translate(io, a + 4999, 1), buf + 5099);
	assert_ptr_equal(iommu_translate(io, a + 17, 8), buf + 117);
	/* one byte past either end, a wrapping length, length 0: refused */
	assert_null(iommu_translate(io, a, 5001));
	assert_null(iommu_translate(io, a + 5000, 1));
	assert_null(iommu_translate(io, a - 1, 2));
	assert_null(iommu_translate(io, a + 1, UINT64_MAX));
	assert_null(iommu_translate(io, a, 0));
	/* addresses nothing maps: DDR-like ones, the host pointer itself,
	 * a free slot, beyond the slots */
	assert_null(iommu_translate(io, 0, 1));
	assert_null(iommu_translate(io, (uintptr_t)buf + 100, 1));
	assert_null(iommu_translate(io, a + IOMMU_SLOT_SIZE, 1));
	assert_null(iommu_translate(io, 2 * IOMMU_IOVA_BASE, 1));
	assert_null(iommu_translate(io, UINT64_MAX, 1));
	assert_null(iommu_translate(NULL, a, 1));

	/* a second window over the same bytes has its own IOVA */
	assert_int_equal(iommu_map(io, buf + 100, 5000, &b), ROCE_OK);
	assert_int_not_equal(a, b);
	assert_int_equal(iommu_unmap(io, a), ROCE_OK);
	assert_null(iommu_translate(io, a, 1));         /* gone at once */
	assert_ptr_equal(iommu_translate(io, b, 1), buf + 100);
	assert_int_equal(iommu_unmap(io, a), ROCE_E_NOENT);
	assert_int_equal(iommu_unmap(io, b + 1), ROCE_E_NOENT);
	assert_int_equal(iommu_unmap(io, b), ROCE_OK);
	assert_int_equal(iommu_count(io), 0);
	free(buf);
	iommu_destroy(io);
}

static void test_map_errors_and_bound(void **state)
{
	struct iommu *io = iommu_create();
	static uint8_t byte[1];
	uint64_t iova, first = 0, again;

	(void)state;
	assert_non_null(io);
	assert_int_equal(iommu_map(io, NULL, 1, &iova), ROCE_E_INVAL);
	assert_int_equal(iommu_map(io, byte, 0, &iova), ROCE_E_INVAL);
	assert_int_equal(iommu_map(io, byte, 1, NULL), ROCE_E_INVAL);
	assert_int_equal(iommu_map(io, byte, (size_t)IOMMU_WINDOW_MAX + 1, &iova),
			 ROCE_E_RANGE);
	assert_int_equal(iommu_map(io, (void *)(UINTPTR_MAX - 10), 100, &iova),
			 ROCE_E_RANGE);
	assert_int_equal(iommu_count(io), 0);

	/* bounded: IOMMU_WINDOWS, then FULL; a freed slot is found again */
	for (unsigned i = 0; i < IOMMU_WINDOWS; i++) {
		assert_int_equal(iommu_map(io, byte, 1, &iova), ROCE_OK);
		if (i == 0)
			first = iova;
	}
	assert_int_equal(iommu_count(io), IOMMU_WINDOWS);
	assert_int_equal(iommu_map(io, byte, 1, &iova), ROCE_E_FULL);
	assert_int_equal(iommu_unmap(io, first + 5 * IOMMU_SLOT_SIZE), ROCE_OK);
	assert_int_equal(iommu_map(io, byte, 1, &again), ROCE_OK);
	assert_int_equal(again, first + 5 * IOMMU_SLOT_SIZE);
	iommu_destroy(io);
}

/* Next-fit: an unmapped window's IOVA is not handed out again at once, so
 * a stale IOVA does not meet the next buffer registered. */
static void test_next_fit(void **state)
{
	struct iommu *io = iommu_create();
	static uint8_t byte[1];
	uint64_t a, b;

	(void)state;
	assert_int_equal(iommu_map(io, byte, 1, &a), ROCE_OK);
	assert_int_equal(iommu_unmap(io, a), ROCE_OK);
	assert_int_equal(iommu_map(io, byte, 1, &b), ROCE_OK);
	assert_int_not_equal(a, b);
	assert_null(iommu_translate(io, a, 1));
	iommu_destroy(io);
}

/* The MR table takes a HOST entry anywhere below 2^63 (the device cannot
 * see the windows), refuses one reaching past it, and still holds a DDR
 * entry to the DDR. */
static void test_table_host_entry(void **state)
{
	struct roce_mr_table *t;
	struct roce_mr_entry e = { 0 }, back;

	(void)state;
	assert_int_equal(roce_mr_table_create(1u << 20, &t), ROCE_OK);
	e.valid = true;
	e.access = ROCE_ACCESS_LOCAL_WRITE;
	e.va = 0x1000;
	e.len = 4096;
	e.lkey = e.rkey = ROCE_MR_KEY(3, 0x42);
	e.space = ROCE_MR_SPACE_HOST;
	e.pa = IOMMU_IOVA_BASE;                         /* far beyond the DDR */
	assert_int_equal(roce_mr_table_commit(t, 3, &e), ROCE_OK);
	assert_int_equal(roce_mr_table_lookup(t, 3, &back), ROCE_OK);
	assert_int_equal(back.space, ROCE_MR_SPACE_HOST);
	assert_int_equal(back.pa, IOMMU_IOVA_BASE);
	e.pa = ROCE_MR_HOST_PA_LIMIT - 4096;            /* the last page */
	assert_int_equal(roce_mr_table_commit(t, 3, &e), ROCE_OK);
	e.pa = ROCE_MR_HOST_PA_LIMIT - 4095;            /* one byte beyond */
	assert_int_equal(roce_mr_table_commit(t, 3, &e), ROCE_E_BOUNDS);
	e.pa = UINT64_MAX - 100;                        /* wraps */
	assert_int_equal(roce_mr_table_commit(t, 3, &e), ROCE_E_BOUNDS);
	/* a space the entry has no value for */
	e.pa = IOMMU_IOVA_BASE;
	e.space = 2;
	assert_int_equal(roce_mr_table_commit(t, 3, &e), ROCE_E_INVAL);
	/* the same range as DDR: outside the device memory */
	e.space = ROCE_MR_SPACE_DDR;
	e.pa = IOMMU_IOVA_BASE;
	assert_int_equal(roce_mr_table_commit(t, 3, &e), ROCE_E_BOUNDS);
	roce_mr_table_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_translate),
		cmocka_unit_test(test_map_errors_and_bound),
		cmocka_unit_test(test_next_fit),
		cmocka_unit_test(test_table_host_entry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
