// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Choose the backends by trying them, and attach (attach.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "trace/attach.h"
#include "trace/fentry_probe.h"
#include "trace/seed.h"
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
uint64_t cg_hot_bytes(int ncpus, uint32_t max_cgroups)
{
	return (uint64_t)ncpus * max_cgroups * sizeof(struct cgs_cg_hot);
}

/* cg_shard holds each shard's figures of every slot. */
uint64_t cg_shard_bytes(int nshards, uint32_t max_cgroups)
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
	if (t->nlinks >= (int)ARRAY_SIZE(t->links))
		goto fail;
	t->links[t->nlinks++] = l;
	return true;
fail:
	bpf_link__destroy(l);
	return false;
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

	if (have < 0 && (have = vmlinux_has_struct("bpf_mem_alloc")) < 0) {
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
	/* Attached by hand, best effort (attach_cgroup_hooks). */
	bpf_program__set_autoattach(s->progs.cg_rmdir, false);
	bpf_program__set_autoattach(s->progs.cg_attach, false);
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
	s->rodata->targ_per = o->cfg->per;
	bpf_map__set_max_entries(s->maps.cg_per, o->cfg->per ? o->cfg->max_cgroups : 1);
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
 * its next switch, not at the move (sched.bpf.c cg_attach).
 */
static void attach_cgroup_hooks(struct tracer *t, struct sched_bpf *s, int hier)
{
	static const char *const without[] = {
		"removed cgroups' slots come back only once idle",
		"a task moved while it runs is split at its next switch",
	};
	struct bpf_program *p[] = {
		s->progs.cg_rmdir,
		s->progs.cg_attach,
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

/*
 * CGS_VERIFIER_STATS=1: each program's verifier statistics, on stderr after
 * the load. The kernel writes them when the log level asks for them (4).
 * Without the variable it costs nothing. docs/performance.md ("Start-up")
 * shows its figures.
 */
#define VSTATS_LOG 1024

static char (*vstats_begin(struct sched_bpf *s))[VSTATS_LOG]
{
	struct bpf_program *p;
	char(*logs)[VSTATS_LOG];
	size_t n = 0, i = 0;

	if (!getenv("CGS_VERIFIER_STATS"))
		return NULL;
	bpf_object__for_each_program(p, s->obj) n++;
	if (!(logs = calloc(n, VSTATS_LOG)))
		return NULL;
	bpf_object__for_each_program(p, s->obj) {
		bpf_program__set_log_level(p, 4);
		bpf_program__set_log_buf(p, logs[i++], VSTATS_LOG);
	}
	return logs;
}

static void vstats_end(struct sched_bpf *s, char (*logs)[VSTATS_LOG])
{
	struct bpf_program *p;
	size_t i = 0;

	if (!logs)
		return;
	bpf_object__for_each_program(p, s->obj) {
		char *l = logs[i++];
		if (!bpf_program__autoload(p))
			continue;
		for (char *c = l; (c = strchr(c, '\n'));)
			*c = ' ';
		fprintf(stderr, "verifier: %s: %s\n", bpf_program__name(p), l);
	}
	free(logs);
}

static int try_backend(struct tracer *t, const struct tracer_opts *o, const struct backend *b,
		       const struct thr_backend *tb, struct ksyms *k)
{
	struct sched_bpf *s = NULL;
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
	char(*vlogs)[VSTATS_LOG] = vstats_begin(s);
	err = sched_bpf__load(s);
	vstats_end(s, vlogs);
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
		attach_cgroup_hooks(t, s, hier);
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
	attach_links_destroy(t);
	t->rmdir_hooked = false;
	sched_bpf__destroy(s);
	return err;
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
		attach_release(&t);
	}
	cb(ctx, "window", "seed_cpu", seed_err);
	/* ...and each throttle backend with the first scheduler backend that works. */
	for (size_t j = 0; j < ARRAY_SIZE(thr_backends); j++) {
		int err = -ENOTSUP;
		for (size_t i = 0; i < ARRAY_SIZE(backends) && err; i++) {
			struct tracer t = { .ncpus = ncpus, .nshards = nshards };
			err = try_backend(&t, &o, &backends[i], &thr_backends[j], &k);
			attach_release(&t);
		}
		cb(ctx, "throttle", thr_backends[j].name, err);
	}
	return 0;
}

int attach_start(struct tracer *t, const struct tracer_opts *o)
{
	int err;

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
				return 0;
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
	return err;
}

void attach_links_destroy(struct tracer *t)
{
	for (int i = 0; i < t->nlinks; i++)
		bpf_link__destroy(t->links[i]);
	t->nlinks = 0;
}

void attach_release(struct tracer *t)
{
	attach_links_destroy(t);
	/* Destroying the skeleton detaches its programs and frees every map. */
	sched_bpf__destroy(t->skel);
	t->skel = NULL;
}
