/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Write one incident of cgsched watch (watch.h) from its history, in a
 * directory of its own (incident.h). The file report.json holds the
 * window's report in record's schema, for the cgroup and those below it.
 * The file trace.pftrace holds a Perfetto trace of the window for every
 * cgroup, so the neighbours are in it too. The file summary.txt says what
 * fired, the window, and the figures in a few lines.
 */
#ifndef CGS_WATCH_WRITE_H
#define CGS_WATCH_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct watch;
struct watch_fired;

/* Returns 0 and its path in where, or -errno: then nothing is left behind, and it counts as failed. */
int incident_write(struct watch *w, const struct watch_fired *p, char *where, size_t n);
/* Write the incidents whose time after has passed (all of them with all: at the end). */
void watch_due(struct watch *w, uint64_t now_ns, bool all);

#endif
