// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched advise: the limit that meets a throttling target, from a record's demand; --verify runs it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cmd/commands.h"
#include "cmd/rules.h"
#include "limits/advise.h"
#include "limits/cpu_limits.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched advise REPORT.json [OPTIONS] [--verify -- CMD [ARGS...]]\n"
	"Find the least CPU limit under which the run in REPORT.json would be\n"
	"throttled in at most the target share of its periods. The limit is a\n"
	"cpu.max (quota and period), and a cpu.max.burst where the kernel has one.\n"
	"REPORT.json comes from 'cgsched record --demand -o', with or without a\n"
	"limit: work a throttle delayed counts from its task's wake-up. advise\n"
	"replays CFS bandwidth control period by period over that demand. It also\n"
	"shows what the limit based on the average would give.\n"
	"\n"
	"  --max-throttled-periods PCT\n"
	"                         the share of periods allowed throttled (default 1)\n"
	"  --period DUR           the period to advise for: the report's, or a whole\n"
	"                         multiple of it (default: the report's)\n"
	"  --no-burst             advise a quota only, even where bursts are possible\n"
	"  --json                 the advice as JSON (docs/json.md, cgsched/advice)\n"
	"  --verify -- CMD [ARGS...]\n"
	"                         run CMD under the advice (as record --cpu-max and\n"
	"                         --cpu-burst do), and print target and measured side\n"
	"                         by side. Exit 1 when the measured share is above the\n"
	"                         target by more than chance allows (binomial, 5 %)\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched record --demand -o run.json -- ./service --bench\n"
	"  cgsched advise run.json --max-throttled-periods 1\n"
	"  cgsched advise run.json --verify -- ./service --bench\n";

struct advise_opts {
	double target;         /* a share: 0.01 */
	uint64_t period_us;    /* 0: the report's */
	bool json, no_burst, verify;
};

static int advise_opt(void *ctx, int c, const char *arg)
{
	struct advise_opts *o = ctx;
	const char *end;
	double pct;
	uint64_t v;

	switch (c) {
	case OPT_MAX_THR_PERIODS:
		/* The project's decimal parser, as every other option: no exponents, hex, "inf" or sign. */
		if (parse_decimal(arg, &pct, &end) || *end || pct >= 100) {
			cgs_err("--max-throttled-periods %s: expected a percentage from 0 to under 100", arg);
			return OPT_BAD;
		}
		o->target = pct / 100;
		return OPT_TAKEN;
	case OPT_PERIOD:
		/* Whole microseconds, as the kernel takes a period: the bounds as v / 1000 meets them. */
		if (opt_duration("--period", arg, 1000ULL, CGS_PERIOD_MIN_US * 1000, CGS_PERIOD_MAX_US * 1000 + 999,
				 "from 1ms to 1s (the kernel's bounds)", &v))
			return OPT_BAD;
		o->period_us = v / 1000;
		return OPT_TAKEN;
	case OPT_NO_BURST:
		o->no_burst = true;
		return OPT_TAKEN;
	case OPT_VERIFY:
		o->verify = true;
		return OPT_TAKEN;
	case OPT_JSON:
		o->json = true;
		return OPT_TAKEN;
	}
	return OPT_NOT_MINE;
}

/* A report's number at o.key (integer), or -1 when missing or not one. */
static int64_t num(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -1;
	return json_object_get_int64(v);
}

/* What the advice rests on, and where it goes: beside struct advice. */
struct sureness {
	size_t censored;           /* periods (offset 0) with throttled waits */
	bool placed;               /* record's estimator placed delayed work where it arrived (report/periods.h) */
	uint64_t unplaced_us;      /* waits of tasks held over two periods, counted as demand */
	bool held;                 /* held for good: the quota was below the mean (see demand_of) */
	struct advice_interval iv; /* the quota's 95 % interval, from resamples of the periods */
	const char *section;       /* the limits file's section: the attached cgroup, or "PATH" */
};

/*
 * The demand a period in us, from the report's steps summed into periods
 * of period_us at each offset of a step: out[p] the periods that begin p
 * steps in, *n of them at every offset. *censored: those at offset 0 with
 * a throttled wait. NULL (said) on bad input.
 */
static uint64_t **demand_of(struct json_object *rep, const char *path, uint64_t *period_us, size_t *nph, size_t *n,
			    struct sureness *su)
{
	struct json_object *d, *used, *waited;
	int64_t rp, st;

	if (!json_object_object_get_ex(rep, "demand", &d) || !json_object_is_type(d, json_type_object) ||
	    (rp = num(d, "period_us")) <= 0 || (st = num(d, "step_us")) <= 0 ||
	    !json_object_object_get_ex(d, "used_us", &used) || !json_object_object_get_ex(d, "waited_us", &waited) ||
	    !json_object_is_type(used, json_type_array) || !json_object_is_type(waited, json_type_array) ||
	    json_object_array_length(used) != json_object_array_length(waited) || !json_object_array_length(used)) {
		cgs_err("%s has no demand per period: record it with --demand (for a period or more)", path);
		return NULL;
	}
	if (!*period_us)
		*period_us = rp;
	if (*period_us % st) {
		cgs_err("--period: the report's demand is in steps of %lld us; advise for a whole multiple of it", (long long)st);
		return NULL;
	}
	/* record's estimator places delayed work in used_us; older records add the waits (report/periods.h). */
	struct json_object *est;
	bool placed = json_object_object_get_ex(d, "estimator", &est) && json_object_is_type(est, json_type_string) &&
		      !strcmp(json_object_get_string(est), "arrivals");
	su->placed = placed;
	su->unplaced_us = placed && num(d, "unplaced_us") > 0 ? num(d, "unplaced_us") : 0;
	/*
	 * Under a quota below the mean, the backlog grows: a task is held in
	 * every period after its first two, and adds up to a period of
	 * unplaced waits in each. A task held just over two periods once adds
	 * only that wait's excess, less than a period. So a period of unplaced
	 * waits or more means jobs queued for good, and the advice is an upper
	 * bound. Less is an incidental hold, which bounds nothing.
	 */
	su->held = su->unplaced_us >= *period_us;
	size_t k = *period_us / st, ns = json_object_array_length(used);
	if (ns < k) {
		cgs_err("--period: the report holds less than one period of %llu us", (unsigned long long)*period_us);
		return NULL;
	}
	uint64_t *steps = calloc(ns, sizeof(*steps)), *waits = calloc(ns, sizeof(*waits));
	uint64_t **out = calloc(k, sizeof(*out));
	size_t m = (ns - (k - 1)) / k;
	bool ok = steps && waits && out;
	for (size_t p = 0; ok && p < k; p++)
		ok = (out[p] = calloc(m ? m : 1, sizeof(**out))) != NULL;
	if (!ok) {
		cgs_err("advise: out of memory");
		goto fail;
	}
	for (size_t i = 0; i < ns; i++) {
		struct json_object *u = json_object_array_get_idx(used, i), *w = json_object_array_get_idx(waited, i);
		if (!json_object_is_type(u, json_type_int) || !json_object_is_type(w, json_type_int) ||
		    json_object_get_int64(u) < 0 || json_object_get_int64(w) < 0) {
			cgs_err("%s: demand.used_us[%zu] or waited_us[%zu] is not a count of us", path, i, i);
			goto fail;
		}
		steps[i] = json_object_get_int64(u) + (placed ? 0 : json_object_get_int64(w));
		waits[i] = json_object_get_int64(w);
	}
	/* Offset p: periods of k steps from step p on, as many at every offset. */
	for (size_t p = 0; p < k; p++)
		for (size_t j = 0; j < m * k; j++)
			out[p][j / k] += steps[p + j];
	su->censored = advise_censored(waits, k, m);
	free(steps);
	free(waits);
	*nph = k;
	*n = m;
	return out;
fail:
	for (size_t p = 0; out && p < k; p++)
		free(out[p]);
	free(out);
	free(steps);
	free(waits);
	return NULL;
}

static void demand_free_all(uint64_t **d, size_t nph)
{
	for (size_t p = 0; d && p < nph; p++)
		free(d[p]);
	free(d);
}

/* What --verify measured: the kernel's throttled periods and all its periods in the run. */
struct verified {
	bool ran;
	int64_t throttled, periods;
	bool missed;
	double chance;
	int status;            /* the command's exit status in the report */
};

/* record CMD under the advice, its report into a file of our own; the kernel's counts from it. */
static int verify(char **cmd, uint64_t quota_us, uint64_t period_us, uint64_t burst_us, double target,
		  struct verified *v)
{
	char path[] = "/tmp/cgsched-advise-XXXXXX", max[64], burst[32], self[PATH_MAX];
	int fd = mkstemp(path), status, ret = -1;
	struct json_object *rep = NULL, *k, *ex, *st;
	char **argv = NULL;
	size_t nc = 0, a = 0;
	ssize_t sl;
	pid_t pid;

	if (fd < 0) {
		cgs_err("advise --verify: a file for the report: %s", strerror(errno));
		return -1;
	}
	close(fd);
	/* The file at path is ours until path[0] is 0: out removes it. */
	if ((sl = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0) {
		cgs_err("advise --verify: cannot find cgsched itself: %s", strerror(errno));
		goto out;
	}
	self[sl] = 0;
	while (cmd[nc])
		nc++;
	if (!(argv = calloc(nc + 12, sizeof(*argv))))
		goto out;
	snprintf(max, sizeof(max), "%llu/%llu", (unsigned long long)quota_us, (unsigned long long)period_us);
	snprintf(burst, sizeof(burst), "%llu", (unsigned long long)burst_us);
	argv[a++] = self;
	argv[a++] = "record";
	argv[a++] = "-q";
	argv[a++] = "--cpu-max";
	argv[a++] = max;
	if (burst_us) {
		argv[a++] = "--cpu-burst";
		argv[a++] = burst;
	}
	argv[a++] = "-o";
	argv[a++] = path;
	argv[a++] = "--";
	for (size_t i = 0; i < nc; i++)
		argv[a++] = cmd[i];
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		/*
		 * The command's output to our stderr (ours on stdout stays the
		 * advice alone, JSON with --json); record's summary to nowhere
		 * (-v keeps it): the report file has the figures.
		 */
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		dup2(STDERR_FILENO, STDOUT_FILENO);
		if (null >= 0 && !cgs_verbose)
			dup2(null, STDERR_FILENO);
		execv(self, argv);
		_exit(127);
	}
	free(argv);
	argv = NULL;
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		cgs_err("advise --verify: cannot run record: %s", strerror(errno));
		goto out;
	}
	rep = report_load(path);
	unlink(path);
	path[0] = 0;
	if (!rep) {
		cgs_err("advise --verify: record made no report (exit status %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		goto out;
	}
	v->ran = true;
	json_object_object_get_ex(rep, "kernel_stat", &k);
	v->throttled = num(k, "nr_throttled");
	v->periods = num(k, "nr_periods");
	v->status = json_object_object_get_ex(rep, "exit", &ex) && json_object_object_get_ex(ex, "status", &st) &&
				    json_object_is_type(st, json_type_int)
			    ? json_object_get_int(st)
			    : -1;
	json_object_put(rep);
	rep = NULL;
	if (v->throttled < 0 || v->periods <= 0) {
		cgs_err("advise --verify: the run's report has no kernel count of periods (cpu.stat)");
		goto out;
	}
	v->missed = advise_missed(v->throttled, v->periods, target, 0.05, &v->chance);
	ret = 0;
out:
	json_object_put(rep);
	free(argv);
	if (path[0])
		unlink(path);
	return ret;
}

static const char *dur(char *buf, size_t len, uint64_t us)
{
	return fmt_duration(buf, len, us * 1000);
}


/*
 * The limits file's section for the advice: with the burst where one is
 * advised (apply sets it, and --verify runs it), else the quota alone.
 */
static void limits_section(char *buf, size_t len, const struct advice *ad, const char *section)
{
	if (ad->burst_ok && ad->bq_burst_us)
		snprintf(buf, len, "[%s]\nmax = %llu/%llu\nburst = %llu\n", section, (unsigned long long)ad->bq_quota_us,
			 (unsigned long long)ad->period_us, (unsigned long long)ad->bq_burst_us);
	else
		snprintf(buf, len, "[%s]\nmax = %llu/%llu\n", section, (unsigned long long)ad->quota_us,
			 (unsigned long long)ad->period_us);
}

static void print_text(const char *path, const struct advice *ad, const uint64_t *sorted, bool aligned,
		       const struct verified *v, bool verified_burst, const struct sureness *su)
{
	char a[16], b[16], c[16], d[16], e[16], f[16], sec[PATH_MAX + 128];
	size_t n = ad->n, allowed = (size_t)(ad->target * n);
	double P = ad->period_us;

	/* Each paragraph opens with what the limit gives: the throttled periods in the replay. */
	printf("cgsched advise: %s: %zu periods of %s%s\n", path, n, dur(a, sizeof(a), ad->period_us),
	       aligned ? ", aligned to its quota" : "");
	printf("demand per period: p50 %s, p90 %s, p99 %s, max %s, mean %s\n", dur(b, sizeof(b), u64_rank(sorted, n, 50)),
	       dur(c, sizeof(c), u64_rank(sorted, n, 90)), dur(d, sizeof(d), u64_rank(sorted, n, 99)),
	       dur(e, sizeof(e), sorted[n - 1]), dur(f, sizeof(f), ad->mean_us));
	printf("throttled in the record: %zu of %zu periods%s\n", su->censored, n,
	       su->censored && !su->placed ? " (their demand is an upper bound)" : "");
	if (su->held)
		printf("held over two periods: %s of waits counted as demand. The quota was below what the service\n"
		       "needs, so this advice is an upper bound: record again with a higher limit, or none.\n",
		       dur(a, sizeof(a), su->unplaced_us));
	else if (su->placed && 2 * su->censored >= n)
		printf("throttled in most periods: work the service gave up leaves no trace, and delayed work\n"
		       "may count early. This advice is unsure either way: record again with a higher limit.\n");
	else if (su->censored && su->placed)
		printf("work a throttle delayed counts from the task's wake-up. Work that began while it was held\n"
		       "counts from that wake-up too, so the advice may be high by one such piece of work.\n");
	printf("target: at most %.4g%% of periods throttled (%zu of %zu), in a replay of the demand\n\n",
	       ad->target * 100, allowed, n);
	printf("  cpu.max %llu %llu      # throttled in %zu periods (%.1f%%); %.2f CPUs; covers the p%.4g demand\n",
	       (unsigned long long)ad->quota_us, (unsigned long long)ad->period_us, ad->throttled,
	       100.0 * ad->throttled / n, ad->quota_us / P, 100 - ad->target * 100);
	if (ad->headroom_us)
		printf("      (with %s of headroom for quota held on other CPUs)\n", dur(a, sizeof(a), ad->headroom_us));
	printf("      (quota %llu to %llu in 95%% of %zu resamples of the periods)\n", (unsigned long long)su->iv.low_us,
	       (unsigned long long)su->iv.high_us, su->iv.resamples);
	if (ad->burst_ok && ad->bq_burst_us)
		printf("  cpu.max %llu %llu, cpu.max.burst %llu      # throttled in %zu periods (%.1f%%); %.2f CPUs on average\n",
		       (unsigned long long)ad->bq_quota_us, (unsigned long long)ad->period_us,
		       (unsigned long long)ad->bq_burst_us, ad->bq_throttled, 100.0 * ad->bq_throttled / n,
		       ad->bq_quota_us / P);
	else if (ad->burst_ok)
		printf("  (no burst: it would not lower the quota for this demand)\n");
	printf("  v1: cpu.cfs_quota_us %llu, cpu.cfs_period_us %llu%s\n\n", (unsigned long long)ad->quota_us,
	       (unsigned long long)ad->period_us, ad->burst_ok && ad->bq_burst_us ? " (or with cpu.cfs_burst_us as above)" : "");
	limits_section(sec, sizeof(sec), ad, su->section);
	printf("as a limits file for cgsched apply%s:\n", strcmp(su->section, "PATH") ? "" : " (PATH: the service's cgroup)");
	for (char *l = sec, *nl; (nl = strchr(l, '\n')); l = nl + 1)
		printf("  %.*s\n", (int)(nl - l), l);
	if (ad->burst_ok && ad->bq_burst_us)
		printf("  ; or without a burst: max = %llu/%llu\n", (unsigned long long)ad->quota_us,
		       (unsigned long long)ad->period_us);
	const char *sp = advise_systemd_period(a, sizeof(a), ad->period_us);
	printf("as systemd settings: CPUQuota=%llu%%%s%s\n", (unsigned long long)advise_systemd_pct(ad->quota_us, ad->period_us),
	       sp ? " CPUQuotaPeriodSec=" : "", sp ? sp : "");
	printf("as Kubernetes' resources.limits.cpu: %llum      # its CFS period is 100 ms by default; burst has no field\n\n",
	       (unsigned long long)advise_millicores(ad->quota_us, ad->period_us));
	printf("average-based limit: throttled in %zu periods (%.1f%%)\n", ad->mean_throttled,
	       100.0 * ad->mean_throttled / n);
	printf("  cpu.max %llu %llu      # the mean demand, %.2f CPUs\n", (unsigned long long)ad->mean_us,
	       (unsigned long long)ad->period_us, ad->mean_us / P);
	if (v && v->ran) {
		printf("\nverify: %s: %.2f%% of periods throttled (%lld of %lld, cpu.stat); target %.4g%%\n",
		       v->missed ? "MISSED" : "met", 100.0 * v->throttled / v->periods, (long long)v->throttled,
		       (long long)v->periods, ad->target * 100);
		printf("  run %s; the chance of so many at the target: %.3g\n",
		       verified_burst ? "with the burst" : "with the quota alone", v->chance);
	}
}

static void print_json(const char *path, const struct advice *ad, const uint64_t *sorted, bool aligned,
		       const struct verified *v, bool verified_burst, const struct sureness *su)
{
	char sec[PATH_MAX + 128], buf[32];
	struct json_object *o = json_object_new_object(), *d = json_object_new_object(), *q = json_object_new_object();
	size_t n = ad->n;

	json_object_object_add(o, "schema", json_object_new_string("cgsched/advice"));
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "report", json_object_new_string(path));
	json_object_object_add(o, "period_us", json_object_new_int64(ad->period_us));
	json_object_object_add(o, "periods", json_object_new_int64(n));
	json_object_object_add(o, "aligned", json_object_new_boolean(aligned));
	json_object_object_add(o, "periods_censored", json_object_new_int64(su->censored));
	json_object_object_add(o, "estimator", json_object_new_string(su->placed ? "arrivals" : "use+waits"));
	json_object_object_add(o, "unplaced_us", json_object_new_int64(su->unplaced_us));
	/* The demand seen is more than the service's: old records' waits, or tasks held over two periods. */
	json_object_object_add(o, "upper_bound",
			       json_object_new_boolean(su->held || (su->censored && !su->placed)));
	/* Throttled in most periods, none held long: work given up is not seen, delayed work may count early. */
	json_object_object_add(o, "mostly_throttled",
			       json_object_new_boolean(su->placed && !su->held && 2 * su->censored >= n));
	json_object_object_add(o, "target_pct", json_object_new_double(ad->target * 100));
	json_object_object_add(d, "p50_us", json_object_new_int64(u64_rank(sorted, n, 50)));
	json_object_object_add(d, "p90_us", json_object_new_int64(u64_rank(sorted, n, 90)));
	json_object_object_add(d, "p99_us", json_object_new_int64(u64_rank(sorted, n, 99)));
	json_object_object_add(d, "max_us", json_object_new_int64(sorted[n - 1]));
	json_object_object_add(d, "mean_us", json_object_new_int64(ad->mean_us));
	json_object_object_add(o, "demand", d);
	json_object_object_add(q, "quota_us", json_object_new_int64(ad->quota_us));
	json_object_object_add(q, "headroom_us", json_object_new_int64(ad->headroom_us));
	json_object_object_add(q, "throttled_periods", json_object_new_int64(ad->throttled));
	struct json_object *iv = json_object_new_object();
	json_object_object_add(iv, "low_us", json_object_new_int64(su->iv.low_us));
	json_object_object_add(iv, "high_us", json_object_new_int64(su->iv.high_us));
	json_object_object_add(iv, "level_pct", json_object_new_int(95));
	json_object_object_add(iv, "resamples", json_object_new_int64(su->iv.resamples));
	json_object_object_add(q, "interval", iv);
	json_object_object_add(o, "quota", q);
	if (ad->burst_ok && ad->bq_burst_us) {
		struct json_object *b = json_object_new_object();
		json_object_object_add(b, "quota_us", json_object_new_int64(ad->bq_quota_us));
		json_object_object_add(b, "burst_us", json_object_new_int64(ad->bq_burst_us));
		json_object_object_add(b, "throttled_periods", json_object_new_int64(ad->bq_throttled));
		json_object_object_add(o, "burst", b);
	} else {
		json_object_object_add(o, "burst", NULL);
	}
	struct json_object *fm = json_object_new_object(), *sd = json_object_new_object(), *k8 = json_object_new_object();
	limits_section(sec, sizeof(sec), ad, su->section);
	json_object_object_add(fm, "limits_file", json_object_new_string(sec));
	snprintf(buf, sizeof(buf), "%llu%%", (unsigned long long)advise_systemd_pct(ad->quota_us, ad->period_us));
	json_object_object_add(sd, "CPUQuota", json_object_new_string(buf));
	const char *sp = advise_systemd_period(buf, sizeof(buf), ad->period_us);
	json_object_object_add(sd, "CPUQuotaPeriodSec", sp ? json_object_new_string(sp) : NULL);
	json_object_object_add(fm, "systemd", sd);
	snprintf(buf, sizeof(buf), "%llum", (unsigned long long)advise_millicores(ad->quota_us, ad->period_us));
	json_object_object_add(k8, "limits_cpu", json_object_new_string(buf));
	json_object_object_add(fm, "kubernetes", k8);
	json_object_object_add(o, "forms", fm);
	struct json_object *m = json_object_new_object();
	json_object_object_add(m, "quota_us", json_object_new_int64(ad->mean_us));
	json_object_object_add(m, "throttled_periods", json_object_new_int64(ad->mean_throttled));
	json_object_object_add(o, "average", m);
	if (v && v->ran) {
		struct json_object *x = json_object_new_object();
		json_object_object_add(x, "with_burst", json_object_new_boolean(verified_burst));
		json_object_object_add(x, "throttled_periods", json_object_new_int64(v->throttled));
		json_object_object_add(x, "periods", json_object_new_int64(v->periods));
		json_object_object_add(x, "chance", json_object_new_double(v->chance));
		json_object_object_add(x, "met", json_object_new_boolean(!v->missed));
		json_object_object_add(o, "verify", x);
	} else {
		json_object_object_add(o, "verify", NULL);
	}
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
}

int cmd_advise(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "max-throttled-periods", required_argument, NULL, OPT_MAX_THR_PERIODS },
		{ "period", required_argument, NULL, OPT_PERIOD },
		{ "no-burst", no_argument, NULL, OPT_NO_BURST },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	static char section[PATH_MAX];
	struct advise_opts o = { .target = 0.01 };
	const struct cmd_spec spec = {
		.name = "advise",
		.usage = usage,
		.shorts = "h",
		.longs = longs,
		.opt = advise_opt,
		.ctx = &o,
		.nargs = -1,
		.args = "a report file",
	};
	struct json_object *rep = NULL, *dm, *al, *k, *nb, *cg, *att;
	struct sureness su = { .section = "PATH" };
	struct verified v = {};
	struct advice ad;
	uint64_t period, **d = NULL, *sorted = NULL, headroom, step;
	int64_t ncpus, used, any, slice;
	size_t n, nph = 0;
	const char *path;
	bool aligned, burst, vb;
	int first, err, dd = argc, ret = CGS_EXIT_USAGE;

	/* --verify -- CMD: what follows "--" is the command, the options before it are ours. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dd = i;
			break;
		}
	if ((err = cmd_parse(&spec, dd, argv, &first)))
		return err;
	if (first != dd - 1) {
		cgs_err("advise: expected one report file (cgsched record -o), got %d", dd - first);
		return CGS_EXIT_USAGE;
	}
	if (o.verify != (dd < argc - 1)) {
		cgs_err(o.verify ? "advise --verify: no command after '--'" : "advise: a command after '--' goes with --verify");
		return CGS_EXIT_USAGE;
	}
	path = argv[first];
	if (!(rep = report_load(path)))
		return CGS_EXIT_USAGE;
	period = o.period_us;
	if (!(d = demand_of(rep, path, &period, &nph, &n, &su)))
		goto out;
	if (n < ADVISE_MIN_PERIODS) {
		/* A period more than the least: every offset of the grid then holds that many whole periods. */
		char pd[16], need[16];
		cgs_err("%s: %zu whole periods of %s, too few to advise from (at least %d): record --demand for %s or more",
			path, n, dur(pd, sizeof(pd), period), ADVISE_MIN_PERIODS,
			dur(need, sizeof(need), (ADVISE_MIN_PERIODS + 1) * period));
		goto out;
	}
	/* An attached record's cgroup names the section; one record made and removed does not. */
	if (json_object_object_get_ex(rep, "attached", &att) && json_object_get_boolean(att) &&
	    json_object_object_get_ex(rep, "cgroup", &cg) && json_object_is_type(cg, json_type_string) &&
	    json_object_get_string_len(cg) > 0 && json_object_get_string_len(cg) < (int)sizeof(section) &&
	    !strpbrk(json_object_get_string(cg), "[]*?\n\\;#")) {
		snprintf(section, sizeof(section), "%s", json_object_get_string(cg));
		su.section = section;
	}
	aligned = json_object_object_get_ex(rep, "demand", &dm) && json_object_object_get_ex(dm, "aligned", &al) &&
		  json_object_get_boolean(al);
	/* A burst where the recording kernel counts bursts (5.14+), unless asked not to. */
	burst = !o.no_burst && json_object_object_get_ex(rep, "kernel_stat", &k) && k &&
		json_object_object_get_ex(k, "nr_bursts", &nb) && nb;
	ncpus = num(rep, "ncpus");
	used = num(dm, "cpus");
	any = num(dm, "cpus_any");
	slice = num(dm, "slice_us");
	json_object_put(rep);
	rep = NULL;
	headroom = advise_headroom_us(used, any, slice, ncpus);
	/* Steps of 1 % of the period, at least the kernel's least quota (1 ms). */
	step = period / 100 > CGS_QUOTA_MIN_US ? period / 100 : CGS_QUOTA_MIN_US;
	advise((const uint64_t *const *)d, nph, n, period, o.target, step, burst, ncpus > 0 ? (unsigned)ncpus : 1,
	       headroom, &ad);
	if (advise_interval((const uint64_t *const *)d, nph, n, period, o.target, step, ncpus > 0 ? (unsigned)ncpus : 1,
			    headroom, &su.iv)) {
		cgs_err("advise: out of memory");
		ret = CGS_EXIT_FAIL;
		goto out;
	}
	/* The demand's quantiles as its worst offset shows them: each period's most over the offsets' sorted lists. */
	if (!(sorted = calloc(n, sizeof(*sorted)))) {
		cgs_err("advise: out of memory");
		ret = CGS_EXIT_FAIL;
		goto out;
	}
	for (size_t p = 0; p < nph; p++) {
		qsort(d[p], n, sizeof(**d), u64_cmp);
		for (size_t i = 0; i < n; i++)
			if (d[p][i] > sorted[i])
				sorted[i] = d[p][i];
	}
	demand_free_all(d, nph);
	d = NULL;
	vb = ad.burst_ok && ad.bq_burst_us;
	if (o.verify && verify(argv + dd + 1, vb ? ad.bq_quota_us : ad.quota_us, period, vb ? ad.bq_burst_us : 0,
			       o.target, &v)) {
		ret = CGS_EXIT_FAIL;
		goto out;
	}
	if (o.json)
		print_json(path, &ad, sorted, aligned, o.verify ? &v : NULL, vb, &su);
	else
		print_text(path, &ad, sorted, aligned, o.verify ? &v : NULL, vb, &su);
	ret = v.ran && v.missed ? CGS_EXIT_FAIL : 0;
out:
	free(sorted);
	demand_free_all(d, nph);
	json_object_put(rep);
	return ret;
}
