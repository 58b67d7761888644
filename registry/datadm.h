/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What datadm's files share.  datadm.c (the command line, -a, -r, -u)
 * calls the other two; datadm_status.c (-v and --check: the judgement of
 * entries against the machine) calls datadm_file.c (dat.conf read as
 * lines, locked and written, and the program's error exit); nothing
 * calls back up.
 */
#ifndef DAT_REGISTRY_DATADM_H
#define DAT_REGISTRY_DATADM_H

#include <stddef.h>

#include "conf.h"

/* One line of a file, with its exact bytes (including the '\n' if any). */
struct line {
	char *text;
	size_t len;		/* bytes in text, '\n' included */
	char *owner;		/* an entry's tag after "# datadm:", or NULL */
	char *marked;		/* that tag on any line, even a malformed one */
	int kind;		/* enum dat_conf_result */
	const char *why;	/* DAT_CONF_MALFORMED: the parser's reason */
	struct dat_conf_entry e;
	char *scratch;
};

struct file {
	const char *path;
	int exists;
	int crlf;		/* its lines end in "\r\n": new ones will too */
	struct line *lines;
	size_t n, cap;
};

/* datadm_file.c: the program's name, its error exit and allocation */
extern const char *prog;
void die(int code, const char *fmt, ...);
void *xmalloc(size_t n);
char *xstrndup(const char *s, size_t n);
/* snprintf that refuses to truncate: a path or name that does not fit
 * is an error, never a different, shorter one. */
void fmt(char *buf, size_t size, const char *f, ...)
	__attribute__((format(printf, 3, 4)));

/* datadm_file.c: which files, read as lines */
extern const char *target_file;
void add_line(struct file *f, char *text, size_t len);
int read_file(struct file *f, const char *path, int must_exist,
	      const char **why);
size_t conf_files(const char ***paths, int *override);

/* datadm_file.c: a change, from begin_edit to commit */
extern double lock_timeout;
char *entry_text(const struct dat_conf_entry *e, const char *tag, size_t *len);
int same_key(const struct dat_conf_entry *a, const struct dat_conf_entry *b);
int begin_edit(struct file *f, const char **shown, const char *tag);
size_t drop_owned(struct file *f, const char *tag);
void append_entries(struct file *f, const struct file *add, const char *what);
void commit(const struct file *f);

/* datadm_status.c: the RDMA ports in sysfs, which -u scans too */
const char *sysfs(void);
int read_attr(char *buf, size_t size, const char *fmt, ...);
int name_ok(const char *s);
int port_netdev(const char *dev, const char *port, char *nd, size_t size);

/* datadm_status.c: -v (verbose) and --check, and --resolve's budget */
extern double resolve_left;
int list(int verbose);

#endif
