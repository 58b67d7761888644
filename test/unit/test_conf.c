/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the dat.conf line parser (registry/conf.c): every field
 * form, quoting and comments, and a list of malformed lines, each of which
 * must be refused with a reason.
 */
#include <stdlib.h>
#include <string.h>

#include "../../registry/conf.h"
#include "tap.h"

static char scratch[DAT_CONF_LINE_MAX + DAT_CONF_FIELDS];

static enum dat_conf_result parse(const char *line, struct dat_conf_entry *e,
				  const char **why)
{
	*why = NULL;
	return dat_conf_parse_line(line, strlen(line), scratch, e, why);
}

static void test_reference_line(void)
{
	struct dat_conf_entry e;
	const char *why;
	int r = parse("OpenIB-cma u1.2 nonthreadsafe default libdaplcma.so.1 "
		      "dapl.1.2 \"ib0 0\" \"\"", &e, &why);

	tap_ok(r == DAT_CONF_ENTRY, "OFA compat-dapl line parses");
	tap_ok(!strcmp(e.ia_name, "OpenIB-cma"), "ia_name");
	tap_ok(e.api_kind == 'u' && e.api_major == 1 && e.api_minor == 2,
	       "api_version u1.2");
	tap_ok(e.thread_safe == 0, "nonthreadsafe");
	tap_ok(e.is_default == 1, "default");
	tap_ok(!strcmp(e.lib_path, "libdaplcma.so.1"), "lib_path");
	tap_ok(!strcmp(e.provider_id, "dapl") && e.provider_major == 1 &&
	       e.provider_minor == 2, "provider_version dapl.1.2");
	tap_ok(!strcmp(e.ia_params, "ib0 0"), "quoted ia_params keep the space");
	tap_ok(!strcmp(e.platform_params, ""), "empty quoted platform_params");
}

static void test_field_forms(void)
{
	struct dat_conf_entry e;
	const char *why;

	tap_ok(parse("a k2.0 threadsafe nondefault /x/y.so v.3.4 p q", &e, &why) ==
		       DAT_CONF_ENTRY &&
	       e.api_kind == 'k' && e.api_major == 2 && e.api_minor == 0 &&
	       e.thread_safe == 1 && e.is_default == 0,
	       "k, threadsafe, nondefault");
	tap_ok(parse("a u10.20 threadsafe default l id.0.99 p q", &e, &why) ==
		       DAT_CONF_ENTRY &&
	       e.api_major == 10 && e.api_minor == 20 && e.provider_minor == 99,
	       "multi-digit versions");
	tap_ok(parse("a u1.2 threadsafe default l my.vendor.1.2 p q", &e, &why) ==
		       DAT_CONF_ENTRY &&
	       !strcmp(e.provider_id, "my.vendor") && e.provider_major == 1,
	       "provider id with dots");
	tap_ok(parse("\"quoted name\" u1.2 threadsafe default l d.1.2 p q", &e,
		     &why) == DAT_CONF_ENTRY &&
	       !strcmp(e.ia_name, "quoted name"),
	       "quoted IA name with a space");
	tap_ok(parse("a u1.2 threadsafe default l d.1.2 \"say \\\"hi\\\"\" "
		     "\"back\\\\slash\"", &e, &why) == DAT_CONF_ENTRY &&
	       !strcmp(e.ia_params, "say \"hi\"") &&
	       !strcmp(e.platform_params, "back\\slash"),
	       "escaped quote and backslash");
	tap_ok(parse("a u1.2 threadsafe default C:\\lib\\x.so d.1.2 p q", &e,
		     &why) == DAT_CONF_ENTRY &&
	       !strcmp(e.lib_path, "C:\\lib\\x.so"),
	       "unquoted backslashes are literal");
	tap_ok(parse("a u1.2 threadsafe default l d.1.2 \"a\\nb\" q", &e, &why) ==
		       DAT_CONF_ENTRY &&
	       !strcmp(e.ia_params, "a\\nb"),
	       "other escapes inside quotes are kept as written");
	tap_ok(parse("  \ta\tu1.2   threadsafe default l d.1.2 p q  \r", &e,
		     &why) == DAT_CONF_ENTRY &&
	       !strcmp(e.platform_params, "q"),
	       "tabs, runs of blanks and a CR");
	tap_ok(parse("a u1.2 threadsafe default l d.1.2 p q # comment", &e, &why) ==
		       DAT_CONF_ENTRY,
	       "trailing comment");
	tap_ok(parse("a u1.2 threadsafe default l d.1.2 \"p # not\" q#c", &e,
		     &why) == DAT_CONF_ENTRY &&
	       !strcmp(e.ia_params, "p # not") && !strcmp(e.platform_params, "q"),
	       "# inside quotes is data, right after a field a comment");
	tap_ok(parse("a u1.2 threadsafe default l d.1.2 \"\" \"\"", &e, &why) ==
		       DAT_CONF_ENTRY,
	       "two empty quoted fields");
	tap_ok(parse("", &e, &why) == DAT_CONF_EMPTY, "empty line");
	tap_ok(parse("   \t ", &e, &why) == DAT_CONF_EMPTY, "blank line");
	tap_ok(parse("# a comment", &e, &why) == DAT_CONF_EMPTY, "comment line");
	tap_ok(parse("   #indented comment \"unterminated", &e, &why) ==
		       DAT_CONF_EMPTY,
	       "indented comment with a stray quote");
}

static void test_name_limit(void)
{
	struct dat_conf_entry e;
	const char *why;
	char line[600];
	char name[300];

	memset(name, 'n', 255);
	name[255] = '\0';
	snprintf(line, sizeof(line), "%s u1.2 threadsafe default l d.1.2 p q", name);
	tap_ok(parse(line, &e, &why) == DAT_CONF_ENTRY, "IA name of 255 characters");
	memset(name, 'n', 256);
	name[256] = '\0';
	snprintf(line, sizeof(line), "%s u1.2 threadsafe default l d.1.2 p q", name);
	tap_ok(parse(line, &e, &why) == DAT_CONF_MALFORMED && why,
	       "IA name of 256 characters is malformed");
}

static void test_long_and_nul(void)
{
	struct dat_conf_entry e;
	const char *why = NULL;
	static char line[DAT_CONF_LINE_MAX + 10];
	const char with_nul[] = "a u1.2 threadsafe default l\0x d.1.2 p q";

	memset(line, 'a', sizeof(line) - 1);
	tap_ok(dat_conf_parse_line(line, sizeof(line) - 1, scratch, &e, &why) ==
			       DAT_CONF_MALFORMED && why,
	       "a line longer than the limit is malformed");
	tap_ok(dat_conf_parse_line(with_nul, sizeof(with_nul) - 1, scratch, &e,
				   &why) == DAT_CONF_MALFORMED && why,
	       "a NUL byte inside a line is malformed");
}

static const char *const malformed[] = {
	"a",
	"a u1.2",
	"a u1.2 threadsafe default l d.1.2 p",
	"a u1.2 threadsafe default l d.1.2 p q extra",
	"a 1.2 threadsafe default l d.1.2 p q",
	"a x1.2 threadsafe default l d.1.2 p q",
	"a u12 threadsafe default l d.1.2 p q",
	"a u1. threadsafe default l d.1.2 p q",
	"a u.2 threadsafe default l d.1.2 p q",
	"a u1.2x threadsafe default l d.1.2 p q",
	"a u-1.2 threadsafe default l d.1.2 p q",
	"a u1.99999999999 threadsafe default l d.1.2 p q",
	"a u1.2 safe default l d.1.2 p q",
	"a u1.2 threadsafeX default l d.1.2 p q",
	"a u1.2 threadsafe yes l d.1.2 p q",
	"a u1.2 threadsafe defaultish l d.1.2 p q",
	"a u1.2 threadsafe default l 1.2 p q",
	"a u1.2 threadsafe default l d.1 p q",
	"a u1.2 threadsafe default l .1.2 p q",
	"a u1.2 threadsafe default l d.x.2 p q",
	"a u1.2 threadsafe default l d.1.2a p q",
	"a u1.2 threadsafe default l d.1. p q",
	"a u1.2 threadsafe default \"\" d.1.2 p q",
	"\"\" u1.2 threadsafe default l d.1.2 p q",
	"a u1.2 threadsafe default l d.1.2 \"unterminated q",
	"a u1.2 threadsafe default l d.1.2 \"p\"q r",
	"a u1.2 threadsafe default l d.1.2 p\"q r",
	"a u1.2 threadsafe default l d.1.2 p \"q\\\"",
	"a u1.2 threadsafe default l d.1.2 # p q",
	"a U1.2 threadsafe default l d.1.2 p q",
	"a u1.2 ThreadSafe default l d.1.2 p q",
};

static void test_malformed(void)
{
	struct dat_conf_entry e;
	const char *why;
	char what[200];
	size_t i;

	for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		int r = parse(malformed[i], &e, &why);

		snprintf(what, sizeof(what), "malformed: %s -> %s", malformed[i],
			 why ? why : "(no reason)");
		tap_ok(r == DAT_CONF_MALFORMED && why && *why, what);
	}
}

int main(void)
{
	test_reference_line();
	test_field_forms();
	test_name_limit();
	test_long_and_nul();
	test_malformed();
	return tap_done();
}
