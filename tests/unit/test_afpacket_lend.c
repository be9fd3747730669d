/* SPDX-License-Identifier: MIT */
/*
 * In-order lending of receive slots (V2 ring and mmsg back ends): slots the
 * port consumed itself (ARP, truncated frames) between lent ones go back
 * to the kernel exactly when everything before them has.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "link/afpacket_priv.h"

static uint32_t given[64];
static unsigned ngiven;

static void give_back(struct roce_afpacket *afp, uint32_t slot)
{
	(void)afp;
	assert_true(ngiven < 64);
	given[ngiven++] = slot;
}

/* Mark slots [next, next + n) as received: lent where pattern says 1. */
static void receive(struct afp_lend *l, const char *pattern)
{
	for (const char *p = pattern; *p; p++) {
		l->lent[l->next & l->mask] = *p == '1';
		l->next++;
	}
}

static void test_in_order(void **state)
{
	struct afp_lend l;

	(void)state;
	assert_int_equal(afp_lend_init(&l, 8), 0);
	ngiven = 0;
	receive(&l, "0110");            /* consumed, lent, lent, consumed */
	afp_lend_release(NULL, &l, 0, give_back);
	assert_int_equal(ngiven, 1);    /* the leading consumed slot only */
	assert_int_equal(given[0], 0);
	afp_lend_release(NULL, &l, 1, give_back);
	assert_int_equal(ngiven, 2);    /* slot 1; slot 2 still lent */
	assert_int_equal(given[1], 1);
	afp_lend_release(NULL, &l, 1, give_back);
	assert_int_equal(ngiven, 4);    /* slot 2 and the trailing consumed 3 */
	assert_int_equal(given[2], 2);
	assert_int_equal(given[3], 3);
	assert_true(l.rel == l.next);
	/* wrap around the 8 slots */
	receive(&l, "111101");
	afp_lend_release(NULL, &l, 5, give_back);
	assert_int_equal(ngiven, 10);
	for (unsigned i = 0; i < 6; i++)
		assert_int_equal(given[4 + i], (4 + i) & 7);
	/* releasing more than lent stops at next */
	receive(&l, "1");
	afp_lend_release(NULL, &l, 3, give_back);
	assert_true(l.rel == l.next);
	assert_int_equal(ngiven, 11);
	afp_lend_fini(&l);
	assert_null(l.lent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
