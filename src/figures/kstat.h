/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's own account of a cgroup's CPU bandwidth: the configured
 * quota, period and burst, and cpu.stat's period counters, the same on v1
 * (cpu.cfs_*_us, throttled_time in ns) and v2 (cpu.max, throttled_usec).
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
};

/* Parse the file texts; pure, for tests. v1: quota/period/burst files; v2: cpu.max (+burst). */
int kstat_parse_v1(const char *quota, const char *period, const char *burst, const char *stat,
		   struct kstat *k);
int kstat_parse_v2(const char *max, const char *burst, const char *stat, struct kstat *k);
/* Read a cgroup's files (rel: normalised path). */
int kstat_read(struct cgfs *fs, const char *rel, struct kstat *k);
/* What the kernel's counters grew by between two reads (never below 0). */
struct kstat_growth {
	uint64_t periods, throttled, throttled_ns;
};
struct kstat_growth kstat_growth(const struct kstat *from, const struct kstat *to);
/* Percent of the quota available in interval_ns that on-CPU time oncpu_ns used; <0 when unlimited. */
double kstat_quota_used_pct(const struct kstat *k, uint64_t oncpu_ns, uint64_t interval_ns);

#endif
