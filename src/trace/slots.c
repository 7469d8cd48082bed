// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>

#include "trace/slots.h"
#include "lib/util.h"

/* Keep a removed cgroup's figures this long, and for two reads at least, so every reader sees its end. */
#define GONE_KEEP_NS (60ULL * 1000000000ULL)
/* A cgroup with no event for this long may lose its slot, when free slots run short. */
#define IDLE_NS (30ULL * 1000000000ULL)

/* Slots run short below this many free; idle slots are then taken back. */
static uint32_t short_below(const struct slot_table *sl)
{
	return sl->max / 16 > 4 ? sl->max / 16 : 4;
}

int slots_fill(int fd_free, uint32_t max)
{
	for (uint32_t s = 0; s < max; s++)
		if (bpf_map_update_elem(fd_free, NULL, &s, 0))
			return -errno;
	return 0;
}

int slots_init(struct slot_table *sl)
{
	size_t page = getpagesize();
	/* Tests only: shorter times, so that make test sees slots come back and figures leave. */
	const char *idle = getenv("CGSCHED_TEST_IDLE_MS"), *keep = getenv("CGSCHED_TEST_GONE_KEEP_MS");

	sl->bowner_len = ((size_t)sl->max * sizeof(uint64_t) + page - 1) / page * page;
	sl->bowner = mmap(NULL, sl->bowner_len, PROT_READ | PROT_WRITE, MAP_SHARED, sl->fd_owner, 0);
	if (sl->bowner == MAP_FAILED) {
		sl->bowner = NULL;
		cgs_err("cannot map the slot owners (%s)", strerror(errno));
		return -errno;
	}
	sl->idle_ns = idle && atoi(idle) > 0 ? (uint64_t)atoi(idle) * 1000000ULL : IDLE_NS;
	sl->keep_ns = keep && atoi(keep) > 0 ? (uint64_t)atoi(keep) * 1000000ULL : GONE_KEEP_NS;
	if (!(sl->owner = calloc(sl->max, sizeof(*sl->owner))) || !(sl->rank = calloc(sl->max, sizeof(*sl->rank))) ||
	    !(sl->retire_read = calloc(sl->max, sizeof(*sl->retire_read))) ||
	    !(sl->note = calloc(sl->max, sizeof(*sl->note))) ||
	    !(sl->retire_ns = calloc(sl->max, sizeof(*sl->retire_ns))) ||
	    !(sl->unpushed = calloc(sl->max, sizeof(*sl->unpushed))) ||
	    !(sl->sig = calloc(sl->max, sizeof(*sl->sig))) ||
	    !(sl->quiet_since = calloc(sl->max, sizeof(*sl->quiet_since)))) {
		cgs_err("out of memory");
		goto fail;
	}
	return 0;
fail:
	/* Unmaps the slot owners and frees the tables allocated so far. */
	slots_free(sl);
	return -ENOMEM;
}

void slots_free(struct slot_table *sl)
{
	if (sl->bowner)
		munmap(sl->bowner, sl->bowner_len);
	for (size_t i = 0; i < sl->nparked; i++) {
		free(sl->parked[i].v);
		free(sl->parked[i].path);
	}
	free(sl->parked);
	for (uint32_t s = 0; sl->note && s < sl->max; s++)
		free(sl->note[s].path);
	free(sl->pending_forget);
	free(sl->slotless);
	free(sl->owner);
	free(sl->rank);
	free(sl->retire_read);
	free(sl->note);
	free(sl->retire_ns);
	free(sl->unpushed);
	free(sl->sig);
	free(sl->quiet_since);
	memset(sl, 0, sizeof(*sl));
}

/* Pairs of words, by their first: (id, slot) to rank, (quiet since, slot) to pick. */
static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* sl->rank from sl->owner: sort (id, slot) pairs by id. */
static int rank_slots(struct slot_table *sl)
{
	uint64_t (*pairs)[2] = malloc((size_t)sl->max * sizeof(*pairs));
	uint32_t n = 0;

	if (!pairs)
		return -ENOMEM;
	sl->nslots = 0;
	for (uint32_t s = 0; s < sl->max; s++)
		if (sl->owner[s]) {
			pairs[n][0] = sl->owner[s];
			pairs[n++][1] = s;
			sl->nslots = s + 1;
		}
	qsort(pairs, n, sizeof(*pairs), cmp_pair);
	for (uint32_t i = 0; i < n; i++)
		sl->rank[pairs[i][1]] = i;
	sl->nowned = n;
	free(pairs);
	return 0;
}

static struct parked *parked_find(const struct slot_table *sl, uint64_t id);
static void retire(struct slot_table *sl, uint32_t s, uint64_t now);

static void learn_one(struct slot_table *sl, uint32_t s, uint64_t id, uint64_t now)
{
	struct parked *p = parked_find(sl, id);

	sl->owner[s] = id;
	sl->learnt++;
	if (s >= sl->nslots)
		sl->nslots = s + 1;
	sl->sig[s] = 0;
	sl->quiet_since[s] = now;
	/*
	 * A removed cgroup got a slot again: one of its tasks ran after we
	 * released its slot, since exiting tasks keep their cgroup a moment.
	 * No second removal record will come, so take it back as removed.
	 */
	if (p && p->gone) {
		sl->note[s].gone = true;
		sl->note[s].noted = p->noted;
		sl->note[s].named = p->named;
		retire(sl, s, now);
	}
}

/* Slots the BPF side gave out since the last read (slot_owner written after cg_slot). */
static void learn(struct slot_table *sl, uint64_t now)
{
	for (uint32_t s = 0; s < sl->max; s++) {
		uint64_t id = __atomic_load_n(&sl->bowner[s], __ATOMIC_ACQUIRE);
		if (id && !sl->owner[s])
			learn_one(sl, s, id, now);
	}
}

static int cmp_parked(const void *a, const void *b)
{
	const struct parked *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct parked *parked_find(const struct slot_table *sl, uint64_t id)
{
	struct parked key = { .id = id };

	return sl->nparked ? bsearch(&key, sl->parked, sl->nparked, sizeof(key), cmp_parked) : NULL;
}

static void retire(struct slot_table *sl, uint32_t s, uint64_t now)
{
	if (!sl->retire_read[s]) {
		sl->retire_read[s] = sl->reads;
		sl->retire_ns[s] = now;
		sl->nretiring++;
	}
}

static void forget_maps(struct slot_table *sl, const uint64_t *ids, size_t n, bool thr);
static int cmp_u64(const void *a, const void *b);

/*
 * Delete the preemption and throttle entries of removed slotless cgroups
 * whose time is over (all of them, with force). A preemptor outside
 * --cgroup has no slot but is named in its victims' pairs. Without this,
 * churn outside the filter would fill the map (preempt_map_full).
 */
static void forget_slotless(struct slot_table *sl, bool force)
{
	uint64_t *ids = malloc((sl->nslotless + 1) * sizeof(*ids));
	size_t n = 0, w = 0;

	if (!ids)
		return;
	for (size_t i = 0; i < sl->nslotless; i++) {
		if (force || sl->slotless[i].snap + 2 <= sl->snaps)
			ids[n++] = sl->slotless[i].id;
		else
			sl->slotless[w++] = sl->slotless[i];
	}
	sl->nslotless = w;
	if (n) {
		qsort(ids, n, sizeof(*ids), cmp_u64);
		forget_maps(sl, ids, n, true);
		for (size_t i = 0; sl->on_forget && i < n; i++)
			if (!ARRAY_GROW(sl->pending_forget, sl->npending, sl->pending_cap, 64))
				sl->pending_forget[sl->npending++] = ids[i];
	}
	free(ids);
}

static void note_slotless(struct slot_table *sl, uint64_t id)
{
	if (sl->nslotless == sl->slotless_cap &&
	    (sl->slotless_cap * 2 > SLOTS_SLOTLESS_MAX || ARRAY_GROW(sl->slotless, sl->nslotless, sl->slotless_cap, 64)))
		forget_slotless(sl, true); /* bounded: the waiting ones go now, seen by a read or not */
	if (sl->nslotless < sl->slotless_cap)
		sl->slotless[sl->nslotless++] = (struct slotless){ id, sl->snaps };
}

/* Take in the removals the BPF side saw (cgroup_rmdir). Their slots go back a second later at least. */
static void take_gone(struct slot_table *sl, uint64_t now)
{
	struct cgs_gone g;

	while (!bpf_map_lookup_and_delete_elem(sl->fd_gone, NULL, &g)) {
		uint64_t id = g.cgid;
		struct parked *p = parked_find(sl, id);
		uint32_t s;

		/* A path cut at the record's size is no name. */
		const char *path = strnlen(g.path, sizeof(g.path)) < sizeof(g.path) - 1 ? g.path : NULL;

		g.path[sizeof(g.path) - 1] = 0;
		if (p && !p->gone) {
			p->gone = true;
			p->gone_ns = now;
			if (path && !p->path)
				p->path = strdup(path);
		}
		if (bpf_map_lookup_elem(sl->fd_slot, &id, &s) || s >= sl->max) {
			if (!p)
				note_slotless(sl, id);
			continue;
		}
		/* The slot was given out after this read's learn(): learn its owner now. */
		if (!sl->owner[s] && __atomic_load_n(&sl->bowner[s], __ATOMIC_ACQUIRE) == id)
			learn_one(sl, s, id, now);
		if (sl->owner[s] != id)
			continue;
		retire(sl, s, now);
		/* Only cgroups with figures get here; other removals do not concern the readers. */
		sl->note[s].gone = true;
		if (path && !sl->note[s].path)
			sl->note[s].path = strdup(path);
	}
}

static struct cgs_cg_hot *hot_at(const struct slot_table *sl, int cpu, uint32_t s)
{
	return &sl->hot[(size_t)cpu * sl->max + s];
}

static struct cgs_cg_shard *shard_at(const struct slot_table *sl, int k, uint32_t s)
{
	return &sl->shard[(size_t)k * sl->max + s];
}

/* Events of a slot, all CPUs: unchanged means idle. */
static uint64_t events(const struct slot_table *sl, uint32_t s)
{
	uint64_t n = 0;

	for (int cpu = 0; cpu < sl->ncpus; cpu++) {
		const struct cgs_cg_hot *v = hot_at(sl, cpu, s);
		n += v->oncpu_count + v->wakeups + v->sw_vol + v->sw_invol + v->runq_count;
	}
	for (int k = 0; k < sl->nshards; k++)
		n += shard_at(sl, k, s)->thr_wait_count;
	return n;
}

/*
 * When free slots run short, take back the slots of long-idle cgroups, the
 * longest idle first, until twice the low mark is free. Never take a slot
 * whose task is on a CPU now: it may run long without a switch. Never take
 * one with a task waiting (--why's count).
 */
static int pick_idle(struct slot_table *sl, uint64_t now)
{
	uint32_t free_now = sl->max - sl->nowned + sl->nretiring, need;
	uint64_t(*cand)[2] = NULL;
	struct cgs_cpu_cur *cur = NULL;
	uint32_t n = 0, zero = 0;
	bool short_now = free_now < short_below(sl);
	int err = 0;
	/*
	 * A slot's signature is the sum of its event counts over all CPUs.
	 * Sampling it reads every owned slot on every CPU, as much as a full
	 * read of the figures. So while slots are plenty, sample only every
	 * 1/16 of the idle time, and at most every second. A change is then
	 * seen late, so a slot looks idle later, never sooner. When slots run
	 * short, sample at once, before any slot is taken back.
	 */
	uint64_t every = sl->idle_ns / 16 < 1000000000ULL ? sl->idle_ns / 16 : 1000000000ULL;

	if (short_now || now - sl->sig_ns >= every) {
		sl->sig_ns = now;
		for (uint32_t s = 0; s < sl->nslots; s++) {
			if (!sl->owner[s] || sl->retire_read[s])
				continue;
			uint64_t e = events(sl, s);
			if (e != sl->sig[s]) {
				sl->sig[s] = e;
				sl->quiet_since[s] = now;
			}
		}
	}
	if (!short_now)
		return 0;
	/* Twice the mark: new cgroups keep coming in the second before these are free. */
	need = 2 * short_below(sl) - free_now;
	if (!(cand = malloc((size_t)sl->nslots * sizeof(*cand))) || !(cur = calloc(sl->ncpus, sizeof(*cur)))) {
		err = -ENOMEM;
		goto out;
	}
	if (bpf_map_lookup_elem(sl->fd_cur, &zero, cur))
		goto out; /* cannot tell what runs: take nothing back */
	for (uint32_t s = 0; s < sl->nslots; s++) {
		bool running = false;

		if (!sl->owner[s] || sl->retire_read[s] || now - sl->quiet_since[s] < sl->idle_ns ||
		    shard_at(sl, 0, s)->wait_n > 0)
			continue;
		for (int c = 0; c < sl->ncpus && !running; c++)
			running = cur[c].slot1 == s + 1;
		if (!running) {
			cand[n][0] = sl->quiet_since[s];
			cand[n++][1] = s;
		}
	}
	qsort(cand, n, sizeof(*cand), cmp_pair);
	for (uint32_t i = 0; i < n && i < need; i++)
		retire(sl, (uint32_t)cand[i][1], now);
	if (n)
		cgs_debug("slots: %u of %u free, %u idle cgroups' slots taken back", free_now, sl->max,
			  n < need ? n : need);
out:
	free(cand);
	free(cur);
	return err;
}

/* dst += src, field by field, as a snapshot sums a cgroup's figures: the hot ones ... */
static void hot_add(struct cgs_cg_hot *d, const struct cgs_cg_hot *s)
{
#define ADD(field) d->field += s->field;
	CGS_CG_HOT_COUNTERS(ADD)
	cgs_pmax_merge(d->runq_max, s->runq_max);
}

/* ... and a shard's. */
static void shard_add(struct cgs_cg_shard *d, const struct cgs_cg_shard *s)
{
	CGS_CG_SHARD_COUNTERS(ADD)
#undef ADD
	for (int i = 0; i < CGS_HIST_SLOTS; i++) {
		d->runq_slots[i] += s->runq_slots[i];
		d->oncpu_slots[i] += s->oncpu_slots[i];
	}
	if (s->thr_inh_by)
		d->thr_inh_by = s->thr_inh_by;
}

int slots_park_units(const struct slot_table *sl)
{
	return sl->per_cpu ? sl->ncpus : 1;
}

/* Keep slot s's figures under its cgroup (appended; the caller sorts). */
static void park(struct slot_table *sl, uint32_t s, uint64_t now, size_t sorted, struct cgs_cg_stats **spare)
{
	struct slot_note *sn = &sl->note[s];
	uint64_t id = sl->owner[s];
	struct parked key = { .id = id }, *p = NULL;

	if (sorted)
		p = bsearch(&key, sl->parked, sorted, sizeof(key), cmp_parked);
	for (size_t i = sorted; !p && i < sl->nparked; i++)
		if (sl->parked[i].id == id)
			p = &sl->parked[i];
	if (!p) { /* room made by the caller */
		p = &sl->parked[sl->nparked++];
		*p = (struct parked){ .id = id, .v = *spare, .nv = slots_park_units(sl) };
		*spare = NULL;
	}
	/* With the per-CPU view there are as many shards as CPUs: shard k is CPU k's. */
	for (int cpu = 0; cpu < sl->ncpus; cpu++)
		hot_add(&p->v[cpu % p->nv].h, hot_at(sl, cpu, s));
	for (int k = 0; k < sl->nshards; k++)
		shard_add(&p->v[k % p->nv].sh, shard_at(sl, k, s));
	p->parked_read = sl->reads;
	p->parked_snap = sl->snaps;
	if (sn->gone && !p->gone) {
		p->gone = true;
		p->gone_ns = now;
	}
	if (sn->path && !p->path) {
		p->path = sn->path;
		sn->path = NULL;
	}
	p->noted |= sn->noted;
	p->named |= sn->named || sn->noted;
}

/*
 * Wait until no BPF program that may have read the old slot_gen still runs.
 * These programs run with preemption off, so an RCU grace period covers
 * them. MEMBARRIER_CMD_GLOBAL waits for one. The kernel refuses that
 * command on nohz_full CPUs; a map-in-map update from user space also
 * waits for a grace period. If both fail, sleep far longer than any
 * program runs.
 */
void slots_wait_programs(struct slot_table *sl)
{
	uint32_t zero = 0;

	if (!syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	/* Refused (nohz_full): a map-in-map update from user space waits for a grace period too. */
	if (bpf_map_update_elem(sl->fd_rcu_outer, &zero, &sl->fd_rcu_inner, 0)) {
		cgs_warn("cannot wait for running BPF programs (%s): a slot may be reused under one", strerror(errno));
		usleep(20000);
	}
}

/* Slots back to the BPF side's queue; one it refuses now is tried again at the next refresh. */
static void push_free(struct slot_table *sl)
{
	uint32_t w = 0;

	for (uint32_t i = 0; i < sl->nunpushed; i++)
		if (bpf_map_update_elem(sl->fd_free, NULL, &sl->unpushed[i], 0))
			sl->unpushed[w++] = sl->unpushed[i];
	sl->nunpushed = w;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Whether a map entry names one of the cgroups being forgotten (sorted ids). */
struct forget_ids {
	const uint64_t *ids;
	size_t n;
};

static bool named(const struct forget_ids *f, uint64_t id)
{
	return bsearch(&id, f->ids, f->n, sizeof(*f->ids), cmp_u64);
}

static bool preempt_names(const void *key, const void *val, const struct forget_ids *f)
{
	const struct cgs_preempt_key *k = key;

	return named(f, k->victim) || named(f, k->preemptor);
}

static bool thr_last_names(const void *key, const void *val, const struct forget_ids *f)
{
	return named(f, ((const struct cgs_thr_last *)val)->cgid);
}

static bool thr_opened_names(const void *key, const void *val, const struct forget_ids *f)
{
	return named(f, ((const struct cgs_opened *)val)->cgid);
}

/*
 * Delete the entries of map fd that match. Keys are ksize bytes, values
 * vsize; val is NULL when match needs no value. Collect all keys before
 * deleting, because deleting while walking would skip some.
 */
static void delete_matching(int fd, size_t ksize, size_t vsize, const struct forget_ids *f,
			    bool (*match)(const void *key, const void *val, const struct forget_ids *f))
{
	char k[64], next[64], v[64];
	char *del = NULL;
	size_t ndel = 0, cap = 0;
	bool first = true;

	if (fd <= 0 || ksize > sizeof(k) || vsize > sizeof(v))
		return;
	while (!bpf_map_get_next_key(fd, first ? NULL : k, next)) {
		first = false;
		memcpy(k, next, ksize);
		if ((vsize && bpf_map_lookup_elem(fd, k, v)) || !match(k, vsize ? v : NULL, f))
			continue;
		if (grow_array(&del, &cap, ndel, ksize, 64, 0))
			break;
		memcpy(del + ndel++ * ksize, k, ksize);
	}
	for (size_t i = 0; i < ndel; i++)
		bpf_map_delete_elem(fd, del + i * ksize);
	free(del);
}

/* Their preemption (and, with thr, throttle) entries go with them (those maps would fill). */
static void forget_maps(struct slot_table *sl, const uint64_t *ids, size_t n, bool thr)
{
	const struct forget_ids f = { ids, n };

	for (size_t i = 0; thr && i < n; i++)
		for (int cpu = 0; cpu < sl->ncpus; cpu++) {
			struct cgs_thr_key tk = { .cgid = ids[i], .cpu = cpu };
			bpf_map_delete_elem(sl->fd_thr, &tk);
		}
	/*
	 * The last episodes of their cfs_rqs, and the ones still open (keyed by
	 * address: freed with the cgroup, and reused).
	 */
	if (thr) {
		delete_matching(sl->fd_thr_last, sizeof(__u64), sizeof(struct cgs_thr_last), &f, thr_last_names);
		delete_matching(sl->fd_thr_opened, sizeof(__u64), sizeof(struct cgs_opened), &f, thr_opened_names);
	}
	delete_matching(sl->fd_preempt, sizeof(struct cgs_preempt_key), 0, &f, preempt_names);
}

/* Hand back the slots decided at an earlier read, their figures parked first. */
static int release(struct slot_table *sl, uint64_t now)
{
	uint32_t *go = NULL, n = 0;
	struct cgs_cg_stats **v = NULL;
	uint64_t *gone_ids = NULL;
	size_t sorted = sl->nparked, ngone = 0;
	int err = -ENOMEM;

	if (!sl->nretiring)
		return 0;
	if (!(go = malloc(sl->nretiring * sizeof(*go))))
		return -ENOMEM;
	/* Take back slots chosen at an earlier refresh, a second ago at least, after a dying task's last switch. */
	for (uint32_t s = 0; s < sl->nslots && n < sl->nretiring; s++)
		if (sl->retire_read[s] && sl->retire_read[s] < sl->reads && now - sl->retire_ns[s] >= 1000000000ULL)
			go[n++] = s;
	if (!n) {
		err = 0;
		goto out;
	}
	/* Allocate everything first: past the deletes below, nothing may fail half-way. */
	/* Under churn, the parked count creeps up a few at a time. */
	if (ROOM_FOR(sl->parked, sl->nparked + n, sl->parked_cap))
		goto out;
	if (!(v = calloc(n, sizeof(*v))) || !(gone_ids = malloc(n * sizeof(*gone_ids))))
		goto out;
	for (uint32_t i = 0; i < n; i++)
		if (!(v[i] = calloc(slots_park_units(sl), sizeof(**v))))
			goto out;
	/*
	 * Unlink the slots, so no new lookup finds them and no wait count is
	 * taken down on them. The new slot_gen then makes the programs look up
	 * every cached copy again...
	 */
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = go[i], back;
		if (!bpf_map_lookup_elem(sl->fd_slot, &sl->owner[s], &back) && back == s)
			bpf_map_delete_elem(sl->fd_slot, &sl->owner[s]);
		__atomic_store_n(&sl->bowner[s], 0, __ATOMIC_RELEASE);
	}
	__atomic_add_fetch(sl->gen, 1, __ATOMIC_SEQ_CST);
	/* ... once the programs that used them have finished. */
	slots_wait_programs(sl);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = go[i];

		if (sl->note[s].gone)
			gone_ids[ngone++] = sl->owner[s];
		park(sl, s, now, sorted, &v[i]);
		for (int cpu = 0; cpu < sl->ncpus; cpu++)
			memset(hot_at(sl, cpu, s), 0, sizeof(struct cgs_cg_hot));
		for (int k = 0; k < sl->nshards; k++)
			memset(shard_at(sl, k, s), 0, sizeof(struct cgs_cg_shard));
		if (sl->per) {
			/* Back to the default grid, with a new gen: long records of the old cgroup are left out. */
			uint32_t gen = sl->per[s].gen + 1;
			memset(&sl->per[s], 0, sizeof(sl->per[s]));
			sl->per[s].gen = gen;
		}
		sl->owner[s] = 0;
		sl->retire_read[s] = 0;
		free(sl->note[s].path);
		sl->note[s] = (struct slot_note){ 0 };
		sl->nretiring--;
		sl->recycled++;
		sl->unpushed[sl->nunpushed++] = s;
	}
	push_free(sl);
	qsort(sl->parked, sl->nparked, sizeof(*sl->parked), cmp_parked);
	/*
	 * Delete a removed cgroup's preemption pairs now, not with its figures.
	 * Under churn they would soon fill that map (4 x --max-cgroups). A read
	 * has seen them since the removal, because a refresh went by.
	 */
	if (ngone) {
		qsort(gone_ids, ngone, sizeof(*gone_ids), cmp_u64);
		forget_maps(sl, gone_ids, ngone, false);
	}
	cgs_debug("slots: %u taken back (%llu so far), %zu cgroups' figures parked", n,
		  (unsigned long long)sl->recycled, sl->nparked);
	err = 0;
out:
	for (uint32_t i = 0; v && i < n; i++)
		free(v[i]); /* those park() did not take */
	free(v);
	free(gone_ids);
	free(go);
	return err;
}


/* Let go of parked record p; its name too, now or at the next snapshot read. */
static void drop_parked(struct slot_table *sl, struct parked *p, bool snapshot)
{
	if (p->named && sl->on_forget) {
		if (snapshot) {
			sl->on_forget(sl->names_ctx, p->id);
		} else if (!ARRAY_GROW(sl->pending_forget, sl->npending, sl->pending_cap, 64)) {
			sl->pending_forget[sl->npending++] = p->id;
		}
	}
	free(p->v);
	free(p->path);
	p->v = NULL;
	p->path = NULL;
}

static int cmp_age(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	for (int i = 0; i < 2; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/*
 * Drop a removed cgroup's figures after keep_ns and two snapshot reads.
 * Parked figures hold at most max(--max-cgroups, SLOTS_PARKED_MIN)
 * cgroups. Past that bound, the oldest go, removed ones first. Dropping
 * counts in parked_lost if no read saw them, or if the cgroup still lives.
 */
static int expire(struct slot_table *sl, uint64_t now, bool snapshot)
{
	uint64_t *ids = malloc((sl->nparked + 1) * sizeof(*ids)), (*age)[3] = NULL;
	size_t bound = sl->max > SLOTS_PARKED_MIN ? sl->max : SLOTS_PARKED_MIN;
	size_t nids = 0, left = sl->nparked, w = 0;

	if (!ids)
		return -ENOMEM;
	/* Removed cgroups whose time is over... */
	for (size_t i = 0; i < sl->nparked; i++) {
		struct parked *p = &sl->parked[i];
		if (p->gone && now - p->gone_ns >= sl->keep_ns && p->parked_snap + 2 <= sl->snaps) {
			ids[nids++] = p->id;
			drop_parked(sl, p, snapshot);
			left--;
		}
	}
	/* ... then, past the bound, the oldest, removed ones first: sort by (live?, parked at, index). */
	if (left > bound && (age = malloc(sl->nparked * sizeof(*age)))) {
		size_t n = 0;
		for (size_t i = 0; i < sl->nparked; i++) {
			if (!sl->parked[i].v)
				continue;
			age[n][0] = !sl->parked[i].gone;
			age[n][1] = sl->parked[i].parked_read;
			age[n++][2] = i;
		}
		qsort(age, n, sizeof(*age), cmp_age);
		for (size_t k = 0; k < left - bound; k++) {
			struct parked *p = &sl->parked[age[k][2]];
			/* A loss if no read saw it, the cgroup lives, or a summary needs it: totals then lack it. */
			if (!p->gone || p->parked_snap == sl->snaps || sl->keep_ns == UINT64_MAX)
				sl->parked_lost++;
			/* A live cgroup keeps its throttle and preemption entries, and its name. */
			if (p->gone)
				ids[nids++] = p->id;
			else
				p->named = false;
			drop_parked(sl, p, snapshot);
		}
	}
	free(age);
	for (size_t i = 0; i < sl->nparked; i++)
		if (sl->parked[i].v)
			sl->parked[w++] = sl->parked[i];
	sl->nparked = w;
	if (nids) {
		qsort(ids, nids, sizeof(*ids), cmp_u64);
		forget_maps(sl, ids, nids, true);
	}
	free(ids);
	return 0;
}

/*
 * At a snapshot read, name the cgroups given slots since the last read.
 * This runs before the removals are taken in. So a cgroup removed at any
 * moment is named either here, while it exists, or by its removal record.
 */
static uint32_t tell_learnt(struct slot_table *sl)
{
	uint32_t unnamed = 0;

	for (uint32_t s = 0; s < sl->nslots; s++) {
		if (!sl->owner[s] || sl->note[s].named)
			continue;
		if (sl->on_learn && !sl->on_learn(sl->names_ctx, sl->owner[s])) {
			sl->note[s].unnamed = true;
			unnamed++;
		}
		sl->note[s].named = true;
	}
	return unnamed;
}

/* Its removal was taken in while it had no slot (note_slotless). */
static bool slotless_has(const struct slot_table *sl, uint64_t id)
{
	for (size_t i = 0; i < sl->nslotless; i++)
		if (sl->slotless[i].id == id)
			return true;
	return false;
}

/*
 * Wait for the removal records of cgroups that tell_learnt found gone.
 * The kernel drops a cgroup from the cgroupfs (kernfs_remove, in
 * cgroup_destroy_locked) before the cgroup_rmdir tracepoint fires. A
 * lookup in between finds neither the directory nor the record. Both
 * happen in one call, so the record comes soon: poll for it, at most
 * SLOTS_RMDIR_WAIT_MS. A record lost to a full queue counts in gone_lost.
 */
static void await_removals(struct slot_table *sl, uint64_t now)
{
	const struct timespec ms = { 0, 1000000 };
	uint32_t due = 0, waited = 0;
	int i;

	/* The removal was taken in while it had no slot (a straggler gave it one since): no record to wait for. */
	for (uint32_t s = 0; s < sl->nslots; s++)
		if (sl->note[s].unnamed && slotless_has(sl, sl->owner[s]))
			sl->note[s].unnamed = false;
	for (i = 0; i <= SLOTS_RMDIR_WAIT_MS; i++) {
		due = 0;
		for (uint32_t s = 0; s < sl->nslots; s++)
			due += sl->owner[s] && sl->note[s].unnamed && !sl->note[s].gone;
		if (i == 0)
			waited = due;
		if (!due || i == SLOTS_RMDIR_WAIT_MS)
			break;
		nanosleep(&ms, NULL);
		take_gone(sl, now);
	}
	for (uint32_t s = 0; s < sl->nslots; s++)
		sl->note[s].unnamed = false;
	if (waited)
		cgs_debug("slots: %u cgroups removed before their removal's record came; %u named by it after %d ms",
			  waited, waited - due, i);
}

/* At a snapshot read, last: tell the names layer of the removals, and of the figures dropped. */
static void tell_removed(struct slot_table *sl)
{
	for (size_t i = 0; sl->on_forget && i < sl->npending; i++)
		sl->on_forget(sl->names_ctx, sl->pending_forget[i]);
	sl->npending = 0;
	for (uint32_t s = 0; s < sl->nslots; s++) {
		struct slot_note *n = &sl->note[s];
		if (!sl->owner[s] || !n->gone || n->noted)
			continue;
		if (sl->on_removed)
			sl->on_removed(sl->names_ctx, sl->owner[s], n->path);
		n->noted = true;
	}
	for (size_t i = 0; i < sl->nparked; i++) {
		struct parked *p = &sl->parked[i];
		if (p->gone && !p->noted && sl->on_removed)
			sl->on_removed(sl->names_ctx, p->id, p->path);
		p->noted |= p->gone;
		p->named |= p->noted;
	}
}

int slots_refresh(struct slot_table *sl, uint64_t now, bool snapshot)
{
	uint64_t recycled = sl->recycled, learnt = sl->learnt;
	int err;

	sl->reads++;
	sl->snaps += snapshot;
	if (sl->nunpushed)
		push_free(sl);
	learn(sl, now);
	uint32_t unnamed = snapshot ? tell_learnt(sl) : 0;
	take_gone(sl, now);
	/* Every slot learnt mapped before anything reads its figures (mapwin.h). */
	if ((err = mapwin_cover(sl->hotw, sl->nslots)) || (err = mapwin_cover(sl->shardw, sl->nslots)) ||
	    (sl->perw && (err = mapwin_cover(sl->perw, sl->nslots))))
		return err;
	if (unnamed)
		await_removals(sl, now);
	forget_slotless(sl, false);
	if ((err = pick_idle(sl, now)) || (err = release(sl, now)) || (err = expire(sl, now, snapshot)))
		return err;
	/* Ranks change only when slots changed hands. */
	if ((sl->learnt != learnt || sl->recycled != recycled) && (err = rank_slots(sl)))
		return err;
	if (snapshot)
		tell_removed(sl);
	return 0;
}
