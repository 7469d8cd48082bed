// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The id-keyed table the path cache, the kernel figures and their deltas share. */
#include <criterion/criterion.h>

#include "lib/idtab.h"

struct ent {
	uint64_t id;
	uint64_t v;
};

Test(idtab, put_find_grow_walk_clear)
{
	struct idtab t = IDTAB_INIT(struct ent);
	bool fresh;

	cr_assert_null(idtab_find(&t, 5), "an empty table finds nothing");
	cr_assert_null(idtab_put(&t, 0, &fresh), "id 0 marks a free entry: refused");
	/* Consecutive ids, as inode numbers are, past several doublings. */
	for (uint64_t id = 1; id <= 5000; id++) {
		struct ent *e = idtab_put(&t, id, &fresh);
		cr_assert_not_null(e);
		cr_assert(fresh);
		cr_assert_eq(e->v, 0, "a new entry is zeroed");
		e->v = id * 3;
	}
	cr_assert_eq(t.used, 5000);
	cr_assert_leq(t.used * 4, t.cap * 3, "at most three quarters full");
	struct ent *e = idtab_put(&t, 77, &fresh);
	cr_assert(!fresh);
	cr_assert_eq(e->v, 231, "an existing entry keeps its value");
	uint64_t sum = 0, n = 0;
	for (size_t i = 0; i < t.cap; i++)
		if ((e = idtab_at(&t, i)))
			sum += e->v, n++;
	cr_assert_eq(n, 5000);
	cr_assert_eq(sum, 3ULL * 5000 * 5001 / 2);
	cr_assert_null(idtab_find(&t, 5001));
	idtab_clear(&t);
	cr_assert_null(idtab_find(&t, 77));
	cr_assert_not_null(idtab_put(&t, 77, &fresh));
	cr_assert(fresh);
	idtab_free(&t);
}

Test(idtab, unset_table_refuses)
{
	struct idtab t = { 0 };

	cr_assert_null(idtab_put(&t, 1, NULL), "a table with no entry size is never written");
	cr_assert_null(idtab_find(&t, 1));
}

/* Deleting keeps every other entry findable, whatever the runs and wrap-around. */
Test(idtab, delete_keeps_the_rest)
{
	struct idtab t = IDTAB_INIT(struct ent);
	bool fresh;

	for (uint64_t id = 1; id <= 3000; id++)
		((struct ent *)idtab_put(&t, id * 7919, &fresh))->v = id;
	/* Every third one out, then the rest must all be found with their values. */
	for (uint64_t id = 3; id <= 3000; id += 3)
		cr_assert(idtab_del(&t, id * 7919));
	cr_assert_not(idtab_del(&t, 3 * 7919), "gone already");
	cr_assert_not(idtab_del(&t, 12345678), "never there");
	cr_assert_eq(t.used, 2000);
	for (uint64_t id = 1; id <= 3000; id++) {
		struct ent *e = idtab_find(&t, id * 7919);
		if (id % 3 == 0) {
			cr_assert_null(e, "%llu deleted", (unsigned long long)id);
		} else {
			cr_assert_not_null(e, "%llu kept", (unsigned long long)id);
			cr_assert_eq(e->v, id);
		}
	}
	/* Churn: put and delete many times over; the table does not grow. */
	size_t cap = t.cap;
	for (uint64_t round = 0; round < 20000; round++) {
		uint64_t id = 100000000 + round; /* above every id put before */
		cr_assert_not_null(idtab_put(&t, id, &fresh));
		cr_assert(idtab_del(&t, id));
	}
	cr_assert_eq(t.cap, cap, "deleted entries free their place");
	cr_assert_eq(t.used, 2000);
	idtab_free(&t);
}

/* What the sweep is asked of: the odd ids, counting the calls. */
static bool odd(void *ctx, void *e)
{
	++*(int *)ctx;
	return ((struct ent *)e)->id % 2;
}

Test(idtab, sweep_forgets_what_drop_says_and_keeps_the_rest)
{
	struct idtab t = IDTAB_INIT(struct ent);
	int asked = 0;

	for (uint64_t id = 1; id <= 1000; id++)
		((struct ent *)idtab_put(&t, id * 7919, NULL))->v = id;
	cr_assert_eq(idtab_sweep(&t, odd, &asked), 0);
	cr_assert_eq(asked, 1000, "every entry asked once, before any went");
	cr_assert_eq(t.used, 500);
	for (uint64_t id = 1; id <= 1000; id++) {
		struct ent *e = idtab_find(&t, id * 7919);
		if ((id * 7919) % 2)
			cr_assert_null(e, "%llu", (unsigned long long)id);
		else
			cr_assert(e && e->v == id, "%llu moved and kept", (unsigned long long)id);
	}
	idtab_free(&t);
}
