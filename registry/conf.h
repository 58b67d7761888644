/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat.conf parsing: one line in, one entry (or a reason why not) out.
 *
 * The parser is pure (no I/O, no allocation) so that unit tests and the
 * libFuzzer target drive it directly; registry/static_registry.c owns the
 * file handling and keeps the entries it accepts.
 */
#ifndef DAT_REGISTRY_CONF_H
#define DAT_REGISTRY_CONF_H

#include <stddef.h>
#include <stdint.h>

/*
 * Where dat.conf is looked for when DAT_OVERRIDE is not set, in this
 * order: libdat (static_registry.c) and datadm agree on it.  The Makefile
 * compiles $(SYSCONFDIR)/dat.conf into both.
 */
#ifndef DAT_SYSCONF_PATH
#define DAT_SYSCONF_PATH "/usr/local/etc/dat.conf"
#endif
/* ... else this one (make's DAT_FALLBACK_CONF) */
#ifndef DAT_DEFAULT_CONF
#define DAT_DEFAULT_CONF "/etc/dat.conf"
#endif
/* Drop-in files, read after dat.conf in name order: *.conf here. */
#ifndef DAT_SYSCONF_DIR
#define DAT_SYSCONF_DIR "/usr/local/etc/dat.conf.d"
#endif

/* Longest dat.conf line we accept; longer lines are malformed. */
#define DAT_CONF_LINE_MAX 4096
#define DAT_CONF_FIELDS   8

struct dat_conf_entry {
	const char *ia_name;
	char api_kind;			/* 'u' (user) or 'k' (kernel) */
	uint32_t api_major;
	uint32_t api_minor;
	int thread_safe;		/* 1: threadsafe, 0: nonthreadsafe */
	int is_default;			/* 1: default, 0: nondefault */
	const char *lib_path;
	const char *provider_id;	/* "dapl" of "dapl.1.2" */
	uint32_t provider_major;
	uint32_t provider_minor;
	const char *ia_params;
	const char *platform_params;
};

enum dat_conf_result {
	DAT_CONF_EMPTY = 0,		/* blank line or comment only */
	DAT_CONF_ENTRY = 1,		/* *entry filled */
	DAT_CONF_MALFORMED = -1,	/* *why says what is wrong */
};

/*
 * Parses one line (without its newline; it may contain NUL bytes, which
 * make it malformed).  The strings of *entry point into scratch, which
 * must hold at least len + DAT_CONF_FIELDS bytes and stay alive as long
 * as the entry is used.  On DAT_CONF_MALFORMED, *why is a static
 * description of the first problem found.
 */
enum dat_conf_result dat_conf_parse_line(const char *line, size_t len,
					 char *scratch,
					 struct dat_conf_entry *entry,
					 const char **why);

/*
 * Reading a dat.conf file (conf_file.c), shared by libdat and datadm.
 *
 * Only a regular file of at most DAT_CONF_FILE_MAX bytes is read: a FIFO,
 * a device or a directory is refused before anything could block, and
 * nothing is read without bound.  With secure set (a set-uid or set-gid
 * program) the file must also be one that only root can change.  The
 * whole file comes back in *buf (NUL-terminated, *len bytes, free() it);
 * on failure -1 and *why, a static reason.
 */
#define DAT_CONF_FILE_MAX (64u << 20)

int dat_conf_read_file(const char *path, int secure, char **buf,
		       size_t *len, const char **why);

struct stat;
/* 0 if only root can change the file or directory st describes, else -1
 * and *why.  (The rule of set-uid programs for dat.conf, its drop-in
 * directory and files, and provider libraries.) */
int dat_conf_root_only(const struct stat *st, const char **why);
/* True in a set-uid/set-gid program (the secure_getenv rule). */
int dat_conf_secure(void);

/*
 * The drop-in files of dir: dir/<name>.conf in strcmp order of the names
 * (hidden files and other names are skipped).  Returns how many paths
 * *paths holds (each and the array to free()), or -1 with *why; a missing
 * directory has 0 files.  With secure set the directory must be root's
 * only.
 */
int dat_conf_dropins(const char *dir, int secure, char ***paths,
		     const char **why);

#endif
