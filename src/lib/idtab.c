// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/idtab.h"

static uint64_t *id_at(void *e, size_t esize, size_t i)
{
	return (uint64_t *)((char *)e + i * esize);
}

/* Fibonacci hashing: ids are mostly consecutive inode numbers. */
static size_t home(uint64_t id, size_t cap)
{
	return (id * 0x9E3779B97F4A7C15ULL) & (cap - 1);
}

/* The entry of id, or the free one where it would go. */
static size_t probe(void *e, size_t esize, size_t cap, uint64_t id)
{
	size_t i = home(id, cap);

	while (*id_at(e, esize, i) && *id_at(e, esize, i) != id)
		i = (i + 1) & (cap - 1);
	return i;
}

void *idtab_find(const struct idtab *t, uint64_t id)
{
	if (!t->cap || !id)
		return NULL;
	uint64_t *p = id_at(t->e, t->esize, probe(t->e, t->esize, t->cap, id));
	return *p == id ? p : NULL;
}

void idtab_prefetch(const struct idtab *t, uint64_t id)
{
	if (t->cap)
		__builtin_prefetch(id_at(t->e, t->esize, home(id, t->cap)));
}

static int grow(struct idtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 256;
	void *e = calloc(cap, t->esize);

	if (!e)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t *old = id_at(t->e, t->esize, i);
		if (*old)
			memcpy(id_at(e, t->esize, probe(e, t->esize, cap, *old)), old, t->esize);
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

void *idtab_put(struct idtab *t, uint64_t id, bool *fresh)
{
	uint64_t *p = NULL;

	if (fresh)
		*fresh = false;
	if (!id || t->esize < sizeof(uint64_t)) /* id 0, or a table never set up */
		return NULL;
	if (t->cap) {
		p = id_at(t->e, t->esize, probe(t->e, t->esize, t->cap, id));
		if (*p == id)
			return p;
	}
	/*
	 * Grow past three quarters full. Fibonacci hashing spreads the ids, so
	 * a probe stays short at that load (2.5 entries on average for a hit).
	 * Growing at half full would double the table for no real gain.
	 */
	if ((t->used + 1) * 4 > t->cap * 3) {
		if (grow(t))
			return NULL;
		p = id_at(t->e, t->esize, probe(t->e, t->esize, t->cap, id));
	}
	memset(p, 0, t->esize);
	*p = id;
	t->used++;
	if (fresh)
		*fresh = true;
	return p;
}

bool idtab_del(struct idtab *t, uint64_t id)
{
	if (!t->cap || !id)
		return false;
	size_t i = probe(t->e, t->esize, t->cap, id), j = i;

	if (*id_at(t->e, t->esize, i) != id)
		return false;
	/*
	 * Close the gap. Each later entry of the run moves back into it,
	 * unless its home lies cyclically in (gap, its place]. The probe from
	 * such a home would not pass the gap.
	 */
	for (;;) {
		j = (j + 1) & (t->cap - 1);
		uint64_t *q = id_at(t->e, t->esize, j);
		if (!*q)
			break;
		size_t h = home(*q, t->cap);
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		memcpy(id_at(t->e, t->esize, i), q, t->esize);
		i = j;
	}
	memset(id_at(t->e, t->esize, i), 0, t->esize);
	t->used--;
	return true;
}

int idtab_sweep(struct idtab *t, bool (*drop)(void *ctx, void *entry), void *ctx)
{
	uint64_t *gone = malloc((t->used + 1) * sizeof(*gone));
	size_t n = 0;

	if (!gone)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		uint64_t *e = id_at(t->e, t->esize, i);
		if (*e && drop(ctx, e))
			gone[n++] = *e;
	}
	for (size_t i = 0; i < n; i++)
		idtab_del(t, gone[i]);
	free(gone);
	return 0;
}

void *idtab_at(const struct idtab *t, size_t i)
{
	uint64_t *p = i < t->cap ? id_at(t->e, t->esize, i) : NULL;

	return p && *p ? p : NULL;
}

void idtab_clear(struct idtab *t)
{
	if (t->e)
		memset(t->e, 0, t->cap * t->esize);
	t->used = 0;
}

void idtab_free(struct idtab *t)
{
	free(t->e);
	t->e = NULL;
	t->cap = t->used = 0;
}
