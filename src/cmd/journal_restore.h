/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Putting back what enforce's journal holds: cgsched apply --restore, and enforce at start. */
#ifndef CGS_JOURNAL_RESTORE_H
#define CGS_JOURNAL_RESTORE_H

#include <stdbool.h>

struct cgfs;

/* Where the lines go: item is true for one file's change ("/a cpu.shares: 3072 -> 1024"). */
typedef void (*restore_say)(void *ctx, bool item, const char *line);

/*
 * With the journal's lock held (journal_lock): check the whole journal
 * first, then write its values back, newest first, and remove it. A
 * journal of an earlier boot is removed unread: its cgroups were made
 * afresh at boot. dry: say what would change, write nothing, keep it.
 * *found says whether there was a journal. Returns 0, or CGS_EXIT_USAGE
 * after one error line (malformed, another hierarchy, a write the kernel
 * refused: every value already written is rolled back, the journal kept),
 * or the stop status when a signal stopped it (rolled back too).
 */
int journal_restore(const char *path, struct cgfs *fs, bool dry, bool *found, restore_say say, void *ctx);

#endif
