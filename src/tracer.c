// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sched.skel.h"
#include "tracer.h"
#include "util.h"

/*
 * Attach fallbacks, tried in order by loading and attaching (never by
 * kernel version: distributions backport). tp_btf gives typed pointers and
 * task storage (v5.11+); raw_tp works where tp_btf does not, with probe
 * reads and a pid-keyed LRU hash.
 */
static const struct backend {
	const char *name;    /* as --sched-backend takes it */
	const char *attach;  /* program type, as reported */
	bool btf;            /* tp_btf programs, else raw_tp */
	bool task_storage;
} backends[] = {
	{ "tp_btf", "tp_btf", true, true },
	{ "tp_btf-pidhash", "tp_btf", true, false },
	{ "raw_tp", "raw_tp", false, false },
};

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!cgs_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void select_progs(struct sched_bpf *s, bool btf)
{
	bpf_program__set_autoload(s->progs.btf_switch, btf);
	bpf_program__set_autoload(s->progs.btf_wakeup, btf);
	bpf_program__set_autoload(s->progs.btf_wakeup_new, btf);
	bpf_program__set_autoload(s->progs.raw_switch, !btf);
	bpf_program__set_autoload(s->progs.raw_wakeup, !btf);
	bpf_program__set_autoload(s->progs.raw_wakeup_new, !btf);
}

static int try_backend(struct tracer *t, const struct tracer_opts *o, const struct backend *b)
{
	struct sched_bpf *s = sched_bpf__open();
	int err;

	if (!s)
		return -errno;
	select_progs(s, b->btf);
	s->rodata->targ_filter = o->nfilter > 0;
	s->rodata->targ_task_storage = b->task_storage;
	s->rodata->targ_hist_div = o->hist_ms ? 1000000 : 1000;
	bpf_map__set_max_entries(s->maps.cg_stats, o->max_cgroups);
	bpf_map__set_max_entries(s->maps.preempt, o->max_cgroups * 4);
	if (!b->task_storage) {
		bpf_map__set_type(s->maps.tasks, BPF_MAP_TYPE_LRU_HASH);
		bpf_map__set_map_flags(s->maps.tasks, 0);
		bpf_map__set_max_entries(s->maps.tasks, o->max_tasks);
	}
	err = sched_bpf__load(s);
	if (err) {
		cgs_debug("backend %s: load failed: %s", b->name, strerror(-err));
		goto fail;
	}
	for (int i = 0; i < o->nfilter; i++) {
		__u8 one = 1;
		if (bpf_map_update_elem(bpf_map__fd(s->maps.filter), &o->filter_ids[i], &one, 0)) {
			err = -errno;
			goto fail;
		}
	}
	err = sched_bpf__attach(s);
	if (err) {
		cgs_debug("backend %s: attach failed: %s", b->name, strerror(-err));
		goto fail;
	}
	t->skel = s;
	t->backend = b->attach;
	t->task_storage = b->task_storage;
	return 0;
fail:
	sched_bpf__destroy(s);
	return err;
}

int tracer_start(struct tracer *t, const struct tracer_opts *o)
{
	int err = -ENOTSUP;

	memset(t, 0, sizeof(*t));
	libbpf_set_print(libbpf_log);
	if (geteuid() != 0) {
		cgs_err("must run as root (tracing the scheduler needs CAP_BPF and CAP_PERFMON)");
		return -EPERM;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		cgs_err("the kernel has no BTF (/sys/kernel/btf/vmlinux missing): cgsched needs a kernel built with CONFIG_DEBUG_INFO_BTF=y");
		return -ENOENT;
	}
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		cgs_err("cannot count CPUs: %s", strerror(-t->ncpus));
		return t->ncpus;
	}
	bool known = !o->force_backend;
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		if (o->force_backend && strcmp(o->force_backend, backends[i].name))
			continue;
		known = true;
		err = try_backend(t, o, &backends[i]);
		if (!err)
			break;
	}
	if (!known) {
		cgs_err("--sched-backend %s: expected tp_btf, tp_btf-pidhash or raw_tp", o->force_backend);
		return -EINVAL;
	}
	if (err && o->force_backend) {
		cgs_err("--sched-backend %s: the kernel refused it (%s); run with -v for libbpf's reasons, or leave the choice to cgsched",
			o->force_backend, strerror(-err));
		return err;
	}
	if (err) {
		cgs_err("the kernel refused every scheduler tracing backend (last: %s); run with -v for libbpf's reasons",
			strerror(-err));
		return err;
	}
	t->fd_cg = bpf_map__fd(t->skel->maps.cg_stats);
	t->fd_preempt = bpf_map__fd(t->skel->maps.preempt);
	t->fd_cur = bpf_map__fd(t->skel->maps.cpu_cur);
	t->fd_drops = bpf_map__fd(t->skel->maps.drops);
	t->max_cgroups = o->max_cgroups;
	t->max_preempt = o->max_cgroups * 4;
	t->attached_ns = now_ns();
	cgs_debug("attached: backend %s, task state in %s", t->backend,
		  t->task_storage ? "task storage" : "LRU hash");
	return 0;
}

int tracer_probe(void (*cb)(void *ctx, const char *name, int err), void *ctx)
{
	struct tracer_opts o = { .max_cgroups = 16, .max_tasks = 1024 };

	libbpf_set_print(libbpf_log);
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		struct tracer t = {};
		int err = try_backend(&t, &o, &backends[i]);
		cb(ctx, backends[i].name, err);
		tracer_stop(&t);
	}
	return 0;
}

void tracer_stop(struct tracer *t)
{
	/* Destroying the skeleton detaches every link and frees every map. */
	sched_bpf__destroy(t->skel);
	t->skel = NULL;
}

uint64_t tracer_next_epoch(struct tracer *t)
{
	uint64_t old = t->skel->bss->epoch;

	__atomic_store_n(&t->skel->bss->epoch, old + 1, __ATOMIC_SEQ_CST);
	return old;
}

uint64_t tracer_map_bytes(const struct tracer *t)
{
	uint64_t per_cpu = (uint64_t)t->ncpus;

	return per_cpu * t->max_cgroups * (sizeof(struct cgs_cg_stats) + 8) +
	       per_cpu * t->max_preempt * (sizeof(struct cgs_preempt_key) + 8);
}
