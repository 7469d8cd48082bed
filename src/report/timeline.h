/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A Perfetto trace (--timeline): tracks, slices and counters as Perfetto's
 * track events. protobuf-c encodes them from the project's subset of
 * Perfetto's .proto files (src/report/perfetto.proto). Each packet is
 * written as it comes, as a one-packet Trace message. A Trace is a
 * repeated field, so the concatenation is one Trace. The file is thus
 * valid after every write, even when the run is cut short.
 *
 * Times are CLOCK_MONOTONIC ns (bpf_ktime_get_ns), converted to BOOTTIME,
 * the clock in which Perfetto reads track events by default.
 */
#ifndef CGS_TIMELINE_H
#define CGS_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/atomic_file.h"

struct timeline {
	struct atomic_file f;  /* the trace, beside its name until timeline_close */
	int64_t boot_off;      /* BOOTTIME - MONOTONIC, ns */
	uint64_t packets, bytes; /* whole packets written */
	bool failed;           /* a write failed: said once, the file cut back to its whole packets */
	int err;               /* the first failure's -errno */
	bool quiet;            /* the caller says what failed (cgsched watch's incidents), not "--timeline" */
};

/*
 * Start the trace in a new file beside path (an existing file at path is
 * untouched until timeline_close keeps the new one). 0, or -errno with
 * nothing left behind.
 */
int timeline_open(struct timeline *t, const char *path);
/*
 * Close: with keep, the trace becomes path (renamed over it); without, it
 * is removed (bad input found after the open). 0, or -errno (said on stderr).
 */
int timeline_close(struct timeline *t, bool keep);

/* A track: uuid nonzero and unique; parent 0 for a top-level one; counter: a counter track, unit_name e.g. "%". */
void timeline_track(struct timeline *t, uint64_t uuid, uint64_t parent, const char *name, const char *description,
		    bool counter, const char *unit_name);
struct timeline_arg {
	const char *name;
	const char *str;       /* or, when NULL, */
	int64_t i;
};
/* A slice [start, end] on a track, with arguments shown beside it. */
void timeline_slice(struct timeline *t, uint64_t track, uint64_t start_ns, uint64_t end_ns, const char *name,
		    const struct timeline_arg *args, size_t nargs);
void timeline_instant(struct timeline *t, uint64_t track, uint64_t ts_ns, const char *name);
void timeline_counter(struct timeline *t, uint64_t track, uint64_t ts_ns, double value);

#endif
