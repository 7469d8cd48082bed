// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <criterion/criterion.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_cgfs.h"

void fake_cgfs_open(struct cgfs *fs, char *dir)
{
	cr_assert_not_null(mkdtemp(dir));
	memset(fs, 0, sizeof(*fs));
	fs->version = 1;
	snprintf(fs->mnt, sizeof(fs->mnt), "%s", dir);
	fs->mnt_fd = open(dir, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fs->mnt_fd, 0);
}

void fake_cgfs_close(struct cgfs *fs, char *dir)
{
	char cmd[PATH_MAX + 16];

	close(fs->mnt_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	strcpy(dir, "/tmp/cgs-unit-XXXXXX");
}

void fake_cgfs_put(const char *dir, const char *rel, const char *val)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	FILE *f = fopen(p, "w");
	cr_assert_not_null(f, "%s", p);
	fputs(val, f);
	fclose(f);
}
