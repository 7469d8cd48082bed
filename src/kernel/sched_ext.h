/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Whether a BPF scheduler (sched_ext, v6.12+ with CONFIG_SCHED_CLASS_EXT)
 * has replaced CFS, from /sys/kernel/sched_ext/state and root/ops. While
 * one is enabled, the tasks it runs are no longer CFS's. The tracepoints
 * still see every switch and wake-up, so run-queue waits and on-CPU time
 * hold. But CFS bandwidth control does not throttle those tasks, whatever
 * cpu.max says.
 */
#ifndef CGS_SCHED_EXT_H
#define CGS_SCHED_EXT_H

#include <stdbool.h>

struct scx_state {
	bool present;    /* the kernel has sched_ext */
	char state[16];  /* "enabled", "disabled", "enabling", "disabling" */
	char ops[64];    /* the BPF scheduler's name while one is loaded */
};

/* Read the state under ROOT (NULL: /sys/kernel/sched_ext). */
void scx_read(struct scx_state *s, const char *root);
/* A BPF scheduler is in charge (or taking charge). */
bool scx_active(const struct scx_state *s);
/* One phrase for banners: "" without sched_ext, else e.g. "sched_ext: scx_x enabled". */
const char *scx_describe(const struct scx_state *s, char *buf, unsigned long n);

#endif
