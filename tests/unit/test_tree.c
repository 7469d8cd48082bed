// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* top's screen as the cgroup tree (ui/tree.c): parents by path, order, folds, names. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ui/tree.h"

/* Rows with these paths (NULL: none), ids 1.., in this order (the sort's). */
static struct row *rows_of(const char *const *paths, size_t n, size_t *idx)
{
	struct row *r = calloc(n, sizeof(*r));

	for (size_t i = 0; i < n; i++) {
		r[i].id = i + 1;
		r[i].path = paths[i];
		idx[i] = i;
	}
	return r;
}

/* The lines as "depth:path" joined by spaces, names as tree_name gives them in a wide column. */
static void lines_text(const struct row *r, const struct tree_line *l, size_t nl, char *out, size_t len)
{
	size_t o = 0;
	char name[128];

	out[0] = 0;
	for (size_t i = 0; i < nl && o < len; i++)
		o += snprintf(out + o, len - o, "%s%d:%s", i ? " " : "", l[i].depth,
			      r[l[i].row].path ? tree_name(r, &l[i], name, sizeof(name), 40) : "(none)");
}

Test(tree, rows_under_the_nearest_row_above_in_the_sorts_order)
{
	/* "/a-b" is not under "/a"; "/x/y" has no row "/x" and hangs from "/"; "/a/b/c" from "/a/b". */
	static const char *const paths[] = { "/a/b/c", "/a-b", "/", "/a", "/x/y", "/a/b", NULL, "/a/z" };
	size_t n = sizeof(paths) / sizeof(*paths), idx[8], nl;
	struct row *r = rows_of(paths, n, idx);
	struct tree_line l[8];
	char text[512];

	nl = tree_lines(r, idx, n, NULL, NULL, l);
	cr_assert_eq(nl, n);
	lines_text(r, l, nl, text, sizeof(text));
	/* Roots in the sort's order ("/" third, the pathless row seventh), children in it too. */
	cr_assert_str_eq(text, "0:/ 1:  /a-b 1:  /a 2:    /b 3:      /c 2:    /z 1:  /x/y 0:(none)");
	cr_assert(l[0].kids && !l[1].kids && l[3].kids && !l[4].kids);
	cr_assert_eq(l[4].parent, 5); /* "/a/b/c" under row 5, "/a/b" */
	free(r);
}

static bool fold_a(void *ctx, uint64_t id)
{
	return id == *(uint64_t *)ctx;
}

Test(tree, a_fold_hides_everything_below_and_says_how_much)
{
	static const char *const paths[] = { "/a", "/a/b", "/a/b/c", "/d", "/a/e" };
	size_t n = 5, idx[5], nl;
	struct row *r = rows_of(paths, n, idx);
	struct tree_line l[5];
	uint64_t folded = 1; /* "/a" */
	char text[256];

	nl = tree_lines(r, idx, n, fold_a, &folded, l);
	lines_text(r, l, nl, text, sizeof(text));
	cr_assert_str_eq(text, "0:/a [+3] 0:/d");
	cr_assert_eq(l[0].hidden, 3);
	folded = 2; /* "/a/b": its one child away */
	nl = tree_lines(r, idx, n, fold_a, &folded, l);
	lines_text(r, l, nl, text, sizeof(text));
	cr_assert_str_eq(text, "0:/a 1:  /b [+1] 1:  /e 0:/d");
	free(r);
}

Test(tree, names_fit_the_column_keeping_the_tail)
{
	static const char *const paths[] = {
		"/kubepods.slice",
		"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0123456789abcdef.slice",
	};
	size_t idx[2];
	struct row *r = rows_of(paths, 2, idx);
	struct tree_line l[2];
	char name[128];

	cr_assert_eq(tree_lines(r, idx, 2, NULL, NULL, l), 2);
	tree_name(r, &l[1], name, sizeof(name), 40);
	cr_assert_leq(strlen(name), 40, "'%s' is wider than its column", name);
	cr_assert(!strncmp(name, "  ", 2) && name[2] != ' ', "'%s': not indented one level", name);
	cr_assert(strstr(name, "0123456789abcdef.slice"), "'%s': the tail that tells pods apart is gone", name);
	free(r);
}

Test(tree, ten_thousand_rows_each_placed_once)
{
	size_t n = 10000, *idx = malloc(n * sizeof(*idx));
	const char **paths = malloc(n * sizeof(*paths));
	char (*buf)[32] = malloc(n * sizeof(*buf));
	struct tree_line *l = malloc(n * sizeof(*l));
	bool *seen = calloc(n, sizeof(*seen));

	/* 100 parents "/pN", 99 children each "/pN/cM", in an order unlike the paths'. */
	for (size_t i = 0; i < n; i++) {
		size_t p = i % 100, c = i / 100;
		if (c == 0)
			snprintf(buf[i], sizeof(buf[i]), "/p%zu", p);
		else
			snprintf(buf[i], sizeof(buf[i]), "/p%zu/c%zu", p, c);
		paths[i] = buf[i];
	}
	struct row *r = rows_of(paths, n, idx);
	cr_assert_eq(tree_lines(r, idx, n, NULL, NULL, l), n);
	for (size_t i = 0; i < n; i++) {
		cr_assert(!seen[l[i].row], "row %zu twice", l[i].row);
		seen[l[i].row] = true;
		cr_assert_eq(l[i].depth, l[i].row < 100 ? 0 : 1, "row %zu (%s) at depth %d", l[i].row, paths[l[i].row],
			     l[i].depth);
	}
	free(r), free(idx), free(paths), free(buf), free(l), free(seen);
}
