// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cgroupfs.h"
#include "limits/cpu_limits.h"
#include "lib/util.h"

/* A quota or period: bare numbers are µs (as cpu.max), units allowed. */
static int parse_us(const char *s, uint64_t *us)
{
	uint64_t ns;

	if (parse_duration_ns(s, 1000, &ns))
		return -EINVAL;
	*us = ns / 1000;
	return 0;
}

/* "NUMBER" + suffix exactly, NUMBER a plain decimal. */
static int parse_fraction(const char *s, const char *suffix, double *v)
{
	const char *end;

	if (parse_decimal(s, v, &end) || strcmp(end, suffix))
		return -EINVAL;
	return 0;
}

/* A quota from a share of the default period, refused past the kernel's bound. */
static int quota_of(double cpus, uint64_t *quota_us)
{
	double q = cpus * CGS_PERIOD_DEFAULT_US;

	if (!(q <= (double)CGS_QUOTA_MAX_US))
		return -ERANGE;
	*quota_us = (uint64_t)llround(q);
	return 0;
}

int parse_cpu_max(const char *s, uint64_t *quota_us, uint64_t *period_us, const char **why)
{
	double v;
	char q[64];
	const char *slash;

	*why = "expected QUOTA[/PERIOD] in us (or with units: 50ms/100ms), PCT% of one CPU, Ncpus, or max";
	*period_us = CGS_PERIOD_DEFAULT_US;
	if (!s || !*s)
		return -EINVAL;
	if (!strcmp(s, "max")) {
		*quota_us = 0;
		return 0;
	}
	if (!parse_fraction(s, "%", &v) || !parse_fraction(s, "cpus", &v) || !parse_fraction(s, "cpu", &v)) {
		if (s[strlen(s) - 1] == '%')
			v /= 100.0;
		if (quota_of(v, quota_us)) {
			*why = "more than the kernel allows (a quota is at most 2^44-1 us, about 175,921,860 CPUs at 100ms)";
			return -ERANGE;
		}
	} else {
		slash = strchr(s, '/');
		size_t n = slash ? (size_t)(slash - s) : strlen(s);
		if (n >= sizeof(q))
			return -EINVAL;
		memcpy(q, s, n);
		q[n] = 0;
		if (parse_us(q, quota_us) || (slash && parse_us(slash + 1, period_us)))
			return -EINVAL;
	}
	if (*period_us < CGS_PERIOD_MIN_US || *period_us > CGS_PERIOD_MAX_US) {
		*why = "the period must be from 1ms to 1s";
		return -ERANGE;
	}
	if (*quota_us > CGS_QUOTA_MAX_US) {
		*why = "the quota must be at most 2^44-1 us (17592186044415), the kernel's bound";
		return -ERANGE;
	}
	if (*quota_us < CGS_QUOTA_MIN_US) {
		*why = "the quota must be at least 1ms per period (1% of one CPU at the default 100ms period)";
		return -ERANGE;
	}
	return 0;
}

int parse_cpu_weight(const char *s, uint64_t *weight, const char **why)
{
	*why = "expected a whole number from 1 to 10000 (100 is the default)";
	return parse_u64(s, 1, 10000, weight);
}

/* kernel/sched/sched.h: sched_weight_from_cgroup() and sched_weight_to_cgroup(). */
uint64_t weight_to_shares(uint64_t weight)
{
	return (weight * 1024 + 50) / 100;
}

uint64_t shares_to_weight(uint64_t shares)
{
	uint64_t w = (shares * 100 + 512) / 1024;

	return w < 1 ? 1 : w > 10000 ? 10000 : w;
}

int limits_apply(struct cgfs *fs, const char *rel, const struct cpu_limits *l)
{
	char v[64];
	int err;

	if (l->has_max) {
		if (fs->version == 1) {
			snprintf(v, sizeof(v), "%llu", (unsigned long long)l->period_us);
			if ((err = cgfs_write(fs, rel, "cpu.cfs_period_us", v)))
				return err;
			if (l->quota_us)
				snprintf(v, sizeof(v), "%llu", (unsigned long long)l->quota_us);
			else
				snprintf(v, sizeof(v), "-1");
			if ((err = cgfs_write(fs, rel, "cpu.cfs_quota_us", v)))
				return err;
		} else {
			if (l->quota_us)
				snprintf(v, sizeof(v), "%llu %llu", (unsigned long long)l->quota_us,
					 (unsigned long long)l->period_us);
			else
				snprintf(v, sizeof(v), "max %llu", (unsigned long long)l->period_us);
			if ((err = cgfs_write(fs, rel, "cpu.max", v)))
				return err;
		}
	}
	if (l->has_weight) {
		if (fs->version == 1)
			snprintf(v, sizeof(v), "%llu", (unsigned long long)weight_to_shares(l->weight));
		else
			snprintf(v, sizeof(v), "%llu", (unsigned long long)l->weight);
		if ((err = cgfs_write(fs, rel, fs->version == 1 ? "cpu.shares" : "cpu.weight", v)))
			return err;
	}
	if (l->has_burst) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)l->burst_us);
		if ((err = cgfs_write(fs, rel, fs->version == 1 ? "cpu.cfs_burst_us" : "cpu.max.burst", v)))
			return err;
	}
	return 0;
}
