/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's own count of a cgroup subtree's CPU time, to set beside
 * cgsched's for the same window. On v2 it is cpu.stat's usage_usec. On v1
 * with cpuacct co-mounted on the cpu hierarchy, it is cpuacct.usage. On v1
 * with cpuacct on a hierarchy of its own, it is the run times in
 * /proc/TID/schedstat of the threads found in the subtree at both ends.
 */
#ifndef CGS_KUSAGE_H
#define CGS_KUSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cgfs;

struct kusage_thread {
	int tid;
	uint64_t ns;
};

struct kusage {
	const char *source;          /* "cpu.stat", "cpuacct.usage", "schedstat"; NULL: none */
	uint64_t ns;                 /* cpu.stat and cpuacct.usage: cumulative */
	struct kusage_thread *t;     /* schedstat: each thread's run time, sorted by tid */
	size_t n;
};

/*
 * Read the subtree at rel (normalised path). threads allows the per-thread
 * fallback. Use it only for a window whose threads stay, as with record
 * --attach; a command's threads come and go, and the fallback would miss
 * them. Returns 0, or -errno with u->source NULL.
 */
int kusage_read(struct cgfs *fs, const char *rel, bool threads, struct kusage *u);
/*
 * The kernel's CPU time between a and b (same source). *moved: with
 * schedstat, the threads in only one of the two reads, whose time in the
 * window is not in *ns. 0, or -EINVAL when the sources differ.
 */
int kusage_delta(const struct kusage *a, const struct kusage *b, uint64_t *ns, unsigned *moved);
/* Parse one /proc/TID/schedstat text: its first field, ns on CPU. Pure, for tests. */
int kusage_parse_schedstat(const char *text, uint64_t *ns);
void kusage_free(struct kusage *u);

#endif
