/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * quiet-timeout - timeout(1) that measures silence, not age (issue 34).
 *
 *   quiet-timeout [-k KILL] [-t TOTAL] SILENCE COMMAND [ARG...]
 *
 * Runs COMMAND with its standard output and error passed through as they
 * come.  It is stopped (SIGTERM, SIGKILL KILL seconds later, default 5)
 * once it has printed nothing for SILENCE seconds, or, with -t, once it
 * has run TOTAL seconds; quiet-timeout then says so on its standard error
 * and exits 124, as timeout(1) does.  Otherwise its exit status is the
 * command's (128 + N when signal N ended it).
 *
 * Why: a test's timeout is there to catch a hang, not a slow machine.  A
 * test program that prints its progress (serial-ias: "50 connections so
 * far") and is only slow, on a busy 2-core machine, used to be killed at
 * its fixed limit while it still worked (make check, 2026-12-02: 700 of
 * 1,000 shm connections in the 100 s).  A hung program prints nothing,
 * and is stopped as soon as before.
 *
 * Where the standard output and error are one file (bats's `run`, a
 * `> out 2>&1`), the command gets one pipe for both, so that their order
 * is kept.  SIGTERM, SIGINT and SIGHUP sent to quiet-timeout (a test's
 * teardown killing its server) go on to the command.  Once the command
 * has ended, what its children still print is passed on until they close
 * the pipe or stay silent for SILENCE seconds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(void)
{
	fprintf(stderr, "usage: quiet-timeout [-k KILL] [-t TOTAL] SILENCE "
			"COMMAND [ARG...]\n");
	return 125;
}

static int seconds(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || *out <= 0;
}

/* fd 1 and fd 2 are the same open file (or pipe)? */
static int same_file(void)
{
	struct stat a, b;
	int fa = fcntl(1, F_GETFL), fb = fcntl(2, F_GETFL);

	return !fstat(1, &a) && !fstat(2, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino && fa == fb;
}

/* Copies what fd has to out (-1: drop it); what read(2) returned. */
static ssize_t relay(int fd, int *out)
{
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof(buf)), off = 0;

	while (n > 0 && *out >= 0 && off < n) {
		ssize_t w = write(*out, buf + off, (size_t)(n - off));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			*out = -1; /* the reader went away: keep draining */
			break;
		}
		off += w;
	}
	return n;
}

int main(int argc, char **argv)
{
	double silence, total = 0, kill_after = 5, start, heard, stopped = 0;
	int opt, pipes[2][2], npipes, outs[2] = {1, 2}, open_fds, i, sfd;
	int status = 0, reaped = 0, timed_out = 0;
	struct pollfd pfd[3];
	sigset_t set;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+k:t:")) != -1) {
		if (opt == 'k' && !seconds(optarg, &kill_after))
			continue;
		if (opt == 't' && !seconds(optarg, &total))
			continue;
		return usage();
	}
	if (argc - optind < 2 || seconds(argv[optind], &silence))
		return usage();
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	npipes = same_file() ? 1 : 2;
	for (i = 0; i < npipes; i++)
		if (pipe2(pipes[i], O_CLOEXEC)) {
			perror("quiet-timeout: pipe");
			return 125;
		}
	if (sfd < 0) {
		perror("quiet-timeout: signalfd");
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		perror("quiet-timeout: fork");
		return 125;
	}
	if (!pid) {
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(pipes[0][1], 1);
		dup2(pipes[npipes - 1][1], 2);
		execvp(argv[optind + 1], argv + optind + 1);
		fprintf(stderr, "quiet-timeout: %s: %s\n", argv[optind + 1],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	for (i = 0; i < npipes; i++) {
		close(pipes[i][1]);
		pfd[i].fd = pipes[i][0];
		pfd[i].events = POLLIN;
	}
	pfd[npipes].fd = sfd;
	pfd[npipes].events = POLLIN;
	open_fds = npipes;
	start = heard = now_s();
	while (!reaped || open_fds) {
		double t = now_s(), due;
		int ms;

		/* the deadline: silence (or age) while the command runs, its
		 * SIGKILL once stopped, and its children's silence after */
		due = heard + silence;
		if (!reaped && total > 0 && start + total < due)
			due = start + total;
		if (stopped)
			due = stopped + kill_after;
		if (t >= due) {
			if (reaped)
				break; /* its children keep the pipe, silent */
			if (stopped) {
				kill(pid, SIGKILL);
				stopped = t + 3600; /* once */
				continue;
			}
			fprintf(stderr,
				"quiet-timeout: %s %s %.0f s: stopped\n",
				argv[optind + 1],
				t >= heard + silence ? "printed nothing for"
						     : "ran for",
				t >= heard + silence ? silence : total);
			kill(pid, SIGTERM);
			timed_out = 1;
			stopped = t;
			continue;
		}
		ms = (int)((due - t) * 1000) + 1;
		if (poll(pfd, (nfds_t)npipes + 1, ms) < 0 && errno != EINTR)
			break;
		for (i = 0; i < npipes; i++) {
			ssize_t n;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = relay(pfd[i].fd, &outs[i]);
			if (n > 0) {
				heard = now_s();
			} else if (n == 0 ||
				   (errno != EINTR && errno != EAGAIN)) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
		}
		if (pfd[npipes].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) != sizeof(si))
				continue;
			if (si.ssi_signo != SIGCHLD) {
				kill(pid, (int)si.ssi_signo);
				continue;
			}
			if (!reaped && waitpid(pid, &status, WNOHANG) == pid) {
				reaped = 1;
				heard = now_s(); /* its children's silence */
				stopped = 0;
			}
		}
	}
	if (!reaped)
		waitpid(pid, &status, 0);
	if (timed_out)
		return 124;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
