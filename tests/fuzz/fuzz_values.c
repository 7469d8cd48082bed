// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: every parser of a value on the command line or in a limits
 * file (durations, sizes, percentages, limits, weights), cgroup path
 * normalisation, the names read from cgroup paths (units, containers, pods),
 * and the escapes names get on the way out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kernel/cgroupfs.h"
#include "limits/cpu_limits.h"
#include "lib/cgname.h"
#include "cmd/rules.h"
#include "lib/util.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *s, out[PATH_MAX], esc[4 * PATH_MAX];
	uint64_t v, q, p;
	double d;
	const char *why, *end;
	struct rules r = {};

	if (!(s = fuzz_text(data, size)))
		return 0;
	parse_u64(s, 0, UINT64_MAX, &v);
	parse_decimal(s, &d, &end);
	if (!parse_duration_ns(s, 1000, &v) && v > 9200000000000000000ULL)
		abort(); /* past the documented bound */
	if (!parse_cpu_max(s, &q, &p, &why) && q > CGS_QUOTA_MAX_US)
		abort(); /* past the kernel's bound */
	parse_cpu_weight(s, &v, &why);
	rules_opt(&r, OPT_MAX_THR, s);
	rules_opt(&r, OPT_MIN_CPU, s);
	rules_opt(&r, OPT_MAX_P99, s);
	rules_opt(&r, OPT_MAX_REGR, s);
	if (!cgpath_normalize("/sys/fs/cgroup/cpu", s, out, sizeof(out)) &&
	    (out[0] != '/' || strstr(out, "/../") || strstr(out, "//")))
		abort(); /* a normalised path is absolute, without .. or empty parts */
	struct cgname cn;
	cgname_decode(s, &cn);
	if (cn.unit[sizeof(cn.unit) - 1] || cn.container[sizeof(cn.container) - 1] || cn.pod_uid[sizeof(cn.pod_uid) - 1])
		abort(); /* every field terminated */
	if (cn.container[0] && strlen(cn.container) != CGNAME_ID_MAX)
		abort(); /* an id is whole or absent */
	if (cn.pod_uid[0] && !cn.qos[0])
		abort(); /* a pod has its QoS class */
	cgname_short(&cn, out, 24); /* a small buffer: cut, terminated */
	text_escape(s, esc, sizeof(esc));
	for (const unsigned char *c = (const unsigned char *)esc; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			abort(); /* no control byte survives */
	utf8_valid(s, esc, sizeof(esc));
	text_escape(s, out, 16); /* a small buffer: cut, terminated */
	free(s);
	return 0;
}
