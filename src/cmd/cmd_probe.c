// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched probe: which backends this kernel accepts, found by loading and attaching each. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "kernel/cgroupfs.h"
#include "kernel/sched_ext.h"
#include "report/json_out.h"
#include "cmd/commands.h"
#include "trace/tracer.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched probe [--json] [-v]\n"
	"Load and attach every backend once, then detach. Report which backends\n"
	"this kernel accepts and where the cpu controller is mounted.\n"
	"\n"
	"      --json             one JSON object\n"
	"  -v, --verbose          libbpf's messages\n"
	"\n"
	"EXAMPLES\n"
	"  cgsched probe\n"
	"  cgsched probe --json | jq -r '.sched_backends[] | select(.ok) | .name'\n";

/* --json: each kind's array written as the probes come (they may come mixed), put together at the end. */
struct probe_list {
	char *text;
	size_t len;
	FILE *f;
	struct jw w;
};

struct probe_out {
	bool json;
	const char *section;
	struct probe_list sched, thr, window;
};

static int list_open(struct probe_list *l)
{
	if (!(l->f = open_memstream(&l->text, &l->len)))
		return -1;
	jw_init(&l->w, l->f, false);
	jw_array(&l->w);
	return 0;
}

static const char *list_close(struct probe_list *l)
{
	if (!l->f)
		return "[]";
	jw_end_array(&l->w);
	fclose(l->f);
	l->f = NULL;
	return l->text ? l->text : "[]";
}

/* Takes a list never opened, or closed already. */
static void list_free(struct probe_list *l)
{
	if (l->f)
		fclose(l->f);
	l->f = NULL;
	free(l->text);
	l->text = NULL;
}

static void one(void *vctx, const char *kind, const char *name, int err)
{
	struct probe_out *p = vctx;
	bool thr = !strcmp(kind, "throttle"), window = !strcmp(kind, "window");

	if (!p->json && (!p->section || strcmp(p->section, kind))) {
		p->section = kind;
		printf(thr ? "throttle backends (first that works is used):\n"
		       : window ? "the window's start on every CPU (else a thread nudges each CPU):\n"
			   : "scheduler backends (first that works is used):\n");
	}
	if (p->json) {
		struct probe_list *l = thr ? &p->thr : window ? &p->window : &p->sched;
		if (!l->f)
			return;
		jw_object(&l->w);
		jw_kstring(&l->w, "name", name);
		jw_kbool(&l->w, "ok", !err);
		jw_kstring(&l->w, "error", err ? (thr ? tracer_thr_hint(name, err) : tracer_sched_hint(name, err)) : NULL);
		jw_end_object(&l->w);
	} else {
		printf("  %-16s %s\n", name, err ? (thr ? tracer_thr_hint(name, err) : tracer_sched_hint(name, err)) : "ok");
	}
}

int cmd_probe(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	struct probe_out p = {};
	struct cgfs fs;
	struct utsname u;
	struct scx_state scx;
	char scx_text[160];
	const struct cmd_spec spec = {
		.name = "probe",
		.usage = usage,
		.shorts = "vh",
		.longs = longs,
		.opt = json_opt,
		.ctx = &p.json,
		.nargs = 0,
	};
	int first, err, ret = 0;
	bool btf;

	if ((err = cmd_parse(&spec, argc, argv, &first)))
		return err;
	if ((err = require_root("probing loads BPF programs")))
		return err;
	uname(&u);
	/* err: no cpu controller mounted. cgfs_close takes fs either way. */
	err = cgfs_open(&fs);
	btf = !access("/sys/kernel/btf/vmlinux", R_OK);
	scx_read(&scx, NULL);
	if (p.json) {
		struct jw w;
		if (list_open(&p.sched) || list_open(&p.thr) || list_open(&p.window)) {
			cgs_err("probe: out of memory");
			ret = CGS_EXIT_FAIL;
			goto out;
		}
		if (tracer_probe(one, &p) == -EINVAL) {
			ret = CGS_EXIT_USAGE; /* a bad CGS_SHARDS, told */
			goto out;
		}
		jw_init(&w, stdout, false);
		jw_object(&w);
		jw_kstring(&w, "schema", "cgsched/probe");
		jw_ki64(&w, "version", 1);
		jw_kstring(&w, "kernel", u.release);
		jw_kbool(&w, "btf", btf);
		jw_ki64_or_null(&w, "cgroup_version", !err, err ? 0 : fs.version);
		jw_kstring(&w, "cgroup_mount", err ? NULL : fs.mnt);
		jw_key(&w, "sched_backends");
		jw_raw(&w, list_close(&p.sched));
		jw_key(&w, "throttle_backends");
		jw_raw(&w, list_close(&p.thr));
		jw_key(&w, "window_start");
		jw_raw(&w, list_close(&p.window));
		jw_key(&w, "sched_ext");
		json_sched_ext(&w, &scx);
		jw_kbool(&w, "maps_preallocated", tracer_maps_preallocated());
		jw_end_object(&w);
		putchar('\n');
	} else {
		printf("kernel %s, BTF %s, ", u.release, btf ? "yes" : "no");
		if (err)
			printf("no cpu controller mounted\n");
		else
			printf("cpu controller on cgroup v%d at %s\n", fs.version, fs.mnt);
		printf("%s\n", scx.present ? scx_describe(&scx, scx_text, sizeof(scx_text))
					 : "sched_ext: not in this kernel (CONFIG_SCHED_CLASS_EXT)");
		if (tracer_maps_preallocated())
			printf("hash maps preallocated: no any-context BPF allocator here (Linux 6.1 added it)\n");
		if (tracer_probe(one, &p) == -EINVAL)
			ret = CGS_EXIT_USAGE;
	}
out:
	list_free(&p.sched);
	list_free(&p.thr);
	list_free(&p.window);
	cgfs_close(&fs);
	return ret;
}
