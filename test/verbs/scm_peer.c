/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scm-peer: a socket-CM peer that is not one, for test/verbs/scm.bats.
 *
 *   scm-peer listen ADDR MODE SECS
 *       listens on ADDR at a free port of 10000-19999 (a qualifier's
 *       port, below the ephemeral ones), prints "listening PORT",
 *       accepts one connection and then, by MODE:
 *         silent   reads what comes and never answers
 *         close    closes it at once
 *         garbage  waits for the first bytes, answers 48 bytes of junk
 *       and stays at most SECS seconds.
 *   scm-peer connect ADDR PORT MODE SECS
 *       connects to a listener of libdaplscm and, by MODE:
 *         garbage  sends an HTTP request; prints "closed" once the
 *                  listener closed the connection (within SECS), else
 *                  "open"
 *         half     sends the first 20 bytes of a valid REQ (wire.c's
 *                  encoding), prints "sent", then holds the connection
 *                  until killed, the listener closes it, or SECS
 *
 * Exit 0 when it did what MODE says (the verdict is the caller's, from
 * the output), 1 when a socket call failed, 2 on bad arguments.
 *
 * In C, not a script: under the guest's emulation each start of the
 * python3 peer this replaces cost 10-25 s, most of scm.bats' time
 * (issue 34).  Plain sockets only: no DAT, no verbs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../providers/scm/wire.h"

static int fail(const char *what)
{
	fprintf(stderr, "scm-peer: %s: %s\n", what, strerror(errno));
	return 1;
}

/* ms left until the deadline (CLOCK_MONOTONIC seconds), at least 0 */
static int ms_left(time_t end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec >= end ? 0 : (int)(end - now.tv_sec) * 1000;
}

static time_t deadline(int secs)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec + secs;
}

/* waits until fd is readable: 1, 0 at the deadline, -1 on error */
static int readable(int fd, time_t end)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ms_left(end));
	while (n < 0 && errno == EINTR);
	return n;
}

/* reads what comes until EOF, an error or the deadline */
static void drain(int fd, time_t end)
{
	char buf[4096];

	while (readable(fd, end) > 0 && read(fd, buf, sizeof(buf)) > 0)
		;
}

static int parse_addr(const char *s, unsigned port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((unsigned short)port);
	return inet_pton(AF_INET, s, &sin->sin_addr) == 1 ? 0 : -1;
}

static int listen_mode(const char *addr, const char *mode, int secs)
{
	static const unsigned char junk[4] = { 0xde, 0xad, 0xbe, 0xef };
	unsigned char reply[48];
	struct sockaddr_in sin;
	time_t end = deadline(secs);
	int s, c, tries;

	if (strcmp(mode, "silent") && strcmp(mode, "close") &&
	    strcmp(mode, "garbage"))
		return 2;
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return fail("socket");
	srand((unsigned)getpid() ^ (unsigned)time(NULL));
	for (tries = 0;; tries++) {
		if (parse_addr(addr, 10000 + (unsigned)rand() % 10000, &sin))
			return 2;
		if (!bind(s, (struct sockaddr *)&sin, sizeof(sin)))
			break;
		if (errno != EADDRINUSE || tries == 1000)
			return fail("bind");
	}
	if (listen(s, 8))
		return fail("listen");
	printf("listening %u\n", ntohs(sin.sin_port));
	fflush(stdout);
	if (readable(s, end) <= 0) {
		fprintf(stderr, "scm-peer: nobody connected in %d s\n", secs);
		return 1;
	}
	c = accept(s, NULL, NULL);
	if (c < 0)
		return fail("accept");
	close(s);
	if (!strcmp(mode, "close")) {
		close(c);
		return 0;
	}
	if (!strcmp(mode, "garbage")) {
		char buf[4096];

		if (readable(c, end) > 0 && read(c, buf, sizeof(buf)) > 0) {
			for (size_t i = 0; i < sizeof(reply); i++)
				reply[i] = junk[i % 4];
			if (write(c, reply, sizeof(reply)) < 0)
				return fail("write");
		}
	}
	drain(c, end);
	close(c);
	return 0;
}

static int connect_mode(const char *addr, const char *port, const char *mode,
			int secs)
{
	static const char http[] = "GET / HTTP/1.0\r\n\r\n";
	struct sockaddr_in sin;
	time_t end = deadline(secs);
	int c;

	if (strcmp(mode, "garbage") && strcmp(mode, "half"))
		return 2;
	if (parse_addr(addr, (unsigned)atoi(port), &sin))
		return 2;
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0)
		return fail("socket");
	if (connect(c, (struct sockaddr *)&sin, sizeof(sin)))
		return fail("connect");
	if (!strcmp(mode, "garbage")) {
		char buf[4096];
		ssize_t n = 1;

		if (write(c, http, sizeof(http) - 1) < 0)
			return fail("write");
		/* closed: EOF or a reset; anything else, or nothing: open */
		if (readable(c, end) > 0)
			n = read(c, buf, sizeof(buf));
		printf("%s\n", n == 0 || (n < 0 && errno == ECONNRESET) ?
				       "closed" : "open");
		return 0;
	}
	/* half: a REQ as a real requester would encode it, cut short */
	struct scm_wire req = { .type = SCM_MSG_REQ, .mtu = 3, .qpn = 1 };
	uint8_t buf[SCM_WIRE_MAX];

	if (scm_wire_encode(&req, buf, sizeof(buf)) != SCM_WIRE_HDR)
		return 2;
	if (write(c, buf, 20) != 20)
		return fail("write");
	printf("sent\n");
	fflush(stdout);
	drain(c, end);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 2;

	if (argc == 5 && !strcmp(argv[1], "listen"))
		rc = listen_mode(argv[2], argv[3], atoi(argv[4]));
	else if (argc == 6 && !strcmp(argv[1], "connect"))
		rc = connect_mode(argv[2], argv[3], argv[4], atoi(argv[5]));
	if (rc == 2)
		fprintf(stderr,
			"usage: scm-peer listen ADDR silent|close|garbage SECS\n"
			"       scm-peer connect ADDR PORT garbage|half SECS\n");
	return rc;
}
