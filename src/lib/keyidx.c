// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/keyidx.h"

struct head {
	uint64_t h;      /* the key's hash (idtab's id: never 0) */
	size_t first;
};

/* FNV-1a over a, a separator, then b. Keys that collide are chained, so the hash need not be perfect. */
static uint64_t hash2(const char *a, const char *b)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)a; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	h = (h ^ 0x100) * 0x100000001b3ULL;
	for (const unsigned char *p = (const unsigned char *)b; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h ? h : 1;
}

int keyidx_add(struct keyidx *x, size_t i, const char *a, const char *b)
{
	struct head *hd;
	bool fresh;

	if (i >= x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 16;
		if (cap <= i)
			cap = i + 1;
		size_t *n = realloc(x->next, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		x->next = n;
		x->cap = cap;
	}
	if (!x->t.esize)
		x->t.esize = sizeof(struct head);
	if (!(hd = idtab_put(&x->t, hash2(a, b), &fresh)))
		return -ENOMEM;
	x->next[i] = fresh ? SIZE_MAX : hd->first;
	hd->first = i;
	return 0;
}

size_t keyidx_find(const struct keyidx *x, const char *a, const char *b, keyidx_key key, const void *ctx)
{
	const struct head *hd = idtab_find(&x->t, hash2(a, b));
	const char *ka, *kb;

	for (size_t i = hd ? hd->first : SIZE_MAX; i != SIZE_MAX; i = x->next[i]) {
		key(ctx, i, &ka, &kb);
		if (!strcmp(ka, a) && !strcmp(kb, b))
			return i;
	}
	return SIZE_MAX;
}

void keyidx_remove(struct keyidx *x, size_t i, size_t n, keyidx_key key, const void *ctx)
{
	const char *a, *b;
	uint64_t h;
	struct head *hd;

	if (i >= n || i >= x->cap)
		return;
	key(ctx, i, &a, &b);
	h = hash2(a, b);
	if ((hd = idtab_find(&x->t, h))) {
		if (hd->first == i) {
			hd->first = x->next[i];
			if (hd->first == SIZE_MAX)
				idtab_del(&x->t, h);
		} else {
			size_t p = hd->first;
			while (p != SIZE_MAX && x->next[p] != i)
				p = x->next[p];
			if (p != SIZE_MAX)
				x->next[p] = x->next[i];
		}
	}
	/* The entries after i moved down by one: so do their numbers. */
	memmove(x->next + i, x->next + i + 1, (n - i - 1) * sizeof(*x->next));
	for (size_t k = 0; k + 1 < n; k++)
		if (x->next[k] != SIZE_MAX && x->next[k] > i)
			x->next[k]--;
	for (size_t s = 0; s < x->t.cap; s++) {
		struct head *e = idtab_at(&x->t, s);
		if (e && e->first != SIZE_MAX && e->first > i)
			e->first--;
	}
}

int keyidx_rebuild(struct keyidx *x, size_t n, keyidx_key key, const void *ctx)
{
	const char *a, *b;

	idtab_clear(&x->t);
	for (size_t i = 0; i < n; i++) {
		key(ctx, i, &a, &b);
		if (keyidx_add(x, i, a, b)) {
			idtab_clear(&x->t);
			return -ENOMEM;
		}
	}
	return 0;
}

void keyidx_free(struct keyidx *x)
{
	idtab_free(&x->t);
	free(x->next);
	memset(x, 0, sizeof(*x));
}
