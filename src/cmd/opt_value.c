/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Option values shared by several commands' parsers (options.h). */
#include <stdint.h>

#include "cmd/options.h"
#include "lib/util.h"

int opt_duration(const char *opt, const char *arg, uint64_t unit_ns, uint64_t min, uint64_t max,
		 const char *range, uint64_t *out)
{
	uint64_t v;

	if (parse_duration_ns(arg, unit_ns, &v) || v < min || (max && v > max)) {
		cgs_err("%s %s: expected a duration %s", opt, arg, range);
		return -1;
	}
	*out = v;
	return 0;
}
