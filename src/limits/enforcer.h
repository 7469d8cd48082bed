/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The engine of `cgsched enforce` (docs/limits.md). It keeps a limits file
 * in force on a cgroup tree, one pass at a time. A pass applies the limits
 * file to the cgroups that match it now, and puts back values someone else
 * changed. It holds soft-capped groups to their soft_max while
 * enforcer_judge last saw contention. It restores the cgroup files that
 * the limits file no longer covers. Before a cgroup file is first changed,
 * its value goes into the journal on disk, so no change is made that a
 * crash could not undo. enforcer_stop puts every value back as found.
 *
 * It talks to the cgroup tree only through struct cgfs (a fake tree in the
 * unit tests). It talks to the command only through the log callback: one
 * line per change, with its reason, and one per problem.
 */
#ifndef CGS_ENFORCER_H
#define CGS_ENFORCER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limits/journal.h"
#include "limits/limits_file.h"

struct cgfs;

struct enf_managed {
	char rel[PATH_MAX];
	uint64_t id;     /* the cgroup's: one made again under the name is not restored */
	char file[32];
	char orig[64];   /* found at start: restored on exit */
	char want[64];   /* what we last set */
	bool seen;       /* still desired in this pass */
	bool journaled;  /* orig is in the journal (it was, or is about to be, changed) */
	bool put_back;   /* done in the restore under way */
};

struct enf_soft {
	char rel[PATH_MAX];
	uint64_t id;
	bool capped;
	bool seen;       /* still a soft-capped target in this pass: else dropped */
	int quiet;       /* intervals without contention while capped */
	char why[PATH_MAX + 64];
};

/* A write decided in a pass, made once the journal holds the file's value. */
struct enf_pending {
	size_t m;        /* index in enforcer.m */
	char now[64], value[64];
	char *why;
	bool added;      /* its file's value went into the journal in this pass */
	bool skip;       /* its value could not be journalled: not made */
};

/* One cgroup's run-queue waits in an interval, as enforcer_judge weighs them. */
struct enf_load {
	const char *path;
	uint64_t waits;
	uint64_t p99_ns;
};

/* The defaults of --contention-p99 and --min-waits (docs/limits.md). */
#define ENF_THRESHOLD_NS 2000000ULL
#define ENF_MIN_WAITS 20

struct enforcer {
	struct cgfs *fs;
	struct limits_file lf;
	struct journal j;
	uint64_t threshold_ns;   /* a run-queue p99 above this is contention */
	uint64_t min_waits;      /* waits a cgroup needs in an interval to count */
	char self[PATH_MAX];     /* cgsched's own cgroup: its waits are not contention */
	/* One line of the log (no newline); ctx: log_ctx. */
	void (*log)(void *ctx, const char *line);
	void *log_ctx;
	/* The engine's state. */
	struct enf_managed *m;
	size_t n, cap;
	struct keyidx mi;        /* m by (rel, file) */
	struct enf_soft *soft;
	size_t nsoft, softcap;
	struct keyidx si;        /* soft by rel */
	struct enf_pending *pend;
	size_t npend, pendcap;
	const char *reason;      /* for the changes being made */
};

/*
 * Take lf, and its ownership, and keep a journal at journal_path. Nothing
 * is written yet. The caller sets threshold_ns, min_waits, self, log and
 * log_ctx before the first pass.
 */
void enforcer_init(struct enforcer *e, struct cgfs *fs, struct limits_file *lf, const char *journal_path);
/* One pass (first: the pass at start, whose changes say "in the limits file"). */
void enforcer_pass(struct enforcer *e, bool first);
/* Another limits file in force (after SIGHUP), then a pass; a bad file keeps the old one (-1). */
int enforcer_reload(struct enforcer *e, const char *path);
/* The interval's contention, for the soft caps of the next pass. */
void enforcer_judge(struct enforcer *e, const struct enf_load *rows, size_t n);
/*
 * Every value found back, newest first; the journal removed, or kept with
 * what could not be put back. Returns how many values it kept.
 */
size_t enforcer_stop(struct enforcer *e);
void enforcer_free(struct enforcer *e);

#endif
