/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Why a cgroup's tasks waited (--why). Its run-queue and throttled waits
 * are split into causes that add up to the whole, largest first. A verdict
 * line is made from them. Pure: figures in, parts out.
 */
#ifndef CGS_WHY_H
#define CGS_WHY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "figures/snapshot.h"

struct cgname;

enum why_cause {
	WHY_OWN_QUOTA,       /* throttled by its own quota */
	WHY_ANCESTOR_QUOTA,  /* throttled by an ancestor's quota (named) */
	WHY_SAME,            /* behind another task of the same cgroup */
	WHY_NAMED,           /* behind one other cgroup (named) */
	WHY_OTHER,           /* behind other cgroups not named */
	WHY_KTHREAD,         /* behind kernel threads */
	WHY_RT,              /* behind real-time, deadline or stop tasks */
	WHY_IDLE,            /* the CPU was idle: waking it, or a pull from another */
	WHY_UNATTRIBUTED,    /* began before tracing, or no mark (see drops) */
};

#define WHY_NAMED_MAX 5
#define WHY_PARTS_MAX (WHY_UNATTRIBUTED + WHY_NAMED_MAX)

struct why_part {
	enum why_cause cause;
	uint64_t ns;
	uint64_t id;                 /* WHY_ANCESTOR_QUOTA, WHY_NAMED: the cgroup */
	const char *path;            /* its path (resolved by the caller), NULL: gone */
	const struct cgname *who;
};

/* The kernel's own pressure figure set beside cgsched's (PSI "some", CPU). */
struct why_psi {
	bool ok;
	bool host;                   /* /proc/pressure/cpu, not the cgroup's cpu.pressure */
	uint64_t some_ns;            /* over the same interval */
};

struct why {
	uint64_t total_ns;           /* its tasks' waits, summed over tasks */
	uint64_t some_ns;            /* wall time with one or more of them waiting (cgsched's) */
	uint64_t interval_ns;        /* the wall time they are out of */
	uint64_t inside_ns;          /* behind cgroups that count as its own (a group's members, record's subtree) */
	int n;
	struct why_part p[WHY_PARTS_MAX]; /* nonzero parts, largest first; they sum to total_ns */
	struct why_psi psi;
};

/* A named part: the cgroup a wait was behind (from the pairs' behind_ns). */
struct why_named {
	uint64_t id, ns;
};

/*
 * Split c's waits, from its counters over interval_ns. The array named
 * lists the other cgroups it waited behind, with their ns: at most
 * WHY_NAMED_MAX, largest first, summing to at most c->wb_other_ns. The id
 * inh_by is the ancestor whose quota throttled it. The part of
 * c->wb_other_ns spent behind cgroups that count as its own is inside_ns.
 */
void why_build(struct why *w, const struct cg_counters *c, uint64_t inh_by, const struct why_named *named,
	       int nnamed, uint64_t inside_ns, uint64_t interval_ns);
/* Keep the `max` largest of (id, ns) in named[0..*n), largest first; an id already there adds up. */
void why_named_add(struct why_named *named, int *n, uint64_t id, uint64_t ns);
/* What a cause is called in JSON ("own_quota", ...). */
const char *why_key(enum why_cause c);
/* "<name>: its tasks waited 1.20s in all: 64% behind /batch, 21% its own quota, ..." (and the pressure line). */
void why_print(FILE *f, const char *name, const struct why *w);

#endif
