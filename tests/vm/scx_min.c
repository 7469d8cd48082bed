// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Load tests/vm/scx_min.bpf.c's sched_ext scheduler (the object beside this
 * binary, or argv[1]), say "ready", keep it until SIGTERM or SIGINT.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

/* Linux 6.4's uapi; Debian 12's headers are 6.1's. */
#ifndef BPF_F_LINK
#define BPF_F_LINK (1U << 13)
#endif
#define CGS_BPF_STRUCT_OPS 44 /* enum bpf_attach_type, 6.4+ */

static volatile sig_atomic_t stop;

static void on_sig(int s)
{
	(void)s;
	stop = 1;
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX], obj_path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (argc > 1) {
		snprintf(obj_path, sizeof(obj_path), "%s", argv[1]);
	} else if (n > 0) {
		exe[n] = '\0';
		snprintf(obj_path, sizeof(obj_path), "%s/scx_min.bpf.o", dirname(exe));
	} else {
		fprintf(stderr, "scx_min: cannot find myself: %s\n", strerror(errno));
		return 1;
	}
	/* Handlers first: a stop before "ready" still detaches. */
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	struct bpf_object *obj = bpf_object__open_file(obj_path, NULL);
	struct bpf_map *ops = obj ? bpf_object__find_map_by_name(obj, "cgs_scx_min") : NULL;
	/*
	 * A struct_ops map with BPF_F_LINK registers only through a link, and a
	 * link ends with its last fd: the scheduler goes when this process
	 * does, even by SIGKILL. (libbpf 1.1 has no .struct_ops.link sections:
	 * the flag by hand; its attach then only fills the map, and the link is
	 * made here.)
	 */
	if (!ops || bpf_map__set_map_flags(ops, bpf_map__map_flags(ops) | BPF_F_LINK) || bpf_object__load(obj)) {
		fprintf(stderr, "scx_min: cannot load %s: %s\n", obj_path, strerror(errno));
		return 1;
	}
	struct bpf_link *fill = bpf_map__attach_struct_ops(ops);
	int link = fill ? bpf_link_create(bpf_map__fd(ops), 0, CGS_BPF_STRUCT_OPS, NULL) : -1;
	if (link < 0) {
		fprintf(stderr, "scx_min: cannot attach the scheduler: %s\n", strerror(errno));
		bpf_object__close(obj);
		return 1;
	}
	fprintf(stderr, "ready\n");
	while (!stop)
		pause();
	close(link);
	bpf_object__close(obj);
	return 0;
}
