/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's pressure stall information for CPU (PSI, "some" line): the
 * host's /proc/pressure/cpu, and on cgroup v2 each cgroup's cpu.pressure.
 * On cgroup v1 there is no per-cgroup PSI, so cgsched's own "some" figure
 * stands alone.
 */
#ifndef CGS_PSI_H
#define CGS_PSI_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/idtab.h"

struct cgfs;

/* The "some ... total=N" of a PSI file's text, in us. 0, or -1 when absent or malformed. */
int psi_parse_some(const char *text, uint64_t *total_us);
/* Read a PSI file's "some" total (us). 0 or -errno. */
int psi_read(const char *path, uint64_t *total_us);
/* The host's: /proc/pressure/cpu. 0 or -errno. */
int psi_read_host(uint64_t *total_us);

/*
 * Deltas over an interval and since a cgroup was first seen: call
 * psi_track_host once per refresh, psi_cg_ns for each cgroup wanted.
 */
struct psi_track {
	bool host_ok;
	uint64_t host_first, host_prev, host_now; /* us */
	struct idtab cg;                          /* id -> struct psi_cg */
	bool started;                             /* psi_track_start was called */
};
/*
 * Call at the start of tracing. It reads the host's figure, and on v2 that
 * of every cgroup under `below` (every cgroup if nbelow is 0). A summary
 * then counts from that moment.
 */
void psi_track_start(struct psi_track *t, struct cgfs *fs, const char *const *below, int nbelow);
void psi_track_host(struct psi_track *t);
/* Host "some" in ns over the last interval (since_start: since the first call); false when unavailable. */
bool psi_host_ns(const struct psi_track *t, bool since_start, uint64_t *ns);
/*
 * A v2 cgroup's "some" in ns: over the last interval (or since the start);
 * false when it has none. *host: the figure is the host's file (the root's).
 */
bool psi_cg_ns(struct psi_track *t, struct cgfs *fs, uint64_t id, bool since_start, uint64_t *ns, bool *host);
void psi_track_free(struct psi_track *t);
/* One cgroup's "some" total (us): its cpu.pressure on v2, else the host's (*host set). 0 or -errno. */
int psi_read_cgroup(struct cgfs *fs, const char *rel, uint64_t *total_us, bool *host);

#endif
