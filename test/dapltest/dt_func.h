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
	uint32_t features;		/* DT_FEAT_* of the server */
	uint32_t next_token;		/* of command connections */
	char why[256];
};

/* a connection of one case */
struct fconn {
	DAT_EP_HANDLE ep;
	DAT_EVD_HANDLE req, rcv, conn;
	struct dt_mem mem;		/* 64 KiB, all privileges */
	DAT_EVENT ev;			/* the ESTABLISHED event */
	uint32_t token;			/* a command connection's (fc_cmd_connect) */
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
	fgroup_dataxfer, fgroup_rmr, fgroup_atomic;

void fc_why(struct fctx *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* got matches want: DAT_SUCCESS exactly, an error by its type */
int fc_rc(struct fctx *f, const char *what, DAT_RETURN got, DAT_RETURN want);
/* got is want, type and subtype */
int fc_rc_exact(struct fctx *f, const char *what, DAT_RETURN got,
		DAT_RETURN want);
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

struct fs_cmd;
/* the echo service's RDMA commands (below): a command connection to it,
 * with a token of its own in c->token; 0, or FAIL/why */
int fc_cmd_connect(struct fctx *f, struct fconn *c);
/* sends cmd on c and waits (bounded) for the answer, which replaces it;
 * only the exchange is checked (the answer's post_rc and status are the
 * case's to check) */
int fc_cmd(struct fctx *f, struct fconn *c, struct fs_cmd *cmd);
/* the end of a connection the peer broke: a DISCONNECTED or BROKEN event
 * (bounded), then the EP DISCONNECTED */
int fc_conn_lost(struct fctx *f, struct fconn *c, const char *what);
/* the provider-specific attribute name, or NULL */
const char *fc_prov_attr(const struct fctx *f, const char *name);

/* an error DAT_RETURN of type t and subtype s */
#define DT_ERR(t, s) ((DAT_RETURN)(DAT_CLASS_ERROR | (t) | (s)))

/* case bodies: a false check jumps to out (cleanup), r stays DT_FAIL */
#define CK(what, got, want) \
	do { if (!fc_rc(f, (what), (got), (want))) goto out; } while (0)
#define CKX(what, got, want) \
	do { if (!fc_rc_exact(f, (what), (got), (want))) goto out; } while (0)
#define CT(what, cond) \
	do { if (!fc_true(f, (what), (cond))) goto out; } while (0)

/* the echo service's protocol: private data starting with this is
 * rejected; otherwise it is returned in the accept */
#define FS_REJECT_TAG	"REJECT"

/*
 * Its RDMA commands (offered when the server's answer has DT_FEAT_FS_CMD).
 * A connection whose private data is struct fs_cmd_pdata is a command
 * connection: every message received on it is a struct fs_cmd (not
 * echoed), and the service answers each with the same struct, its answer
 * fields filled in, once the command is done.  One command at a time per
 * connection.  Fields are in the host order (the handshake checked that
 * both ends share it).
 *
 *   FS_OP_WRITE  RDMA-writes len bytes of the pattern seed (dt_fill) to
 *                the triplet (rmr_context, addr, len) through the
 *                connection `via` (the token of another command
 *                connection of this client; 0: this one).  status is
 *                the completion's status: a write through a dead window
 *                gets DAT_DTO_ERR_REMOTE_ACCESS there, and that
 *                connection breaks.
 *   FS_OP_READ   RDMA-reads len bytes from the triplet, the same way;
 *                match is 1 if they are the pattern seed.
 *   FS_OP_ASET   stores value in the 64-bit word at offset addr of the
 *                atomic target (an LMR of the service registered with
 *                DAT_IB_MEM_PRIV_REMOTE_ATOMIC where the device has
 *                atomics); answers as FS_OP_AGET.
 *   FS_OP_AGET   answers the target (taddr, tlen, trctx, atomic) and the
 *                word at offset addr (tvalue), read by the server's CPU.
 *
 * A command the service cannot carry out gets post_rc != DAT_SUCCESS and
 * a text.
 */
#define FS_CMD_TAG	"DTCMD"
#define FS_CMD_MAGIC	0x44434d44u	/* "DMCD" */
#define FS_CMD_MAX	16384		/* len of a WRITE or READ */
#define FS_ATARGET	4096		/* size of the atomic target */

enum fs_op { FS_OP_WRITE = 1, FS_OP_READ, FS_OP_ASET, FS_OP_AGET };

struct fs_cmd_pdata {
	char tag[8];			/* FS_CMD_TAG */
	uint32_t token;			/* the client's name for it, not 0 */
	uint32_t pad;
};

struct fs_cmd {
	uint32_t magic;			/* FS_CMD_MAGIC */
	uint32_t op;			/* enum fs_op */
	uint32_t via;			/* WRITE, READ: a token, or 0 */
	uint32_t seed;			/* WRITE, READ: the pattern */
	uint64_t addr;			/* WRITE, READ: target_address;
					 * ASET, AGET: offset in the target */
	uint64_t len;			/* WRITE, READ */
	uint64_t value;			/* ASET */
	uint32_t rmr_context;		/* WRITE, READ */
	/* the answer */
	uint32_t post_rc;		/* DAT_RETURN of the service's post */
	uint32_t status;		/* its DAT_DTO_COMPLETION_STATUS */
	uint32_t match;			/* READ: the data is the pattern */
	uint32_t atomic;		/* the target has REMOTE_ATOMIC */
	uint32_t trctx;			/* the target's rmr_context */
	uint64_t taddr, tlen;		/* the target */
	uint64_t tvalue;		/* ASET, AGET: the word at addr */
	char text[96];			/* why, if post_rc says it failed */
};

#endif /* DT_FUNC_H */
