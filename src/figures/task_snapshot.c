// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The per-task figures of top --tasks and hist --per-task: read, and the delta of two reads. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "trace/maputil.h"
#include "figures/snapshot.h"
#include "trace/tracer.h"
#include "lib/util.h"

struct tasks_ctx {
	struct snapshot *s;
	size_t cap;
	uint64_t epoch;  /* the max epoch just closed */
};

static int cmp_task(const void *a, const void *b)
{
	const struct task_sample *x = a, *y = b;

	if (x->cgid != y->cgid)
		return x->cgid < y->cgid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* One entry: its CPUs' copies summed (values padded to 8 bytes each). */
static int take_task(void *ctx, const void *key, const void *vals)
{
	struct tasks_ctx *c = ctx;
	const struct cgs_task_key *k = key;
	size_t vsz = (sizeof(struct cgs_task_stats) + 7) & ~(size_t)7;
	struct task_sample *t;

	if (ARRAY_GROW(c->s->tasks, c->s->ntasks, c->cap, 64))
		return -ENOMEM;
	t = &c->s->tasks[c->s->ntasks++];
	memset(t, 0, sizeof(*t));
	t->cgid = k->cgid;
	t->id = k->id;
	uint64_t newest = 0;
	for (int cpu = 0; cpu < c->s->ncpus; cpu++) {
		const struct cgs_task_stats *v = (const void *)((const char *)vals + cpu * vsz);
		/* The name last taken, on whichever CPU (per-CPU clocks: close enough to order an exec). */
		if (v->comm[0] && v->comm_ns >= newest) {
			memcpy(t->comm, v->comm, sizeof(t->comm) - 1);
			newest = v->comm_ns;
		}
		if (v->tgid)
			t->tgid = v->tgid;
		t->oncpu_ns += v->oncpu_ns;
		t->wakeups += v->wakeups;
		t->sw_vol += v->sw_vol;
		t->sw_invol += v->sw_invol;
		t->runq_count += v->runq_count;
		t->runq_sum_ns += v->runq_sum_ns;
		const struct cgs_max *m = &v->runq_max[c->epoch & 1];
		if (m->epoch == c->epoch && m->value > t->runq_max_ns)
			t->runq_max_ns = m->value;
		for (int i = 0; i < CGS_HIST_SLOTS; i++)
			t->runq_slots[i] += v->runq_slots[i];
	}
	return 0;
}

/* The process of thread pid (/proc), 0 when it is gone. */
static uint32_t tgid_of(uint32_t pid)
{
	char path[32], line[128];
	unsigned tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/*
 * A task of the recorded cgroups may have run since recording began
 * without a switch. It then has no entry at all, because the BPF side
 * makes one only when a slice ends. Such a task would be missing from the
 * task rows. Give it a sample from its running slice alone. The sample is
 * appended after the known ones and sorted later. If another CPU's thread
 * of the same process appended one already, that one is used.
 */
static struct task_sample *new_running(struct tasks_ctx *c, const struct task_sample *key, size_t known,
				       const struct tracer_view *v, uint32_t pid)
{
	struct snapshot *s = c->s;
	struct task_sample *t;
	char path[40];
	FILE *f;

	if (!v->task_cg || (v->task_cg != CGS_TASK_CG_ALL && v->task_cg != key->cgid) || !snapshot_find(s, key->cgid))
		return NULL;
	for (size_t i = known; i < s->ntasks; i++)
		if (!cmp_task(&s->tasks[i], key))
			return &s->tasks[i];
	if (ARRAY_GROW(s->tasks, s->ntasks, c->cap, 64))
		return NULL;
	t = &s->tasks[s->ntasks++];
	memset(t, 0, sizeof(*t));
	t->cgid = key->cgid;
	t->id = key->id;
	t->tgid = v->task_threads ? tgid_of(pid) : key->id;
	snprintf(path, sizeof(path), "/proc/%u/comm", key->id);
	if ((f = fopen(path, "re"))) {
		if (fgets(t->comm, sizeof(t->comm), f))
			t->comm[strcspn(t->comm, "\n")] = '\0';
		fclose(f);
	}
	return t;
}

/*
 * A task's slice running at the read is in no entry yet, because the BPF
 * side adds a slice when it ends. Without a credit, a task that switches
 * rarely would swing between far too little and far too much. So the task
 * gets what its cgroup was credited (take_running: ran[cpu], up to the
 * read of cur).
 *
 * A CPU that switched since cur was read (its seq moved) may have put
 * that slice into its entry before the entries were read, or after. Then
 * its credit is dropped and the entries are read again, until no CPU with
 * a credit has switched. A switch writes the entry while its seq is odd.
 * After three passes, the slice of a CPU still switching is left to the
 * next read.
 */
int tasks_read(const struct tracer_view *v, struct snapshot *s, const struct snapshot *prev,
	       const struct cgs_cpu_cur *cur, const uint64_t *ran)
{
	struct tasks_ctx c = { .s = s, .epoch = v->epoch };
	struct cgs_cpu_cur *now = calloc(v->ncpus, sizeof(*now));
	uint64_t *credit = calloc(v->ncpus, sizeof(*credit));
	uint32_t zero = 0;
	int err = 0;

	if (!now || !credit) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(credit, ran, v->ncpus * sizeof(*credit));
	for (int pass = 0;; pass++) {
		bool again = false;
		s->ntasks = 0;
		if ((err = each_elem(v->fd_tasks, sizeof(struct cgs_task_key), sizeof(struct cgs_task_stats), v->ncpus,
				     take_task, &c)))
			goto out;
		if (bpf_map_lookup_elem(v->fd_cur, &zero, now)) {
			memset(credit, 0, v->ncpus * sizeof(*credit)); /* no second look: no credit */
			break;
		}
		for (int cpu = 0; cpu < v->ncpus; cpu++)
			if (credit[cpu] && (now[cpu].seq != cur[cpu].seq || now[cpu].since_ns != cur[cpu].since_ns)) {
				credit[cpu] = 0;
				again = true;
			}
		if (!again || pass == 2)
			break;
	}
	if (s->ntasks)
		qsort(s->tasks, s->ntasks, sizeof(*s->tasks), cmp_task);
	size_t known = s->ntasks;
	for (int cpu = 0; cpu < v->ncpus; cpu++) {
		struct task_sample key = { .cgid = cur[cpu].cgid }, *t;
		if (!credit[cpu] || !cur[cpu].pid ||
		    !(key.id = v->task_threads ? cur[cpu].pid : tgid_of(cur[cpu].pid)))
			continue;
		if ((t = known ? bsearch(&key, s->tasks, known, sizeof(*s->tasks), cmp_task) : NULL) ||
		    (t = new_running(&c, &key, known, v, cur[cpu].pid)))
			t->oncpu_ns += credit[cpu];
	}
	if (s->ntasks > known)
		qsort(s->tasks, s->ntasks, sizeof(*s->tasks), cmp_task);
	for (size_t i = 0; i < s->ntasks; i++) {
		struct task_sample *t = &s->tasks[i];
		const struct task_sample *p = prev && prev->ntasks
			? bsearch(t, prev->tasks, prev->ntasks, sizeof(*t), cmp_task) : NULL;
		t->runq_max_all_ns = t->runq_max_ns;
		if (p && p->runq_max_all_ns > t->runq_max_all_ns)
			t->runq_max_all_ns = p->runq_max_all_ns;
	}
out:
	free(now);
	free(credit);
	return err;
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

int tasks_delta(const struct snapshot *prev, const struct snapshot *cur, struct snapshot *out)
{
	if (!cur->ntasks)
		return 0;
	if (!(out->tasks = malloc(cur->ntasks * sizeof(*out->tasks))))
		return -ENOMEM;
	for (size_t i = 0; i < cur->ntasks; i++) {
		const struct task_sample *c = &cur->tasks[i];
		const struct task_sample *p = prev && prev->ntasks
			? bsearch(c, prev->tasks, prev->ntasks, sizeof(*c), cmp_task) : NULL;
		struct task_sample *o = &out->tasks[out->ntasks];
		*o = *c;
		if (prev && prev->origin)
			o->runq_max_ns = c->runq_max_all_ns; /* since start */
		if (p) {
			o->oncpu_ns = sub(c->oncpu_ns, p->oncpu_ns);
			o->wakeups = sub(c->wakeups, p->wakeups);
			o->sw_vol = sub(c->sw_vol, p->sw_vol);
			o->sw_invol = sub(c->sw_invol, p->sw_invol);
			o->runq_count = sub(c->runq_count, p->runq_count);
			o->runq_sum_ns = sub(c->runq_sum_ns, p->runq_sum_ns);
			for (int k = 0; k < CGS_HIST_SLOTS; k++)
				o->runq_slots[k] = sub(c->runq_slots[k], p->runq_slots[k]);
		} else {
			o->runq_max_ns = c->runq_max_all_ns; /* since attach */
		}
		/* Tasks that neither ran nor waited in the interval are left out. */
		if (o->oncpu_ns || o->runq_count || o->sw_vol || o->sw_invol)
			out->ntasks++;
	}
	return 0;
}
