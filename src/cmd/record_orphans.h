/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What a record killed by SIGKILL (or the OOM killer) leaves: its cgroup,
 * /cgsched-record-PID, with the limits it was given and whatever of CMD
 * still runs in it, unsupervised (the BPF programs went with the process).
 * A running record holds an flock on its cgroup's directory; a cgroup of
 * that name whose lock is free and whose PID is not alive is an orphan.
 */
#ifndef CGS_RECORD_ORPHANS_H
#define CGS_RECORD_ORPHANS_H

#include <stdbool.h>

struct cgfs;

/* Mark the cgroup as record's while it runs: the fd to keep open (-errno when it could not). */
int record_claim(struct cgfs *fs, const char *rel);

/*
 * Every orphan: removed when empty (a line on stderr each); with processes
 * still in it, named with how to end them, or with end_them, they are
 * killed and it is removed. Returns how many are left.
 */
int record_orphans(struct cgfs *fs, bool end_them);

#endif
