/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* CPU limits: parsing them, and writing them for cgroup v1 or v2. */
#ifndef CGS_CPU_LIMITS_H
#define CGS_CPU_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

struct cgfs;

#define CGS_PERIOD_DEFAULT_US 100000ULL
#define CGS_PERIOD_MIN_US 1000ULL      /* the kernel's bounds for a period */
#define CGS_PERIOD_MAX_US 1000000ULL
#define CGS_QUOTA_MIN_US 1000ULL
/*
 * The most a quota may be, and a burst, and the two together. The kernel
 * keeps bandwidth in 44 bits of microseconds, about 203 days
 * (kernel/sched/core.c: max_cfs_runtime = MAX_BW * NSEC_PER_USEC,
 * MAX_BW = 2^44 - 1).
 */
#define CGS_QUOTA_MAX_US ((1ULL << 44) - 1)

struct cpu_limits {
	bool has_max;
	uint64_t quota_us, period_us;  /* quota_us 0 with has_max: "max" (unlimited) */
	bool has_weight;
	uint64_t weight;               /* 1..10000, v2's unit; v1 gets shares from it */
	bool has_burst;
	uint64_t burst_us;             /* CFS burst (Linux 5.14+): quota a period may borrow from idle ones before */
};

/*
 * "QUOTA[/PERIOD]" (µs, or durations with units: "50ms/100ms"), "PCT%" of
 * one CPU, "Ncpus" (N may be fractional), or "max". Returns 0, or -EINVAL
 * with a reason in *why.
 */
int parse_cpu_max(const char *s, uint64_t *quota_us, uint64_t *period_us, const char **why);
int parse_cpu_weight(const char *s, uint64_t *weight, const char **why);
/* The kernel's conversions between v2 weight and v1 shares (sched_weight_{from,to}_cgroup). */
uint64_t weight_to_shares(uint64_t weight);
uint64_t shares_to_weight(uint64_t shares);

/*
 * Write the limits to a cgroup: on v1 cfs_period_us, cfs_quota_us, shares
 * and cfs_burst_us; on v2 cpu.max, cpu.weight and cpu.max.burst. The
 * burst comes after the quota, which it must not exceed. Returns -ENOENT
 * for a burst where the kernel has none.
 */
int limits_apply(struct cgfs *fs, const char *rel, const struct cpu_limits *l);

#endif
