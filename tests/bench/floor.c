// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Attach bpf/floor.bpf.c's empty programs, say "ready", wait for SIGTERM/SIGINT. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "floor.skel.h"

static volatile sig_atomic_t stop;

static void on_sig(int s)
{
	stop = 1;
}

int main(void)
{
	struct floor_bpf *s = floor_bpf__open_and_load();

	if (!s || floor_bpf__attach(s)) {
		fprintf(stderr, "floor: cannot load or attach\n");
		return 1;
	}
	signal(SIGTERM, on_sig);
	signal(SIGINT, on_sig);
	fprintf(stderr, "ready\n");
	while (!stop)
		pause();
	floor_bpf__destroy(s);
	return 0;
}
