// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* record's CPU demand period by period (demand_rec.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/util.h"
#include "session/demand_rec.h"
#include "session/session.h"

void demand_rec_start(struct demand_rec *d, struct session *s, uint64_t period_ns, bool grid, uint64_t id,
		      const char *rel, uint64_t now)
{
	memset(d, 0, sizeof(*d));
	d->ds.period_ns = period_ns;
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
	} else {
		d->next_ns = now; /* windows from now: the first read is the base */
	}
}

void demand_rec_origin(struct demand_rec *d, uint64_t t)
{
	if (d->want_grid || d->ds.aligned || d->primed)
		return;
	d->used0 = d->waited0 = 0;
	d->primed = true;
	d->next_ns = t + d->ds.step_ns;
}

/*
 * Read the subtree's on-CPU time and throttled waits as of edge, the end
 * of a step that the read came after. Also find the CPUs it ran on, from
 * the per-CPU figures that every read takes. This reads the totals only:
 * the interval maxima's epoch is the command's to close. If these reads
 * closed it, the report's maxima would be those of the last tenth of a
 * period.
 *
 * A read always comes some time after its edge (the wake-up and the
 * read). What ran meanwhile is not the step's. Where the edges fall inside
 * a workload's bursts, a period would otherwise hold part of the next
 * one's work (docs/testing.md, test_advise_steady). So the slice running
 * at the read is split at the edge; its part after the edge goes to the
 * next step. A slice of the subtree's that ended between the edge and the
 * read cannot be split. The time from the edge to the first switch after
 * it on that CPU may belong to the next step; it goes to *unsure. Two
 * kinds of CPU add nothing to *unsure: one whose slice began before the
 * edge (no switch since), and one whose settled figures of the subtree did
 * not move since the last read.
 */
static int read_at(struct demand_rec *d, struct session *s, uint64_t edge, uint64_t *used, uint64_t *waited,
		   uint64_t *unsure)
{
	struct snapshot *cur = &d->snap;
	int err;

	cur->want_running = true;
	if ((err = snapshot_read_light(&s->tr, cur, true)))
		return err;
	if (!d->settled0 && !(d->settled0 = calloc(cur->ncpus, sizeof(*d->settled0))))
		return -ENOMEM;
	*used = *waited = *unsure = 0;
	for (size_t i = 0; i < cur->n; i++) {
		*used += cur->cg[i].c.oncpu_ns;
		*waited += cur->cg[i].c.thr_wait_ns;
	}
	unsigned n = 0, any = 0;
	for (int k = 0; k < cur->ncpus; k++) {
		const struct cpu_slice *r = &cur->running[k];
		uint64_t on = 0;
		for (size_t i = 0; i < cur->n; i++)
			on += cur->cg[i].cpu ? cur->cg[i].cpu[k].oncpu_ns : 0;
		n += on * 100 > *used && on;
		any += on > 0;
		uint64_t settled = on - (r->credit_ns < on ? r->credit_ns : on);
		uint64_t after = r->since_ns >= edge ? r->credit_ns :
				 cur->t_ns - edge < r->credit_ns ? cur->t_ns - edge : r->credit_ns;
		*used -= after < *used ? after : *used;
		if (d->primed && cur->t_ns > edge && (!r->since_ns || r->since_ns > edge) && settled != d->settled0[k])
			*unsure += (r->since_ns ? r->since_ns : cur->t_ns) - edge;
		d->settled0[k] = settled;
	}
	d->ds.cpus = n;
	d->ds.cpus_any = any;
	return 0;
}

/* With a quota: its grid, once its period timer runs; then the period end after now. */
static void find_grid(struct demand_rec *d, uint64_t now)
{
	struct kstat k;

	if (now < d->next_probe_ns)
		return;
	d->next_probe_ns = now + 100000000ULL;
	if (!kstat_src_refresh(&d->ks) && !kstat_src_get(&d->ks, d->id, d->rel, &k) && k.period_end_ns &&
	    k.period_us * 1000 == d->ds.period_ns) {
		uint64_t P = d->ds.period_ns, e = k.period_end_ns;
		/* The grid's first period end after now: steps from there begin periods. */
		d->next_ns = e > now ? e - (e - now) / P * P : e + ((now - e) / P + 1) * P;
		d->ds.aligned = true;
		d->want_grid = false;
	} else if (++d->tries >= 50) {
		d->want_grid = false; /* no grid in 5 s: windows from now */
		d->next_ns = now;
	}
}

int demand_rec_tick(struct demand_rec *d, struct session *s, uint64_t now)
{
	if (d->want_grid) {
		find_grid(d, now);
		if (d->want_grid)
			return 20;
	}
	if (!d->next_ns)
		return 20;
	if (now < d->next_ns) {
		uint64_t left = d->next_ns - now;
		if (left > 2000000ULL)
			return (int)((left - 1000000ULL) / 1000000ULL) > 20 ? 20 : (int)((left - 1000000ULL) / 1000000ULL);
		/* The last stretch slept exactly: a poll's timeout is whole milliseconds. */
		struct timespec ts = { d->next_ns / 1000000000ULL, d->next_ns % 1000000000ULL };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		now = now_ns();
	}
	/* A read a whole step late or more: the steps it spans are one, counted; the next keeps the grid. */
	uint64_t late = (now - d->next_ns) / d->ds.step_ns, used, waited, unsure;
	if (read_at(d, s, d->next_ns + late * d->ds.step_ns, &used, &waited, &unsure))
		return 20;
	if (d->primed) {
		d->ds.late += late;
		if (unsure > d->ds.unsure_max_ns)
			d->ds.unsure_max_ns = unsure;
		d->ds.unsure_edges += unsure > 0;
		demand_push(&d->ds, used > d->used0 ? used - d->used0 : 0, waited > d->waited0 ? waited - d->waited0 : 0);
		for (uint64_t i = 0; i < late; i++)
			demand_push(&d->ds, 0, 0);
		d->next_ns += (late + 1) * d->ds.step_ns;
	} else {
		d->next_ns += (late + 1) * d->ds.step_ns;
		d->primed = true;
	}
	d->used0 = used;
	d->waited0 = waited;
	return 0;
}

void demand_rec_free(struct demand_rec *d)
{
	snapshot_free(&d->snap);
	free(d->settled0);
	if (d->ks_open)
		kstat_src_close(&d->ks);
	demand_free(&d->ds);
}
