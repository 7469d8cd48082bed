/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --priority: run the loader's own threads at a real-time policy or a
 * raised nice, so that the load it watches cannot starve it
 * (docs/performance.md, "An observer under a storm"). It never applies to
 * the traced tasks or to a child. Every thread is set with
 * SCHED_RESET_ON_FORK, so what it forks or clones starts as an ordinary
 * task (record's command, libraries' helpers).
 */
#ifndef CGS_PRIORITY_H
#define CGS_PRIORITY_H

#include <stdbool.h>
#include <stddef.h>

enum cgs_prio_kind {
	CGS_PRIO_DEFAULT,  /* leave the scheduling policy alone */
	CGS_PRIO_RT,       /* SCHED_FIFO at value (1..99) */
	CGS_PRIO_NICE,     /* SCHED_OTHER at nice value (-20..-1) */
};

struct cgs_priority {
	enum cgs_prio_kind kind;
	int value;
};

#define CGS_PRIO_RT_DEFAULT 1

/* "rt", "rt:N" (1-99) or "nice:N" (-20 to -1): 0, or -EINVAL (nothing set). */
int priority_parse(const char *s, struct cgs_priority *p);
/* "rt:5", "nice:-10", "default": for messages. */
const char *priority_name(const struct cgs_priority *p, char *buf, size_t len);
/*
 * Set every thread of this process (/proc/self/task) to p, reset on fork.
 * 0 (also for CGS_PRIO_DEFAULT); else -errno of the first refusal, with
 * *tid the thread refused. Threads set before a refusal stay set: the
 * caller exits.
 */
int priority_apply(const struct cgs_priority *p, int *tid);
/*
 * After EPERM, tell why. True if the privilege was there (CAP_SYS_NICE,
 * or a high enough RLIMIT_RTPRIO) and a real-time policy was still
 * refused: the cgroup's real-time runtime is the cause. On v1 with
 * CONFIG_RT_GROUP_SCHED, a cpu cgroup's cpu.rt_runtime_us starts at 0.
 * False if the privilege is missing.
 */
bool priority_refused_by_group(const struct cgs_priority *p);

#endif
