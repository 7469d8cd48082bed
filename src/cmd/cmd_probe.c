// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* cgsched probe: which backends this kernel accepts, found by loading and attaching each. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <json-c/json.h>

#include "kernel/cgroupfs.h"
#include "kernel/sched_ext.h"
#include "out/json_out.h"
#include "cmd/commands.h"
#include "trace/tracer.h"
#include "lib/util.h"

static const char usage[] =
	"Usage: cgsched probe [--json] [-v]\n"
	"Load and attach every backend once, detach, and report which ones this\n"
	"kernel accepts and where the cpu controller is mounted.\n";

struct probe_out {
	bool json;
	const char *section;
	struct json_object *sched, *thr, *window;
};

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
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "ok", json_object_new_boolean(!err));
		json_object_object_add(o, "error", err ? json_object_new_string(thr ? tracer_thr_hint(name, err) : tracer_sched_hint(name, err)) : NULL);
		json_object_array_add(thr ? p->thr : window ? p->window : p->sched, o);
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
	const struct cmd_spec spec = { "probe", usage, "vh", longs, json_opt, &p.json, NULL, NULL, 0, NULL };
	int first, err;

	if ((err = cmd_parse(&spec, argc, argv, &first)))
		return err;
	if ((err = require_root("probing loads BPF programs")))
		return err;
	uname(&u);
	err = cgfs_open(&fs);
	bool btf = !access("/sys/kernel/btf/vmlinux", R_OK);
	struct scx_state scx;
	char scx_text[160];
	scx_read(&scx, NULL);
	if (p.json) {
		struct json_object *o = json_object_new_object();
		p.sched = json_object_new_array();
		p.thr = json_object_new_array();
		p.window = json_object_new_array();
		tracer_probe(one, &p);
		json_object_object_add(o, "schema", json_object_new_string("cgsched/probe"));
		json_object_object_add(o, "version", json_object_new_int(1));
		json_object_object_add(o, "kernel", json_object_new_string(u.release));
		json_object_object_add(o, "btf", json_object_new_boolean(btf));
		json_object_object_add(o, "cgroup_version", err ? NULL : json_object_new_int(fs.version));
		json_object_object_add(o, "cgroup_mount", err ? NULL : json_object_new_string(fs.mnt));
		json_object_object_add(o, "sched_backends", p.sched);
		json_object_object_add(o, "throttle_backends", p.thr);
		json_object_object_add(o, "window_start", p.window);
		json_object_object_add(o, "sched_ext", json_sched_ext(&scx));
		json_object_object_add(o, "maps_preallocated", json_object_new_boolean(tracer_maps_preallocated()));
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
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
		tracer_probe(one, &p);
	}
	if (!err)
		cgfs_close(&fs);
	return 0;
}
