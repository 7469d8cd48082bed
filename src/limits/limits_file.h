/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The limits file (docs/limits.md): INI, parsed by inih, one section per
 * cgroup path or glob (relative to the cpu hierarchy's root). Loading
 * validates everything; a plan of file writes (old -> new) is then applied
 * as a whole, or rolled back.
 */
#ifndef CGS_LIMITS_FILE_H
#define CGS_LIMITS_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "limits/cpu_limits.h"

struct cgfs;

struct limit_rule {
	char pattern[PATH_MAX];  /* normalised: "/batch/web", or a glob such as "/batch/x*" */
	int line;                /* of its [section] */
	bool glob, create;
	struct cpu_limits lim;   /* max (quota/period) and weight */
	bool has_burst, has_soft;
	uint64_t burst_us;
	uint64_t soft_quota_us, soft_period_us;
	int line_of[5];          /* of each key, for messages: max weight burst soft_max create */
};

struct limits_file {
	char path[PATH_MAX];
	struct limit_rule *r;
	size_t n;
};

/* Load and validate against the mounted hierarchy. 0, or -1 with "FILE:LINE: why" in err. */
int limits_file_load(const char *path, struct cgfs *fs, struct limits_file *lf, char *err, size_t errlen);
/* The same from text (len bytes, NUL-terminated), named path in messages: for tests and fuzzing. */
int limits_file_parse(const char *text, size_t len, const char *path, struct cgfs *fs, struct limits_file *lf,
		      char *err, size_t errlen);
void limits_file_free(struct limits_file *lf);

/* One file write: a cgroup file from old to new (mkdir: make the cgroup first). */
struct change {
	char rel[PATH_MAX];
	char file[32];
	char old[64], new[64];
	bool mkdir;
	bool made;               /* this run's mkdir made it (not -EEXIST: someone else's) */
	bool enabled_cpu;        /* we turned on +cpu in the parent (v2): turn it off on rollback */
	const struct limit_rule *rule;
};

struct plan {
	struct change *c;
	size_t n, cap;
	size_t unrestored;       /* after a failed plan_apply: writes the rollback could not undo */
};

/* Each cgroup a rule applies to now (globs expanded; exists false: to be made). */
int limits_targets(struct limits_file *lf, struct cgfs *fs,
		   int (*cb)(void *ctx, const char *rel, const struct limit_rule *r, bool exists), void *ctx);
/*
 * Plan the writes that make the cgroups matching lf as it says. They get
 * hard limits, or the soft cap where soft_on(ctx, rel) says so (NULL:
 * nowhere). Only files whose value differs are in the plan.
 */
int plan_build(struct limits_file *lf, struct cgfs *fs, bool (*soft_on)(void *ctx, const char *rel),
	       void *soft_ctx, struct plan *p);
void plan_free(struct plan *p);
/* "  /batch cpu.cfs_quota_us: -1 -> 20000" per change. */
void plan_print(FILE *f, const struct plan *p);
/*
 * Write the whole plan. On the first failure, or if *stop is set between
 * two writes (-EINTR), it rolls back. It restores what was written, in
 * reverse order, and removes the cgroups this run made; only empty ones,
 * so nothing is killed. It then returns -errno with the failing change in
 * *failed (NULL when stopped). What the rollback could not undo is counted
 * in p->unrestored.
 */
int plan_apply(struct cgfs *fs, struct plan *p, const volatile int *stop, const struct change **failed);
/*
 * The kernel refuses a quota below the burst in force, and a burst above the
 * quota in force. burst_goes_first: a write of quota (a value of
 * cpu.cfs_quota_us or cpu.max) to a cgroup whose burst is burst now must
 * wait for the burst's own write. burst_file_of: the burst file of a quota
 * file, quota_file_of the other way; NULL for any other file.
 */
bool burst_goes_first(const char *quota, const char *burst);
const char *burst_file_of(const char *quota_file);
const char *quota_file_of(const char *burst_file);
/*
 * Each cgroup's burst write just before its quota write when the new quota
 * is below the burst in force (change.old), else after it; the other writes
 * keep their order. Each write is then one the kernel takes.
 */
void plan_order_bursts(struct plan *p);
/* The desired values of one cgroup's files under a rule (soft cap on or off). */
int rule_values(const struct limit_rule *r, int version, bool soft_on,
		void (*cb)(void *ctx, const char *file, const char *value), void *ctx);

#endif
