// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the record report check reads, against every rule, also as its own baseline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#include "fuzz.h"
#include "cmd/rules.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct rules r = {
		.has_thr = true, .has_p99 = true, .has_cpu = true, .has_regr = true,
		.max_thr_pct = 5, .min_cpu_pct = 10, .max_regr_pct = 10, .max_p99_ns = 1000000,
	};
	struct json_object *o;
	char *text;

	if (!(text = fuzz_text(data, size)))
		return 0;
	if ((o = report_parse(text, size, "fuzz.json"))) {
		rules_eval(&r, o, "fuzz.json", o, "fuzz.json", fuzz_devnull());
		json_object_put(o);
	}
	free(text);
	return 0;
}
