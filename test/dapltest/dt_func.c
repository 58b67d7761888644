/*
 * dt_func.c - the functional tests (-T F): cases in groups hwconn, pz,
 * mem, endpoint, cqmgt, queryinfo (local), connmgt and dataxfer (against
 * the server's echo service, dt_fserve.c).  Each case asserts the exact
 * DAT_RETURN type the DAT 1.2 man pages name, events and data, and prints
 * "Result: PASS|FAIL|UNSUPP".  UNSUPP only where dat_ia_query reports the
 * feature absent.
 *
 * The groups rmr (dt_func_rmr.c) and atomic (dt_func_atomic.c) have the
 * echo service act on the client's memory through its RDMA commands
 * (dt_func.h): the helpers for those are here too.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dt.h"
#include "dt_func.h"

/* ---- assertion helpers --------------------------------------------------- */

void fc_why(struct fctx *f, const char *fmt, ...)
{
	va_list ap;

	if (f->why[0])
		return;		/* the first failure is the one that counts */
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
}

int fc_rc(struct fctx *f, const char *what, DAT_RETURN got, DAT_RETURN want)
{
	int ok = want == DAT_SUCCESS ? got == DAT_SUCCESS :
		 DAT_GET_TYPE(got) == DAT_GET_TYPE(want) &&
		 got != DAT_SUCCESS;

	if (!ok)
		fc_why(f, "%s: got %s, want %s", what, dt_rc(got),
		       dt_rc(DAT_GET_TYPE(want) |
			     (want == DAT_SUCCESS ? 0 : DAT_CLASS_ERROR)));
	dt_dbg("%s: %s", what, dt_rc(got));
	return ok;
}

int fc_rc_exact(struct fctx *f, const char *what, DAT_RETURN got,
		DAT_RETURN want)
{
	if (got != want)
		fc_why(f, "%s: got %s, want %s", what, dt_rc(got), dt_rc(want));
	dt_dbg("%s: %s", what, dt_rc(got));
	return got == want;
}

int fc_true(struct fctx *f, const char *what, int cond)
{
	if (!cond)
		fc_why(f, "%s", what);
	return cond;
}

/* one DTO completion on evd (bounded): status, cookie, length */
int fc_dto(struct fctx *f, const char *what, DAT_EVD_HANDLE evd,
	   uint64_t cookie, DAT_DTO_COMPLETION_STATUS status, DAT_VLEN len)
{
	const DAT_DTO_COMPLETION_EVENT_DATA *d;
	DAT_EVENT ev;
	DAT_RETURN rc;

	rc = dt_wait(evd, NULL, 0, dt_secs(20), &ev);
	if (!fc_rc(f, what, rc, DAT_SUCCESS))
		return 0;
	d = &ev.event_data.dto_completion_event_data;
	if (ev.event_number != DAT_DTO_COMPLETION_EVENT) {
		fc_why(f, "%s: event %s, want a DTO completion", what,
		       dt_ev(ev.event_number));
		return 0;
	}
	if (d->status != status) {
		fc_why(f, "%s: status %s, want %s", what, dt_dto(d->status),
		       dt_dto(status));
		return 0;
	}
	if (d->user_cookie.as_64 != cookie) {
		fc_why(f, "%s: cookie 0x%llx, want 0x%llx", what,
		       (unsigned long long)d->user_cookie.as_64,
		       (unsigned long long)cookie);
		return 0;
	}
	if (len != (DAT_VLEN)-1 && d->transfered_length != len) {
		fc_why(f, "%s: %llu bytes, want %llu", what,
		       (unsigned long long)d->transfered_length,
		       (unsigned long long)len);
		return 0;
	}
	return 1;
}

/* one connection event on evd (bounded) */
int fc_conn_event(struct fctx *f, const char *what, DAT_EVD_HANDLE evd,
		  DAT_EVENT_NUMBER want, DAT_EVENT *ev)
{
	DAT_EVENT e;
	DAT_RETURN rc;

	if (!ev)
		ev = &e;
	rc = dt_wait(evd, NULL, 0, dt_secs(30), ev);
	if (!fc_rc(f, what, rc, DAT_SUCCESS))
		return 0;
	if (ev->event_number != want) {
		fc_why(f, "%s: event %s, want %s", what,
		       dt_ev(ev->event_number), dt_ev(want));
		return 0;
	}
	return 1;
}

DAT_EP_STATE fc_state(DAT_EP_HANDLE ep)
{
	DAT_EP_STATE st = (DAT_EP_STATE)-1;
	DAT_BOOLEAN ri, qi;

	dat_ep_get_status(ep, &st, &ri, &qi);
	return st;
}

/* ---- per-case objects ---------------------------------------------------- */

int fc_conn_open(struct fctx *f, struct fconn *c, int recvs)
{
	DAT_RETURN rc;
	DAT_EP_ATTR a;

	memset(c, 0, sizeof(*c));
	rc = dat_evd_create(f->ia, 32, DAT_HANDLE_NULL, DAT_EVD_DTO_FLAG,
			    &c->req);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(f->ia, 32, DAT_HANDLE_NULL,
				    DAT_EVD_DTO_FLAG, &c->rcv);
	if (rc == DAT_SUCCESS)
		rc = dat_evd_create(f->ia, 8, DAT_HANDLE_NULL,
				    DAT_EVD_CONNECTION_FLAG, &c->conn);
	if (!fc_rc(f, "dat_evd_create", rc, DAT_SUCCESS))
		return 0;
	dt_ep_attr(&f->attr, &a, recvs ? recvs : 16, 16, 4);
	rc = dat_ep_create(f->ia, f->pz, c->rcv, c->req, c->conn, &a, &c->ep);
	if (!fc_rc(f, "dat_ep_create", rc, DAT_SUCCESS)) {
		c->ep = DAT_HANDLE_NULL;
		return 0;
	}
	rc = dt_mem_alloc(f->ia, f->pz, &c->mem, 64 * 1024, DT_PRIV_ALL);
	return fc_rc(f, "dat_lmr_create", rc, DAT_SUCCESS);
}

/* connect to the server's echo service; pdata may be NULL */
int fc_connect(struct fctx *f, struct fconn *c, const void *pdata,
	       DAT_COUNT plen)
{
	DAT_RETURN rc;

	rc = dat_ep_connect(c->ep, (DAT_IA_ADDRESS_PTR)&f->sin, f->qual,
			    dt_secs(20), plen, (DAT_PVOID)pdata,
			    DAT_QOS_BEST_EFFORT, DAT_CONNECT_DEFAULT_FLAG);
	if (!fc_rc(f, "dat_ep_connect", rc, DAT_SUCCESS))
		return 0;
	return fc_conn_event(f, "connection to the echo service", c->conn,
			     DAT_CONNECTION_EVENT_ESTABLISHED, &c->ev);
}

void fc_conn_close(struct fctx *f, struct fconn *c)
{
	DAT_RETURN rc;

	if (c->ep) {
		if (fc_state(c->ep) == DAT_EP_STATE_CONNECTED)
			dt_disconnect(c->ep, c->conn);
		rc = dat_ep_free(c->ep);
		fc_rc(f, "dat_ep_free", rc, DAT_SUCCESS);
	}
	if (c->mem.lmr)
		dt_mem_free(&c->mem);
	if (c->conn)
		dat_evd_free(c->conn);
	if (c->rcv)
		dat_evd_free(c->rcv);
	if (c->req)
		dat_evd_free(c->req);
	memset(c, 0, sizeof(*c));
}

/* ---- the echo service's RDMA commands ------------------------------------ */

/* where a command connection keeps its command and the answer */
#define FC_CMD_SEND	(48 * 1024)
#define FC_CMD_RECV	(56 * 1024)

int fc_cmd_connect(struct fctx *f, struct fconn *c)
{
	struct fs_cmd_pdata pd;

	memset(c, 0, sizeof(*c));
	if (!(f->features & DT_FEAT_FS_CMD)) {
		fc_why(f, "the server's echo service has no RDMA commands (a dapltest server older than this client?)");
		return 0;
	}
	if (!fc_conn_open(f, c, 0))
		return 0;
	memset(&pd, 0, sizeof(pd));
	memcpy(pd.tag, FS_CMD_TAG, sizeof(FS_CMD_TAG));
	pd.token = c->token = ++f->next_token;
	return fc_connect(f, c, &pd, sizeof(pd));
}

int fc_cmd(struct fctx *f, struct fconn *c, struct fs_cmd *cmd)
{
	static const char *const names[] = { "?", "WRITE", "READ", "ASET",
					     "AGET" };
	const char *name = names[cmd->op < 5 ? cmd->op : 0];
	DAT_LMR_TRIPLET s = dt_iov(&c->mem, FC_CMD_SEND, sizeof(*cmd));
	DAT_LMR_TRIPLET r = dt_iov(&c->mem, FC_CMD_RECV, 4096);
	char what[64];

	cmd->magic = FS_CMD_MAGIC;
	memcpy(c->mem.buf + FC_CMD_SEND, cmd, sizeof(*cmd));
	memset(c->mem.buf + FC_CMD_RECV, 0, sizeof(*cmd));
	snprintf(what, sizeof(what), "command %s: dat_ep_post_recv", name);
	if (!fc_rc(f, what, dat_ep_post_recv(c->ep, 1, &r, dt_cookie(0xA45),
					     DAT_COMPLETION_DEFAULT_FLAG),
		   DAT_SUCCESS))
		return 0;
	snprintf(what, sizeof(what), "command %s: dat_ep_post_send", name);
	if (!fc_rc(f, what, dat_ep_post_send(c->ep, 1, &s, dt_cookie(0xC3D),
					     DAT_COMPLETION_DEFAULT_FLAG),
		   DAT_SUCCESS))
		return 0;
	snprintf(what, sizeof(what), "command %s: its send", name);
	if (!fc_dto(f, what, c->req, 0xC3D, DAT_DTO_SUCCESS, sizeof(*cmd)))
		return 0;
	snprintf(what, sizeof(what), "command %s: the service's answer", name);
	if (!fc_dto(f, what, c->rcv, 0xA45, DAT_DTO_SUCCESS, sizeof(*cmd)))
		return 0;
	memcpy(cmd, c->mem.buf + FC_CMD_RECV, sizeof(*cmd));
	if (cmd->magic != FS_CMD_MAGIC) {
		fc_why(f, "command %s: the answer is not a command (an echo?)",
		       name);
		return 0;
	}
	dt_dbg("command %s: post %s, status %s, match %u%s%.*s", name,
	       dt_rc(cmd->post_rc), dt_dto(cmd->status), cmd->match,
	       cmd->text[0] ? ": " : "", (int)sizeof(cmd->text), cmd->text);
	return 1;
}

int fc_conn_lost(struct fctx *f, struct fconn *c, const char *what)
{
	DAT_EVENT ev;
	DAT_RETURN rc;

	rc = dt_wait(c->conn, NULL, 0, dt_secs(30), &ev);
	if (!fc_rc(f, what, rc, DAT_SUCCESS))
		return 0;
	if (ev.event_number != DAT_CONNECTION_EVENT_DISCONNECTED &&
	    ev.event_number != DAT_CONNECTION_EVENT_BROKEN) {
		fc_why(f, "%s: event %s, want DISCONNECTED or BROKEN", what,
		       dt_ev(ev.event_number));
		return 0;
	}
	if (ev.event_data.connect_event_data.ep_handle != c->ep) {
		fc_why(f, "%s: the event names another EP", what);
		return 0;
	}
	return fc_true(f, "the EP is DISCONNECTED after it",
		       fc_state(c->ep) == DAT_EP_STATE_DISCONNECTED);
}

const char *fc_prov_attr(const struct fctx *f, const char *name)
{
	DAT_COUNT i;

	for (i = 0; i < f->pattr.num_provider_specific_attr; i++)
		if (f->pattr.provider_specific_attr[i].name &&
		    !strcmp(f->pattr.provider_specific_attr[i].name, name))
			return f->pattr.provider_specific_attr[i].value;
	return NULL;
}

/* ---- the run ------------------------------------------------------------- */

static const struct fgroup *const groups[] = {
	&fgroup_hwconn, &fgroup_pz, &fgroup_mem, &fgroup_endpoint,
	&fgroup_cqmgt, &fgroup_queryinfo, &fgroup_connmgt, &fgroup_dataxfer,
	&fgroup_rmr, &fgroup_atomic,
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

static int wanted(const struct dt_args *a, const struct fgroup *g,
		  const char *name)
{
	unsigned i;

	if (!a->nnames)
		return 1;
	for (i = 0; i < a->nnames; i++)
		if (!strcmp(a->names[i], g->name) ||
		    !strcmp(a->names[i], name))
			return 1;
	return 0;
}

static int check_names(const struct dt_args *a, int *need_server)
{
	unsigned i, g, k;
	int found;

	*need_server = 0;
	for (g = 0; g < NGROUPS; g++)
		for (k = 0; k < groups[g]->n; k++)
			if (groups[g]->server &&
			    wanted(a, groups[g], groups[g]->cases[k].name))
				*need_server = 1;
	for (i = 0; i < a->nnames; i++) {
		found = 0;
		for (g = 0; g < NGROUPS && !found; g++) {
			if (!strcmp(a->names[i], groups[g]->name))
				found = 1;
			for (k = 0; k < groups[g]->n && !found; k++)
				if (!strcmp(a->names[i],
					    groups[g]->cases[k].name))
					found = 1;
		}
		if (!found) {
			dt_err("unknown functional group or case '%s'",
			       a->names[i]);
			return -1;
		}
	}
	return 0;
}

static const struct fgroup *group_named(const char *area)
{
	unsigned g;

	for (g = 0; g < NGROUPS; g++)
		if (!strcmp(groups[g]->name, area))
			return groups[g];
	return NULL;
}

int dt_func_area(const char *area)
{
	return group_named(area) != NULL;
}

/* OFA's dapltest numbers the cases of a function feature from case0; here
 * case<n> is the area's n-th case in --list order */
const char *dt_func_case(const char *area, unsigned n, unsigned *ncases)
{
	const struct fgroup *g = group_named(area);

	*ncases = g ? g->n : 0;
	return g && n < g->n ? g->cases[n].name : NULL;
}

/* every case; with an area, its cases with their OFA-style numbers */
void dt_func_list(const char *area)
{
	unsigned g, k;

	for (g = 0; g < NGROUPS; g++) {
		if (area && strcmp(area, groups[g]->name))
			continue;
		for (k = 0; k < groups[g]->n; k++) {
			if (area)
				printf("%-10s case%-3u %-28s %s\n",
				       groups[g]->name, k,
				       groups[g]->cases[k].name,
				       groups[g]->cases[k].what);
			else
				printf("%-10s %-28s %s\n", groups[g]->name,
				       groups[g]->cases[k].name,
				       groups[g]->cases[k].what);
		}
	}
}

static int run_case(struct fctx *f, const struct fcase *c,
		    struct dt_results *res)
{
	int r;

	f->why[0] = 0;
	dt_dbg("case %s: %s", c->name, c->what);
	r = c->fn(f);
	if (r == DT_FAIL && !f->why[0])
		snprintf(f->why, sizeof(f->why), "failed");
	if (r == DT_PASS)
		f->why[0] = 0;
	dt_result(res, c->name, r, f->why);
	return r;
}

int dt_functional(const struct dt_args *a)
{
	struct dt_results res = { .tap = a->tap };
	struct dt_hello h, ans;
	struct dt_ctl ctl;
	struct fctx f;
	unsigned g, k;
	int need_server, rc;
	DAT_RETURN drc;

	if (check_names(a, &need_server))
		return DT_EXIT_USAGE;
	memset(&f, 0, sizeof(f));
	memset(&ctl, 0, sizeof(ctl));
	f.args = a;
	if (need_server) {
		if (!a->server) {
			dt_err("the connmgt, dataxfer, rmr and atomic groups need a server: -s host (or name other groups)");
			return DT_EXIT_USAGE;
		}
		dt_hello_init(&h, DT_F);
		rc = dt_client_start(&ctl, a, &h, &ans);
		if (rc)
			return rc;
		f.qual = ans.data_qual;
		f.rbuf_addr = ans.buf_addr;
		f.rbuf_len = ans.buf_len;
		f.rbuf_rctx = ans.buf_rctx;
		f.features = ans.features;
		dt_sockaddr(&f.sin, a->server, 0);
		f.have_server = 1;
	}
	if (dt_ia_open(a->ia_name, &f.ia, &f.async) != DAT_SUCCESS) {
		if (need_server)
			dt_client_finish(&ctl);
		return DT_EXIT_IA;
	}
	drc = dat_ia_query(f.ia, &f.async, DAT_IA_FIELD_ALL, &f.attr,
			   DAT_PROVIDER_FIELD_ALL, &f.pattr);
	if (drc == DAT_SUCCESS)
		drc = dat_pz_create(f.ia, &f.pz);
	if (drc != DAT_SUCCESS) {
		dt_err("functional set-up: %s", dt_rc(drc));
		dat_ia_close(f.ia, DAT_CLOSE_ABRUPT_FLAG);
		if (need_server)
			dt_client_finish(&ctl);
		return DT_EXIT_IA;
	}
	if (!res.tap)
		dt_log("Functional test: IA %s%s%s", a->ia_name,
		       need_server ? ", server " : "",
		       need_server ? a->server : "");
	for (g = 0; g < NGROUPS; g++)
		for (k = 0; k < groups[g]->n; k++)
			if (wanted(a, groups[g], groups[g]->cases[k].name))
				run_case(&f, &groups[g]->cases[k], &res);
	drc = dat_pz_free(f.pz);
	if (drc == DAT_SUCCESS)
		drc = dat_ia_close(f.ia, DAT_CLOSE_GRACEFUL_FLAG);
	if (drc != DAT_SUCCESS) {
		dt_err("after the cases: objects left behind: %s", dt_rc(drc));
		dat_ia_close(f.ia, DAT_CLOSE_ABRUPT_FLAG);
		res.failed++;
	}
	if (need_server) {
		dt_hello_init(&h, DT_F);
		if (dt_ctl_send(&ctl, &h) || dt_ctl_recv(&ctl, &ans, 30) ||
		    ans.status) {
			dt_err("the server's echo service reports a failure: %.*s",
			       (int)sizeof(ans.text), ans.text);
			res.failed++;
		}
		dt_client_finish(&ctl);
	}
	return dt_summary(&res);
}
