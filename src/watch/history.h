/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The history of cgsched watch: each interval's figures for every cgroup
 * active in it, the throttle episodes and the long waits. They are kept
 * while they fit in a byte budget; the oldest go first, and are counted.
 *
 * An interval's rows are packed: a bitmap of the counters that moved,
 * then each of those as a varint, then the kernel's figures where the
 * cgroup has them. Most counters of a row are zero in any one interval,
 * so a packed row is a small part of the full one. A window of the
 * history sums back into one delta snapshot and its kernel figures,
 * which record's report is built from.
 */
#ifndef CGS_HISTORY_H
#define CGS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgsched.h"
#include "figures/kstat_src.h"
#include "figures/snapshot.h"
#include "lib/idtab.h"

/* A ring of fixed-size items: pushed at the back, dropped from the front. */
struct ring {
	void *a;
	size_t esize, cap, head, n;
};

/*
 * The packed rows live in chunks mapped outside the heap. Each chunk is
 * filled in turn and unmapped whole when its last interval goes. Rows live
 * for minutes. In the heap, between each refresh's short-lived buffers,
 * they would leave holes that the next refresh does not fit, and the heap
 * would grow far past the budget.
 */
struct hist_chunk {
	struct hist_chunk *next;    /* the next newer */
	size_t size;                /* mapped, this header included */
	size_t used;                /* handed out from the start, this header included */
	size_t live;                /* intervals whose rows are here */
};

struct history {
	size_t budget;              /* bytes: the chunks mapped, the intervals' entries, episodes, waits */
	size_t bytes;               /* in use now */
	size_t chunk_size;          /* a chunk's usual size: a 16th of the budget, 16K to 1M */
	struct hist_chunk *first, *last;
	size_t nchunks;
	struct ring iv;             /* struct hist_iv, oldest first */
	struct ring ep;             /* struct cgs_episode, in order of arrival */
	struct ring wt;             /* struct cgs_wait */
	uint64_t dropped_iv, dropped_ep, dropped_wt; /* let go for the budget (or out of memory) */
	uint8_t *scratch;           /* an interval packed here first: the worst case's size, kept */
	size_t scratch_cap;
};

struct hist_iv {
	uint64_t t0, t1;            /* the interval (monotonic ns) */
	uint8_t *blob;              /* its rows and preemption pairs, packed, in chunk */
	size_t len;
	struct hist_chunk *chunk;
	uint64_t drops[CGS_DROP__COUNT];
};

void history_init(struct history *h, size_t budget);
void history_free(struct history *h);
/*
 * Add one interval over [t0, t1]: the rows and pairs of delta snapshot d,
 * with each row's kernel figures from kfigs (id -> struct kstat_fig; NULL:
 * none). Returns 0, or -ENOMEM: the interval is then not kept, and counted.
 */
int history_add(struct history *h, const struct snapshot *d, const struct idtab *kfigs, uint64_t t0, uint64_t t1);
void history_add_episode(struct history *h, const struct cgs_episode *e);
void history_add_wait(struct history *h, const struct cgs_wait *w);
/* Get within the budget: drop the oldest intervals, and the episodes and waits before the oldest kept. */
void history_trim(struct history *h);
/* The start of the oldest interval kept (0: none). */
uint64_t history_oldest(const struct history *h);
/* Drop the intervals that end before t (the --keep horizon). */
void history_forget_before(struct history *h, uint64_t t);
/* The intervals kept, and the i-th one's bounds (0: the oldest). */
size_t history_count(const struct history *h);
void history_bounds(const struct history *h, size_t i, uint64_t *t0, uint64_t *t1);

/*
 * Sum the intervals that end in (from, to] into a delta snapshot, out. Its
 * rows are sorted by id, and hold only the cgroups that keep accepts (keep
 * NULL: all). This function initialises kfigs and fills it with their
 * kernel figures (id -> struct kstat_fig): the last read, with the growth
 * summed. *t0 and *t1 get the span covered (both 0: none). Returns 0 or
 * -ENOMEM.
 */
int history_window(const struct history *h, uint64_t from, uint64_t to, bool (*keep)(void *ctx, uint64_t id),
		   void *ctx, struct snapshot *out, struct idtab *kfigs, uint64_t *t0, uint64_t *t1);
/* The i-th episode and wait kept (0: the oldest). */
const struct cgs_episode *history_episode(const struct history *h, size_t i);
const struct cgs_wait *history_wait(const struct history *h, size_t i);

/* Packing, for tests: a row as kept, and back; the bytes it takes. */
#define HIST_ROW_MAX ((CG_NWORDS + 3) * 10 + CG_NWORDS / 8 + 1 + 1 + 20 * 10 + 16)
/* Pack the row and its kernel figures (kf NULL: none) into buf (HIST_ROW_MAX bytes). Returns the length. */
size_t hist_pack_row(uint8_t *buf, const struct cg_sample *s, const struct kstat_fig *kf);
/* Unpack buf[0..len) into s (counters, maxima, thr_inh_by), kf and *has_k. Bytes read, or 0 if malformed. */
size_t hist_unpack_row(const uint8_t *buf, size_t len, struct cg_sample *s, struct kstat_fig *kf, bool *has_k);

#endif
