// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The index of enforce's list and of the journal: found by hash, right after removals. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "lib/keyidx.h"

#define N 10000

static char rel[N][16];
static const char *file[N];
static size_t n, looked;

static void key(const void *ctx, size_t i, const char **a, const char **b)
{
	(void)ctx;
	looked++;
	*a = rel[i];
	*b = file[i];
}

/* Entry i out of the arrays (and first out of the index), as the callers do. */
static void drop(struct keyidx *x, size_t i)
{
	keyidx_remove(x, i, n, key, NULL);
	memmove(rel[i], rel[i + 1], (n - i - 1) * sizeof(rel[0]));
	memmove(&file[i], &file[i + 1], (n - i - 1) * sizeof(file[0]));
	n--;
}

static void all_found(const struct keyidx *x)
{
	looked = 0;
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(keyidx_find(x, rel[i], file[i], key, NULL), i, "%s %s", rel[i], file[i]);
	/* One comparison a lookup, bar the odd hash shared by two keys: no walk of the list. */
	cr_assert_leq(looked, n + n / 100, "%zu comparisons for %zu lookups", looked, n);
}

Test(keyidx, find_remove_rebuild)
{
	struct keyidx x = {};

	/* The same path with two files, and two paths with one: the key is the pair. */
	for (n = 0; n < N; n++) {
		snprintf(rel[n], sizeof(rel[n]), "/cg%05zu", n / 2);
		file[n] = n % 2 ? "cpu.max" : "cpu.weight";
		cr_assert_eq(keyidx_add(&x, n, rel[n], file[n]), 0);
	}
	all_found(&x);
	cr_assert_eq(keyidx_find(&x, "/cg00001", "cpu.max.burst", key, NULL), SIZE_MAX);
	cr_assert_eq(keyidx_find(&x, "/cg0000", "1cpu.max", key, NULL), SIZE_MAX);
	/* The first, one in the middle, the last: those after each move down by one. */
	drop(&x, 0);
	drop(&x, 4000);
	drop(&x, n - 1);
	cr_assert_eq(keyidx_find(&x, "/cg00000", "cpu.weight", key, NULL), SIZE_MAX);
	all_found(&x);
	cr_assert_eq(keyidx_rebuild(&x, n / 2, key, NULL), 0);
	n /= 2;
	all_found(&x);
	cr_assert_eq(keyidx_find(&x, rel[n], file[n], key, NULL), SIZE_MAX, "past the end: not indexed");
	keyidx_free(&x);
	cr_assert_eq(keyidx_find(&x, rel[0], file[0], key, NULL), SIZE_MAX);
}
