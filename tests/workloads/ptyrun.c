// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ptyrun SECONDS AFTER_MS KEYS CMD [ARG...]: run CMD on a pseudo-terminal
 * of 40 lines and 160 columns (its stdin, stdout and stderr, and its
 * controlling terminal), copy everything it writes there to stdout, type
 * KEYS ("" for none) AFTER_MS after the start, and kill it (SIGKILL) when
 * it has not ended after SECONDS. Exits with CMD's status, 124 when it had
 * to be killed. For the tests of top's screen where tmux is not (the QEMU
 * guests: busybox has neither tmux nor script).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 40, .ws_col = 160 };
	char buf[4096];
	int master, status = 0;
	pid_t pid;

	if (argc < 5) {
		fprintf(stderr, "usage: ptyrun SECONDS AFTER_MS KEYS CMD [ARG...]\n");
		return 2;
	}
	long long end = now_ms() + atoll(argv[1]) * 1000, keys_at = now_ms() + atoll(argv[2]);
	const char *keys = argv[3];
	if ((master = posix_openpt(O_RDWR | O_NOCTTY)) < 0 || grantpt(master) || unlockpt(master)) {
		perror("ptyrun: a pseudo-terminal");
		return 2;
	}
	ioctl(master, TIOCSWINSZ, &ws);
	if ((pid = fork()) < 0) {
		perror("ptyrun: fork");
		return 2;
	}
	if (!pid) {
		int slave;
		setsid();
		if ((slave = open(ptsname(master), O_RDWR)) < 0) {
			perror("ptyrun: the terminal's other end");
			_exit(127);
		}
		ioctl(slave, TIOCSCTTY, 0);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		if (slave > 2)
			close(slave);
		close(master);
		execvp(argv[4], argv + 4);
		perror(argv[4]);
		_exit(127);
	}
	/* Copy until the terminal's other end is closed by every process that held it. */
	for (;;) {
		long long t = now_ms();
		if (t >= end) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			fprintf(stderr, "ptyrun: %s still running after %s s: killed\n", argv[4], argv[1]);
			return 124;
		}
		if (*keys && t >= keys_at) {
			if (write(master, keys, strlen(keys)) < 0)
				perror("ptyrun: typing");
			keys = "";
		}
		long long next = *keys && keys_at < end ? keys_at : end;
		struct pollfd p = { .fd = master, .events = POLLIN };
		int n = poll(&p, 1, next - t > 100 ? 100 : (int)(next - t));
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		ssize_t r = read(master, buf, sizeof(buf));
		if (r <= 0)
			break; /* EIO: no process has the terminal open any more */
		fwrite(buf, 1, r, stdout);
	}
	waitpid(pid, &status, 0);
	fflush(stdout);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
