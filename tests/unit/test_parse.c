// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"

Test(parse, u64_accepts_only_whole_numbers)
{
	uint64_t v;

	cr_assert_eq(parse_u64("42", 0, 100, &v), 0);
	cr_assert_eq(v, 42);
	cr_assert_eq(parse_u64("0", 0, 100, &v), 0);
	cr_assert_eq(parse_u64("abc", 0, 100, &v), -EINVAL, "abc is not 0");
	cr_assert_eq(parse_u64("", 0, 100, &v), -EINVAL);
	cr_assert_eq(parse_u64("12x", 0, 100, &v), -EINVAL);
	cr_assert_eq(parse_u64("-1", 0, 100, &v), -EINVAL, "no wrap-around of negatives");
	cr_assert_eq(parse_u64(" 1", 0, 100, &v), -EINVAL);
	cr_assert_eq(parse_u64("101", 0, 100, &v), -ERANGE);
	cr_assert_eq(parse_u64("5", 10, 100, &v), -ERANGE);
	cr_assert_eq(parse_u64("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
}

Test(parse, durations)
{
	uint64_t v;

	cr_assert_eq(parse_duration_ns("1", 1000000000ULL, &v), 0);
	cr_assert_eq(v, 1000000000ULL);
	cr_assert_eq(parse_duration_ns("1.5", 1000000000ULL, &v), 0);
	cr_assert_eq(v, 1500000000ULL);
	cr_assert_eq(parse_duration_ns("250ms", 1000000000ULL, &v), 0);
	cr_assert_eq(v, 250000000ULL);
	cr_assert_eq(parse_duration_ns("100us", 1, &v), 0);
	cr_assert_eq(v, 100000ULL);
	cr_assert_eq(parse_duration_ns("2m", 1, &v), 0);
	cr_assert_eq(v, 120000000000ULL);
	cr_assert_eq(parse_duration_ns("7ns", 1000, &v), 0);
	cr_assert_eq(v, 7);
	cr_assert_eq(parse_duration_ns("5parsecs", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("-1", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("s", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("nan", 1, &v), -EINVAL);
	/* What the help says and nothing else: strtod would take all of these. */
	cr_assert_eq(parse_duration_ns("1e30s", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("1e3", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("0x10", 1000000000ULL, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns(" 1", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("+1", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("inf", 1, &v), -EINVAL);
	cr_assert_eq(parse_duration_ns("1.", 1000, &v), 0);
	cr_assert_eq(v, 1000);
	cr_assert_eq(parse_duration_ns(".5s", 1, &v), 0);
	cr_assert_eq(v, 500000000ULL);
	cr_assert_eq(parse_duration_ns("99999999999999999999s", 1, &v), -ERANGE);
	cr_assert_eq(parse_duration_ns("0.1ns", 1, &v), -ERANGE);
	cr_assert_eq(parse_duration_ns("0", 1, &v), 0);
	cr_assert_eq(v, 0);
}

Test(parse, decimal_only)
{
	double d;
	const char *end;

	cr_assert_eq(parse_decimal("12.5%", &d, &end), 0);
	cr_assert_float_eq(d, 12.5, 1e-9);
	cr_assert_str_eq(end, "%");
	cr_assert_eq(parse_decimal(".", &d, &end), -EINVAL);
	cr_assert_eq(parse_decimal("-1", &d, &end), -EINVAL);
	cr_assert_eq(parse_decimal("nan", &d, &end), -EINVAL);
	cr_assert_eq(parse_decimal("0x1p3", &d, &end), 0); /* "0", then "x1p3" left for the caller to refuse */
	cr_assert_str_eq(end, "x1p3");
}

/* Names from the tree are anyone's bytes: nothing reaches a terminal or a JSON parser raw. */
Test(format, names_escaped)
{
	char b[256];

	cr_assert_str_eq(text_escape("/web", b, sizeof(b)), "/web");
	cr_assert_str_eq(text_escape("/a\nb", b, sizeof(b)), "/a\\x0ab");
	cr_assert_str_eq(text_escape("/\033[2J", b, sizeof(b)), "/\\x1b[2J");
	cr_assert_str_eq(text_escape("/x\\y", b, sizeof(b)), "/x\\\\y");
	cr_assert_str_eq(text_escape("/caf\xc3\xa9", b, sizeof(b)), "/caf\xc3\xa9", "valid UTF-8 stays");
	cr_assert_str_eq(text_escape("/\xff\xc3", b, sizeof(b)), "/\\xff\\xc3");
	cr_assert_str_eq(text_escape("/\xc2\x9b", b, sizeof(b)), "/\\xc2\\x9b", "C1 CSI escaped");
	cr_assert_str_eq(text_escape("/\xed\xa0\x80", b, sizeof(b)), "/\\xed\\xa0\\x80", "a surrogate is not UTF-8");
	cr_assert_null(text_escape(NULL, b, sizeof(b)));
	/* Cut at a whole step when full, always terminated. */
	char small[12];
	text_escape("/\n\n\n\n\n", small, sizeof(small));
	cr_assert(strlen(small) < sizeof(small));
	cr_assert_str_eq(small, "/\\x0a");

	cr_assert_str_eq(utf8_valid("/caf\xc3\xa9", b, sizeof(b)), "/caf\xc3\xa9");
	cr_assert_str_eq(utf8_valid("/a\xff" "b", b, sizeof(b)), "/a\xef\xbf\xbd" "b");
	cr_assert_str_eq(utf8_valid("/\xf0\x9f\x98", b, sizeof(b)), "/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "a cut sequence");
}

Test(format, durations_in_human_units)
{
	char b[32];

	cr_assert_str_eq(fmt_duration(b, sizeof(b), 0), "0ns");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 812), "812ns");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 1500), "1.50us");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 27900), "27.9us");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 3270000), "3.27ms");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 999999999), "1.00s", "no '1000ms'");
	cr_assert_str_eq(fmt_duration(b, sizeof(b), 125000000000ULL), "125s");
}

/* One line whatever a message quotes: control bytes as \xNN; backslashes stay (messages quote commands). */
Test(format, error_line_escaped, .init = cr_redirect_stderr)
{
	cgs_err("--cgroup %s: no such cgroup", "a\nb\033[2J\\n\x7f");
	fflush(stderr);
	cr_assert_stderr_eq_str("cgsched: error: --cgroup a\\x0ab\\x1b[2J\\n\\x7f: no such cgroup\n");
}

/* Output files (record -o, --timeline): refused before anything runs, nothing left behind. */
Test(parse, output_paths)
{
	char dir[] = "/tmp/cgs-unit-out-XXXXXX", path[64], cmd[96];
	const char *why = NULL;

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(output_path_check("", &why), -EINVAL);
	cr_assert_str_eq(why, "an empty name");
	cr_assert_eq(output_path_check(dir, &why), -EISDIR);
	cr_assert_str_eq(why, "a directory, not a file");
	snprintf(path, sizeof(path), "%s/sub/", dir);
	cr_assert_eq(output_path_check(path, &why), -EINVAL, "a name ending in '/' is a directory");
	snprintf(path, sizeof(path), "%s/no/r.json", dir);
	cr_assert_eq(output_path_check(path, &why), -ENOENT);
	cr_assert_neq(output_path_check("/proc/r.json", &why), 0, "nothing can be made in /proc, even by root");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	cr_assert_eq(output_path_check(path, &why), 0);
	/* The probe file is gone: the directory is empty (rmdir would fail otherwise). */
	cr_assert_eq(rmdir(dir), 0, "the check left a file in %s", dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)!system(cmd);
}
