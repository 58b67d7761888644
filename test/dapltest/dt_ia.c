/*
 * dt_ia.c - which IA dapltest uses without -D, and the quality of service
 * (-R) its connections ask for.
 *
 * The default IA is the first entry of the registry (dat.conf order) of
 * this DAT version (1.2) whose IA opens: an installation beside DAT 2.0
 * lists 2.0 entries too, often first, and an entry whose provider or
 * device is missing must not stop a server started with no arguments.
 *
 * -R names a DAT_QOS as OFA's dapltest does (HT, LL, EC, PM, BE).  The
 * provider says in dat_qos_supported which classes it offers; a class it
 * does not offer is replaced by best effort with one notice (OFA's
 * provider ignores the QoS altogether, so OFA's command lines with -R
 * still run), instead of every connect failing DAT_MODEL_NOT_SUPPORTED.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dt.h"

DAT_QOS dt_qos_wanted = DAT_QOS_BEST_EFFORT;
DAT_QOS dt_qos = DAT_QOS_BEST_EFFORT;

static const struct {
	const char *name, *what;
	DAT_QOS qos;
} qos_names[] = {
	{ "BE", "best effort", DAT_QOS_BEST_EFFORT },
	{ "HT", "high throughput", DAT_QOS_HIGH_THROUGHPUT },
	{ "LL", "low latency", DAT_QOS_LOW_LATENCY },
	{ "EC", "economy", DAT_QOS_ECONOMY },
	{ "PM", "premium", DAT_QOS_PREMIUM },
};
#define NQOS (sizeof(qos_names) / sizeof(qos_names[0]))

int dt_qos_parse(const char *s, DAT_QOS *q)
{
	unsigned i;

	for (i = 0; i < NQOS; i++)
		if (!strcmp(s, qos_names[i].name)) {
			*q = qos_names[i].qos;
			return 0;
		}
	return -1;
}

static const char *qos_text(DAT_QOS q)
{
	unsigned i;

	for (i = 0; i < NQOS; i++)
		if (qos_names[i].qos == q)
			return qos_names[i].what;
	return "?";
}

void dt_qos_settle(DAT_IA_HANDLE ia, const char *ia_name)
{
	static int told;
	DAT_PROVIDER_ATTR pa;
	DAT_EVD_HANDLE async = DAT_HANDLE_NULL;
	DAT_RETURN rc;

	dt_qos = dt_qos_wanted;
	if (dt_qos_wanted == DAT_QOS_BEST_EFFORT)
		return;
	memset(&pa, 0, sizeof(pa));
	rc = dat_ia_query(ia, &async, 0, NULL,
			  DAT_PROVIDER_FIELD_DAT_QOS_SUPPORTED, &pa);
	if (rc == DAT_SUCCESS && !(dt_qos_wanted & ~pa.dat_qos_supported))
		return;
	dt_qos = DAT_QOS_BEST_EFFORT;
	if (!told++)
		dt_log("QoS: IA %s does not offer %s (dat_qos_supported 0x%x%s%s): connecting best effort",
		       ia_name, qos_text(dt_qos_wanted),
		       (unsigned)pa.dat_qos_supported,
		       rc == DAT_SUCCESS ? "" : ", dat_ia_query: ",
		       rc == DAT_SUCCESS ? "" : dt_rc(rc));
}

const char *dt_default_ia(void)
{
	static char name[DAT_NAME_MAX_LENGTH];
	DAT_PROVIDER_INFO *info, **list;
	DAT_EVD_HANDLE async;
	DAT_IA_HANDLE ia;
	DAT_COUNT n = 0, i;
	unsigned other = 0, failed = 0;

	if (getenv("DAPLTEST_IA"))
		return getenv("DAPLTEST_IA");
	/* asking for 0 entries reports how many there are */
	dat_registry_list_providers(0, &n, NULL);
	if (n <= 0) {
		dt_err("no -D ia_name, and dat.conf registers no IA");
		return NULL;
	}
	info = calloc((size_t)n, sizeof(*info));
	list = calloc((size_t)n, sizeof(*list));
	if (!info || !list) {
		free(info);
		free(list);
		dt_err("no -D ia_name, and out of memory to list dat.conf");
		return NULL;
	}
	for (i = 0; i < n; i++)
		list[i] = &info[i];
	if (dat_registry_list_providers(n, &n, list) != DAT_SUCCESS)
		n = 0;
	name[0] = 0;
	for (i = 0; i < n && !name[0]; i++) {
		if (info[i].dapl_version_major != DAT_VERSION_MAJOR ||
		    info[i].dapl_version_minor != DAT_VERSION_MINOR) {
			other++;
			continue;
		}
		async = DAT_HANDLE_NULL;
		if (dat_ia_open(info[i].ia_name, 4, &async, &ia) != DAT_SUCCESS) {
			failed++;
			continue;
		}
		dat_ia_close(ia, DAT_CLOSE_ABRUPT_FLAG);
		snprintf(name, sizeof(name), "%s", info[i].ia_name);
	}
	free(info);
	free(list);
	if (!name[0]) {
		dt_err("no -D ia_name, and no DAT %d.%d entry of dat.conf opens an IA (%u of them failed to open, %u entries of another DAT version skipped)",
		       DAT_VERSION_MAJOR, DAT_VERSION_MINOR, failed, other);
		return NULL;
	}
	fprintf(stderr, "dapltest: no -D: IA %s, the first DAT %d.%d entry of dat.conf whose IA opens\n",
		name, DAT_VERSION_MAJOR, DAT_VERSION_MINOR);
	return name;
}
