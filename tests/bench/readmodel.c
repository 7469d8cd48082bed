// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The map read of a refresh on a host bigger than this one, at this one's
 * speed: snapshot_take_view (the loader's own code) over a cg_hot and a
 * cg_shard laid out as on CPUS possible CPUs with SLOTS cgroups in them,
 * every figure nonzero. The maps it also walks (thr_stats, preempt, drops,
 * cpu_cur) are real but empty: they do not grow with the CPUs. Prints the
 * median, least and most CPU of ROUNDS reads, for make bench
 * (docs/performance.md, "Big hosts").
 *
 * Usage: bench-readmodel CPUS SLOTS [ROUNDS]   (root: it makes BPF maps)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "cgsched.h"
#include "figures/snapshot.h"
#include "trace/tracer.h"

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int map(enum bpf_map_type type, size_t key, size_t value, unsigned int n)
{
	int fd = bpf_map_create(type, NULL, key, value, n, NULL);

	if (fd < 0) {
		perror("bench-readmodel: bpf_map_create");
		exit(1);
	}
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench-readmodel CPUS SLOTS [ROUNDS]\n");
		return 2;
	}
	int ncpus = atoi(argv[1]), rounds = argc > 3 ? atoi(argv[3]) : 21;
	uint32_t slots = (uint32_t)atoi(argv[2]);
	int nshards = ncpus < CGS_SHARDS_DEFAULT ? ncpus : CGS_SHARDS_DEFAULT;

	if (ncpus < libbpf_num_possible_cpus() || slots < 1 || rounds < 1) {
		fprintf(stderr, "bench-readmodel: CPUS (at least this host's %d), SLOTS and ROUNDS must be positive\n",
			libbpf_num_possible_cpus());
		return 2;
	}
	struct cgs_cg_hot *hot = calloc((size_t)ncpus * slots, sizeof(*hot));
	struct cgs_cg_shard *shard = calloc((size_t)nshards * slots, sizeof(*shard));
	uint64_t *owner = calloc(slots, sizeof(*owner));
	uint32_t *rank = calloc(slots, sizeof(*rank));
	double *ms = calloc(rounds, sizeof(*ms));
	if (!hot || !shard || !owner || !rank || !ms) {
		fprintf(stderr, "bench-readmodel: out of memory\n");
		return 1;
	}
	/* Every figure nonzero, as on a busy host: no branch the real read takes is skipped. */
	for (size_t i = 0; i < (size_t)ncpus * slots; i++) {
#define FILL_HOT(field) hot[i].field = i + 1;
		CGS_CG_HOT_COUNTERS(FILL_HOT)
#undef FILL_HOT
		hot[i].runq_max[1] = CGS_PMAX_TAG(1) | i;
	}
	for (size_t i = 0; i < (size_t)nshards * slots; i++) {
		struct cgs_cg_shard *v = &shard[i];
#define FILL_SHARD(field) v->field = i + 1;
		CGS_CG_SHARD_COUNTERS(FILL_SHARD)
#undef FILL_SHARD
		for (int k = 0; k < CGS_HIST_SLOTS; k++)
			v->runq_slots[k] = v->oncpu_slots[k] = k + 1;
	}
	for (uint32_t s = 0; s < slots; s++) {
		owner[s] = 1000 + s;
		rank[s] = s;
	}
	struct tracer_view v = {
		.epoch = 1, .ncpus = ncpus, .max_cgroups = slots, .hot = hot, .shard = shard, .nshards = nshards,
		.nslots = slots, .owner = owner, .rank = rank, .nowned = slots,
		.fd_thr = map(BPF_MAP_TYPE_HASH, sizeof(struct cgs_thr_key), sizeof(struct cgs_thr_stats), 1),
		.fd_preempt = map(BPF_MAP_TYPE_HASH, sizeof(struct cgs_preempt_key),
				  sizeof(struct cgs_preempt_val), 1),
		.fd_cur = map(BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u32), sizeof(struct cgs_cpu_cur), 1),
		.fd_drops = map(BPF_MAP_TYPE_PERCPU_ARRAY, sizeof(__u32), sizeof(__u64), CGS_DROP__COUNT),
		.fd_tasks = -1,
	};
	/*
	 * The per-CPU maps copy out the real CPUs' values only, into buffers
	 * sized for ncpus: a model of more CPUs than this host has is safe.
	 */
	for (int r = 0; r < rounds; r++) {
		struct snapshot s;
		memset(&s, 0, sizeof(s));
		double t0 = cpu_ms();
		int err = snapshot_take_view(&v, &s, &(struct snapshot_how){ 0 });
		ms[r] = cpu_ms() - t0;
		if (err || s.n != slots) {
			fprintf(stderr, "bench-readmodel: read failed (%d, %zu samples)\n", err, s.n);
			return 1;
		}
		snapshot_free(&s);
	}
	qsort(ms, rounds, sizeof(*ms), cmp_double);
	printf("readmodel cpus=%d slots=%u shards=%d bytes=%zu read_cpu_ms_median=%.3f min=%.3f max=%.3f rounds=%d\n",
	       ncpus, slots, nshards, (size_t)ncpus * slots * sizeof(*hot) + (size_t)nshards * slots * sizeof(*shard),
	       ms[rounds / 2], ms[0], ms[rounds - 1], rounds);
	return 0;
}
