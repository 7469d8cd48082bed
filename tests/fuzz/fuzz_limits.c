// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer: the limits file, parsed and planned against a fake cgroup tree
 * (a temporary directory with a few cgroups and their files; no kernel).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "kernel/cgroupfs.h"
#include "limits/limits_file.h"

static struct cgfs fs;

static void put(const char *dir, const char *file, const char *val)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	if ((f = fopen(p, "w"))) {
		fputs(val, f);
		fclose(f);
	}
}

/* /, /a, /b, /b/c, each with the v1 files a plan reads. */
static void fake_tree(void)
{
	static char root[] = "/tmp/cgs-fuzz-XXXXXX";
	static const char *dirs[] = { "", "/a", "/b", "/b/c" };
	char d[PATH_MAX];

	if (!mkdtemp(root))
		abort();
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(d, sizeof(d), "%s%s", root, dirs[i]);
		mkdir(d, 0755);
		put(d, "cpu.shares", "1024\n");
		put(d, "cpu.cfs_quota_us", "-1\n");
		put(d, "cpu.cfs_period_us", "100000\n");
		put(d, "cpu.cfs_burst_us", "0\n");
	}
	fs.version = 1;
	snprintf(fs.mnt, sizeof(fs.mnt), "%s", root);
	fs.mnt_fd = open(root, O_RDONLY | O_DIRECTORY);
	if (fs.mnt_fd < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct limits_file lf;
	struct plan p;
	char err[PATH_MAX + 256], *text;

	if (!fs.mnt_fd)
		fake_tree();
	if (!(text = fuzz_text(data, size)))
		return 0;
	if (!limits_file_parse(text, size, "fuzz.ini", &fs, &lf, err, sizeof(err))) {
		if (!plan_build(&lf, &fs, NULL, NULL, &p)) {
			plan_print(fuzz_devnull(), &p);
			plan_free(&p);
		}
		limits_file_free(&lf);
	}
	free(text);
	return 0;
}
