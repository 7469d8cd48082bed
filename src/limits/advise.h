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

#endif
