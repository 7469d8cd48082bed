/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The screen's rows as the cgroup tree (ui/screen.c): which row hangs
 * under which, in what order, what a fold hides, and each line's name.
 * Pure: rows and paths in, lines out.
 */
#ifndef CGS_TREE_H
#define CGS_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"

/* One line of the tree: a row, how deep, how many rows its fold hides. */
struct tree_line {
	size_t row;      /* index into the rows */
	size_t parent;   /* the line's row it hangs from, SIZE_MAX: a root */
	int depth;
	size_t hidden;   /* rows below it, folded away */
	bool kids;
};

/*
 * The rows at idx[0..n) (in the sort's order) as the cgroup tree: each row
 * under the nearest row above it by path (cgroups with no row of their own
 * in between are skipped; a row without a path is a root), the rows under
 * one parent in the sort's order, depth first, and none under a row that
 * folded(ctx, its id) says is folded (NULL: none is). The lines into out
 * (room for n); how many.
 */
size_t tree_lines(const struct row *rows, const size_t *idx, size_t n, bool (*folded)(void *ctx, uint64_t id), void *ctx,
		  struct tree_line *out);
/*
 * A line's name: indented two spaces a level, the path below its parent's
 * (a root's whole), " [+N]" where N rows are folded away; at most width
 * bytes (the table's column), the path's tail kept.
 */
const char *tree_name(const struct row *rows, const struct tree_line *l, char *buf, size_t len, size_t width);

#endif
