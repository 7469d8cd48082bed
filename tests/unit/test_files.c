// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The growth helpers (lib/util.c) and the one atomic-file writer (lib/atomic_file.c). */
#include <criterion/criterion.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/atomic_file.h"
#include "lib/util.h"

/* Doubling from the first size, the elements kept; room left: nothing moves. */
Test(grow, doubles_and_keeps)
{
	uint64_t *a = NULL;
	size_t n = 0, cap = 0;

	for (uint64_t i = 0; i < 1000; i++) {
		cr_assert_eq(ARRAY_GROW(a, n, cap, 16), 0);
		a[n++] = i * 7;
	}
	cr_assert_eq(cap, 1024);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(a[i], i * 7);
	uint64_t *before = a;
	cr_assert_eq(ARRAY_GROW(a, n, cap, 16), 0);
	cr_assert_eq(a, before, "room left: no realloc");
	free(a);
}

/* A bound: the last step is the bound itself, then -ENOMEM with the array as it was. */
Test(grow, bounded)
{
	int *a = NULL;
	size_t n = 0, cap = 0;

	while (!grow_array(&a, &cap, n, sizeof(*a), 4, 10))
		a[n++] = 1;
	cr_assert_eq(n, 10);
	cr_assert_eq(cap, 10);
	cr_assert_eq(grow_array(&a, &cap, n, sizeof(*a), 4, 10), -ENOMEM);
	cr_assert_eq(cap, 10);
	free(a);
}

/* A reused read's array: a quarter more than asked (and 16), kept while enough; too much: -ENOMEM, unmoved. */
Test(grow, room_for_a_creeping_count)
{
	uint64_t *a = NULL;
	size_t cap = 0;

	cr_assert_eq(ROOM_FOR(a, 1000, cap), 0);
	cr_assert_eq(cap, 1266);
	for (size_t i = 0; i < 1000; i++)
		a[i] = i;
	uint64_t *before = a;
	for (size_t need = 1001; need <= 1266; need++)
		cr_assert_eq(ROOM_FOR(a, need, cap), 0);
	cr_assert_eq(a, before, "a count creeping up to the room: no move");
	cr_assert_eq(ROOM_FOR(a, 1267, cap), 0);
	cr_assert_eq(cap, 1267 + 316 + 16);
	for (size_t i = 0; i < 1000; i++)
		cr_assert_eq(a[i], i);
	cr_assert_eq(ROOM_FOR(a, SIZE_MAX / 8, cap), -ENOMEM);
	cr_assert_eq(cap, 1267 + 316 + 16);
	free(a);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 4096);
	if (f) {
		fread(buf, 1, 4095, f);
		fclose(f);
	}
	return buf;
}

static int leftovers(const char *pattern)
{
	glob_t g;
	int r = glob(pattern, 0, NULL, &g);
	int n = r ? 0 : (int)g.gl_pathc;
	if (!r)
		globfree(&g);
	return n;
}

/* Kept: the new text at the name, the mode asked for, a symlink there replaced (not followed), no temporary left. */
Test(atomic_file, replaces_whole)
{
	char dir[] = "/tmp/cgs-afile-XXXXXX", path[256], other[256];
	struct stat st;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/out.json", dir);
	snprintf(other, sizeof(other), "%s/victim", dir);
	FILE *v = fopen(other, "w");
	fputs("keep", v);
	fclose(v);
	cr_assert_eq(symlink(other, path), 0);
	cr_assert_eq(atomic_file_put(path, "new\n", 4, 0644, true), 0);
	char *got = slurp(path);
	cr_assert_str_eq(got, "new\n");
	free(got);
	got = slurp(other);
	cr_assert_str_eq(got, "keep", "the link's target untouched");
	free(got);
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 0777, 0644);
	char pat[300];
	snprintf(pat, sizeof(pat), "%s/.out.json" ATOMIC_FILE_TAG "*", dir);
	cr_assert_eq(leftovers(pat), 0);
	cr_assert_eq(atomic_file_remove(path, true), 0);
	cr_assert_eq(atomic_file_remove(path, true), 0, "none there: 0");
	unlink(other);
	rmdir(dir);
}

/* Not kept: the old file as it was, nothing beside it; a killed writer's leftover is cleaned. */
Test(atomic_file, discard_and_clean)
{
	char dir[] = "/tmp/cgs-afile-XXXXXX", path[256], pat[300];
	struct atomic_file f;

	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/j", dir);
	snprintf(pat, sizeof(pat), "%s/.j" ATOMIC_FILE_TAG "*", dir);
	cr_assert_eq(atomic_file_put(path, "old", 3, 0, false), 0);
	cr_assert_eq(atomic_file_open(&f, path, 0, false), 0);
	cr_assert_eq(atomic_file_write(&f, "half", 4), 0);
	cr_assert_eq(leftovers(pat), 1, "written beside it meanwhile");
	cr_assert_eq(atomic_file_close(&f, false), 0);
	char *got = slurp(path);
	cr_assert_str_eq(got, "old");
	free(got);
	cr_assert_eq(leftovers(pat), 0);
	/* As if killed between open and close. */
	cr_assert_eq(atomic_file_open(&f, path, 0, false), 0);
	close(f.fd);
	free(f.path);
	free(f.tmp);
	cr_assert_eq(leftovers(pat), 1);
	atomic_file_clean(path);
	cr_assert_eq(leftovers(pat), 0);
	cr_assert_lt(atomic_file_open(&f, "/nonexistent-dir/x", 0, false), 0);
	unlink(path);
	rmdir(dir);
}

/*
 * The check makes the writer's own temporary name: a target name that fits
 * but whose temporary name does not is refused by the check, as the writer
 * would refuse it at the end. The longest that fits passes, and nothing is
 * left.
 */
Test(atomic_file, check_tries_the_temporary_name)
{
	char dir[] = "/tmp/cgs-afile-XXXXXX", path[1024], name[300];
	long max;

	cr_assert_not_null(mkdtemp(dir));
	max = pathconf(dir, _PC_NAME_MAX);
	cr_assert_gt(max, (long)ATOMIC_FILE_EXTRA + 1);
	cr_assert_eq(ATOMIC_FILE_EXTRA, 12);
	memset(name, 'a', sizeof(name));
	name[max - ATOMIC_FILE_EXTRA + 1] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "the target's own name fits");
	fclose(f);
	unlink(path);
	cr_assert_eq(atomic_file_check(path), -ENAMETOOLONG);
	cr_assert_eq(atomic_file_put(path, "x", 1, 0, false), -ENAMETOOLONG, "as the writer fails");
	name[max - ATOMIC_FILE_EXTRA] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert_eq(atomic_file_check(path), 0);
	cr_assert_eq(atomic_file_check("/nonexistent-dir/x"), -ENOENT);
	char pat[1100];
	snprintf(pat, sizeof(pat), "%s/.*" ATOMIC_FILE_TAG "*", dir);
	cr_assert_eq(leftovers(pat), 0);
	cr_assert_eq(rmdir(dir), 0, "nothing left in it");
}
