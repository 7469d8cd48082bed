// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "lib/stop.h"

volatile sig_atomic_t cgs_stop;
volatile sig_atomic_t cgs_hup;

static void on_stop(int sig)
{
	cgs_stop = sig;
}

void stop_init(bool catch)
{
	struct sigaction sa = { .sa_handler = catch ? on_stop : SIG_DFL };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/*
	 * A reader that goes away (`enforce | head`) must not kill a command
	 * before it restores what it changed. The command gets a write error
	 * instead; output_closed() sees it and asks for a stop.
	 */
	signal(SIGPIPE, catch ? SIG_IGN : SIG_DFL);
}

static void on_hup(int sig)
{
	cgs_hup = 1;
}

void stop_catch_hup(void)
{
	struct sigaction sa = { .sa_handler = on_hup };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
}

bool output_closed(void)
{
	if (ferror(stdout)) {
		if (!cgs_stop)
			cgs_stop = SIGPIPE;
		return true;
	}
	return false;
}

int stop_status(void)
{
	return 128 + (cgs_stop ? cgs_stop : SIGINT);
}

const char *stop_name(void)
{
	return cgs_stop == SIGTERM ? "SIGTERM" : cgs_stop == SIGINT ? "SIGINT" : cgs_stop == SIGPIPE ? "a closed output" : "a signal";
}
