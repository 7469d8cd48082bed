// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kernel/cgroupfs.h"
#include "cgsched.h"
#include "cgstat.skel.h"
#include "figures/kstat_src.h"
#include "figures/snapshot.h"
#include "trace/tracer.h"
#include "lib/util.h"

const char *kstat_method_name(enum kstat_method m)
{
	return m == KSTAT_ITER ? "iter" : m == KSTAT_FILES ? "files" : "auto";
}

/*
 * The records the iterator's map holds at first: a small part of the whole
 * bound (CGS_KSTAT_MAX), so a small host does not pay for the bound. A
 * pass that finds more cgroups grows the map to twice what it found, and
 * runs again (kstat_src_refresh). Tests start smaller
 * (CGSCHED_TEST_KSTAT_CAP).
 */
#define KSTAT_CAP_START 4096

static uint32_t cap_start(void)
{
	const char *e = getenv("CGSCHED_TEST_KSTAT_CAP");
	long v = e ? strtol(e, NULL, 10) : 0;

	return v > 0 && v <= CGS_KSTAT_MAX ? (uint32_t)v : KSTAT_CAP_START;
}

static int iter_open(struct kstat_src *s, uint32_t cap)
{
	union bpf_iter_link_info info = {};
	DECLARE_LIBBPF_OPTS(bpf_iter_attach_opts, opts);
	int err;

	tracer_libbpf_quiet(); /* stat loads it without a tracer: one error line, not libbpf's */
	/* The direct loads where the kernel takes them (bpf_rdonly_cast, v6.2+), else the probe reads. */
	s->cap = cap;
	for (int cast = 1;; cast--) {
		s->skel = cgstat_bpf__open();
		if (!s->skel)
			return -errno;
		bpf_program__set_autoload(s->skel->progs.cgroup_bw_cast, cast);
		bpf_program__set_autoload(s->skel->progs.cgroup_bw, !cast);
		if (!(err = bpf_map__set_max_entries(s->skel->maps.kstats, cap)) && !(err = cgstat_bpf__load(s->skel))) {
			s->prog = cast ? s->skel->progs.cgroup_bw_cast : s->skel->progs.cgroup_bw;
			cgs_debug("kernel figures: the cgroup iterator %s", cast ? "with direct loads (bpf_rdonly_cast)" :
					"with probe reads (the kernel refused the direct loads)");
			break;
		}
		cgstat_bpf__destroy(s->skel);
		s->skel = NULL;
		if (!cast)
			return err;
	}
	info.cgroup.cgroup_fd = s->fs->mnt_fd;
	info.cgroup.order = BPF_CGROUP_ITER_DESCENDANTS_PRE;
	opts.link_info = &info;
	opts.link_info_len = sizeof(info);
	s->link = bpf_program__attach_iter(s->prog, &opts);
	if (!s->link)
		goto fail;
	/* The records are read in place: no copy out of the kernel per pass. */
	s->recs_len = (size_t)cap * sizeof(struct cgs_kstat);
	s->recs = mmap(NULL, s->recs_len, PROT_READ, MAP_SHARED, bpf_map__fd(s->skel->maps.kstats), 0);
	if (s->recs == MAP_FAILED) {
		s->recs = NULL;
		goto fail;
	}
	heap_trim();
	return 0;
fail:
	err = -errno;
	bpf_link__destroy(s->link);
	s->link = NULL;
	cgstat_bpf__destroy(s->skel);
	s->skel = NULL;
	return err;
}

/* The counters of a cgroup when first and last seen: what growth is measured from. */
struct kstat_base {
	uint64_t id;
	struct kstat first, last;
	uint64_t seen;             /* the kstat_src_figures call that last read it (0: none yet) */
	uint32_t rec;              /* where its record was in the last pass read (kstat_src_get_at) */
};

/*
 * Calls between sweeps for the bases of removed cgroups. Without sweeps,
 * a host's churn (a pod, a job or a unit a minute) would grow the table
 * for as long as the command runs.
 */
#define BASE_SWEEP_CALLS 64

int kstat_src_open(struct kstat_src *s, struct cgfs *fs, enum kstat_method want)
{
	int err = 0;

	memset(s, 0, sizeof(*s));
	s->fs = fs;
	s->tab = (struct idtab)IDTAB_INIT(struct kstat_ent);
	s->base = (struct idtab)IDTAB_INIT(struct kstat_base);
	if (want != KSTAT_FILES) {
		err = iter_open(s, cap_start());
		if (!err) {
			s->method = KSTAT_ITER;
			return 0;
		}
		cgs_debug("cgroup iterator unavailable (%s): reading cgroup files", strerror(-err));
		if (want == KSTAT_ITER)
			return err;
	}
	s->method = KSTAT_FILES;
	return 0;
}

/* Let go of the iterator, its program and its map. */
static void iter_close(struct kstat_src *s)
{
	if (s->recs)
		munmap((void *)s->recs, s->recs_len);
	bpf_link__destroy(s->link);
	cgstat_bpf__destroy(s->skel);
	s->recs = NULL;
	s->link = NULL;
	s->skel = NULL;
}

void kstat_src_close(struct kstat_src *s)
{
	iter_close(s);
	idtab_free(&s->tab);
	idtab_free(&s->base);
	memset(s, 0, sizeof(*s));
}

/*
 * cpu.shares from task_group.shares, as cpu_shares_read_u64() shows it:
 * w ? max(2, w >> 10) : 0. That is the kernel's scale_load_down() on a
 * 64-bit kernel (SCHED_FIXEDPOINT_SHIFT 10); cgsched builds for x86-64
 * and arm64 only.
 */
static uint64_t shares_from_load(uint64_t w)
{
	if (!w)
		return 0;
	w >>= 10;
	return w < 2 ? 2 : w;
}

/* A record of the iterator as the files would read. */
static void take(const struct cgs_kstat *v, struct kstat *k)
{
	*k = (struct kstat){ .ok = true, .usage_ns = -1 };
	k->quota_us = v->quota_ns == ~0ULL ? -1 : (int64_t)(v->quota_ns / 1000);
	k->period_us = v->period_ns / 1000;
	k->burst_us = v->burst_ns / 1000;
	k->nr_periods = v->nr_periods;
	k->nr_throttled = v->nr_throttled;
	k->throttled_ns = v->throttled_ns;
	k->shares = shares_from_load(v->shares_raw);
	k->weight = kstat_weight_of(k->shares);
	k->has_bursts = v->has_bursts;
	k->nr_bursts = k->has_bursts ? v->nr_burst : 0;
	k->burst_ns = k->has_bursts ? v->burst_time_ns : 0;
	k->period_end_ns = v->period_end_ns;
}

/* One pass of the iterator over the hierarchy, into its records. */
static int iter_pass(struct kstat_src *s)
{
	char buf[64];
	int fd, err = 0;

	s->skel->bss->n = 0;
	s->skel->bss->full = 0;
	s->skel->bss->unread = 0;
	fd = bpf_iter_create(bpf_link__fd(s->link));
	if (fd < 0)
		return -errno;
	/* The program prints nothing: one read walks the whole hierarchy. */
	while ((err = read(fd, buf, sizeof(buf))) > 0)
		;
	if (err < 0)
		err = -errno;
	close(fd);
	return err;
}

int kstat_src_refresh(struct kstat_src *s)
{
	int err;

	if (s->method != KSTAT_ITER)
		return 0;
	if ((err = iter_pass(s)))
		return err;
	/* More cgroups than records: a map twice what the pass found, and the pass again. */
	if (s->skel->bss->full && s->cap < CGS_KSTAT_MAX && !s->grow_refused) {
		struct kstat_src grown = *s;
		uint64_t found = s->skel->bss->n + s->skel->bss->full;
		uint32_t cap = found * 2 < CGS_KSTAT_MAX ? (uint32_t)found * 2 : CGS_KSTAT_MAX;

		if (!(err = iter_open(&grown, cap))) {
			cgs_debug("kernel figures: %llu cgroups over the iterator's %u records: now %u",
				  (unsigned long long)s->skel->bss->full, s->cap, cap);
			iter_close(s);
			*s = grown;
			if ((err = iter_pass(s)))
				return err;
		} else {
			/* Not tried again each refresh: what did not fit is counted (full). */
			s->grow_refused = true;
			cgs_debug("kernel figures: cannot grow the iterator's records to %u (%s)", cap, strerror(-err));
		}
	}
	s->full = s->skel->bss->full;
	s->unread = s->skel->bss->unread;
	s->n = s->skel->bss->n < s->cap ? s->skel->bss->n : s->cap;
	s->indexed = false;
	return 0;
}

/*
 * Index the last pass by id, keeping only each record's place. The
 * records stay in the map until the next pass, and are converted when
 * asked for, so no copy of every record is held.
 */
static int index_pass(struct kstat_src *s)
{
	idtab_clear(&s->tab);
	for (uint32_t i = 0; i < s->n; i++) {
		struct kstat_ent *e = idtab_put(&s->tab, s->recs[i].id, NULL);
		if (!e)
			return -ENOMEM;
		e->rec = i;
	}
	s->indexed = true;
	return 0;
}

/* id's record of the last pass, at *hint if it is still there, else by the index (*hint moved there). */
static const struct cgs_kstat *rec_of(struct kstat_src *s, uint64_t id, uint32_t *hint)
{
	const struct kstat_ent *e;

	if (hint && *hint < s->n && s->recs[*hint].id == id)
		return &s->recs[*hint];
	if (!s->indexed && index_pass(s))
		return NULL;
	if (!(e = idtab_find(&s->tab, id)))
		return NULL;
	if (hint)
		*hint = e->rec;
	return &s->recs[e->rec];
}

int kstat_src_get_at(struct kstat_src *s, uint64_t id, const char *rel, uint32_t *hint, struct kstat *k)
{
	if (s->method == KSTAT_ITER) {
		const struct cgs_kstat *r = rec_of(s, id, hint);
		if (!r)
			return -ENOENT;
		take(r, k);
		/* The root group has no bandwidth control: as its missing files say. */
		return rel && !strcmp(rel, "/") ? -ENOENT : 0;
	}
	return kstat_read(s->fs, rel, k);
}

int kstat_src_get(struct kstat_src *s, uint64_t id, const char *rel, struct kstat *k)
{
	return kstat_src_get_at(s, id, rel, NULL, k);
}

struct all_ctx {
	struct kstat_src *s;
	void (*cb)(void *, uint64_t, const char *, const struct kstat *);
	void *ctx;
};

static int read_one(void *vctx, const char *rel, uint64_t id)
{
	struct all_ctx *a = vctx;
	struct kstat k;

	if (!kstat_read(a->s->fs, rel, &k))
		a->cb(a->ctx, id, rel, &k);
	return 0;
}

int kstat_src_all(struct kstat_src *s,
		  void (*cb)(void *ctx, uint64_t id, const char *path, const struct kstat *k), void *ctx)
{
	int err;

	if (s->method == KSTAT_ITER) {
		/* One pass, no file read, no path needed: ids are what deltas key on. */
		if ((err = kstat_src_refresh(s)))
			return err;
		for (uint32_t i = 0; i < s->n; i++) {
			struct kstat k;
			take(&s->recs[i], &k);
			cb(ctx, s->recs[i].id, NULL, &k);
		}
		return 0;
	}
	struct all_ctx a = { s, cb, ctx };
	return cgfs_walk(s->fs, "/", false, read_one, &a);
}

static void prime_one(void *ctx, uint64_t id, const char *path, const struct kstat *k)
{
	struct kstat_base *b = idtab_put(ctx, id, NULL);

	if (b)
		b->first = b->last = *k;
}

int kstat_src_prime(struct kstat_src *s)
{
	return kstat_src_all(s, prime_one, &s->base);
}

/*
 * Select the bases whose cgroup is gone and that were not read for
 * BASE_SWEEP_CALLS calls. Ids are not reused, so a base is never needed
 * again once its cgroup is gone. The base of a cgroup that is only idle
 * stays, as do those of the cgroups at the start that were never read.
 */
static bool base_gone(void *ctx, void *e)
{
	struct kstat_src *s = ctx;
	const struct kstat_base *b = e;

	return b->seen && s->calls - b->seen > BASE_SWEEP_CALLS && !cgfs_path(s->fs, b->id, true, NULL);
}

int kstat_src_figures(struct kstat_src *s, const struct snapshot *d, bool since_first, struct idtab *out)
{
	if (++s->calls % BASE_SWEEP_CALLS == 0)
		idtab_sweep(&s->base, base_gone, s); /* out of memory: the next sweep's */
	for (size_t i = 0; i < d->n; i++) {
		uint64_t id = d->cg[i].id;
		const char *rel = NULL;
		/* Both tables' entries of a cgroup a few ahead, on their way (idtab_prefetch). */
		if (i + PREFETCH_AHEAD < d->n) {
			idtab_prefetch(&s->base, d->cg[i + PREFETCH_AHEAD].id);
			idtab_prefetch(out, d->cg[i + PREFETCH_AHEAD].id);
		}
		struct kstat_base *b;
		struct kstat_fig *f;
		struct kstat k;

		/* The iterator's figures are by id; the files need the path. */
		if (s->method != KSTAT_ITER && !(rel = cgfs_path(s->fs, id, true, NULL)))
			continue;
		/* Not seen at start (fresh: zeroed): it was made since, and all its counters are new. */
		if (!(b = idtab_put(&s->base, id, NULL)))
			return -ENOMEM;
		b->seen = s->calls; /* with no record too: swept once its cgroup is gone */
		if (kstat_src_get_at(s, id, rel, &b->rec, &k))
			continue;
		if (!(f = idtab_put(out, id, NULL)))
			return -ENOMEM;
		f->k = k;
		f->g = kstat_growth(since_first ? &b->first : &b->last, &k);
		b->last = k;
	}
	return 0;
}
