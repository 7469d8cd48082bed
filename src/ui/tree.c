// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The cgroup tree of top's screen (tree.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/tree.h"

/* FNV-1a of a path's first len bytes: the tree's table of paths. */
static uint64_t path_hash(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
	return h;
}


size_t tree_lines(const struct row *rows, const size_t *idx, size_t n, bool (*folded)(void *ctx, uint64_t id), void *ctx,
		  struct tree_line *out)
{
	const size_t NONE = SIZE_MAX;
	size_t cap = 16, nl = 0, top = 0;
	while (cap < 2 * n)
		cap <<= 1;
	size_t *tab = malloc(cap * sizeof(*tab)), *par = malloc(n * sizeof(*par)), *size = malloc(n * sizeof(*size));
	size_t *first = malloc(n * sizeof(*first)), *next = malloc(n * sizeof(*next)), *last = malloc(n * sizeof(*last));
	size_t *stack = malloc(n * sizeof(*stack)), *depth = malloc(n * sizeof(*depth));

	if (!tab || !par || !size || !first || !next || !last || !stack || !depth) {
		/* Out of memory: the rows flat, as sorted. */
		for (size_t k = 0; k < n; k++)
			out[nl++] = (struct tree_line){ .row = idx[k], .parent = NONE };
		goto out;
	}
	/* Positions k in the sort's order; the paths in a table, to find each one's parent by its prefixes. */
	for (size_t i = 0; i < cap; i++)
		tab[i] = NONE;
	for (size_t k = 0; k < n; k++) {
		const char *p = rows[idx[k]].path;
		first[k] = last[k] = next[k] = par[k] = NONE;
		size[k] = 1;
		if (!p)
			continue;
		size_t at = path_hash(p, strlen(p)) & (cap - 1);
		while (tab[at] != NONE && strcmp(rows[idx[tab[at]]].path, p))
			at = (at + 1) & (cap - 1);
		if (tab[at] == NONE)
			tab[at] = k; /* one row a path (two of one path: the first) */
	}
	/* Each row under the longest prefix of its path ending before a '/' that is a row's path ("/" included). */
	for (size_t k = 0; k < n; k++) {
		const char *p = rows[idx[k]].path;
		for (size_t len = p ? strlen(p) : 0; len > 0 && par[k] == NONE;) {
			while (len > 0 && p[len - 1] != '/')
				len--;
			if (!len)
				break;
			size_t l = len > 1 ? len - 1 : 1; /* "/a/b" -> "/a"; "/a" -> "/" */
			size_t at = path_hash(p, l) & (cap - 1);
			for (; tab[at] != NONE; at = (at + 1) & (cap - 1)) {
				const char *q = rows[idx[tab[at]]].path;
				if (tab[at] != k && !strncmp(q, p, l) && !q[l]) {
					par[k] = tab[at];
					break;
				}
			}
			len = len > 1 ? len - 1 : 0;
		}
	}
	/* Sizes of the subtrees: each row's added up its chain of parents (the depth is small). */
	for (size_t k = 0; k < n; k++)
		for (size_t q = par[k], hops = 0; q != NONE && hops < n; q = par[q], hops++)
			size[q]++;
	/* Children in the sort's order: appended as k goes up. */
	for (size_t k = 0; k < n; k++) {
		size_t q = par[k];
		if (q == NONE)
			continue;
		if (last[q] == NONE)
			first[q] = k;
		else
			next[last[q]] = k;
		last[q] = k;
	}
	/* Depth first, the roots in the sort's order. */
	for (size_t k0 = 0; k0 < n; k0++) {
		if (par[k0] != NONE)
			continue;
		top = 0;
		stack[top++] = k0;
		depth[k0] = 0;
		while (top) {
			size_t k = stack[--top];
			bool fold = first[k] != NONE && folded && folded(ctx, rows[idx[k]].id);
			out[nl++] = (struct tree_line){ .row = idx[k], .parent = par[k] == NONE ? NONE : idx[par[k]],
							.depth = (int)depth[k], .hidden = fold ? size[k] - 1 : 0,
							.kids = first[k] != NONE };
			if (fold)
				continue;
			/* Pushed last to first, so that the first comes off first. */
			size_t nk = 0;
			for (size_t c = first[k]; c != NONE; c = next[c])
				nk++;
			top += nk;
			size_t at = top;
			for (size_t c = first[k]; c != NONE; c = next[c]) {
				stack[--at] = c;
				depth[c] = depth[k] + 1;
			}
		}
	}
out:
	free(tab), free(par), free(size), free(first), free(next), free(last), free(stack), free(depth);
	return nl;
}

const char *tree_name(const struct row *rows, const struct tree_line *l, char *buf, size_t len, size_t width)
{
	const char *p = rows[l->row].path, *base = l->parent != SIZE_MAX ? rows[l->parent].path : NULL;
	char suffix[32] = "", cl[PATH_MAX];
	size_t ind = (size_t)l->depth * 2, room;

	if (base && strcmp(base, "/"))
		p += strlen(base);
	if (l->hidden)
		snprintf(suffix, sizeof(suffix), " [+%zu]", l->hidden);
	if (ind > width / 2)
		ind = width / 2;
	room = width > ind + strlen(suffix) + 10 ? width - ind - strlen(suffix) : 10;
	if (rows[l->row].removed && room > 20)
		room -= 10; /* row_name adds " (removed)" */
	snprintf(buf, len, "%*s%s%s", (int)ind, "", clip(p, cl, room), suffix);
	return buf;
}

