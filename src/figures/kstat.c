// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cgroupfs.h"
#include "figures/kstat.h"
#include "limits/cpu_limits.h"
#include "lib/util.h"

static int parse_i64_line(const char *s, int64_t *v)
{
	char buf[32];
	size_t n = strcspn(s, "\n");
	uint64_t u;

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (!strcmp(buf, "-1")) {
		*v = -1;
		return 0;
	}
	if (parse_u64(buf, 0, INT64_MAX, &u))
		return -EINVAL;
	*v = (int64_t)u;
	return 0;
}

/* A file holding one unsigned number (cpu.shares, cpu.weight), at most max. */
static int parse_u64_line(const char *s, uint64_t max, uint64_t *v)
{
	char buf[32];
	size_t n = strcspn(s, "\n");

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	return parse_u64(buf, 0, max, v) ? -EINVAL : 0;
}

uint64_t kstat_weight_of(uint64_t shares)
{
	/*
	 * As the kernel's sched_weight_to_cgroup(), clamped to 1..10000.
	 * Kernels before the clamp (6.1) showed cpu.weight 0 for shares 2..5.
	 * Unknown (0) stays unknown.
	 */
	return shares ? shares_to_weight(shares) : 0;
}

static void parse_stat(const char *stat, bool v2, struct kstat *k)
{
	uint64_t v;

	keyed_get(stat, "nr_periods", &k->nr_periods);
	keyed_get(stat, "nr_throttled", &k->nr_throttled);
	if (v2) {
		if (!keyed_get(stat, "throttled_usec", &v))
			k->throttled_ns = v * 1000;
		if (!keyed_get(stat, "usage_usec", &v))
			k->usage_ns = (int64_t)(v * 1000);
	} else {
		keyed_get(stat, "throttled_time", &k->throttled_ns);
	}
	/* Burst accounting (5.14+): nr_bursts, then burst_time (v1, ns) or burst_usec (v2). */
	if (!keyed_get(stat, "nr_bursts", &k->nr_bursts)) {
		k->has_bursts = true;
		if (v2) {
			if (!keyed_get(stat, "burst_usec", &v))
				k->burst_ns = v * 1000;
		} else {
			keyed_get(stat, "burst_time", &k->burst_ns);
		}
	}
}

int kstat_parse_v1(const char *quota, const char *period, const char *burst, const char *shares,
		   const char *stat, struct kstat *k)
{
	int64_t q, p, b = 0;
	uint64_t sh = 0;

	memset(k, 0, sizeof(*k));
	k->usage_ns = -1;
	if (parse_i64_line(quota, &q) || parse_i64_line(period, &p) || p <= 0)
		return -EINVAL;
	if (burst && parse_i64_line(burst, &b))
		return -EINVAL;
	/* cpu.shares: MIN_SHARES (2) .. MAX_SHARES (262144) as the kernel shows it. */
	if (shares && parse_u64_line(shares, UINT32_MAX, &sh))
		return -EINVAL;
	k->quota_us = q < 0 ? -1 : q;
	k->period_us = p;
	k->burst_us = b > 0 ? b : 0;
	k->shares = sh;
	k->weight = kstat_weight_of(sh);
	parse_stat(stat, false, k);
	k->ok = true;
	return 0;
}

int kstat_parse_v2(const char *max, const char *burst, const char *weight, const char *stat,
		   struct kstat *k)
{
	char q[32];
	uint64_t p, w = 0;
	int64_t b = 0;

	memset(k, 0, sizeof(*k));
	k->usage_ns = -1;
	/* "max 100000" or "50000 100000" */
	if (sscanf(max, "%31s %lu", q, &p) != 2 || !p)
		return -EINVAL;
	if (!strcmp(q, "max")) {
		k->quota_us = -1;
	} else {
		uint64_t u;
		if (parse_u64(q, 1, INT64_MAX, &u))
			return -EINVAL;
		k->quota_us = (int64_t)u;
	}
	k->period_us = p;
	if (burst && parse_i64_line(burst, &b))
		return -EINVAL;
	k->burst_us = b > 0 ? b : 0;
	/*
	 * cpu.weight: 1..10000 (CGROUP_WEIGHT_MIN..MAX); 0 from kernels before
	 * the clamp for the tiniest loads (an idle group on 6.1): unknown.
	 */
	if (weight && parse_u64_line(weight, 10000, &w))
		return -EINVAL;
	k->weight = w;
	k->shares = w ? weight_to_shares(w) : 0;
	parse_stat(stat, true, k);
	k->ok = true;
	return 0;
}

int kstat_read(struct cgfs *fs, const char *rel, struct kstat *k)
{
	char a[64], b[64], c[64], w[64], st[1024];
	bool has_burst, has_w;

	memset(k, 0, sizeof(*k));
	k->usage_ns = -1;
	if (cgfs_read(fs, rel, "cpu.stat", st, sizeof(st)) < 0)
		return -ENOENT;
	if (fs->version == 1) {
		if (cgfs_read(fs, rel, "cpu.cfs_quota_us", a, sizeof(a)) < 0 ||
		    cgfs_read(fs, rel, "cpu.cfs_period_us", b, sizeof(b)) < 0)
			return -ENOENT; /* the root group has no bandwidth files */
		has_burst = cgfs_read(fs, rel, "cpu.cfs_burst_us", c, sizeof(c)) >= 0;
		has_w = cgfs_read(fs, rel, "cpu.shares", w, sizeof(w)) >= 0;
		return kstat_parse_v1(a, b, has_burst ? c : NULL, has_w ? w : NULL, st, k);
	}
	if (cgfs_read(fs, rel, "cpu.max", a, sizeof(a)) < 0)
		return -ENOENT;
	has_burst = cgfs_read(fs, rel, "cpu.max.burst", c, sizeof(c)) >= 0;
	/* The root has no cpu.weight: its weight stays unknown (0). */
	has_w = cgfs_read(fs, rel, "cpu.weight", w, sizeof(w)) >= 0;
	return kstat_parse_v2(a, has_burst ? c : NULL, has_w ? w : NULL, st, k);
}

static uint64_t grew(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

struct kstat_growth kstat_growth(const struct kstat *from, const struct kstat *to)
{
	return (struct kstat_growth){
		.periods = grew(from->nr_periods, to->nr_periods),
		.throttled = grew(from->nr_throttled, to->nr_throttled),
		.throttled_ns = grew(from->throttled_ns, to->throttled_ns),
		.bursts = grew(from->nr_bursts, to->nr_bursts),
		.burst_ns = grew(from->burst_ns, to->burst_ns),
	};
}

double kstat_quota_used_pct(const struct kstat *k, uint64_t oncpu_ns, uint64_t interval_ns)
{
	if (!k->ok || k->quota_us < 0 || !k->period_us || !interval_ns)
		return -1;
	/* The quota a full interval grants: quota per period x periods in it. */
	double avail = (double)k->quota_us / k->period_us * interval_ns;
	return 100.0 * oncpu_ns / avail;
}
