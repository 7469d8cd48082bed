// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "trace/fentry_probe.h"
#include "trace/tracer.h"
#include "lib/util.h"

/*
 * Attach fallbacks, tried in order by loading and attaching. They are
 * never chosen by kernel version, because distributions backport. The
 * tp_btf programs get typed pointers and task storage (v5.11+). The raw_tp
 * ones work where tp_btf does not, with probe reads and an LRU hash keyed
 * by pid.
 */
static const struct backend {
	const char *name;    /* as --sched-backend takes it, and as reported */
	bool btf;            /* tp_btf programs, else raw_tp */
	bool task_storage;
} backends[] = {
	{ "tp_btf", true, true },
	{ "tp_btf-pidhash", true, false },
	{ "raw_tp", false, false },
};

/*
 * Throttle backends, tried in this order unless --throttle-backend names one. The
 * tracepoint backend needs nothing beyond sched_switch, so it always loads.
 */
static const struct thr_backend {
	const char *name;
	enum cgs_thr_backend id;
} thr_backends[] = {
	{ "fentry", CGS_THR_FENTRY },
	{ "kprobe", CGS_THR_KPROBE },
	{ "tracepoint", CGS_THR_TRACEPOINT },
};

/* Up to v5.10 the kernel refused any map of 4 GiB or more (bpf_map_charge_init). */
#define CG_STATS_MAX_BYTES ((4ULL << 30) - (1ULL << 20))

/* cg_hot holds every CPU's hot figures of every slot in one array (sched.bpf.c). */
static uint64_t cg_hot_bytes(int ncpus, uint32_t max_cgroups)
{
	return (uint64_t)ncpus * max_cgroups * sizeof(struct cgs_cg_hot);
}

/* cg_shard holds each shard's figures of every slot. */
static uint64_t cg_shard_bytes(int nshards, uint32_t max_cgroups)
{
	return (uint64_t)nshards * max_cgroups * sizeof(struct cgs_cg_shard);
}

/*
 * The number of cg_shard's shards. There is one per CPU, with plain adds,
 * for the per-CPU view and where the CPUs are few. Otherwise there are
 * CGS_SHARDS_DEFAULT, shared with atomic adds (docs/design.md, "Memory").
 * CGS_SHARDS in the environment overrides it, so `make bench` can time
 * the shared adds on a host with few CPUs. Returns the number of shards,
 * or -EINVAL after printing why.
 */
static int shards_for(int ncpus, const struct tracer_opts *o)
{
	const char *env = getenv("CGS_SHARDS");
	char *end;

	if (env && *env) {
		errno = 0;
		long n = strtol(env, &end, 10);
		if (errno || *end || n < 1 || n > ncpus || (o->cfg->per_cpu && n != ncpus)) {
			cgs_err("CGS_SHARDS=%s: give a number of shards from 1 to the %d possible CPUs%s", env, ncpus,
				o->cfg->per_cpu ? " (all of them with the per-CPU view)" : "");
			return -EINVAL;
		}
		return (int)n;
	}
	if (o->cfg->per_cpu || ncpus <= CGS_SHARDS_DEFAULT)
		return ncpus;
	return CGS_SHARDS_DEFAULT;
}
/*
 * The parts of --why to enable (enum cgs_why_part): all of them, unless
 * CGS_WHY_PARTS in the environment names some ("split", "split,count").
 * `make bench` uses it to time each part's cost on the hot path. Returns
 * the parts as a mask, or -EINVAL after printing why.
 */
static int why_parts_for(const struct tracer_opts *o)
{
	static const struct { const char *name; int bit; } parts[] = {
		{ "split", CGS_WHY_SPLIT }, { "count", CGS_WHY_COUNT }, { "names", CGS_WHY_NAMES },
	};
	const char *env = getenv("CGS_WHY_PARTS");
	char buf[64], *save = NULL;
	int v = 0;

	if (!o->cfg->why)
		return o->cfg->causes ? CGS_WHY_SPLIT : 0;
	if (!env || !*env)
		return CGS_WHY_ALL;
	snprintf(buf, sizeof(buf), "%s", env);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int bit = 0;
		for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
			if (!strcmp(tok, parts[i].name))
				bit = parts[i].bit;
		if (!bit) {
			v = -1;
			break;
		}
		v |= bit;
	}
	/* The names part reads the split's figures, so it needs the split. */
	if (v <= 0 || strlen(env) >= sizeof(buf) || ((v & CGS_WHY_NAMES) && !(v & CGS_WHY_SPLIT))) {
		cgs_err("CGS_WHY_PARTS=%s: give a comma list of split, count and names (names with split)", env);
		return -EINVAL;
	}
	return v;
}

struct ksyms {
	bool read;                  /* /proc/kallsyms read (only when kprobes can be tried) */
	char throttle[TRACER_KPROBE_SYMS][256], unthrottle[TRACER_KPROBE_SYMS][256];
	int nthrottle, nunthrottle;
	bool fentry_probed;         /* fexit_probe tried (once per start, whatever the backend pair) */
	int fentry_refused;         /* its refusal, -errno; 0: none seen */
};

/* "name" or a compiler clone of it ("name.isra.0", "name.constprop.0"), never ".cold". */
static bool sym_is(const char *sym, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(sym, name, n))
		return false;
	if (!sym[n])
		return true;
	return sym[n] == '.' && !strstr(sym + n, ".cold");
}

/*
 * Kprobe targets from /proc/kallsyms (text symbols of vmlinux only). Read
 * the file once, and only when the kprobe backend is about to be tried.
 * The kernel formats every symbol for it, which takes a large share of
 * start-up.
 */
static void resolve_ksyms(struct ksyms *k)
{
	FILE *f;
	char line[512], type, name[256], mod[256];

	if (k->read)
		return;
	memset(k, 0, sizeof(*k));
	k->read = true;
	if (!(f = fopen("/proc/kallsyms", "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%*s %c %255s %255s", &type, name, mod);
		if (n < 2 || n == 3 || (type != 't' && type != 'T'))
			continue;
		if (sym_is(name, "throttle_cfs_rq") && k->nthrottle < TRACER_KPROBE_SYMS)
			snprintf(k->throttle[k->nthrottle++], 256, "%s", name);
		else if (sym_is(name, "unthrottle_cfs_rq") && k->nunthrottle < TRACER_KPROBE_SYMS)
			snprintf(k->unthrottle[k->nunthrottle++], 256, "%s", name);
	}
	fclose(f);
}

bool tracer_link_add(struct tracer *t, struct bpf_link *l)
{
	if (t->nlinks >= (int)ARRAY_SIZE(t->links)) {
		bpf_link__destroy(l);
		return false;
	}
	t->links[t->nlinks++] = l;
	return true;
}

static int attach_kprobes(struct tracer *t, struct sched_bpf *s, const struct ksyms *k)
{
	struct {
		struct bpf_program *prog;
		bool ret;
		const char (*names)[256];
		int n;
	} want[] = {
		{ s->progs.kprobe_throttle, false, k->throttle, k->nthrottle },
		{ s->progs.kretprobe_throttle, true, k->throttle, k->nthrottle },
		{ s->progs.kprobe_unthrottle, false, k->unthrottle, k->nunthrottle },
	};

	_Static_assert(ARRAY_SIZE(want) == TRACER_KPROBE_PROGS, "tracer.h sizes links for these programs");
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		if (!want[i].n)
			return -ENOENT;
		for (int j = 0; j < want[i].n; j++) {
			struct bpf_link *l = bpf_program__attach_kprobe(want[i].prog, want[i].ret,
									 want[i].names[j]);
			if (!l)
				return -errno;
			if (!tracer_link_add(t, l))
				return -E2BIG;
			cgs_debug("kprobe%s on %s", want[i].ret ? " (return)" : "", want[i].names[j]);
		}
	}
	return 0;
}

static const struct backend *find_backend(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		if (!strcmp(name, backends[i].name))
			return &backends[i];
	return NULL;
}

static const struct thr_backend *find_thr(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(thr_backends); i++)
		if (!strcmp(name, thr_backends[i].name))
			return &thr_backends[i];
	return NULL;
}

/* What a refusal most likely means, for error lines and `cgsched probe`. */
const char *tracer_sched_hint(const char *name, int err)
{
	if (!strcmp(name, "tp_btf") && err == -EOPNOTSUPP)
		return "no task storage maps for tracing programs (Linux 5.11 added them); tp_btf-pidhash does without";
	return strerror(-err);
}

/*
 * Hash maps allocated at run time (BPF_F_NO_PREALLOC) can grow safely from
 * any context only with the BPF memory allocator ("bpf: Introduce any
 * context BPF specific memory allocator", Linux 6.1). Before it, an
 * allocation inside sched_switch can recurse into the scheduler: kmalloc
 * may wake kswapd under the run-queue lock. Those kernels' verifiers warn
 * about it for raw_tp and kprobe programs ("trace type BPF program uses
 * run-time allocation", a kernel WARNING). So where the allocator's type
 * is missing from the kernel's BTF, every such map is preallocated. That
 * costs more memory at start (cgsched probe shows it), but the hot path
 * allocates nothing.
 */
static bool any_context_alloc(void)
{
	static int have = -1;

	if (have < 0) {
		struct btf *vm = btf__load_vmlinux_btf();
		have = vm && btf__find_by_name_kind(vm, "bpf_mem_alloc", BTF_KIND_STRUCT) > 0;
		btf__free(vm);
	}
	return have;
}

bool tracer_maps_preallocated(void)
{
	return !any_context_alloc();
}

static void prealloc_if_needed(struct bpf_map *m)
{
	if (!any_context_alloc())
		bpf_map__set_map_flags(m, bpf_map__map_flags(m) & ~BPF_F_NO_PREALLOC);
}

const char *tracer_thr_hint(const char *name, int err)
{
	if (!strcmp(name, "fentry") && (err == -EPERM || err == -EACCES))
		return "fentry programs refused (kernel lockdown, or no BPF trampoline)";
	if (!strcmp(name, "fentry") && err == -ESRCH)
		return "throttle_cfs_rq/unthrottle_cfs_rq not in the kernel's BTF (inlined?)";
	if (!strcmp(name, "kprobe") && err == -ENOENT)
		return "kprobes unavailable (kernel built without CONFIG_KPROBES, or symbols missing)";
	return strerror(-err);
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!cgs_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void select_progs(struct sched_bpf *s, bool btf, enum cgs_thr_backend thr)
{
	bpf_program__set_autoload(s->progs.fexit_throttle, thr == CGS_THR_FENTRY);
	bpf_program__set_autoload(s->progs.fentry_unthrottle, thr == CGS_THR_FENTRY);
	bpf_program__set_autoload(s->progs.kprobe_throttle, thr == CGS_THR_KPROBE);
	bpf_program__set_autoload(s->progs.kretprobe_throttle, thr == CGS_THR_KPROBE);
	bpf_program__set_autoload(s->progs.kprobe_unthrottle, thr == CGS_THR_KPROBE);
	bpf_program__set_autoload(s->progs.btf_switch, btf);
	bpf_program__set_autoload(s->progs.btf_wakeup, btf);
	bpf_program__set_autoload(s->progs.btf_wakeup_new, btf);
	bpf_program__set_autoload(s->progs.raw_switch, !btf);
	bpf_program__set_autoload(s->progs.raw_wakeup, !btf);
	bpf_program__set_autoload(s->progs.raw_wakeup_new, !btf);
	bpf_program__set_autoload(s->progs.btf_migrate, btf && thr != CGS_THR_NONE);
	bpf_program__set_autoload(s->progs.raw_migrate, !btf && thr != CGS_THR_NONE);
	bpf_program__set_autoload(s->progs.btf_rmdir, btf);
	bpf_program__set_autoload(s->progs.raw_rmdir, !btf);
	bpf_program__set_autoload(s->progs.btf_attach, btf);
	bpf_program__set_autoload(s->progs.raw_attach, !btf);
	/* Attached by hand, best effort (attach_cgroup_hooks). */
	bpf_program__set_autoattach(s->progs.btf_rmdir, false);
	bpf_program__set_autoattach(s->progs.raw_rmdir, false);
	bpf_program__set_autoattach(s->progs.btf_attach, false);
	bpf_program__set_autoattach(s->progs.raw_attach, false);
	/* Run on each CPU by the loader, never attached (seed_cpus). */
	bpf_program__set_autoattach(s->progs.seed_cpu, false);
}

/*
 * The hierarchy the cpu controller is on, as cgroup_root.hierarchy_id.
 * It is the second column of /proc/cgroups: 0 for v2's unified hierarchy,
 * or -1 if unknown.
 */
static int cpu_hierarchy(void)
{
	FILE *f = fopen("/proc/cgroups", "r");
	char name[64];
	int hier = -1, h, n, en;

	if (!f)
		return -1;
	fscanf(f, "%*[^\n]\n"); /* the header */
	while (fscanf(f, "%63s %d %d %d", name, &h, &n, &en) == 4)
		if (!strcmp(name, "cpu")) {
			hier = h;
			break;
		}
	fclose(f);
	return hier;
}

/* What can be told before a load: 0, or why b with tb cannot work here (-errno, said with -v). */
static int precheck(const struct backend *b, const struct thr_backend *tb, struct ksyms *k)
{
	int err;

	/*
	 * A kernel that refuses every fentry/fexit program (a locked-down one
	 * may) is detected with a two-instruction program, not a full load.
	 * Only refusals that a full load would meet in the same way count here.
	 * Anything else is found out by loading for real.
	 */
	if (tb->id == CGS_THR_FENTRY && !k->fentry_probed) {
		k->fentry_probed = true;
		err = fexit_probe("throttle_cfs_rq");
		/* 524: the kernel's ENOTSUPP, which userspace headers do not name. */
		if (err == -EPERM || err == -EACCES || err == -EOPNOTSUPP || err == -524) {
			cgs_debug("throttle backend fentry: a two-instruction fexit program was refused: %s", strerror(-err));
			k->fentry_refused = err;
		}
	}
	if (tb->id == CGS_THR_FENTRY && k->fentry_refused)
		return k->fentry_refused;
	/*
	 * libbpf attaches kprobes through the kprobe PMU, or through tracefs's
	 * kprobe_events where the PMU is missing. With neither, a slow load
	 * would only end in a failed attach.
	 */
	if (tb->id == CGS_THR_KPROBE && access("/sys/bus/event_source/devices/kprobe/type", R_OK) &&
	    access("/sys/kernel/tracing/kprobe_events", W_OK) &&
	    access("/sys/kernel/debug/tracing/kprobe_events", W_OK)) {
		cgs_debug("throttle backend kprobe: no kprobe PMU and no kprobe_events: kprobes unavailable");
		return -ENOENT;
	}
	if (tb->id == CGS_THR_KPROBE)
		resolve_ksyms(k);
	if (tb->id == CGS_THR_KPROBE && (!k->nthrottle || !k->nunthrottle)) {
		cgs_debug("throttle backend kprobe: throttle_cfs_rq/unthrottle_cfs_rq not in /proc/kallsyms");
		return -ENOENT;
	}
	/* Without the map type the load fails with a bare EINVAL: say why. */
	if (b->task_storage && libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) <= 0) {
		cgs_debug("backend %s: %s", b->name, tracer_sched_hint(b->name, -EOPNOTSUPP));
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The settings and the maps' sizes, before the load; hier: the cpu hierarchy's number (or -1). */
static void configure(struct sched_bpf *s, const struct tracer_opts *o, const struct backend *b,
		      const struct thr_backend *tb, int hier, int nshards, int why_parts)
{
	select_progs(s, b->btf, tb->id);
	prealloc_if_needed(s->maps.preempt);
	prealloc_if_needed(s->maps.thr_stats);
	prealloc_if_needed(s->maps.thr_start);
	prealloc_if_needed(s->maps.thr_last);
	prealloc_if_needed(s->maps.thr_opened);
	s->rodata->targ_thr = tb->id;
	bpf_map__set_max_entries(s->maps.thr_stats, o->cfg->max_cgroups * 8);
	bpf_map__set_max_entries(s->maps.thr_start, o->cfg->max_cgroups * 8);
	bpf_map__set_max_entries(s->maps.thr_opened, tb->id == CGS_THR_TRACEPOINT ? o->cfg->max_cgroups * 8 : 1);
	s->rodata->targ_filter = o->nfilter > 0;
	s->rodata->targ_demand = o->cfg->demand;
	s->rodata->targ_task_storage = b->task_storage;
	s->rodata->targ_hist_div = o->cfg->hist_ms ? 1000000 : 1000;
	bpf_map__set_max_entries(s->maps.cg_hot, libbpf_num_possible_cpus() * o->cfg->max_cgroups);
	bpf_map__set_max_entries(s->maps.cg_shard, nshards * o->cfg->max_cgroups);
	s->rodata->targ_shards = nshards;
	s->rodata->targ_shared = nshards < libbpf_num_possible_cpus();
	bpf_map__set_max_entries(s->maps.cg_slot, o->cfg->max_cgroups);
	bpf_map__set_max_entries(s->maps.slot_owner, o->cfg->max_cgroups);
	bpf_map__set_max_entries(s->maps.free_slots, o->cfg->max_cgroups);
	bpf_map__set_max_entries(s->maps.gone, o->cfg->max_cgroups * 2 + 1024);
	s->rodata->targ_cpu_hierarchy = hier;
	s->rodata->targ_max_cgroups = o->cfg->max_cgroups;
	bpf_map__set_max_entries(s->maps.preempt, o->cfg->max_cgroups * 4);
	s->rodata->targ_tasks = o->cfg->tasks;
	s->rodata->targ_tasks_one = o->cfg->tasks && o->cfg->tasks_one;
	bpf_map__set_max_entries(s->maps.task_stats, o->cfg->tasks ? o->cfg->max_task_rows : 1);
	/*
	 * With one cgroup's tasks, allocate entries as they are used, not the
	 * whole bound for every possible CPU at load (18 MB for 256 entries on
	 * 192 CPUs). This is done only where the kernel can allocate safely in
	 * the switch path (prealloc_if_needed).
	 */
	if (o->cfg->tasks && o->cfg->tasks_one) {
		bpf_map__set_map_flags(s->maps.task_stats, bpf_map__map_flags(s->maps.task_stats) | BPF_F_NO_PREALLOC);
		prealloc_if_needed(s->maps.task_stats);
	}
	s->rodata->targ_why = why_parts != 0;
	s->rodata->targ_why_parts = why_parts;
	s->rodata->targ_long_wait_ns = o->cfg->long_wait_ns;
	/*
	 * Without --timeline nothing is sent to the waits ring buffer, so it
	 * gets one page. The tests shrink it with CGSCHED_TEST_WAITS_RING (bytes,
	 * a power of two, at least a page), to check that a full ring buffer
	 * is counted and shown.
	 */
	const char *ring = getenv("CGSCHED_TEST_WAITS_RING");
	if (!o->cfg->long_wait_ns)
		bpf_map__set_max_entries(s->maps.waits, getpagesize());
	else if (ring && atoi(ring) >= getpagesize() && !(atoi(ring) & (atoi(ring) - 1)))
		bpf_map__set_max_entries(s->maps.waits, atoi(ring));
	bpf_map__set_max_entries(s->maps.cpu_tl, why_parts ? libbpf_num_possible_cpus() : 1);
	bpf_map__set_max_entries(s->maps.moved_at, libbpf_num_possible_cpus());
	if (!b->task_storage) {
		bpf_map__set_type(s->maps.tasks, BPF_MAP_TYPE_LRU_HASH);
		bpf_map__set_map_flags(s->maps.tasks, 0);
		bpf_map__set_max_entries(s->maps.tasks, o->max_tasks);
	}
}

/*
 * Attach the cgroup hooks, best effort. Without cgroup_rmdir, a removed
 * cgroup's slot comes back only once it is idle. Without
 * cgroup_attach_task, a task moved while it runs has its slice split at
 * its next switch, not at the move (sched.bpf.c on_attach).
 */
static void attach_cgroup_hooks(struct tracer *t, struct sched_bpf *s, const struct backend *b, int hier)
{
	static const char *const without[] = {
		"removed cgroups' slots come back only once idle",
		"a task moved while it runs is split at its next switch",
	};
	struct bpf_program *p[] = {
		b->btf ? s->progs.btf_rmdir : s->progs.raw_rmdir,
		b->btf ? s->progs.btf_attach : s->progs.raw_attach,
	};

	_Static_assert(ARRAY_SIZE(p) == TRACER_CGROUP_HOOKS, "tracer.h sizes links for these hooks");
	for (size_t i = 0; i < ARRAY_SIZE(p); i++) {
		/* Without the hierarchy's number, another hierarchy's event could pass for the cpu one's. */
		if (hier < 0) {
			cgs_debug("the cpu controller's hierarchy not in /proc/cgroups: %s", without[i]);
			continue;
		}
		struct bpf_link *l = bpf_program__attach(p[i]);
		if (l && tracer_link_add(t, l))
			t->rmdir_hooked |= i == 0;
		else if (!l)
			cgs_debug("%s not attached (%s): %s", bpf_program__name(p[i]), strerror(errno), without[i]);
	}
}

static int try_backend(struct tracer *t, const struct tracer_opts *o, const struct backend *b,
		       const struct thr_backend *tb, struct ksyms *k)
{
	struct sched_bpf *s;
	int err, hier = cpu_hierarchy();

	if (o->stop && *o->stop)
		return -EINTR;
	if ((err = precheck(b, tb, k)))
		return err;
	uint64_t t0 = now_ns();
	if (!(s = sched_bpf__open()))
		return -errno;
	configure(s, o, b, tb, hier, t->nshards, t->why_parts);
	uint64_t t1 = now_ns();
	err = sched_bpf__load(s);
	if (err) {
		cgs_debug("backends %s+%s: load failed: %s", b->name, tb->name, strerror(-err));
		goto fail;
	}
	/* Start-up time, split into open and load (slow kernels take seconds). */
	cgs_debug("backends %s+%s: opened in %.1f ms, loaded (verified) in %.1f ms", b->name, tb->name,
		  (t1 - t0) / 1e6, (now_ns() - t1) / 1e6);
	/*
	 * A signal during the load: the verifier gave up with EAGAIN, libbpf
	 * loaded again, and the handler has set the stop flag. Attach nothing.
	 */
	if (o->stop && *o->stop) {
		err = -EINTR;
		goto fail;
	}
	t1 = now_ns();
	if ((err = slots_fill(bpf_map__fd(s->maps.free_slots), o->cfg->max_cgroups)))
		goto fail;
	cgs_debug("%d free slots queued in %.1f ms", o->cfg->max_cgroups, (now_ns() - t1) / 1e6);
	for (int i = 0; i < o->nfilter; i++) {
		__u8 one = 1;
		if (bpf_map_update_elem(bpf_map__fd(s->maps.filter), &o->filter_ids[i], &one, 0)) {
			err = -errno;
			goto fail;
		}
	}
	err = sched_bpf__attach(s);
	if (!err && tb->id == CGS_THR_KPROBE)
		err = attach_kprobes(t, s, k);
	if (!err)
		attach_cgroup_hooks(t, s, b, hier);
	if (err) {
		cgs_debug("backends %s+%s: attach failed: %s", b->name, tb->name, strerror(-err));
		goto fail;
	}
	t->skel = s;
	t->thr_backend = tb->name;
	t->backend = b->name;
	t->task_storage = b->task_storage;
	return 0;
fail:
	for (int i = 0; i < t->nlinks; i++)
		bpf_link__destroy(t->links[i]);
	t->nlinks = 0;
	t->rmdir_hooked = false;
	sched_bpf__destroy(s);
	return err;
}

/*
 * Where the kernel cannot run seed_cpu on a given CPU (before v5.10), a
 * thread pinned to each CPU sleeps 1 ms, so every CPU switches once. This
 * is approximate: what ran before that switch is not counted, and under
 * load the switch can come late.
 */
static void *nudge(void *arg)
{
	cpu_set_t set;
	long cpu = (long)arg;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!sched_setaffinity(0, sizeof(set), &set))
		usleep(1000);
	return NULL;
}

static void nudge_cpus(int ncpus)
{
	pthread_t th[1024];
	int n = ncpus < 1024 ? ncpus : 1024, started = 0, policy;
	struct sched_param sp;
	pthread_attr_t attr;

	/*
	 * Run at this thread's policy (--priority). That policy is set with
	 * SCHED_RESET_ON_FORK, so it is not inherited. An ordinary nudge thread
	 * would wait behind the very load a real-time observer is there to see.
	 */
	pthread_attr_init(&attr);
	if (!pthread_getschedparam(pthread_self(), &policy, &sp) && policy != SCHED_OTHER) {
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, policy);
		pthread_attr_setschedparam(&attr, &sp);
	}
	for (long i = 0; i < n; i++)
		if (!pthread_create(&th[started], &attr, nudge, (void *)i))
			started++;
	pthread_attr_destroy(&attr);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

/*
 * Tell every CPU what it is running now (sched.bpf.c seed_cpu). A task
 * already running when tracing began is then counted from that moment,
 * whatever the scheduler does next. Returns "ipi", or "nudge" after the
 * fallback where the kernel cannot run a program on a chosen CPU.
 */
/* A loaded program's kernel info; false for one never loaded (a backend not chosen). */
static bool prog_info(const struct bpf_program *p, struct bpf_prog_info *info)
{
	__u32 len = sizeof(*info);
	int fd = bpf_program__fd(p);

	memset(info, 0, sizeof(*info));
	return fd >= 0 && !bpf_obj_get_info_by_fd(fd, info, &len);
}

/*
 * Count the runs of our programs that the kernel skipped; each is a lost
 * event. The kernel skips a program while another one runs on that CPU
 * (counted for fentry/fexit since 5.12, for tracepoints since 6.2). It
 * skips kprobes while the CPU's bpf_prog_active is held (counted since
 * 6.7). Any kprobe or perf-event program holds it, and so does a BPF
 * syscall's map access (bpf_disable_instrumentation). Where the kernel
 * does not count skips, the throttle pairs are checked instead
 * (throttle.bpf.h thr_begin and thr_end).
 */
static uint64_t prog_misses(const struct tracer *t)
{
	struct bpf_program *p;
	struct bpf_prog_info info;
	uint64_t n = 0;

	bpf_object__for_each_program(p, t->skel->obj)
		if (prog_info(p, &info))
			n += info.recursion_misses;
	return n;
}

static int seed_one(int fd, int cpu)
{
	__u64 args[6] = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

	return bpf_prog_test_run_opts(fd, &opts) ? -errno : 0;
}

static const char *seed_cpus(struct tracer *t)
{
	int fd = bpf_program__fd(t->skel->progs.seed_cpu), ran = 0, offline = 0, err = 0;

	for (int cpu = 0; cpu < t->ncpus && fd >= 0; cpu++) {
		int e = seed_one(fd, cpu);
		if (!e)
			ran++;
		else if (e == -ENXIO)
			offline++; /* runs nothing until it comes online, and then switches */
		else if (!err)
			err = e;
	}
	if (ran && !err) {
		cgs_debug("every CPU told what it runs (%d, %d offline; %u not switched since the attach)", ran,
			  offline, t->skel->bss->seeded_cpus);
		return "ipi";
	}
	cgs_debug("cannot run a program on a chosen CPU (%s): a thread nudges each CPU instead",
		  strerror(err ? -err : ENOENT));
	nudge_cpus(t->ncpus);
	return "nudge";
}

/* Append one ring-buffer record to a bounded log (max entries); a record past it is counted in *truncated. */
static void log_append(void **e, size_t *n, size_t *cap, uint64_t *truncated, const void *data, size_t esize,
		       size_t max)
{
	if (grow_array(e, cap, *n, esize, 256, max)) {
		(*truncated)++;
		return;
	}
	memcpy((char *)*e + (*n)++ * esize, data, esize);
}

static int on_episode(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;

	if (size < sizeof(struct cgs_episode))
		return 0;
	log_append((void **)&t->log.e, &t->log.n, &t->log.cap, &t->log.truncated, data, sizeof(*t->log.e),
		   CGS_EPISODES_MAX);
	if (t->tap.episode)
		t->tap.episode(t->tap.ctx, data);
	return 0;
}

static int on_wait(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;

	if (size >= sizeof(struct cgs_wait) && t->tap.wait)
		t->tap.wait(t->tap.ctx, data);
	return 0;
}

void tracer_recheck_limits(struct tracer *t)
{
	if (t->skel)
		__atomic_add_fetch(&t->skel->bss->lim_gen, 1, __ATOMIC_RELAXED);
}

void tracer_poll(struct tracer *t, int timeout_ms)
{
	if (t->rb)
		ring_buffer__poll(t->rb, timeout_ms);
	else
		usleep(timeout_ms * 1000);
}

void tracer_poll_fd(struct tracer *t, int fd, int timeout_ms)
{
	if (fd < 0) {
		tracer_poll(t, timeout_ms);
		return;
	}
	/* The ring buffers' epoll fd is readable while one of them has data: both waited on, then read. */
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = t->rb ? ring_buffer__epoll_fd(t->rb) : -1, .events = POLLIN } };

	poll(p, 2, timeout_ms);
	if (t->rb)
		ring_buffer__consume(t->rb);
}

void tracer_tasks_follow(struct tracer *t, uint64_t id)
{
	struct cgs_task_key k;

	if (!t->skel || t->fd_tasks < 0 || !t->skel->rodata->targ_tasks_one)
		return;
	/* None recorded while the old ones go; a task caught in between is another cgroup's, left out when shown. */
	__atomic_store_n(&t->skel->bss->task_cg, 0, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i <= t->max_task_rows && !bpf_map_get_next_key(t->fd_tasks, NULL, &k); i++)
		bpf_map_delete_elem(t->fd_tasks, &k);
	__atomic_store_n(&t->skel->bss->task_cg, id, __ATOMIC_RELAXED);
}

void tracer_discard_episodes(struct tracer *t)
{
	struct episode_log el;

	tracer_take_episodes(t, &el);
	free(el.e);
}

void tracer_set_tap(struct tracer *t, const struct tracer_tap *tap)
{
	t->tap = *tap;
}

void tracer_take_episodes(struct tracer *t, struct episode_log *out)
{
	if (t->rb)
		ring_buffer__consume(t->rb);
	*out = t->log;
	memset(&t->log, 0, sizeof(t->log));
}

void tracer_detach(struct tracer *t)
{
	for (int i = 0; i < t->nlinks; i++)
		bpf_link__destroy(t->links[i]);
	t->nlinks = 0;
	if (t->skel)
		sched_bpf__detach(t->skel);
}

/*
 * Call cb(ctx, cgid, start) for each throttle whose episode is not in the
 * log yet. With fentry and kprobe, these are in thr_start, open until the
 * unthrottle's probe fires. With any_backend, thr_opened is walked too:
 * the tracepoint backend sees an episode end only at a later switch. An
 * error from cb stops the walk and is returned.
 */
static int each_unended(struct tracer *t, bool any_backend, int (*cb)(void *ctx, uint64_t cgid, uint64_t start),
			void *ctx)
{
	bool tp = t->skel && t->skel->rodata->targ_thr == CGS_THR_TRACEPOINT;
	union {
		struct cgs_thr_start st;
		struct cgs_opened op;
	} v;
	__u64 key, next;
	int fd, err;

	if (!t->skel || t->skel->rodata->targ_thr == CGS_THR_NONE || (tp && !any_backend))
		return 0;
	fd = bpf_map__fd(tp ? t->skel->maps.thr_opened : t->skel->maps.thr_start);
	for (__u64 *prev = NULL; !bpf_map_get_next_key(fd, prev, &next); prev = &key) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue; /* ended since: in the log */
		if ((err = tp ? cb(ctx, v.op.cgid, v.op.start) : cb(ctx, v.st.cgid, v.st.at)))
			return err;
	}
	return 0;
}

struct open_ctx {
	uint64_t cgid, now;
	struct cgs_episode *e;
	size_t n, cap;
};

static int open_one(void *vctx, uint64_t cgid, uint64_t start)
{
	struct open_ctx *o = vctx;

	if (cgid != o->cgid || start >= o->now)
		return 0;
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 4;
		struct cgs_episode *m = realloc(o->e, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		o->e = m;
		o->cap = cap;
	}
	/* Its CPU is the cfs_rq's, which the loader cannot read, so none is given. */
	o->e[o->n++] = (struct cgs_episode){ .cgid = cgid, .start_ns = start, .end_ns = o->now, .cpu = UINT32_MAX };
	return 0;
}

int tracer_open_episodes(struct tracer *t, uint64_t cgid, uint64_t now, struct cgs_episode **out, size_t *n)
{
	struct open_ctx o = { .cgid = cgid, .now = now };
	/* Skip the tracepoint backend's entries: it sees an end only at a later switch, so they may be over. */
	int err = each_unended(t, false, open_one, &o);

	if (err) {
		free(o.e);
		o.e = NULL;
		o.n = 0;
	}
	*out = o.e;
	*n = o.n;
	return err;
}

static int pending_one(void *ctx, uint64_t cgid, uint64_t start)
{
	struct cg_pending *p = ctx;

	(void)start;
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		uint64_t *m = realloc(p->id, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		p->id = m;
		p->cap = cap;
	}
	p->id[p->n++] = cgid;
	return 0;
}

int tracer_pending(struct tracer *t, struct cg_pending *p)
{
	p->n = 0;
	int err = each_unended(t, true, pending_one, p);
	if (err)
		p->n = 0;
	else if (p->n)
		qsort(p->id, p->n, sizeof(*p->id), u64_cmp);
	/* Episodes that ended before the walk are delivered now, to the log and the tap. */
	if (t->rb)
		ring_buffer__consume(t->rb);
	return err;
}

bool cg_pending_has(const struct cg_pending *p, uint64_t id)
{
	return p->n && bsearch(&id, p->id, p->n, sizeof(*p->id), u64_cmp);
}

void cg_pending_free(struct cg_pending *p)
{
	free(p->id);
	*p = (struct cg_pending){ 0 };
}

void tracer_libbpf_quiet(void)
{
	libbpf_set_print(libbpf_log);
}

int tracer_check_names(const char *sched, const char *thr)
{
	if (sched && !find_backend(sched)) {
		cgs_err("--sched-backend %s: expected tp_btf, tp_btf-pidhash or raw_tp", sched);
		return -EINVAL;
	}
	if (thr && !find_thr(thr)) {
		cgs_err("--throttle-backend %s: expected fentry, kprobe or tracepoint", thr);
		return -EINVAL;
	}
	return 0;
}

int tracer_precheck(void)
{
	if (require_root("tracing the scheduler needs CAP_BPF and CAP_PERFMON"))
		return -EPERM;
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		cgs_err("the kernel has no BTF (/sys/kernel/btf/vmlinux missing): cgsched needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
	return 0;
}

int tracer_start(struct tracer *t, const struct tracer_opts *o)
{
	int err;

	memset(t, 0, sizeof(*t));
	libbpf_set_print(libbpf_log);
	if ((err = tracer_precheck()))
		return err;
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		cgs_err("cannot count CPUs: %s", strerror(-t->ncpus));
		return t->ncpus;
	}
	if ((t->nshards = shards_for(t->ncpus, o)) < 0)
		return t->nshards;
	if ((t->why_parts = why_parts_for(o)) < 0)
		return t->why_parts;
	uint64_t big = cg_hot_bytes(t->ncpus, o->cfg->max_cgroups), sb = cg_shard_bytes(t->nshards, o->cfg->max_cgroups);
	if (sb > big)
		big = sb;
	if (big > CG_STATS_MAX_BYTES) {
		cgs_err("--max-cgroups %u on %d CPUs would need %llu MiB for per-cgroup figures, over the %llu MiB "
			"one map can have: give a smaller --max-cgroups", o->cfg->max_cgroups, t->ncpus,
			(unsigned long long)(big >> 20), (unsigned long long)(CG_STATS_MAX_BYTES >> 20));
		return -E2BIG;
	}
	const struct backend *b = NULL;
	const struct thr_backend *tb = NULL;
	struct ksyms k = {};
	int thr_err = 0;

	if ((err = tracer_check_names(o->cfg->sched_backend, o->cfg->thr_backend)))
		return err;
	b = o->cfg->sched_backend ? find_backend(o->cfg->sched_backend) : NULL;
	tb = o->cfg->thr_backend ? find_thr(o->cfg->thr_backend) : NULL;
	err = -ENOTSUP;
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++) {
		if (b && b != &backends[i])
			continue;
		for (size_t j = 0; j < ARRAY_SIZE(thr_backends); j++) {
			if (tb && tb != &thr_backends[j])
				continue;
			err = try_backend(t, o, &backends[i], &thr_backends[j], &k);
			if (!err)
				goto attached;
			if (err == -EINTR)
				return err; /* stopped: not a refusal, try nothing else */
			if (tb)
				thr_err = err;
		}
	}
	if (tb && b) {
		cgs_err("--throttle-backend %s with --sched-backend %s: the kernel refused it: %s; run with -v for libbpf's reasons",
			tb->name, b->name, tracer_thr_hint(tb->name, thr_err));
		return err;
	}
	if (tb) {
		cgs_err("--throttle-backend %s: the kernel refused it: %s; run 'cgsched probe' to see what it allows, or leave the choice to cgsched",
			tb->name, tracer_thr_hint(tb->name, thr_err));
		return err;
	}
	if (b) {
		cgs_err("--sched-backend %s: the kernel refused it (%s); run with -v for libbpf's reasons, or leave the choice to cgsched",
			b->name, tracer_sched_hint(b->name, err));
		return err;
	}
	if (err) {
		cgs_err("the kernel refused every scheduler tracing backend (last: %s); run with -v for libbpf's reasons",
			strerror(-err));
		return err;
	}
attached:
	t->fd_hot = bpf_map__fd(t->skel->maps.cg_hot);
	t->fd_shard = bpf_map__fd(t->skel->maps.cg_shard);
	/*
	 * Map writable, because the loader zeroes a slot's figures before the
	 * slot is reused (slots.c). The mapping covers only the slots in use,
	 * and slots_refresh extends it. Map the first slots here, so a kernel
	 * that refuses is found out now, not at the first read.
	 */
	if ((err = mapwin_open(&t->hotw, t->fd_hot, sizeof(struct cgs_cg_hot), t->ncpus, o->cfg->max_cgroups)) ||
	    (err = mapwin_open(&t->shardw, t->fd_shard, sizeof(struct cgs_cg_shard), t->nshards, o->cfg->max_cgroups)) ||
	    (err = mapwin_cover(&t->hotw, 1)) || (err = mapwin_cover(&t->shardw, 1))) {
		cgs_err("cannot map the per-cgroup figures (%s)", strerror(-err));
		return err;
	}
	t->hot = t->hotw.base;
	t->shard = t->shardw.base;
	cgs_debug("per-cgroup figures: each CPU's own (%zu KiB) and %d shard%s (%zu KiB, %s adds)",
		  cg_hot_bytes(t->ncpus, o->cfg->max_cgroups) >> 10, t->nshards, t->nshards == 1 ? "" : "s",
		  cg_shard_bytes(t->nshards, o->cfg->max_cgroups) >> 10, t->nshards < t->ncpus ? "atomic" : "plain");
	t->fd_thr = bpf_map__fd(t->skel->maps.thr_stats);
	t->fd_preempt = bpf_map__fd(t->skel->maps.preempt);
	t->fd_cur = bpf_map__fd(t->skel->maps.cpu_cur);
	t->fd_drops = bpf_map__fd(t->skel->maps.drops);
	t->fd_tasks = o->cfg->tasks ? bpf_map__fd(t->skel->maps.task_stats) : -1;
	t->max_task_rows = o->cfg->tasks ? o->cfg->max_task_rows : 0;
	t->why = o->cfg->why;
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.episodes), on_episode, t, NULL);
	if (!t->rb)
		cgs_warn("no throttle episode list (ring buffer: %s); counts and histograms are complete",
			 strerror(errno));
	else if (o->cfg->long_wait_ns && (err = ring_buffer__add(t->rb, bpf_map__fd(t->skel->maps.waits), on_wait, t)))
		cgs_warn("no long waits in the timeline (ring buffer: %s)", strerror(-err));
	t->max_cgroups = o->cfg->max_cgroups;
	t->max_preempt = o->cfg->max_cgroups * 4;
	t->sl = (struct slot_table){
		.max = o->cfg->max_cgroups, .ncpus = t->ncpus, .hot = t->hot, .shard = t->shard, .nshards = t->nshards,
		.hotw = &t->hotw, .shardw = &t->shardw,
		.per_cpu = o->cfg->per_cpu, .gen = &t->skel->bss->slot_gen,
		.fd_free = bpf_map__fd(t->skel->maps.free_slots), .fd_gone = bpf_map__fd(t->skel->maps.gone),
		.fd_slot = bpf_map__fd(t->skel->maps.cg_slot), .fd_owner = bpf_map__fd(t->skel->maps.slot_owner),
		.fd_thr = t->fd_thr, .fd_preempt = t->fd_preempt, .fd_cur = t->fd_cur,
		.fd_thr_last = bpf_map__fd(t->skel->maps.thr_last),
		.fd_thr_opened = bpf_map__fd(t->skel->maps.thr_opened),
		.fd_rcu_outer = bpf_map__fd(t->skel->maps.rcu_sync), .fd_rcu_inner = bpf_map__fd(t->skel->maps.rcu_inner),
		.on_learn = o->on_learn, .on_removed = o->on_removed,
		.on_forget = o->on_forget,
		.names_ctx = o->names_ctx,
	};
	t->on_removals_told = o->on_removals_told;
	t->names_ctx = o->names_ctx;
	if ((err = slots_init(&t->sl)))
		return err;
	if (o->cfg->keep_removed_ns > t->sl.keep_ns)
		t->sl.keep_ns = o->cfg->keep_removed_ns;
	pthread_mutex_init(&t->read_lock, NULL);
	t->refreshed_ns = now_ns();
	t->seed = seed_cpus(t);
	t->attached_ns = now_ns();
	if (o->stop && *o->stop) {
		tracer_stop(t);
		return -EINTR;
	}
	cgs_debug("attached: backend %s, throttle backend %s, task state in %s; %.1f ms after start",
		  t->backend, t->thr_backend, t->task_storage ? "task storage" : "LRU hash",
		  (now_ns() - cgs_t0_ns) / 1e6);
	return 0;
}

int tracer_probe(void (*cb)(void *ctx, const char *kind, const char *name, int err), void *ctx)
{
	const struct trace_cfg cfg = { .max_cgroups = 16 };
	struct tracer_opts o = { .cfg = &cfg, .max_tasks = 1024 };
	struct ksyms k = {};
	/* The maps as a start would size them (shards_for), that is, as a start would load. */
	int ncpus = libbpf_num_possible_cpus(), nshards = ncpus > 0 ? shards_for(ncpus, &o) : -EINVAL;

	if (nshards < 0)
		return nshards;
	libbpf_set_print(libbpf_log);
	/*
	 * Try each scheduler backend with the throttle backend that always
	 * loads. With the first that loads, find how each CPU learns that the
	 * window started: seed_cpu by IPI, or else the nudge threads.
	 */
	int seed_err = -ENOTSUP;
	bool seeded = false;
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++) {
		struct tracer t = { .ncpus = ncpus, .nshards = nshards };
		int err = try_backend(&t, &o, &backends[i], &thr_backends[ARRAY_SIZE(thr_backends) - 1], &k);
		cb(ctx, "sched", backends[i].name, err);
		if (!err && !seeded) {
			seed_err = seed_one(bpf_program__fd(t.skel->progs.seed_cpu), 0);
			seeded = true;
		}
		tracer_stop(&t);
	}
	cb(ctx, "window", "seed_cpu", seed_err);
	/* ...and each throttle backend with the first scheduler backend that works. */
	for (size_t j = 0; j < ARRAY_SIZE(thr_backends); j++) {
		int err = -ENOTSUP;
		for (size_t i = 0; i < ARRAY_SIZE(backends) && err; i++) {
			struct tracer t = { .ncpus = ncpus, .nshards = nshards };
			err = try_backend(&t, &o, &backends[i], &thr_backends[j], &k);
			tracer_stop(&t);
		}
		cb(ctx, "throttle", thr_backends[j].name, err);
	}
	return 0;
}

void tracer_stop(struct tracer *t)
{
	ring_buffer__free(t->rb);
	t->rb = NULL;
	free(t->log.e);
	memset(&t->log, 0, sizeof(t->log));
	memset(&t->tap, 0, sizeof(t->tap));
	memset(&t->log, 0, sizeof(t->log));
	if (t->skel && t->skel->bss->thr_moved_waits)
		cgs_debug("%llu waits found throttled on a CPU the task was moved away from",
			  (unsigned long long)t->skel->bss->thr_moved_waits);
	if (t->skel && t->skel->bss->unseen_switches)
		cgs_debug("%llu switches the kernel did not trace, each repaired from the task's last arrival",
			  (unsigned long long)t->skel->bss->unseen_switches);
	if (t->skel && t->skel->bss->held_wakeups)
		cgs_debug("%llu wake-ups of tasks preempted before they blocked: no wait begun, as the kernel begins none",
			  (unsigned long long)t->skel->bss->held_wakeups);
	if (t->skel && t->skel->bss->moves_elsewhere)
		cgs_debug("%llu moves of tasks maybe running on another CPU, each CPU told what it runs after them",
			  (unsigned long long)t->skel->bss->moves_elsewhere);
	if (t->skel && t->skel->bss->moves_unmarked)
		cgs_debug("%llu moves of running tasks split at the task's own record, the mover's mark missing",
			  (unsigned long long)t->skel->bss->moves_unmarked);
	if (t->skel) {
		struct bpf_program *p;
		struct bpf_prog_info info;
		bpf_object__for_each_program(p, t->skel->obj)
			if (prog_info(p, &info) && info.recursion_misses)
				cgs_debug("program %s: %llu runs skipped by the kernel", bpf_program__name(p),
					  (unsigned long long)info.recursion_misses);
	}
	tracer_detach(t);
	/* ...and destroying the skeleton frees every map. */
	sched_bpf__destroy(t->skel);
	t->skel = NULL;
	mapwin_close(&t->hotw);
	mapwin_close(&t->shardw);
	t->hot = NULL;
	t->shard = NULL;
	slots_free(&t->sl);
}

/*
 * Tell each CPU again what it runs (seed_cpu). If the kernel did not trace
 * a CPU's last switch, its running slice would be credited to the task
 * before (sched.bpf.c unseen_switch). Each CPU costs an IPI. record calls
 * this at its last read. Other reads call it only after the kernel was
 * seen to skip the tracepoint, so isolated CPUs are otherwise left alone.
 */
void tracer_sync_cpus(struct tracer *t)
{
	if (strcmp(t->seed, "ipi"))
		return;
	/* The round the CPUs' answers belong to (cpu_cur.ran_round; snapshot.c take_running). */
	__atomic_add_fetch(&t->skel->bss->sync_round, 1, __ATOMIC_SEQ_CST);
	for (int cpu = 0, fd = bpf_program__fd(t->skel->progs.seed_cpu); cpu < t->ncpus; cpu++)
		seed_one(fd, cpu);
}

int tracer_begin_read(struct tracer *t, struct tracer_view *v, bool close_epoch)
{
	uint64_t old = t->skel->bss->epoch;
	int err;

	pthread_mutex_lock(&t->read_lock);
	/*
	 * Resync the CPUs at every read once the kernel was seen to skip the
	 * tracepoint. Also resync at the read after a move of a task that may
	 * be running on another CPU (sched.bpf.c on_attach).
	 */
	uint64_t moves = __atomic_load_n(&t->skel->bss->moves_elsewhere, __ATOMIC_RELAXED);
	if (t->skel->bss->unseen_switches || moves != t->moves_synced) {
		t->moves_synced = moves;
		tracer_sync_cpus(t);
	}
	/* The programs write the new epoch's max slot from now; the old one is ours. */
	if (close_epoch)
		__atomic_store_n(&t->skel->bss->epoch, old + 1, __ATOMIC_SEQ_CST);
	t->refreshed_ns = now_ns();
	if ((err = slots_refresh(&t->sl, t->refreshed_ns, true)))
		return err;
	if (t->on_removals_told)
		t->on_removals_told(t->names_ctx, t->rmdir_hooked && !t->skel->bss->gone_lost_total);
	*v = (struct tracer_view){
		.epoch = old, .ncpus = t->ncpus, .max_cgroups = t->max_cgroups, .hot = t->hot, .shard = t->shard,
		.nshards = t->nshards,
		.nslots = t->sl.nslots, .owner = t->sl.owner, .rank = t->sl.rank, .nowned = t->sl.nowned,
		.parked = t->sl.parked, .nparked = t->sl.nparked, .parked_lost = t->sl.parked_lost,
		.prog_missed = prog_misses(t), .recycled = t->sl.recycled,
		.fd_thr = t->fd_thr, .fd_preempt = t->fd_preempt, .fd_cur = t->fd_cur,
		.fd_drops = t->fd_drops, .fd_tasks = t->fd_tasks, .why = t->why,
		.task_threads = t->skel->rodata->targ_tasks == CGS_TASKS_THREAD,
		.task_cg = t->skel->rodata->targ_tasks_one ? __atomic_load_n(&t->skel->bss->task_cg, __ATOMIC_RELAXED)
							   : CGS_TASK_CG_ALL,
		.sync_round = t->skel->bss->sync_round,
	};
	return 0;
}

void tracer_begin_drops(struct tracer *t, struct tracer_view *v)
{
	pthread_mutex_lock(&t->read_lock);
	*v = (struct tracer_view){ .ncpus = t->ncpus, .fd_drops = t->fd_drops, .parked_lost = t->sl.parked_lost,
				   .prog_missed = prog_misses(t) };
}

void tracer_end_read(struct tracer *t)
{
	pthread_mutex_unlock(&t->read_lock);
}

void tracer_maintain(struct tracer *t)
{
	if (!t->skel)
		return;
	pthread_mutex_lock(&t->read_lock);
	uint64_t now = now_ns();
	if (now - t->refreshed_ns >= 1000000000ULL) {
		t->refreshed_ns = now;
		int err = slots_refresh(&t->sl, now, false);
		if (err)
			cgs_warn("recycling cgroup slots: %s", strerror(-err));
	}
	pthread_mutex_unlock(&t->read_lock);
}

uint64_t tracer_map_bytes(const struct tracer *t)
{
	uint64_t per_cpu = (uint64_t)t->ncpus;

	/*
	 * The sum covers cg_hot and cg_shard (arrays), and the parked figures
	 * (slots.h SLOTS_PARKED_MIN). It adds cg_slot (a hash, about 64 bytes
	 * of overhead an entry), slot_owner, free_slots and gone.
	 */
	uint64_t parked = t->max_cgroups > SLOTS_PARKED_MIN ? t->max_cgroups : SLOTS_PARKED_MIN;

	return cg_hot_bytes(t->ncpus, t->max_cgroups) + cg_shard_bytes(t->nshards, t->max_cgroups) +
	       parked * slots_park_units(&t->sl) * sizeof(struct cgs_cg_stats) +
	       t->max_cgroups * (12 + 64 + 8 + 4) +
	       (2ULL * t->max_cgroups + 1024) * sizeof(struct cgs_gone) +
	       t->max_preempt * (sizeof(struct cgs_preempt_key) + sizeof(struct cgs_preempt_val) + 64) +
	       (uint64_t)t->max_cgroups * 8 * (sizeof(struct cgs_thr_key) + sizeof(struct cgs_thr_stats) + 16) +
	       (uint64_t)t->max_task_rows * (sizeof(struct cgs_task_key) + 64 + per_cpu * sizeof(struct cgs_task_stats));
}

int tracer_prog_stats(struct tracer *t, void (*cb)(void *ctx, const char *name, uint64_t run_ns, uint64_t runs),
		      void *ctx)
{
	struct bpf_program *p;

	if (!t->skel)
		return -ENOENT;
	struct bpf_prog_info info;

	bpf_object__for_each_program(p, t->skel->obj)
		if (prog_info(p, &info))
			cb(ctx, bpf_program__name(p), info.run_time_ns, info.run_cnt);
	return 0;
}
