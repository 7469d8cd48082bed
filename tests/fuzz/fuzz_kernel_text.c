// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: what cgsched reads from the kernel as text: mountinfo lines and cpu.stat / cpu.max files. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kernel/cgroupfs.h"
#include "figures/kstat.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct mountinfo_ent e;
	struct kstat k;
	char *s;

	if (!(s = fuzz_text(data, size)))
		return 0;
	mountinfo_parse_line(s, &e);
	opts_have(s, "cpu");
	/* The same text as each file of a cgroup's figures. */
	kstat_parse_v1(s, s, s, s, s, &k);
	kstat_parse_v2(s, s, s, s, &k);
	free(s);
	return 0;
}
