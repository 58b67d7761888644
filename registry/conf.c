/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dat.conf line parser.
 *
 * A line holds eight whitespace-separated fields:
 *   ia_name api_version threadsafety default lib_path provider_version
 *   ia_params platform_params
 * A field may be double-quoted; inside quotes \" and \\ are escapes (any
 * other backslash is kept as it is, so paths survive).  '#' outside quotes
 * starts a comment.  Anything else (a missing or extra field, an
 * unterminated quote, a bad version) makes the line malformed: the caller
 * skips it with a warning and goes on with the next line.
 */
#include <string.h>

#include "conf.h"

#define DAT_IA_NAME_MAX 256	/* DAT_NAME_MAX_LENGTH, including the NUL */

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Reads a decimal number that fits in 32 bits; returns the end or NULL. */
static const char *parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return NULL;
	}
	*out = (uint32_t)v;
	return s;
}

/*
 * Splits the line into at most DAT_CONF_FIELDS fields, each copied
 * (unescaped, NUL-terminated) into scratch.  Returns the number of fields,
 * or -1 with *why set.
 */
static int split_fields(const char *line, size_t len, char *scratch,
			char *field[DAT_CONF_FIELDS], const char **why)
{
	size_t i = 0;
	int n = 0;

	for (;;) {
		while (i < len && is_blank(line[i]))
			i++;
		if (i == len || line[i] == '#')
			return n;
		if (n == DAT_CONF_FIELDS) {
			*why = "more than 8 fields";
			return -1;
		}
		field[n++] = scratch;
		if (line[i] == '"') {
			for (i++;; i++) {
				if (i == len) {
					*why = "unterminated quoted field";
					return -1;
				}
				if (line[i] == '"')
					break;
				if (line[i] == '\\' && i + 1 < len &&
				    (line[i + 1] == '"' || line[i + 1] == '\\'))
					i++;
				if (line[i] == '\0') {
					*why = "NUL byte in the line";
					return -1;
				}
				*scratch++ = line[i];
			}
			i++;
			if (i < len && !is_blank(line[i]) && line[i] != '#') {
				*why = "text right after a closing quote";
				return -1;
			}
		} else {
			for (; i < len && !is_blank(line[i]) && line[i] != '#'; i++) {
				if (line[i] == '"') {
					*why = "quote inside an unquoted field";
					return -1;
				}
				if (line[i] == '\0') {
					*why = "NUL byte in the line";
					return -1;
				}
				*scratch++ = line[i];
			}
		}
		*scratch++ = '\0';
	}
}

static int parse_api_version(const char *s, struct dat_conf_entry *e)
{
	if (*s != 'u' && *s != 'k')
		return -1;
	e->api_kind = *s++;
	s = parse_u32(s, &e->api_major);
	if (!s || *s++ != '.')
		return -1;
	s = parse_u32(s, &e->api_minor);
	return s && *s == '\0' ? 0 : -1;
}

/* "<id>.<major>.<minor>": the id is everything before the last two parts. */
static int parse_provider_version(char *s, struct dat_conf_entry *e)
{
	char *minor = strrchr(s, '.');
	char *major;
	const char *end;

	if (!minor || minor == s)
		return -1;
	*minor++ = '\0';
	major = strrchr(s, '.');
	if (!major || major == s)
		return -1;
	*major++ = '\0';
	end = parse_u32(major, &e->provider_major);
	if (!end || *end)
		return -1;
	end = parse_u32(minor, &e->provider_minor);
	if (!end || *end)
		return -1;
	e->provider_id = s;
	return 0;
}

enum dat_conf_result dat_conf_parse_line(const char *line, size_t len,
					 char *scratch,
					 struct dat_conf_entry *e,
					 const char **why)
{
	char *f[DAT_CONF_FIELDS];
	int n;

	if (len >= DAT_CONF_LINE_MAX) {
		*why = "line longer than 4095 characters";
		return DAT_CONF_MALFORMED;
	}
	n = split_fields(line, len, scratch, f, why);
	if (n < 0)
		return DAT_CONF_MALFORMED;
	if (n == 0)
		return DAT_CONF_EMPTY;
	if (n < DAT_CONF_FIELDS) {
		*why = "fewer than 8 fields";
		return DAT_CONF_MALFORMED;
	}

	memset(e, 0, sizeof(*e));
	e->ia_name = f[0];
	if (!*e->ia_name) {
		*why = "empty IA name";
		return DAT_CONF_MALFORMED;
	}
	if (strlen(e->ia_name) >= DAT_IA_NAME_MAX) {
		*why = "IA name longer than 255 characters";
		return DAT_CONF_MALFORMED;
	}
	if (parse_api_version(f[1], e)) {
		*why = "api_version is not u<major>.<minor> or k<major>.<minor>";
		return DAT_CONF_MALFORMED;
	}
	if (!strcmp(f[2], "threadsafe")) {
		e->thread_safe = 1;
	} else if (!strcmp(f[2], "nonthreadsafe")) {
		e->thread_safe = 0;
	} else {
		*why = "thread safety is not threadsafe or nonthreadsafe";
		return DAT_CONF_MALFORMED;
	}
	if (!strcmp(f[3], "default")) {
		e->is_default = 1;
	} else if (!strcmp(f[3], "nondefault")) {
		e->is_default = 0;
	} else {
		*why = "default field is not default or nondefault";
		return DAT_CONF_MALFORMED;
	}
	e->lib_path = f[4];
	if (!*e->lib_path) {
		*why = "empty library path";
		return DAT_CONF_MALFORMED;
	}
	if (parse_provider_version(f[5], e)) {
		*why = "provider_version is not <id>.<major>.<minor>";
		return DAT_CONF_MALFORMED;
	}
	e->ia_params = f[6];
	e->platform_params = f[7];
	return DAT_CONF_ENTRY;
}
