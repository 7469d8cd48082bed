/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A temporary directory standing in for a v1 cgroupfs, for tests of code that writes cgroup files. */
#ifndef CGS_FAKE_CGFS_H
#define CGS_FAKE_CGFS_H

#include "kernel/cgroupfs.h"

/* dir: a mkdtemp template ("/tmp/cgs-unit-XXXXXX"), made and opened as fs's mount. */
void fake_cgfs_open(struct cgfs *fs, char *dir);
/* Close fs, remove the tree, and put the template back for the next test. */
void fake_cgfs_close(struct cgfs *fs, char *dir);

/* Write a file of the tree (rel below dir) with val. */
void fake_cgfs_put(const char *dir, const char *rel, const char *val);

#endif
