/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's own account of a cgroup's CPU bandwidth: the configured
 * quota, period and burst, the group's CPU weight, and cpu.stat's period
 * and burst counters. They read the same on v1 (cpu.cfs_*_us, cpu.shares,
 * throttled_time and burst_time in ns) and v2 (cpu.max, cpu.weight,
 * throttled_usec, burst_usec).
 */
#ifndef CGS_KSTAT_H
#define CGS_KSTAT_H

#include <stdbool.h>
#include <stdint.h>

struct cgfs;

struct kstat {
	bool ok;               /* read at all */
	int64_t quota_us;      /* -1: unlimited */
	uint64_t period_us, burst_us;
	uint64_t nr_periods, nr_throttled, throttled_ns;
	int64_t usage_ns;      /* cpu.stat usage_usec (v2); -1 where absent (v1) */
	/* The one read from the other as the kernel converts (limits/cpu_limits.h). */
	uint64_t shares;        /* the group's weight in v1 cpu.shares units (1024 = default); 0: unknown */
	uint64_t weight;        /* the same in v2 cpu.weight units (1..10000, 100 = default); 0: unknown */
	bool has_bursts;        /* the kernel counts bursts (cfs_bandwidth.nr_burst, Linux 5.14+) */
	uint64_t nr_bursts, burst_ns;  /* cpu.stat nr_bursts and burst_time (v1, ns) / burst_usec (v2) */
	uint64_t period_end_ns; /* an end of one of its periods (ktime; cgs_kstat's); 0: unknown (the files say none) */
};

/*
 * Parse the file texts; pure, for tests. v1: quota/period/burst and
 * cpu.shares files; v2: cpu.max, cpu.max.burst and cpu.weight. A NULL
 * burst, shares or weight is a file the kernel lacks (burst before 5.14,
 * the weight of the v2 root): burst 0, weight unknown (0).
 */
int kstat_parse_v1(const char *quota, const char *period, const char *burst, const char *shares,
		   const char *stat, struct kstat *k);
int kstat_parse_v2(const char *max, const char *burst, const char *weight, const char *stat,
		   struct kstat *k);
/* cpu.weight from cpu.shares as the kernel converts them; 0 (unknown) stays 0. */
uint64_t kstat_weight_of(uint64_t shares);
/* Read a cgroup's files (rel: normalised path). */
int kstat_read(struct cgfs *fs, const char *rel, struct kstat *k);
/* What the kernel's counters grew by between two reads (never below 0). */
struct kstat_growth {
	uint64_t periods, throttled, throttled_ns;
	uint64_t bursts, burst_ns;  /* where the kernel counts bursts (has_bursts) */
};
struct kstat_growth kstat_growth(const struct kstat *from, const struct kstat *to);
/* Percent of the quota available in interval_ns that on-CPU time oncpu_ns used; <0 when unlimited. */
double kstat_quota_used_pct(const struct kstat *k, uint64_t oncpu_ns, uint64_t interval_ns);

#endif
