/*
 * dt_main.c - dapltest's command line (as the OFA dapltest's: -T first)
 * and exit statuses.  See dapltest(1).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "dt.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dapltest             (a server on the default IA: -T S)\n"
		"       dapltest -T S [-D ia_name] [-n port] [-d] [-R qos]\n"
		"       dapltest -T Q -s server [-D ia_name] [-n port] [-R qos]\n"
		"       dapltest -T T -s server [-D ia_name] [-n port] [-t threads] [-w endpoints]\n"
		"                [-i iterations] [-V] [-P] [-Q] [-d] [-R qos]\n"
		"                client|server SR|RR|RW [seg_size [num_segs]] [-f] ...\n"
		"       dapltest -T P -s server [-D ia_name] [-n port] [-m b|p] [-i iterations]\n"
		"                [-p pipeline] [-R qos] RW|RR|SR [size [segs]]\n"
		"       dapltest -T L [-D ia_name] [-d] [-m max] [-w width] [-R qos] [limit_ia\n"
		"                limit_pz limit_cno limit_evd limit_ep limit_rsp limit_psp\n"
		"                limit_lmr limit_rpost limit_size_lmr]\n"
		"       dapltest -T F [-s server] [-D ia_name] [-n port] [-R qos] [--tap] [--list]\n"
		"                [-f area [case<n>...] | [hwconn pz mem endpoint cqmgt queryinfo\n"
		"                connmgt dataxfer rmr atomic | case...]]\n"
		"qos: HT, LL, EC, PM or BE (the default); threads, endpoints: 1..64\n"
		"exit status: 0 passed, 1 a test failed, 2 usage, 3 IA cannot be opened,\n"
		"             4 server unreachable or handshake refused\n");
}

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "dapltest: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	usage(stderr);
	return DT_EXIT_USAGE;
}

static int num(const char *s, unsigned *out, unsigned min, unsigned max)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return -1;
	v = strtoul(s, &end, 0);
	if (*end || v < min || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int op_type(const char *s)
{
	if (!strcmp(s, "SR"))
		return DT_SR;
	if (!strcmp(s, "RR"))
		return DT_RR;
	if (!strcmp(s, "RW"))
		return DT_RW;
	return 0;
}

/* client|server SR|RR|RW [seg_size [num_segs]] [-f] ... */
static int parse_ops(struct dt_args *a, int argc, char **argv)
{
	struct dt_op *op;
	int i = 0;

	while (i < argc) {
		if (a->nops == DT_MAX_OPS)
			return bad("at most %s ops", "8");
		op = &a->ops[a->nops++];
		memset(op, 0, sizeof(*op));
		if (!strcmp(argv[i], "server"))
			op->server_init = 1;
		else if (strcmp(argv[i], "client"))
			return bad("op: '%s': want client or server", argv[i]);
		if (++i >= argc || !(op->type = op_type(argv[i])))
			return bad("op: '%s': want SR, RR or RW",
				   i < argc ? argv[i] : "");
		i++;
		op->seg_size = 4096;
		op->num_segs = 1;
		if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9') {
			if (num(argv[i], &op->seg_size, 1, 16u << 20))
				return bad("op: bad seg_size '%s'", argv[i]);
			i++;
			if (i < argc && argv[i][0] >= '0' && argv[i][0] <= '9') {
				if (num(argv[i], &op->num_segs, 1, 64))
					return bad("op: bad num_segs '%s'",
						   argv[i]);
				i++;
			}
		}
		if (i < argc && !strcmp(argv[i], "-f")) {
			op->reap = 1;
			i++;
		}
	}
	return 0;
}

/* -T F: -f area selects an area (OFA's function feature); case<n> then
 * names its n-th case, as OFA's dapltest numbers them */
static int fft_names(struct dt_args *a, int argc, char **argv)
{
	const char *name;
	unsigned n, ncases;
	char *end;
	int i;

	if (a->area && !dt_func_area(a->area))
		return bad("-f %s: no such functional area (dapltest -T F --list)",
			   a->area);
	for (i = 0; i < argc; i++) {
		if (a->nnames == sizeof(a->names) / sizeof(a->names[0]))
			return bad("%s", "too many names");
		name = argv[i];
		if (!strncmp(name, "case", 4) && name[4] >= '0' &&
		    name[4] <= '9') {
			if (!a->area)
				return bad("%s: case numbers need -f area", name);
			n = (unsigned)strtoul(name + 4, &end, 10);
			if (*end || !(name = dt_func_case(a->area, n, &ncases))) {
				fprintf(stderr, "dapltest: -f %s has case0..case%u\n",
					a->area, ncases - 1);
				return bad("%s: no such case", argv[i]);
			}
		}
		a->names[a->nnames++] = name;
	}
	if (a->area && !a->nnames)
		a->names[a->nnames++] = a->area;
	return 0;
}

/* what follows the options, by test; 0 or DT_EXIT_USAGE */
static int operands(struct dt_args *a, const char *mode, int argc,
		    char **argv)
{
	int i;

	switch (a->test) {
	case 'S':
	case 'Q':
		if (argc)
			return bad("unexpected '%s'", argv[0]);
		return 0;
	case 'T':
		if (!argc)
			return bad("%s", "-T T: no op list (e.g. client SR 4096)");
		return parse_ops(a, argc, argv);
	case 'P':
		if (mode && strcmp(mode, "b") && strcmp(mode, "p"))
			return bad("-m %s: want b (blocking) or p (polling)",
				   mode);
		a->perf_poll = mode && !strcmp(mode, "p");
		if (!argc)
			return bad("%s", "-T P: no op (RW, RR or SR)");
		a->nops = 1;
		if (!(a->ops[0].type = op_type(argv[0])))
			return bad("-T P: '%s': want RW, RR or SR", argv[0]);
		a->ops[0].seg_size = 4096;
		a->ops[0].num_segs = 1;
		if (argc > 1 && num(argv[1], &a->ops[0].seg_size, 1, 16u << 20))
			return bad("-T P: bad size '%s'", argv[1]);
		if (argc > 2 && num(argv[2], &a->ops[0].num_segs, 1, 64))
			return bad("-T P: bad segs '%s'", argv[2]);
		if (argc > 3)
			return bad("-T P: unexpected '%s'", argv[3]);
		return 0;
	case 'L':
		if (mode && num(mode, &a->limit_max, 1, 100000))
			return bad("-m %s: want a positive cap", mode);
		for (i = 0; i < argc; i++) {
			if (a->nnames == sizeof(a->names) / sizeof(a->names[0]))
				return bad("%s", "too many names");
			a->names[a->nnames++] = argv[i];
		}
		return 0;
	case 'F':
		return fft_names(a, argc, argv);
	}
	return DT_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tap", no_argument, NULL, 'A' },
		{ "list", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dt_args a;
	const char *mode = NULL, *sc;
	unsigned v;
	int c, list = 0, vis = 0;

	memset(&a, 0, sizeof(a));
	a.port = DT_DEFAULT_PORT;
	a.threads = 1;
	a.eps = 1;
	a.iterations = 100;
	a.pipeline = 8;
	a.limit_max = 32;
	a.limit_width = 1;
	sc = getenv("TEST_TIMEOUT_SCALE");
	if (sc && (num(sc, &v, 1, 1000) == 0))
		dt_scale = (int)v;
	/* the peer dying under us must be an error return, not a signal */
	signal(SIGPIPE, SIG_IGN);

	/* OFA's dapltest: no arguments at all is a server on the default IA */
	if (argc == 1)
		a.test = 'S';
	while ((c = getopt_long(argc, argv, "+T:D:s:n:dt:w:i:VPQm:p:R:f:v:rh",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'T':
			if (strlen(optarg) != 1 || !strchr("SQTPLF", *optarg))
				return bad("-T %s: want S, Q, T, P, L or F",
					   optarg);
			a.test = *optarg;
			break;
		case 'D':
			a.ia_name = optarg;
			break;
		case 's':
			a.server = optarg;
			break;
		case 'n':
			if (num(optarg, &a.port, 1, 65535))
				return bad("-n %s: want a port 1..65535",
					   optarg);
			break;
		case 'd':
			dt_debug = 1;
			break;
		case 't':
			if (num(optarg, &a.threads, 1, DT_MAX_THREADS))
				return bad("-t %s: want 1..64 threads", optarg);
			break;
		case 'w':
			if (num(optarg, &v, 1, 1000))
				return bad("-w %s: want 1..1000", optarg);
			a.eps = v;
			a.limit_width = v;
			break;
		case 'i':
			if (num(optarg, &a.iterations, 1, 100000000))
				return bad("-i %s: want a positive count",
					   optarg);
			break;
		case 'V':
			a.validate = 1;
			break;
		case 'P':
			a.poll = 1;
			break;
		case 'Q':
			a.cno = 1;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'p':
			if (num(optarg, &a.pipeline, 1, 256))
				return bad("-p %s: want 1..256", optarg);
			break;
		case 'R':
			if (dt_qos_parse(optarg, &dt_qos_wanted))
				return bad("-R %s: want HT, LL, EC, PM or BE", optarg);
			break;
		case 'f':
			a.area = optarg;
			break;
		case 'v':
			/* OFA's stress areas' VI count: no area here uses it */
			if (num(optarg, &v, 1, 100000000))
				return bad("-v %s: want a positive count", optarg);
			vis = 1;
			break;
		case 'r':
			return bad("%s", "-r: RSPs for the transaction test's connections are not implemented; run without -r");
		case 'A':
			a.tap = 1;
			break;
		case 'L':
			list = 1;
			break;
		case 'h':
			usage(stdout);
			return DT_EXIT_OK;
		default:
			usage(stderr);
			return DT_EXIT_USAGE;
		}
	}
	if ((a.area || vis) && a.test != 'F')
		return bad("%s", "-f area and -v are options of -T F");
	if (list) {
		if (a.area && !dt_func_area(a.area))
			return bad("-f %s: no such functional area", a.area);
		dt_func_list(a.area);
		return DT_EXIT_OK;
	}
	if (!a.test)
		return bad("%s", "-T is required");
	if (a.test == 'T' && a.eps > DT_MAX_EPS)
		return bad("-w: at most %s endpoints per thread", "64");
	if (strchr("QTP", a.test) && !a.server)
		return bad("-T %s needs -s server", a.test == 'Q' ? "Q" :
			   a.test == 'T' ? "T" : "P");
	if ((c = operands(&a, mode, argc - optind, argv + optind)))
		return c;
	/* only a command line that parsed picks and opens an IA */
	if (!a.ia_name)
		a.ia_name = dt_default_ia();
	if (!a.ia_name)
		return DT_EXIT_IA;
	switch (a.test) {
	case 'S':
		return dt_server(&a);
	case 'Q':
		return dt_quit(&a);
	case 'T':
		return dt_transaction(&a);
	case 'P':
		return dt_performance(&a);
	case 'L':
		return dt_limit(&a);
	case 'F':
		return dt_functional(&a);
	}
	return DT_EXIT_USAGE;
}
