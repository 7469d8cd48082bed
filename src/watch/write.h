/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Writing one incident of cgsched watch (watch.h) from its history: in a
 * directory of its own (incident.h), report.json (record's schema, over
 * the window, for its cgroup and those below it), trace.pftrace (a
 * Perfetto trace of the window, every cgroup: the neighbours too) and
 * summary.txt (what fired, the window, the figures in a few lines).
 */
#ifndef CGS_WATCH_WRITE_H
#define CGS_WATCH_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct watch;
struct watch_fired;

/* 0 with where it is in where, or -errno (nothing left behind; counted as failed). */
int incident_write(struct watch *w, const struct watch_fired *p, char *where, size_t n);
/* Write the incidents whose time after has passed (all of them with all: at the end). */
void watch_due(struct watch *w, uint64_t now_ns, bool all);

#endif
