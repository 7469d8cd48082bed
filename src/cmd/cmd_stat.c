// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched stat: the kernel's bandwidth figures of every cgroup, read at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/cgroupfs.h"
#include "cmd/commands.h"
#include "figures/kstat_src.h"
#include "lib/util.h"
#include "report/json_out.h"

static const char usage[] =
	"Usage: cgsched stat [--method auto|iter|files] [--json] [--limited] [-t] [-v]\n"
	"Print the kernel's own bandwidth account of every cgroup of the cpu\n"
	"controller: quota, period, burst, periods, throttled periods and throttled\n"
	"time.\n"
	"\n"
	"      --method M         iter: one pass of a BPF cgroup iterator (Linux 6.1+).\n"
	"                         files: read each cgroup's cpu.stat and quota files.\n"
	"                         auto (default): iter where the kernel allows it\n"
	"      --limited          only cgroups with a quota\n"
	"      --json             one JSON object\n"
	"  -t, --timing           print how long the read took, on stderr\n"
	"  -v, --verbose          libbpf's messages\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched stat --limited\n"
	"  cgsched stat --method files -t >/dev/null\n";

struct stat_out {
	struct cgfs *fs;
	bool json, limited;
	struct jw w;           /* --json: each cgroup written as the pass gives it */
	size_t n;
};

static void one(void *vctx, uint64_t id, const char *path, const struct kstat *k)
{
	struct stat_out *o = vctx;
	char a[16], b[16], c[16], d[16], esc[4 * PATH_MAX];

	if (o->limited && k->quota_us < 0)
		return;
	if (!path && !(path = cgfs_path(o->fs, id, false, NULL)))
		return; /* removed meanwhile */
	o->n++;
	if (o->json) {
		struct jw *w = &o->w;
		jw_object(w);
		jw_ku64(w, "id", id);
		jw_kname(w, "path", path); /* valid UTF-8 whatever the name's bytes */
		jw_ki64_or_null(w, "quota_us", k->quota_us >= 0, k->quota_us);
		jw_ku64(w, "period_us", k->period_us);
		jw_ku64(w, "burst_us", k->burst_us);
		jw_ku64(w, "nr_periods", k->nr_periods);
		jw_ku64(w, "nr_throttled", k->nr_throttled);
		jw_ku64(w, "throttled_ns", k->throttled_ns);
		jw_end_object(w);
		return;
	}
	/* Cgroup names are anyone's bytes: escaped, none moves root's cursor. */
	printf("%-40s %9s %9s %9s %10llu %10llu %12s\n", text_escape(path, esc, sizeof(esc)),
	       k->quota_us < 0 ? "max" : fmt_duration(a, sizeof(a), k->quota_us * 1000),
	       fmt_duration(b, sizeof(b), k->period_us * 1000),
	       k->burst_us ? fmt_duration(c, sizeof(c), k->burst_us * 1000) : "0",
	       (unsigned long long)k->nr_periods, (unsigned long long)k->nr_throttled,
	       fmt_duration(d, sizeof(d), k->throttled_ns));
}

struct stat_opts {
	enum kstat_method m;
	bool timing;
	struct stat_out *o;
};

static int stat_opt(void *ctx, int c, const char *arg)
{
	struct stat_opts *so = ctx;

	switch (c) {
	case 'M':
		if (!strcmp(arg, "iter"))
			so->m = KSTAT_ITER;
		else if (!strcmp(arg, "files"))
			so->m = KSTAT_FILES;
		else if (strcmp(arg, "auto")) {
			cgs_err("--method %s: expected auto, iter or files", arg);
			return OPT_BAD;
		}
		return OPT_TAKEN;
	case OPT_JSON:
		so->o->json = true;
		return OPT_TAKEN;
	case 'l':
		so->o->limited = true;
		return OPT_TAKEN;
	case 't':
		so->timing = true;
		return OPT_TAKEN;
	}
	return OPT_NOT_MINE;
}

int cmd_stat(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "method", required_argument, NULL, 'M' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "limited", no_argument, NULL, 'l' },
		{ "timing", no_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	enum kstat_method m = KSTAT_AUTO;
	struct stat_out o = {};
	struct kstat_src ks = {};
	struct cgfs fs;
	struct stat_opts so = { .m = KSTAT_AUTO, .o = &o };
	const struct cmd_spec spec = {
		.name = "stat",
		.usage = usage,
		.shorts = "tvh",
		.longs = longs,
		.opt = stat_opt,
		.ctx = &so,
		.nargs = 0,
	};
	uint64_t t0, t1, t2, tp = 0;
	int first, err, ret = CGS_EXIT_USAGE;
	bool timing;

	if ((err = cmd_parse(&spec, argc, argv, &first)))
		return err;
	m = so.m;
	timing = so.timing;
	if ((err = require_root("the cgroup iterator is a BPF program")))
		return err;
	if ((err = cgfs_open_or_explain(&fs)))
		return err;
	t0 = now_ns();
	if ((err = kstat_src_open(&ks, &fs, m))) {
		cgs_err("--method iter: the kernel refused the BPF cgroup iterator (%s); it needs Linux 6.1 or later, or use --method files",
			strerror(-err));
		goto out;
	}
	t1 = now_ns();
	if (timing) {
		/* The bare pass, as top does each interval: every cgroup's figures, no paths. */
		kstat_src_refresh(&ks);
		tp = now_ns() - t1;
		t1 = now_ns();
	}
	o.fs = &fs;
	if (o.json) {
		jw_init(&o.w, stdout, false);
		jw_object(&o.w);
		jw_kstring(&o.w, "schema", "cgsched/stat");
		jw_ki64(&o.w, "version", 1);
		jw_kstring(&o.w, "method", kstat_method_name(ks.method));
		jw_karray(&o.w, "cgroups");
	} else {
		printf("%-40s %9s %9s %9s %10s %10s %12s\n", "CGROUP", "QUOTA", "PERIOD", "BURST",
		       "PERIODS", "THROTTLED", "THROTTLED_T");
	}
	err = kstat_src_all(&ks, one, &o);
	t2 = now_ns();
	if (o.json) {
		jw_end_array(&o.w);
		jw_end_object(&o.w);
		putchar('\n');
	}
	if (timing)
		fprintf(stderr, "cgsched: %zu cgroups by %s: set-up %.1f ms, pass %.1f ms, listing with paths %.1f ms\n",
			o.n, kstat_method_name(ks.method), (t1 - t0 - tp) / 1e6, tp / 1e6, (t2 - t1) / 1e6);
	if (ks.full)
		cgs_warn("%llu cgroups did not fit the iterator's map: figures incomplete",
			 (unsigned long long)ks.full);
	if (ks.unread)
		cgs_warn("%llu cgroups' bandwidth figures could not be read by the iterator: not listed "
			 "(--method files reads them from cgroupfs)", (unsigned long long)ks.unread);
	ret = 0;
	if (err) {
		cgs_err("reading the kernel's figures failed: %s", strerror(-err));
		ret = CGS_EXIT_FAIL;
	}
out:
	kstat_src_close(&ks);
	cgfs_close(&fs);
	return ret;
}
