/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An index of an array in the caller's order, by a key of two strings (a
 * cgroup path and a file name): a lookup costs a hash, not a walk of the
 * array. An idtab maps each key's 64-bit hash to the first entry with it;
 * entries whose keys share a hash are chained, so a collision costs a
 * comparison, never a wrong answer. The caller owns the array and its keys:
 * keyidx_key tells the index entry i's key.
 */
#ifndef CGS_KEYIDX_H
#define CGS_KEYIDX_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/idtab.h"

typedef void (*keyidx_key)(const void *ctx, size_t i, const char **a, const char **b);

/* All zero is an empty index. */
struct keyidx {
	struct idtab t;  /* hash -> the first entry with it */
	size_t *next;    /* per entry: the next one with its hash, or SIZE_MAX */
	size_t cap;
};

/* Entry i, whose key is (a, b) and is not in the index yet: 0, or -ENOMEM with the index as it was. */
int keyidx_add(struct keyidx *x, size_t i, const char *a, const char *b);
/* The entry whose key is (a, b), or SIZE_MAX. */
size_t keyidx_find(const struct keyidx *x, const char *a, const char *b, keyidx_key key, const void *ctx);
/*
 * Entry i of n is about to leave the array, and those after it to move
 * down by one: called while entry i is still in place.
 */
void keyidx_remove(struct keyidx *x, size_t i, size_t n, keyidx_key key, const void *ctx);
/*
 * Entries 0..n-1 indexed afresh, after the array was changed otherwise: 0,
 * or -ENOMEM with the index empty. It never fails when n is at most the
 * number indexed before: the memory is there.
 */
int keyidx_rebuild(struct keyidx *x, size_t n, keyidx_key key, const void *ctx);
void keyidx_free(struct keyidx *x);

#endif
