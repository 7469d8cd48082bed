/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A table keyed by cgroup id: open addressing, linear probing, at most
 * three quarters full, doubled as it grows. Entries are the caller's struct, whose first
 * member is the uint64_t id; id 0 marks a free entry (no cgroup has id 0).
 */
#ifndef CGS_IDTAB_H
#define CGS_IDTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct idtab {
	void *e;
	size_t esize;   /* sizeof the caller's entry */
	size_t cap;     /* a power of two; 0 until the first put */
	size_t used;
};

#define IDTAB_INIT(type) { .esize = sizeof(type) }

/* The entry of id, or NULL. */
void *idtab_find(const struct idtab *t, uint64_t id);
/*
 * Start loading the cache line where id's probe would begin. A loop over
 * thousands of ids calls it a few ids ahead of its find or put. Otherwise
 * each probe would start with a cache miss.
 */
void idtab_prefetch(const struct idtab *t, uint64_t id);
/*
 * The entry of id; a new one (*fresh set) is zeroed but for its id. NULL
 * when the table would have to grow and cannot (out of memory).
 */
void *idtab_put(struct idtab *t, uint64_t id, bool *fresh);
/*
 * Forget id's entry (its owned memory is the caller's to free first).
 * Other entries may move: pointers into the table do not survive it.
 * Returns whether it was there.
 */
bool idtab_del(struct idtab *t, uint64_t id);
/*
 * Forget every entry drop says yes to; drop may free what the entry owns
 * first. A deletion moves entries, so the walk asks every entry before
 * any goes. 0, or -ENOMEM with the table as it was (drop not called).
 */
int idtab_sweep(struct idtab *t, bool (*drop)(void *ctx, void *entry), void *ctx);
/* Entry i of 0..cap-1, or NULL where free: for walking every entry. */
void *idtab_at(const struct idtab *t, size_t i);
/* Forget every entry (the memory stays for reuse). */
void idtab_clear(struct idtab *t);
void idtab_free(struct idtab *t);

#endif
