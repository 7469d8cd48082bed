/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where the kernel's bandwidth figures come from. The fast way is one BPF
 * cgroup-iterator pass over the whole hierarchy (v6.1+; docs/performance.md).
 * Where the kernel refuses the iterator, the cgroup files are read, one
 * cgroup at a time.
 */
#ifndef CGS_KSTAT_SRC_H
#define CGS_KSTAT_SRC_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/idtab.h"
#include "figures/kstat.h"

struct cgfs;
struct cgstat_bpf;
struct bpf_link;
struct cgs_kstat;

/* A cgroup's record of the last pass: its place in the iterator's records (read in place when asked). */
struct kstat_ent {
	uint64_t id;
	uint32_t rec;
};

enum kstat_method { KSTAT_AUTO, KSTAT_ITER, KSTAT_FILES };

struct kstat_src {
	enum kstat_method method;  /* the one in use: ITER or FILES */
	struct cgfs *fs;
	struct cgstat_bpf *skel;
	struct bpf_link *link;
	struct bpf_program *prog;  /* the one loaded: cgroup_bw_cast, or cgroup_bw where the kernel refuses it */
	const struct cgs_kstat *recs;  /* the iterator's records, mmapped */
	size_t recs_len;
	uint32_t cap;              /* records the iterator's map holds (grown when a pass fills it) */
	bool grow_refused;         /* a growth failed: not tried again */
	uint32_t n;                /* records of the last pass */
	/*
	 * The last pass by id -> struct kstat_ent. It is built only when a
	 * lookup's hint misses (kstat_src_get_at). The walk's order stays the
	 * same from pass to pass, so most lookups need no index.
	 */
	struct idtab tab;
	bool indexed;              /* tab is the last pass's */
	uint64_t full;             /* cgroups the iterator could not store */
	uint64_t unread;           /* cgroups whose figures the iterator could not read */
	struct idtab base;         /* id -> struct kstat_base: the bases of growth */
	uint64_t calls;            /* of kstat_src_figures */
};

/* One cgroup's kernel figures over an interval (kstat_src_figures). */
struct kstat_fig {
	uint64_t id;
	struct kstat k;            /* as read now */
	struct kstat_growth g;     /* since the previous call, or since kstat_src_prime */
};

/* Returns 0, or -errno when `want` (ITER or FILES) cannot be had. */
int kstat_src_open(struct kstat_src *s, struct cgfs *fs, enum kstat_method want);
void kstat_src_close(struct kstat_src *s);
const char *kstat_method_name(enum kstat_method m);
/* Refresh every cgroup's figures at once (iterator), or nothing (files: read on demand). */
int kstat_src_refresh(struct kstat_src *s);
/* One cgroup's figures, by id (iterator) or by reading its files at rel. */
int kstat_src_get(struct kstat_src *s, uint64_t id, const char *rel, struct kstat *k);
/*
 * The same, with the caller's hint of where the cgroup's record was in the
 * last pass. The hint is updated; 0 is a fine first value. A cgroup's
 * record stays at the same place until cgroups are made or removed before
 * it in the walk.
 */
int kstat_src_get_at(struct kstat_src *s, uint64_t id, const char *rel, uint32_t *hint, struct kstat *k);
/* Every cgroup's counters now: the base that kstat_src_figures measures growth from. */
int kstat_src_prime(struct kstat_src *s);
/*
 * Put the figures of each cgroup of d into out by id (struct kstat_fig),
 * after kstat_src_refresh. Each has its growth since the previous call, or
 * since kstat_src_prime with since_first. A cgroup first seen now grew
 * from 0. With files, each path is looked up, and cgroups gone are left
 * out. Returns 0 or -ENOMEM.
 */
struct snapshot;
int kstat_src_figures(struct kstat_src *s, const struct snapshot *d, bool since_first, struct idtab *out);
/*
 * Every cgroup's figures, now: cb(id, path, figures). The path is relative
 * to the hierarchy with files, NULL with the iterator (resolve by id if needed).
 */
int kstat_src_all(struct kstat_src *s,
		  void (*cb)(void *ctx, uint64_t id, const char *path, const struct kstat *k), void *ctx);

#endif
