/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgsched watch: a flight recorder. Each interval's figures, throttle
 * episodes and long waits go into a bounded history (history.h). Each
 * interval's rows are checked against the triggers (trigger.h). A trigger
 * that fires, outside its rate limit for that cgroup, starts an incident.
 * The incident is written once the time after it is recorded too: the
 * window's report in record's schema, a Perfetto trace and a summary
 * (incident.h). One line goes to stderr, and to syslog outside systemd.
 */
#ifndef CGS_WATCH_H
#define CGS_WATCH_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "lib/idtab.h"
#include "watch/history.h"
#include "watch/incident.h"
#include "watch/trigger.h"

#define WATCH_MAX_TRIGGERS 32
#define WATCH_PENDING_MAX 16

struct session;
struct refresh;
struct psi_track;

struct watch_cfg {
	uint64_t interval_ns, keep_ns, before_ns, after_ns, rate_ns;
	uint64_t memory;            /* the history's bound, bytes */
	bool why;                   /* the waits' causes traced (a max-behind-one-pct rule): in the reports too */
	const struct trigger *trig;
	size_t ntrig;
};

/* An incident under way: recording the time after it. */
struct watch_fired {
	int trig;                   /* the trigger; -1: asked for (SIGUSR1, --dump) */
	uint64_t id;                /* the cgroup; 0 (asked for): every cgroup */
	char path[PATH_MAX];
	double value;
	uint64_t at_ns, due_ns;     /* fired, and to be written (monotonic) */
	time_t at_wall;
};

struct watch {
	struct watch_cfg cfg;
	struct session *s;
	struct psi_track *psi;      /* with a PSI trigger (v2) */
	struct history h;
	struct incident_dir dir;
	struct idtab last;          /* cgroup id -> struct watch_last: each trigger's last incident */
	struct idtab per;           /* cgroup id -> struct watch_per: its throttled periods in a row */
	struct watch_fired pend[WATCH_PENDING_MAX];
	size_t npend;
	uint64_t fired, suppressed, skipped; /* incidents begun; firings in a rate limit; none free to begin */
	uint64_t last_t_ns;         /* the last interval's end */
	uint64_t intervals;
};

/* 0, or -errno with what in why (the directory). */
int watch_open(struct watch *w, const struct watch_cfg *cfg, struct session *s, const char *dir, unsigned max,
	       const char **why);
void watch_close(struct watch *w);
struct cg_pending;
/*
 * One interval: its refresh (every row resolved), the episodes that ended
 * in it, the cgroups with one still to come (trace/tracer.h tracer_pending).
 */
void watch_interval(struct watch *w, struct refresh *f, const struct cgs_episode *e, size_t n,
		    const struct cg_pending *pend);
/* An incident of every cgroup over the last --before, now (SIGUSR1, --dump). */
void watch_ask(struct watch *w);
/* One line to whoever reads: stderr, and syslog where stderr is not the journal already. */
void watch_say(const char *line);
/* One line of the figures so far (at the end, and in -v). */
void watch_status(const struct watch *w, char *buf, size_t n);

#endif
