/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the dat.conf parser: the input is a whole file;
 * each line goes through dat_conf_parse_line as the registry feeds it.
 * Beyond "no crash", it checks what an accepted entry promises: every
 * field is a string inside the scratch buffer and the IA name fits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../registry/conf.h"

static void check_field(const char *field, const char *scratch, size_t size)
{
	if (field < scratch || field >= scratch + size ||
	    !memchr(field, '\0', size - (size_t)(field - scratch)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t cap = len + DAT_CONF_FIELDS;
		/* An exact-size heap copy so that ASan sees any overrun. */
		char *line = malloc(len ? len : 1);
		char *scratch = malloc(cap);
		struct dat_conf_entry e;
		const char *why = NULL;

		if (!line || !scratch)
			abort();
		memcpy(line, p, len);
		switch (dat_conf_parse_line(line, len, scratch, &e, &why)) {
		case DAT_CONF_ENTRY:
			check_field(e.ia_name, scratch, cap);
			check_field(e.lib_path, scratch, cap);
			check_field(e.provider_id, scratch, cap);
			check_field(e.ia_params, scratch, cap);
			check_field(e.platform_params, scratch, cap);
			if (!*e.ia_name || strlen(e.ia_name) > 255 || !*e.lib_path)
				abort();
			break;
		case DAT_CONF_MALFORMED:
			if (!why || !*why)
				abort();
			break;
		case DAT_CONF_EMPTY:
			break;
		}
		free(line);
		free(scratch);
		p += len + (nl != NULL);
	}
	return 0;
}
