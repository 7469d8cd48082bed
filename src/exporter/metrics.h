/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * cgsched's metrics for Prometheus (cgsched export, docs/metrics.md):
 * every family, from one scrape's inputs. Pure: it reads nothing, so the
 * families and their names can be tested without a kernel. The exporter
 * gathers the inputs.
 */
#ifndef CGS_METRICS_H
#define CGS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "figures/kstat.h"
#include "report/periods.h"
#include "figures/snapshot.h"
#include "exporter/expo.h"

struct cgname;
struct dem_cg;
struct demand_all;

/* One cgroup's series. */
struct mx_cg {
	uint64_t id;
	const char *labels;        /* its label block, escaped: cgroup="/a",cgroup_id="7" */
	size_t labels_len;         /* strlen(labels), kept (~200,000 samples a scrape name it); 0: counted */
	const struct cg_sample *s; /* cumulative since tracing began */
	const struct kstat *k;     /* the kernel's figures now; NULL: none read */
	const struct cgname *who;  /* unit, container, pod; NULL: nothing known */
	bool named;                /* labels has who's names (metrics_cg_labels): cgroup_info leaves them out */
	const struct period_track *per; /* its throttling period by period; NULL: no quota or grid known */
	const struct dem_cg *dem;  /* its demand per period and the advice; NULL: none kept */
	bool psi_ok;               /* psi_us read: its cpu.pressure (v2, --why) */
	uint64_t psi_us;           /* the "some" total, us */
};

/* A BPF program's figures from the kernel's bpf stats (kernel.bpf_stats_enabled). */
struct mx_prog {
	const char *name;
	uint64_t run_ns, runs;
};

struct mx_self {
	const char *version, *backend, *thr_backend, *kstat_method;
	int cgroup_version;
	uint32_t cg_used, cg_max;       /* cgroup slots taken / the map's bound */
	uint64_t recycled;              /* cgroup slots taken back so far */
	uint64_t pre_used, pre_max;     /* preemption pairs / bound */
	uint32_t shown, grace;          /* cgroups exported; of them, removed and in their grace period */
	bool bpf_stats;                 /* kernel.bpf_stats_enabled is on */
	uint64_t episodes_lost;         /* throttle episodes the loader's list had no room for */
	size_t nprogs;
	const struct mx_prog *progs;
	uint64_t scrapes, scrape_errors;
	/* The process's own, as the Prometheus client libraries name them. */
	uint64_t cpu_ns, rss_bytes, vsize_bytes, open_fds, max_fds;
	double start_time;              /* Unix seconds */
};

struct metrics_input {
	bool why;                        /* the wait causes were traced (--why) */
	bool split;                      /* the split of waits by what ran was (export's default; --why implies it) */
	bool host_psi_ok;
	uint64_t host_psi_us;            /* /proc/pressure/cpu "some" total */
	size_t n;
	const struct mx_cg *cg;          /* sorted by id */
	const struct snapshot *snap;     /* the preemption pairs and the drops */
	unsigned top_preemptors;         /* per cgroup, the most frequent; 0: none */
	/* The label block of a preempting cgroup: by_cgroup="...",by_cgroup_id="..." */
	const char *(*by_labels)(void *ctx, uint64_t id);
	void *ctx;
	struct mx_self self;
	/*
	 * NULL, or the counters of the list that the families show: counter k
	 * of cgroup i is at [k * stride + i] (metrics_take_figures). A
	 * family's pass then reads them in order, instead of one cache line
	 * of each cgroup's 1 KB sample, a cache miss per cgroup and family.
	 */
	const uint64_t *values;
	size_t stride;
	/* With values: cgroup i's run-queue histogram at runq[i], for the same reason. */
	const struct mx_hist *runq;
	/* Demand per period (bucket bounds, the target and window); NULL: not kept. */
	const struct demand_all *dem;
};

/* A histogram as its family shows it. */
struct mx_hist {
	uint64_t count, sum_ns;
	uint64_t slots[CGS_HIST_SLOTS];
};

/* Cgroup i's counters and histogram into values and runq (as metrics_input's), from c as it is to be shown. */
void metrics_take_figures(const struct cg_counters *c, uint64_t *values, struct mx_hist *runq, size_t stride,
			   size_t i);

/* Every family into x (then expo_finish). Scrape timing is the caller's: it comes last. */
void metrics_render(struct expo *x, const struct metrics_input *in);

/* Where a rendering stopped: the family step at hand and its next cgroup. */
struct mx_cursor {
	size_t step, i;
	bool begun;                /* the step's header is written */
	size_t pi;                 /* preemptor families: the next pair */
	size_t mem[CG_NCOUNTERS], nmem; /* a counter family: its counters */
	char name[128];            /* a counter family's name (the writer names samples from it) */
	struct expo scratch;       /* the info family's extra labels */
};

void metrics_cursor_init(struct mx_cursor *c);
void metrics_cursor_free(struct mx_cursor *c);
/*
 * Render from c on, cgroup by cgroup, until x holds at least until bytes.
 * The check comes before each cgroup's samples, so one cgroup's lines may
 * go past it. Returns true when every family is written. in must not
 * change meanwhile. The pieces rendered this way, concatenated, are
 * metrics_render's text.
 */
bool metrics_render_some(struct expo *x, const struct metrics_input *in, struct mx_cursor *c, size_t until);
/*
 * The label block of a cgroup: cgroup="<path>",cgroup_id="<id>", with the
 * prefix "by_" for preemptors. With who, it adds the names that kubelet's
 * and kube-state-metrics' series carry, where known (metrics_name_label).
 */
void metrics_cg_labels(struct expo *x, const char *prefix, const char *path, uint64_t id, const struct cgname *who);
/*
 * The value of key ("namespace", "pod", "container", "unit") among the
 * names a label block carries, or "" if the block has none. The names are
 * a pod's namespace and name, a container's name as its runtime calls it,
 * and the unit of a cgroup that is neither. A container's scope is its
 * runtime's unit.
 */
const char *metrics_name_label(const struct cgname *who, const char *key);

#endif
