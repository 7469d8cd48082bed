/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Stop requests: SIGINT and SIGTERM, handled from the first line of main.
 * They are handled even if cgsched was started with them ignored, as a
 * background job of a non-interactive shell is (SIGINT). A signal during
 * start-up is never lost: every step of start-up checks cgs_stop.
 */
#ifndef CGS_STOP_H
#define CGS_STOP_H

#include <signal.h>
#include <stdbool.h>

/* The signal that asked us to stop, or 0. */
extern volatile sig_atomic_t cgs_stop;

/*
 * With catch, SIGINT and SIGTERM set cgs_stop. There is no SA_RESTART, so
 * a sleeping poll wakes with EINTR. Without catch, they take their default
 * action (terminate), even if ignored at start; this suits commands with
 * nothing to finish or undo. SIGPIPE is ignored when catching, and left
 * to its default otherwise.
 */
void stop_init(bool catch);
/*
 * SIGHUP asks for a reload: it sets cgs_hup, again without SA_RESTART.
 * This is for the commands that document it (enforce: the limits file;
 * export: the web config). They catch it from their first line, so a
 * SIGHUP during start-up never kills them. Elsewhere SIGHUP keeps its
 * default meaning: the terminal went away.
 */
extern volatile sig_atomic_t cgs_hup;
void stop_catch_hup(void);
/* The exit status of a run stopped before it began its work: 128 + signal. */
int stop_status(void);
/* Standard output failed (its reader went away): sets cgs_stop to SIGPIPE. */
bool output_closed(void);
/* "SIGINT", "SIGTERM", ... for messages. */
const char *stop_name(void);

#endif
