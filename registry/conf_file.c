/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading dat.conf files without trusting them: libdat and datadm both
 * come here, so a FIFO, a device, a directory or a file of gigabytes is
 * refused with the same reason by both, and a set-uid program reads only
 * files that root alone can change.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"

int dat_conf_secure(void)
{
	return getauxval(AT_SECURE) != 0;
}

int dat_conf_root_only(const struct stat *st, const char **why)
{
	if (st->st_uid != 0) {
		*why = "not owned by root (refused in a set-uid/set-gid program)";
		return -1;
	}
	if ((st->st_mode & S_IWOTH) ||
	    ((st->st_mode & S_IWGRP) && st->st_gid != 0)) {
		*why = "writable by others than root (refused in a set-uid/set-gid program)";
		return -1;
	}
	return 0;
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory, not a regular file";
	if (S_ISFIFO(m))
		return "a FIFO, not a regular file";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device, not a regular file";
	if (S_ISSOCK(m))
		return "a socket, not a regular file";
	return "not a regular file";
}

int dat_conf_read_file(const char *path, int secure, char **buf,
		       size_t *len, const char **why)
{
	struct stat st, fst;
	size_t got = 0, cap;
	ssize_t n;
	char *b;
	int fd;

	*buf = NULL;
	*len = 0;
	/* stat first: opening a device or a FIFO may itself block or do
	 * something; only a regular file is ever opened. */
	if (stat(path, &st)) {
		*why = strerror(errno);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = kind_of(st.st_mode);
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &fst)) {
		*why = strerror(errno);
		goto fail;
	}
	if (!S_ISREG(fst.st_mode) || fst.st_dev != st.st_dev ||
	    fst.st_ino != st.st_ino) {
		*why = S_ISREG(fst.st_mode) ? "replaced while being opened"
					    : kind_of(fst.st_mode);
		goto fail;
	}
	if (secure && dat_conf_root_only(&fst, why))
		goto fail;
	if (fst.st_size > (off_t)DAT_CONF_FILE_MAX) {
		*why = "larger than 64 MiB";
		goto fail;
	}
	/* Room for one byte more than the size, so that EOF is seen in one
	 * pass; a file that grows while being read is followed only up to
	 * the limit, never without bound. */
	cap = (size_t)fst.st_size + 1;
	b = malloc(cap + 1);
	if (!b) {
		*why = "out of memory";
		goto fail;
	}
	for (;;) {
		if (got == cap) {
			char *g;

			if (cap > DAT_CONF_FILE_MAX) {
				free(b);
				*why = "larger than 64 MiB";
				goto fail;
			}
			cap = cap * 2 > DAT_CONF_FILE_MAX + 1 ?
				      DAT_CONF_FILE_MAX + 1 : cap * 2;
			g = realloc(b, cap + 1);
			if (!g) {
				free(b);
				*why = "out of memory";
				goto fail;
			}
			b = g;
		}
		n = read(fd, b + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(b);
			*why = strerror(errno);
			goto fail;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	b[got] = '\0';
	*buf = b;
	*len = got;
	return 0;
fail:
	close(fd);
	return -1;
}

static int dropin_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 &&
	       !strcmp(d->d_name + n - 5, ".conf");
}

/* Name order, the same in every locale. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int dat_conf_dropins(const char *dir, int secure, char ***paths,
		     const char **why)
{
	struct dirent **names = NULL;
	struct stat st;
	int n, i, k = 0;

	*paths = NULL;
	if (stat(dir, &st)) {
		if (errno == ENOENT)
			return 0;
		*why = strerror(errno);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = "not a directory";
		return -1;
	}
	if (secure && dat_conf_root_only(&st, why))
		return -1;
	n = scandir(dir, &names, dropin_name, by_name);
	if (n < 0) {
		*why = strerror(errno);
		return -1;
	}
	*paths = calloc((size_t)n + 1, sizeof(**paths));
	for (i = 0; i < n; i++) {
		if (*paths && asprintf(&(*paths)[k], "%s/%s", dir,
				       names[i]->d_name) >= 0)
			k++;
		free(names[i]);
	}
	free(names);
	if (!*paths || k != n) {
		for (i = 0; *paths && i < k; i++)
			free((*paths)[i]);
		free(*paths);
		*paths = NULL;
		*why = "out of memory";
		return -1;
	}
	return k;
}
