/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Find the limit that meets a throttling target (cgsched advise), from a
 * run's CPU demand period by period (report/periods.h). CFS bandwidth
 * control is replayed over the demand, period by period, for candidate
 * limits. Pure.
 *
 * The replay: in each period the group may run its quota, plus what the
 * periods before left unused, up to the burst. This is how the kernel
 * refills runtime: by the quota, capped at quota + burst. A period is
 * throttled if its demand, with the work deferred from the periods before,
 * is more than that. The rest of the work is deferred to the next period.
 */
#ifndef CGS_ADVISE_H
#define CGS_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How many periods the replay throttles with quota_us (+ burst_us) a period, for demand d[0..n) in us. */
size_t advise_replay(const uint64_t *d, size_t n, uint64_t quota_us, uint64_t burst_us);

struct advice {
	uint64_t period_us;
	double target;            /* the share of throttled periods allowed (0.01: 1 %) */
	/* Without a burst: the smallest quota (in steps of step_us) the replay keeps within the target. */
	uint64_t quota_us;
	size_t throttled;         /* its throttled periods in the replay (the most at any offset) */
	/* With a burst (where allowed): the smallest quota with some burst (at most the quota) that does. */
	bool burst_ok;
	uint64_t bq_quota_us, bq_burst_us;
	size_t bq_throttled;
	/*
	 * Added to each quota: the runtime other CPUs may hold when one runs
	 * out. The kernel hands a group's quota to its CPUs in slices. A CPU
	 * whose slice ran out is throttled while another still holds part of
	 * its own. The replay's single pool does not see this. It is at most a
	 * slice on each CPU but one.
	 */
	uint64_t headroom_us;
	/* The average-based limit: the mean demand a period, and what the replay gives it. */
	uint64_t mean_us;
	size_t mean_throttled;
	size_t n;
};

/*
 * Advise a limit for the demand d[p][0..n), in us per period of
 * period_us. There are nph sequences: the same run cut into periods at
 * nph offsets. A limit's period grid falls where it falls, so the advice
 * must hold at each offset; its throttled periods are the most at any.
 * The mean is d[0]'s. The target is the share of periods allowed to be
 * throttled. The step_us argument is the quota's granularity; the
 * kernel's least quota is 1 ms. The flag burst says whether a burst may be
 * set. The count ncpus bounds what a period can run (ncpus x period), so a
 * quota above that never throttles. The headroom_us argument is what to
 * add to each quota the replay finds (struct advice). Returns 0, or
 * -EINVAL if there are no periods.
 */
int advise(const uint64_t *const *d, size_t nph, size_t n, uint64_t period_us, double target, uint64_t step_us,
	   bool burst, unsigned ncpus, uint64_t headroom_us, struct advice *out);

/*
 * What other CPUs may hold of the quota when the CPU that runs out asks
 * for more. The replay's single pool does not see this. It has two parts.
 * First, a bandwidth slice (slice_us) on each of the `used` CPUs but one.
 * These are the CPUs with a share of the run; each may hold a slice while
 * another runs out. Second, 1 ms on each other CPU: the kernel leaves
 * that much on a CPU whose queue empties (min_cfs_rq_runtime in
 * kernel/sched/fair.c, a constant since 3.2). The other CPUs are those it
 * ran on at all (`any`), and at least one. The fork puts a command on a
 * CPU of the balancer's choosing, which keeps 1 ms when the command moves
 * on. A pinned command always moves on to its CPU. The record may have
 * started on the CPU it was pinned to, but the next run may not. The total counts at
 * most ncpus CPUs. Negative counts (a report without them) count as none.
 */
#define ADVISE_CPU_KEEPS_US 1000
#define ADVISE_CPUS_MAX 65536
uint64_t advise_headroom_us(int64_t used, int64_t any, int64_t slice_us, int64_t ncpus);

/*
 * Whether a measured share of k throttled periods out of n misses a
 * target share p by more than chance allows. It misses if the chance of k
 * or more at rate p (binomial) is under alpha. Periods of one run are not
 * independent, since throttling comes in runs, so this errs towards
 * calling a miss.
 */
bool advise_missed(size_t k, size_t n, double p, double alpha, double *chance);

/*
 * The least number of periods to advise from. The advice covers the
 * heaviest periods of the record. With n periods, the chance that none of
 * them falls among the heaviest tenth of the service's periods is 0.9^n.
 * That is under 10 % from 22 periods on (0.9^22 = 0.098; 0.9^21 = 0.109).
 * With fewer, a load that comes one period in ten may well be missing
 * from the record, and no interval drawn from the record itself can show
 * that. At 100 ms periods this is 2.2 s of record.
 */
#define ADVISE_MIN_PERIODS 22

/*
 * Periods a throttle censored: those of k steps from step 0 (m of them)
 * with a throttled wait in any step. Their demand counts the waits, so it
 * is an upper bound (report/periods.h, struct demand_series).
 */
size_t advise_censored(const uint64_t *waited_us, size_t k, size_t m);

/*
 * An interval for the advised quota (without a burst), by a bootstrap over
 * whole periods: each resample draws n periods with replacement, the same
 * periods at every offset, and advises for them as advise() does. The
 * interval runs from the 2.5th to the 97.5th percentile of the resamples'
 * quotas (nearest rank). The draws come from a fixed seed, so a report
 * always gives the same interval. The resamples are as many as fit in
 * ADVISE_BOOT_WORK periods replayed, at least ADVISE_BOOT_MIN and at most
 * ADVISE_BOOT_MAX. Each replay of n periods at nph offsets counts as
 * nph x n; a search takes about log2(cap / step) replays.
 * Drawn periods lose their order, so work deferred from one heavy period
 * to the next is not kept together; with a target of a few percent the
 * quota covers single heavy periods, and this matters little.
 */
#define ADVISE_BOOT_SEED 0x5eed60ULL
#define ADVISE_BOOT_MIN 40
#define ADVISE_BOOT_MAX 400
#define ADVISE_BOOT_WORK 40000000ULL
struct advice_interval {
	uint64_t low_us, high_us;
	size_t resamples;
};
/* The arguments as advise()'s, without the burst. 0, -EINVAL as advise(), or -ENOMEM. */
int advise_interval(const uint64_t *const *d, size_t nph, size_t n, uint64_t period_us, double target,
		    uint64_t step_us, unsigned ncpus, uint64_t headroom_us, struct advice_interval *out);

/*
 * The advice in the forms people apply it in. Each rounds up, so that the
 * limit applied is never below the advice.
 * systemd's CPUQuota= is a whole percentage of one CPU (older releases
 * take no decimals). systemd writes the quota as that share of the period,
 * rounded down, which a whole percentage rounded up still covers.
 * Kubernetes' resources.limits.cpu is in millicores (thousandths of a
 * CPU). The kubelet writes milli x period / 1000 as the quota, at its own
 * period: 100 ms by default.
 */
uint64_t advise_systemd_pct(uint64_t quota_us, uint64_t period_us);
uint64_t advise_millicores(uint64_t quota_us, uint64_t period_us);
/*
 * systemd's CPUQuotaPeriodSec= for period_us ("200ms", or in us where ms
 * do not divide it), into buf; NULL where the period is systemd's default,
 * 100 ms, and the setting is not needed.
 */
#define ADVISE_SYSTEMD_PERIOD_US 100000
#define ADVISE_K8S_PERIOD_US 100000
const char *advise_systemd_period(char *buf, size_t len, uint64_t period_us);

#endif
