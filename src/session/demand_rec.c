// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* record's CPU demand period by period (demand_rec.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"
#include "session/demand_rec.h"
#include "trace/demand_steps.h"
#include "session/session.h"

/*
 * Read the subtree's throttled waits so far. Also find the CPUs it ran on,
 * from the per-CPU figures every read takes. This reads the totals only:
 * the interval maxima's epoch is the command's to close. If these reads
 * closed it, the report's maxima would be those of the last tenth of a
 * period.
 */
static int read_figures(struct demand_rec *d, struct session *s, uint64_t *used, uint64_t *waited)
{
	struct snapshot *cur = &d->snap;
	int err;

	if ((err = snapshot_take(&s->tr, cur, &(struct snapshot_how){ .per_cpu = true, .light = true })))
		return err;
	*used = *waited = 0;
	for (size_t i = 0; i < cur->n; i++) {
		*used += cur->cg[i].c.oncpu_ns;
		*waited += cur->cg[i].c.thr_wait_ns;
	}
	unsigned n = 0, any = 0;
	for (int k = 0; k < cur->ncpus; k++) {
		uint64_t on = 0;
		for (size_t i = 0; i < cur->n; i++)
			on += cur->cg[i].cpu ? cur->cg[i].cpu[k].oncpu_ns : 0;
		n += on * 100 > *used && on;
		any += on > 0;
	}
	d->ds.cpus = n;
	d->ds.cpus_any = any;
	return 0;
}

/*
 * Capture step ends from origin (trace/demand_steps.h). With pre, step 0 also
 * holds what ran before it. The subtree's throttled waits so far are the base.
 */
static int arm(struct demand_rec *d, struct session *s, uint64_t origin, bool pre, bool base)
{
	uint64_t used, waited;
	int err;

	if ((err = tracer_demand_arm(&s->tr, origin, d->ds.step_ns, DEMAND_LAG_STEPS * d->ds.step_ns,
				     DEMAND_REACH_STEPS * d->ds.step_ns))) {
		cgs_warn("record --demand: cannot keep the demand's steps: %s", strerror(-err));
		d->failed = true;
		return err;
	}
	d->origin = origin;
	d->zero_base = pre;
	d->armed = true;
	if (base && !read_figures(d, s, &used, &waited))
		d->waited0 = waited;
	return 0;
}

void demand_rec_start(struct demand_rec *d, struct session *s, uint64_t period_ns, bool grid, bool at_exec,
		      uint64_t id, const char *rel, uint64_t now)
{
	memset(d, 0, sizeof(*d));
	d->ds.period_ns = period_ns;
	d->ds.placed = true;
	d->ds.step_ns = period_ns / DEMAND_STEPS;
	/* The slice CPUs take runtime in: runtime another CPU holds is not this one's (advise's headroom). */
	char buf[32];
	const char *why;
	char *text;
	size_t len;
	if (!read_file_bounded("/proc/sys/kernel/sched_cfs_bandwidth_slice_us", sizeof(buf), &text, &len, &why)) {
		d->ds.slice_us = strtoull(text, NULL, 10);
		free(text);
	}
	d->id = id;
	d->rel = rel;
	d->want_grid = grid && !kstat_src_open(&d->ks, &s->fs, KSTAT_ITER);
	d->ks_open = d->want_grid;
	if (d->want_grid) {
		d->next_probe_ns = now; /* the grid first, the periods on it after */
	} else if (at_exec) {
		/*
		 * Until the exec, everything goes into step 0: its origin lies
		 * far ahead, and time before the origin is step 0's.
		 */
		d->wait_exec = !arm(d, s, UINT64_MAX / 4, true, false);
	} else {
		arm(d, s, now, false, true);
	}
}

void demand_rec_origin(struct demand_rec *d, struct session *s, uint64_t t)
{
	if (!d->wait_exec)
		return;
	d->wait_exec = false;
	arm(d, s, t, true, false);
}

/* With a quota: its grid, once its period timer runs; then the period end after now. */
static void find_grid(struct demand_rec *d, struct session *s, uint64_t now)
{
	struct kstat k;

	if (now < d->next_probe_ns)
		return;
	d->next_probe_ns = now + 100000000ULL;
	if (!kstat_src_refresh(&d->ks) && !kstat_src_get(&d->ks, d->id, d->rel, &k) && k.period_end_ns &&
	    k.period_us * 1000 == d->ds.period_ns) {
		uint64_t P = d->ds.period_ns, e = k.period_end_ns;
		/* The grid's first period end after now: steps from there begin periods. */
		d->ds.aligned = true;
		d->want_grid = false;
		arm(d, s, e > now ? e - (e - now) / P * P : e + ((now - e) / P + 1) * P, false, true);
	} else if (++d->tries >= 50) {
		d->want_grid = false; /* no grid in 5 s: windows from now */
		arm(d, s, now, false, true);
	}
}

/*
 * Push every whole step: with all, every step that has ended (the end of the
 * record, when nothing runs on). The throttled waits since the last read go
 * into the step that ended last, to be pushed with it.
 */
static int push_steps(struct demand_rec *d, struct session *s, uint64_t now, bool all)
{
	uint64_t step = d->ds.step_ns, ended = (now - d->origin) / step, used, waited, ns[CGS_DEM_SEGS];
	uint64_t upto = all ? ended : ended > DEMAND_REACH_STEPS + 1 ? ended - DEMAND_REACH_STEPS - 1 : 0;

	if (read_figures(d, s, &used, &waited))
		return -1;
	d->ended = ended;
	if (ended)
		d->waits[(ended - 1) % DEMAND_WAIT_RING] += waited > d->waited0 ? waited - d->waited0 : 0;
	d->waited0 = waited;
	/* Steps older than the ring are lost: counted, and kept in place as empty. */
	for (; d->next_step + CGS_DEM_SEGS < ended && d->next_step < upto; d->next_step++) {
		d->ds.late++;
		demand_push(&d->ds, 0, d->waits[d->next_step % DEMAND_WAIT_RING]);
		d->waits[d->next_step % DEMAND_WAIT_RING] = 0;
	}
	if (upto <= d->next_step)
		return 0;
	uint64_t n = upto - d->next_step;
	if (tracer_demand_steps(&s->tr, d->next_step, n, d->zero_base, ns))
		return -1;
	for (uint64_t i = 0; i < n; i++, d->next_step++) {
		uint64_t *w = &d->waits[d->next_step % DEMAND_WAIT_RING];
		d->ds.late += ns[i] == UINT64_MAX;
		demand_push(&d->ds, ns[i] == UINT64_MAX ? 0 : ns[i], *w);
		*w = 0;
	}
	return 0;
}

void demand_rec_finish(struct demand_rec *d, struct session *s, uint64_t now)
{
	uint64_t unplaced, clipped;

	if (!d->armed || d->failed || d->wait_exec || now < d->origin)
		return;
	push_steps(d, s, now, true);
	/*
	 * No step holds more than the CPUs the subtree ran on (over 1 % of its
	 * time) could run: capped here, once those CPUs are known.
	 */
	uint64_t cap = d->ds.cpus * (d->ds.step_ns / 1000);
	for (size_t i = 0; cap && i < d->ds.n; i++)
		if (d->ds.used_us[i] > cap)
			d->ds.used_us[i] = (uint32_t)cap;
	if (!tracer_demand_losses(&s->tr, &unplaced, &clipped)) {
		d->ds.unplaced_ns = unplaced;
		d->ds.clipped_ns = clipped;
	}
}

int demand_rec_tick(struct demand_rec *d, struct session *s, uint64_t now)
{
	if (d->want_grid) {
		find_grid(d, s, now);
		if (d->want_grid)
			return 20;
	}
	if (!d->armed || d->failed)
		return 20;
	uint64_t step = d->ds.step_ns, next = d->origin + (d->ended + 1) * step;
	if (now < next) {
		uint64_t left = next - now, ms = left / 1000000ULL - 1;
		/* In 64 bits, then capped: until the exec, the origin lies far ahead. */
		if (left > 2000000ULL)
			return ms > 20 ? 20 : (int)ms;
		/* The last stretch slept exactly: a poll's timeout is whole milliseconds. */
		struct timespec ts = { next / 1000000000ULL, next % 1000000000ULL };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		now = now_ns();
	}
	/*
	 * Every whole step, however late this read comes: the BPF side
	 * captured each step's ends and placed the delayed work.
	 */
	return push_steps(d, s, now, false) ? 20 : 0;
}

void demand_rec_free(struct demand_rec *d)
{
	snapshot_free(&d->snap);
	if (d->ks_open)
		kstat_src_close(&d->ks);
	demand_free(&d->ds);
}
