// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* record --demand's steps, kept by the BPF side (demand_steps.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "trace/demand_steps.h"

int tracer_demand_arm(struct tracer *t, uint64_t origin_ns, uint64_t step_ns, bool pre)
{
	uint32_t zero = 0;
	int err = 0;

	if (!t->skel || !t->skel->rodata->targ_demand || !step_ns)
		return -EINVAL;
	/* Moving the origin of an armed ring keeps its steps: step 0 then holds what came before. */
	if (!t->skel->bss->dem_step_ns) {
		struct cgs_dem_steps *v = calloc(t->ncpus, sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.dem_steps), &zero, v, BPF_ANY))
			err = -errno;
		free(v);
		if (err)
			return err;
	}
	__atomic_store_n(&t->skel->bss->dem_pre, pre ? 1 : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->skel->bss->dem_origin_ns, origin_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&t->skel->bss->dem_step_ns, step_ns, __ATOMIC_RELEASE);
	return 0;
}

/*
 * The part of the running slice on one CPU that falls in [from, to), placed as
 * dem_add places a slice: from its start, by wall time. Only a traced cgroup's
 * slice (cgid and slot set) counts, as only those go into the steps.
 */
static uint64_t running_part(const struct cgs_cpu_cur *c, uint64_t origin, bool pre, uint64_t from, uint64_t to)
{
	uint64_t since, part = 0;

	if (!c->cgid || !c->slot1 || !c->since_ns)
		return 0;
	since = c->since_ns + c->clock_off;
	if (pre && from == origin && since < origin)
		part = origin - since;
	if (since < to)
		part += to - (since > from ? since : from);
	return part;
}

int tracer_demand_steps(struct tracer *t, uint64_t first, size_t n, uint64_t *ns)
{
	size_t nc = (size_t)t->ncpus;
	uint64_t origin, step;
	bool pre;
	uint32_t zero = 0;
	int fd, err = 0;

	if (!t->skel || !(step = __atomic_load_n(&t->skel->bss->dem_step_ns, __ATOMIC_ACQUIRE)))
		return -EINVAL;
	origin = t->skel->bss->dem_origin_ns;
	pre = t->skel->bss->dem_pre;
	fd = bpf_map__fd(t->skel->maps.dem_steps);
	struct cgs_cpu_cur *c0 = calloc(nc, sizeof(*c0)), *c1 = calloc(nc, sizeof(*c1));
	struct cgs_dem_steps *v = calloc(nc, sizeof(*v));
	bool *done = calloc(nc, sizeof(*done));

	if (!c0 || !c1 || !v || !done) {
		err = -ENOMEM;
		goto out;
	}
	memset(ns, 0, n * sizeof(*ns));
	/*
	 * A CPU's steps and its running slice must be of one moment: a switch
	 * between the two reads would count its slice twice or not at all. The
	 * switch path makes cpu_cur's seq odd while it writes both, so a CPU
	 * whose seq is odd or moved is read again.
	 */
	for (int try = 0; try < 8; try++) {
		size_t left = 0;

		if (bpf_map_lookup_elem(t->fd_cur, &zero, c0) || bpf_map_lookup_elem(fd, &zero, v) ||
		    bpf_map_lookup_elem(t->fd_cur, &zero, c1)) {
			err = -errno;
			goto out;
		}
		for (size_t k = 0; k < nc; k++) {
			if (done[k])
				continue;
			if (c0[k].seq != c1[k].seq || (c0[k].seq & 1)) {
				left++;
				continue;
			}
			done[k] = true;
			for (size_t i = 0; i < n; i++) {
				uint64_t j = first + i, tag = v[k].tag[j & (CGS_DEM_STEPS - 1)];

				if (ns[i] == UINT64_MAX)
					continue;
				if (tag > j + 1) { /* taken by a later step: read too late */
					ns[i] = UINT64_MAX;
					continue;
				}
				if (tag == j + 1)
					ns[i] += v[k].ns[j & (CGS_DEM_STEPS - 1)];
				ns[i] += running_part(&c0[k], origin, pre, origin + j * step, origin + (j + 1) * step);
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

uint64_t tracer_demand_origin(const struct tracer *t)
{
	return t->skel && t->skel->bss->dem_step_ns ? t->skel->bss->dem_origin_ns : 0;
}
