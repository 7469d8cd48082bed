// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* record --demand's step ends, captured by the BPF side (demand_steps.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "trace/demand_steps.h"

int tracer_demand_arm(struct tracer *t, uint64_t origin_ns, uint64_t step_ns, uint64_t lag_max_ns, uint64_t reach_ns)
{
	uint32_t zero = 0;
	int err = 0;

	if (!t->skel || !t->skel->rodata->targ_demand || !step_ns)
		return -EINVAL;
	/* Moving the origin of an armed capture keeps its totals. */
	if (!t->skel->bss->dem_step_ns) {
		struct cgs_dem_cpu *v = calloc(t->ncpus, sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.dem_cpu), &zero, v, BPF_ANY))
			err = -errno;
		free(v);
		if (err)
			return err;
	}
	__atomic_store_n(&t->skel->bss->dem_lag_max_ns, lag_max_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->skel->bss->dem_reach_ns, reach_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->skel->bss->dem_origin_ns, origin_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->skel->bss->dem_step_ns, step_ns, __ATOMIC_RELEASE);
	return 0;
}

/* min(max(x, 0), d) for x = e - t0, in unsigned arithmetic. */
static uint64_t part_at(uint64_t e, uint64_t t0, uint64_t d)
{
	return e <= t0 ? 0 : e - t0 < d ? e - t0 : d;
}

/*
 * One CPU's total at step end k (time e), as sched.bpf.c dem_capture
 * captured it, or from the CPU's state now when no traced slice has ended
 * since k. UINT64_MAX: its segment was overwritten, read too late.
 */
static uint64_t total_at(const struct cgs_dem_cpu *v, const struct cgs_cpu_cur *c, uint64_t k, uint64_t e)
{
	if (k >= v->next_k) {
		/* The running slice, if it is traced and not placed, ran from since up to now. */
		uint64_t since = c->since_ns + c->clock_off;
		bool traced = c->cgid && c->slot1 && c->since_ns && !c->dem_lag;
		return v->cum_ns + (traced ? part_at(e, since, UINT64_MAX) : 0);
	}
	/* Segments hold rising ranges of step ends: look from the newest back. */
	for (uint64_t h = v->head, i = 0; i < CGS_DEM_SEGS && h > 0; i++, h--) {
		const struct cgs_dem_seg *g = &v->seg[(h - 1) & (CGS_DEM_SEGS - 1)];

		if (k > g->k_to)
			break;
		if (k >= g->k_from)
			return g->cum0 + part_at(e, g->t0, g->d);
	}
	return UINT64_MAX;
}

int tracer_demand_steps(struct tracer *t, uint64_t first, size_t n, bool zero_base, uint64_t *ns)
{
	size_t nc = (size_t)t->ncpus;
	uint64_t origin, step;
	uint32_t zero = 0;
	int fd, err = 0;

	if (!t->skel || !(step = __atomic_load_n(&t->skel->bss->dem_step_ns, __ATOMIC_ACQUIRE)))
		return -EINVAL;
	origin = t->skel->bss->dem_origin_ns;
	fd = bpf_map__fd(t->skel->maps.dem_cpu);
	struct cgs_cpu_cur *c0 = calloc(nc, sizeof(*c0)), *c1 = calloc(nc, sizeof(*c1));
	struct cgs_dem_cpu *v = calloc(nc, sizeof(*v));
	bool *done = calloc(nc, sizeof(*done));

	if (!c0 || !c1 || !v || !done) {
		err = -ENOMEM;
		goto out;
	}
	memset(ns, 0, n * sizeof(*ns));
	/*
	 * A CPU's captures and its running slice must be of one moment: a
	 * switch between the two reads would count its slice twice or not at
	 * all. The switch path keeps cpu_cur's seq odd while it writes both,
	 * so a CPU whose seq is odd or moved is read again.
	 */
	for (int try = 0; try < 8; try++) {
		size_t left = 0;

		if (bpf_map_lookup_elem(t->fd_cur, &zero, c0) || bpf_map_lookup_elem(fd, &zero, v) ||
		    bpf_map_lookup_elem(t->fd_cur, &zero, c1)) {
			err = -errno;
			goto out;
		}
		for (size_t c = 0; c < nc; c++) {
			if (done[c])
				continue;
			if (c0[c].seq != c1[c].seq || (c0[c].seq & 1)) {
				left++;
				continue;
			}
			done[c] = true;
			uint64_t k = first, lo = zero_base && !k ? 0 : total_at(&v[c], &c0[c], k, origin + k * step);
			for (size_t i = 0; i < n; i++, k++) {
				uint64_t hi = total_at(&v[c], &c0[c], k + 1, origin + (k + 1) * step);

				const struct cgs_dem_bucket *b = &v[c].b[k & (CGS_DEM_BUCKETS - 1)];

				if (lo == UINT64_MAX || hi == UINT64_MAX || ns[i] == UINT64_MAX)
					ns[i] = UINT64_MAX;
				else
					ns[i] += (hi > lo ? hi - lo : 0) + (b->tag == k + 1 ? b->ns : 0);
				lo = hi;
			}
		}
		if (!left)
			goto out;
	}
	err = -EAGAIN;
out:
	free(c0);
	free(c1);
	free(v);
	free(done);
	return err;
}

int tracer_demand_losses(struct tracer *t, uint64_t *unplaced_ns, uint64_t *clipped_ns)
{
	struct cgs_dem_cpu *v;
	uint32_t zero = 0;
	int err = 0;

	*unplaced_ns = *clipped_ns = 0;
	if (!t->skel || !(v = calloc((size_t)t->ncpus, sizeof(*v))))
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.dem_cpu), &zero, v))
		err = -errno;
	for (int c = 0; !err && c < t->ncpus; c++) {
		*unplaced_ns += v[c].unplaced_ns;
		*clipped_ns += v[c].clipped_ns;
	}
	free(v);
	return err;
}
