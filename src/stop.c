// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "stop.h"

volatile sig_atomic_t cgs_stop;

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
}

int stop_status(void)
{
	return 128 + (cgs_stop ? cgs_stop : SIGINT);
}

const char *stop_name(void)
{
	return cgs_stop == SIGTERM ? "SIGTERM" : cgs_stop == SIGINT ? "SIGINT" : "a signal";
}
