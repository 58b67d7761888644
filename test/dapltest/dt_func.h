/*
 * dt_func.h - the functional test cases (-T F) and their helpers.
 */
#ifndef DT_FUNC_H
#define DT_FUNC_H

#include "dt.h"

/* what every case gets: an open IA with a PZ, and the echo service */
struct fctx {
	const struct dt_args *args;
	DAT_IA_HANDLE ia;
	DAT_EVD_HANDLE async;
	DAT_PZ_HANDLE pz;
	DAT_IA_ATTR attr;
	DAT_PROVIDER_ATTR pattr;
	int have_server;
	struct sockaddr_in sin;
	DAT_CONN_QUAL qual;		/* the echo service's PSP */
	uint64_t rbuf_addr, rbuf_len;	/* its RDMA buffer */
	uint32_t rbuf_rctx;
	char why[256];
};

/* a connection of one case */
struct fconn {
	DAT_EP_HANDLE ep;
	DAT_EVD_HANDLE req, rcv, conn;
	struct dt_mem mem;		/* 64 KiB, all privileges */
	DAT_EVENT ev;			/* the ESTABLISHED event */
};

struct fcase {
	const char *name;
	const char *what;
	int (*fn)(struct fctx *f);	/* DT_PASS, DT_FAIL or DT_UNSUPP */
};

struct fgroup {
	const char *name;
	int server;			/* its cases need the server */
	const struct fcase *cases;
	unsigned n;
};

#define FGROUP(var, gname, srv, table) \
	const struct fgroup var = { gname, srv, table, \
				    sizeof(table) / sizeof(table[0]) }

extern const struct fgroup fgroup_hwconn, fgroup_pz, fgroup_mem,
	fgroup_endpoint, fgroup_cqmgt, fgroup_queryinfo, fgroup_connmgt,
	fgroup_dataxfer;

void fc_why(struct fctx *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* got matches want: DAT_SUCCESS exactly, an error by its type */
int fc_rc(struct fctx *f, const char *what, DAT_RETURN got, DAT_RETURN want);
int fc_true(struct fctx *f, const char *what, int cond);
int fc_dto(struct fctx *f, const char *what, DAT_EVD_HANDLE evd,
	   uint64_t cookie, DAT_DTO_COMPLETION_STATUS status, DAT_VLEN len);
int fc_conn_event(struct fctx *f, const char *what, DAT_EVD_HANDLE evd,
		  DAT_EVENT_NUMBER want, DAT_EVENT *ev);
DAT_EP_STATE fc_state(DAT_EP_HANDLE ep);
int fc_conn_open(struct fctx *f, struct fconn *c, int recvs);
int fc_connect(struct fctx *f, struct fconn *c, const void *pdata,
	       DAT_COUNT plen);
void fc_conn_close(struct fctx *f, struct fconn *c);
void dt_func_list(void);

/* case bodies: a false check jumps to out (cleanup), r stays DT_FAIL */
#define CK(what, got, want) \
	do { if (!fc_rc(f, (what), (got), (want))) goto out; } while (0)
#define CT(what, cond) \
	do { if (!fc_true(f, (what), (cond))) goto out; } while (0)

/* the echo service's protocol: private data starting with this is
 * rejected; otherwise it is returned in the accept */
#define FS_REJECT_TAG	"REJECT"

#endif /* DT_FUNC_H */
