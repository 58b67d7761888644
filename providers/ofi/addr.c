/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses.
 *
 * ia_params of a dat.conf entry: "<libfabric provider> <IPv4 address>",
 * e.g. "tcp;ofi_rxm 127.0.0.1".  The IA address DAT applications see is
 * that IPv4 address as a sockaddr_in with port 0.
 *
 * A service point (PSP/RSP) with qualifier Q listens on a libfabric
 * endpoint at IP:port(Q), a port of 1024..32767: Q itself there, else
 * 1024 + (Q - 1024) mod 31744 (issue 39).  Never one of Linux's
 * ephemeral ports (32768..60999 by default), where any outgoing socket
 * of the host may sit and make a PSP fail at random, nor a privileged
 * one; the same on every host, whatever its ip_local_port_range, since
 * both ends compute it.  A connect to (IP, Q) sends its request there,
 * and the request carries the full 64-bit Q: a listener whose own
 * qualifier differs (two qualifiers that map to one port: Q and
 * Q + 31744) answers "no one listens" and never takes it.  Two service
 * points of one IP whose qualifiers map to one port cannot coexist: the
 * second gets DAT_CONN_QUAL_IN_USE, as a port in use by another program
 * does.  Qualifier 0 (PSP_any) takes a free port of 24576..32767, the
 * top quarter of the range (ofi_any_listen), and reports it as Q: the
 * lower ports stay for the qualifiers applications choose.
 *
 * How (IP, port) becomes a libfabric address depends on the provider's
 * address format:
 *   - FI_SOCKADDR_IN (tcp;ofi_rxm): the sockaddr_in itself;
 *   - FI_ADDR_STR (shm): the name "dat-<IP>-<port>", e.g.
 *     "dat-127.0.0.1-5000".  shm takes a name without its "fi_shm://"
 *     prefix as it is, and its region is /dev/shm/<name>: a second
 *     listener on that name (in any process of the host) gets -FI_EBUSY,
 *     so DAT_CONN_QUAL_IN_USE, as a port in use does over TCP; a name
 *     with no region means nobody listens (NON_PEER_REJECTED at once, see
 *     ofi_addr_listening).  Endpoints of port 0 (the IA's control
 *     endpoint, every DAT EP's data endpoint) keep the name shm makes of
 *     fi_getinfo's "fi_shm://<pid>" (it appends ":<uid>:<index>"), unique
 *     on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "ofi.h"

int ofi_params_parse(const char *params, char *prov, size_t provlen,
		     struct sockaddr_in *addr)
{
	char p[128], host[256], extra[2];
	struct addrinfo hints, *res = NULL;
	int n;

	if (!params)
		return -1;
	n = sscanf(params, " %127s %255s %1s", p, host, extra);
	if (n != 2 || strlen(p) >= provlen)
		return -1;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	if (getaddrinfo(host, NULL, &hints, &res) || !res)
		return -1;
	memset(addr, 0, sizeof(*addr));
	memcpy(addr, res->ai_addr, sizeof(*addr));
	addr->sin_port = 0;
	freeaddrinfo(res);
	snprintf(prov, provlen, "%s", p);
	return 0;
}

/* shm's name of (IP, port); its length with the NUL */
static size_t ofi_shm_name(const struct sockaddr_in *sin, char *buf,
			   size_t len)
{
	char ip[INET_ADDRSTRLEN];
	int n;

	inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
	n = snprintf(buf, len, "dat-%s-%u", ip, ntohs(sin->sin_port));
	return n < 0 || (size_t)n >= len ? 0 : (size_t)n + 1;
}

size_t ofi_addr_make(const struct dapl_tp_ia *oia,
		     const struct sockaddr_in *sin, void *buf, size_t len)
{
	switch (oia->info->addr_format) {
	case FI_SOCKADDR_IN:
		if (len < sizeof(*sin))
			return 0;
		memcpy(buf, sin, sizeof(*sin));
		return sizeof(*sin);
	case FI_ADDR_STR:
		return ofi_shm_name(sin, buf, len);
	default:
		return 0;
	}
}

/*
 * shm: what is at /dev/shm<name> (name with its leading '/'): 1 a file
 * that can be a listener's region (its stat in *st), 0 nothing, -1
 * cannot tell, OFI_ADDR_PLANTED something else, said on stderr.
 * /dev/shm is writable by every user: a FIFO there froze the IA in
 * shm_open (an open for reading waits for a writer), under its lock
 * (issue 33).  So the open never waits (O_NONBLOCK) nor follows a link,
 * and only a regular file of ours, large enough for a region, counts.
 */
#define OFI_SHM_REGION_MIN 4096

static int ofi_shm_look(const char *name, struct stat *st)
{
	int fd = shm_open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW,
			  0);
	const char *what = NULL;
	char size[48];

	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		if (errno == ELOOP)
			what = "a symbolic link";
		else if (errno == ENXIO)
			what = "a socket";
		else
			return -1;
	} else {
		int rc = fstat(fd, st);

		close(fd);
		if (rc)
			return -1;
		if (S_ISDIR(st->st_mode))
			what = "a directory";
		else if (S_ISFIFO(st->st_mode))
			what = "a FIFO";
		else if (!S_ISREG(st->st_mode))
			what = "no regular file";
		else if (st->st_uid != geteuid())
			what = "a file of another user";
		else if (st->st_size < OFI_SHM_REGION_MIN) {
			snprintf(size, sizeof(size), "a file of %lld bytes",
				 (long long)st->st_size);
			what = size;
		}
	}
	if (!what)
		return 1;
	dapl_dbg(DAPL_DBG_ERR,
		 "ofi: /dev/shm%s is %s, not a listener's region: this "
		 "address cannot be listened at or connected to while it is "
		 "there",
		 name, what);
	return OFI_ADDR_PLANTED;
}

int ofi_addr_listening(const struct dapl_tp_ia *oia,
		       const struct sockaddr_in *sin)
{
	char name[OFI_ADDR_MAX + 1];
	struct stat st;

	if (oia->info->addr_format != FI_ADDR_STR ||
	    !ofi_shm_name(sin, name + 1, sizeof(name) - 1))
		return -1;
	/* shm's region of a listener: /dev/shm/<name> */
	name[0] = '/';
	return ofi_shm_look(name, &st);
}

/*
 * shm: the address a connect sends to a listener's name under.  shm maps
 * a name's region once, when the name enters the AV or at the first send
 * to it, and keeps that mapping while the name is in the AV: inserting
 * the name again finds it in shm's map (smr_map_add) and maps nothing.
 * A listener closed and opened again on its qualifier (its lingering
 * endpoint gone, lep.c ofi_lep_linger) has a new region under the same
 * name, and what this IA sent there went on through its old mapping,
 * where nobody reads it: the connect timed out.  Removing the name from
 * the AV is no way out in libfabric 1.17: smr_av_remove clears shm's map
 * entry before smr_unmap_from_endpoint, which then returns early, so our
 * endpoint's region keeps the peer id of the old exchange for that slot;
 * a send to the slot, once reused, skips the name exchange and goes
 * through whatever is mapped there, NULL when the region was missing at
 * the insert (SIGSEGV in smr_generic_sendmsg, core of a churn.bats
 * client).
 *
 * So a listener's name has generations here.  Each connect looks at its
 * region (shm_open, fstat: the tmpfs inode, which a region made anew
 * never shares with the old one while that is mapped); when it is
 * another than at the last look, the name goes into the AV again with
 * one more leading '/'.  glibc's shm_open skips leading slashes, so that
 * is the same region file, but a key shm's map and libfabric's AV have
 * not seen: a fresh peer slot, mapped anew, whose first send exchanges
 * names as with any new peer.  A connect that timed out without a word
 * from the listener (ofi_addr_dest_stale) moves on too, in case the
 * region changed between our look and shm's mapping.  Each generation
 * costs an AV slot and keeps the old region mapped until the IA closes
 * (no address leaves the AV: see above, and ofi_addr_insert below);
 * after OFI_SHM_GEN_MAX of them on one name the last one stays, stale or
 * not.
 */
#define OFI_SHM_NAME_MAX 256 /* shm's SMR_NAME_MAX: what its AV reads */
#define OFI_SHM_GEN_MAX 200  /* the alias within NAME_MAX (255) */

/*
 * shm: the names an AV of the IA's control endpoint can take in its life
 * (libfabric 1.17's SMR_MAX_PEERS: one a peer IA, one a listener
 * generation the IA connected to, see ofi_addr_insert_gen below).  The
 * IA moves on to a new AV at OFI_GEN_ROLL of them (gen.c), so an IA
 * knows any number of peers in its life.  Only where that failed (no
 * new AV or control endpoint could be opened) does an AV fill up: the
 * IA says so on stderr (DAPL_DBG_ERR, printed by default) at
 * OFI_SHM_NAMES_WARN names, and once when the AV refuses one: a
 * connect to a new listener then fails and a request from a new peer IA
 * goes unanswered until the next move succeeds.
 */
#define OFI_SHM_NAMES 256
#define OFI_SHM_NAMES_WARN 224

static void ofi_shm_names_count(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
				int taken)
{
	char ip[INET_ADDRSTRLEN];

	if (taken && ++g->shm_names != OFI_SHM_NAMES_WARN)
		return;
	if (!taken && g->shm_names_out++)
		return;
	inet_ntop(AF_INET, &oia->addr.sin_addr, ip, sizeof(ip));
	if (taken)
		dapl_dbg(DAPL_DBG_ERR,
			 "ofi: shm IA %s has taken %u of the %u peer names "
			 "libfabric's shm lets one control endpoint take (one "
			 "a peer IA, one a listener it connected to), and "
			 "could not move on to a new one; past them, "
			 "connects to new listeners fail and requests from "
			 "new peer IAs go unanswered",
			 ip, g->shm_names, OFI_SHM_NAMES);
	else
		dapl_dbg(DAPL_DBG_ERR,
			 "ofi: shm IA %s: libfabric's shm took no more peer "
			 "names (%u taken): connects to new listeners fail "
			 "(DAT_INVALID_ADDRESS) and requests from new peer "
			 "IAs go unanswered until the IA moves on to a new "
			 "control endpoint",
			 ip, g->shm_names);
}

struct ofi_shm_dest {
	struct dapl_list link;	/* ofi_ctl_gen.shm_dests */
	char name[OFI_ADDR_MAX];
	unsigned gen;		/* the alias's leading slashes */
	dev_t dev;		/* its region at the last look */
	ino_t ino;		/* 0: none seen yet */
	fi_addr_t addr;		/* the alias in the AV, or FI_ADDR_NOTAVAIL */
};

static struct ofi_shm_dest *ofi_shm_dest_find(struct ofi_ctl_gen *g,
					      const char *name, int make)
{
	struct ofi_shm_dest *d;
	struct dapl_list *pos;

	for (pos = g->shm_dests.next; pos != &g->shm_dests;
	     pos = pos->next) {
		d = dapl_container_of(pos, struct ofi_shm_dest, link);
		if (!strcmp(d->name, name))
			return d;
	}
	if (!make || strlen(name) >= sizeof(d->name))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	strcpy(d->name, name);
	d->addr = FI_ADDR_NOTAVAIL;
	dapl_list_add_tail(&g->shm_dests, &d->link);
	return d;
}

static void ofi_shm_dest_next(struct ofi_shm_dest *d)
{
	if (d->gen < OFI_SHM_GEN_MAX) {
		d->gen++;
		d->addr = FI_ADDR_NOTAVAIL;
	}
}

int ofi_addr_dest(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
		  const struct sockaddr_in *sin, fi_addr_t *dest)
{
	char name[OFI_ADDR_MAX + 1], alias[OFI_SHM_NAME_MAX];
	struct ofi_shm_dest *d;
	struct stat st;
	int seen = 0, listening = 1;
	size_t n;

	if (oia->info->addr_format != FI_ADDR_STR)
		return -1;
	n = ofi_shm_name(sin, name + 1, sizeof(name) - 1);
	d = n ? ofi_shm_dest_find(g, name + 1, 1) : NULL;
	if (!d)
		return -1;
	name[0] = '/';
	switch (ofi_shm_look(name, &st)) {
	case 1:
		seen = 1;
		break;
	case 0:
		listening = 0;
		break;
	case OFI_ADDR_PLANTED:
		return OFI_ADDR_PLANTED; /* nothing of it into the AV */
	}
	/* a listener of this process: under an alias (ofi_shm_insert) */
	if (!d->gen && ofi_local_has(name + 1, n))
		ofi_shm_dest_next(d);
	if (seen) {
		if (d->ino && (st.st_ino != d->ino || st.st_dev != d->dev)) {
			dapl_dbg(DAPL_DBG_CM,
				 "ofi: %s: a new region: a fresh address",
				 d->name);
			ofi_shm_dest_next(d);
		}
		d->dev = st.st_dev;
		d->ino = st.st_ino;
	}
	if (d->addr == FI_ADDR_NOTAVAIL) {
		/* zeroed to shm's full name length: its AV reads that much */
		memset(alias, 0, sizeof(alias));
		memset(alias, '/', d->gen);
		memcpy(alias + d->gen, name + 1, n);
		if (fi_av_insert(g->av, alias, 1, &d->addr, 0, NULL) != 1) {
			d->addr = FI_ADDR_NOTAVAIL;
			ofi_shm_names_count(oia, g, 0);
			return -1;
		}
		ofi_shm_names_count(oia, g, 1);
	}
	*dest = d->addr;
	return listening;
}

void ofi_addr_dest_stale(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
			 const struct sockaddr_in *sin)
{
	char name[OFI_ADDR_MAX];
	struct ofi_shm_dest *d;

	if (oia->info->addr_format != FI_ADDR_STR ||
	    !ofi_shm_name(sin, name, sizeof(name)))
		return;
	d = ofi_shm_dest_find(g, name, 0);
	if (d) {
		ofi_shm_dest_next(d);
		d->ino = 0;
	}
}

/*
 * shm: the other names in the IA's AV, each inserted once.  libfabric
 * 1.17's shm counts every fi_av_insert against its 256 peers an AV
 * (SMR_MAX_PEERS), a name it already has included (that answers the
 * name's fi_addr and still takes one more of the 256), and nothing can
 * leave the AV (above).  A peer IA's control endpoint name comes with
 * every request and every accept, and a connection's data endpoint names
 * are new each time: an IA made some 125 connections in its life, then
 * every request and accept failed (datbench scale_server, 130 EP pairs).
 * So the IA's AV gets each name once (this list), and each EP's data
 * endpoint has an AV of its own for its peer, closed with the endpoint
 * (fep.c ofi_ep_fep_open).  What stays: 256 names an AV's life, one a
 * peer IA and one a listener generation, and the IA moves on to a new AV
 * before they run out (gen.c).
 */
struct ofi_shm_peer {
	struct dapl_list link;	/* ofi_ctl_gen.shm_peers */
	size_t len;
	uint8_t name[OFI_ADDR_MAX];
	fi_addr_t addr;
};

/*
 * shm: a name into av.  The name of an endpoint this process has open
 * (local.c) goes in as an alias, one more '/' after shm's "://" prefix
 * if it has one, else in front: shm_open skips it (the same region
 * file), but shm's list of the process's own endpoints, which it asks
 * first and whose region it would use directly, does not know the key.
 * The alias gets a mapping of its own, which stays valid after that
 * endpoint closes; the endpoint's own region, used directly, is unmapped
 * then, and a send to it crashed or spun for ever (two IAs of one
 * process, issue 33).  Zeroed to shm's full name length: its AV reads
 * that much.
 */
static int ofi_shm_insert(struct fid_av *av, const void *name, size_t len,
			  fi_addr_t *out)
{
	char key[OFI_SHM_NAME_MAX];
	const char *sep;
	size_t at = 0;

	memset(key, 0, sizeof(key));
	memcpy(key, name, len);
	key[OFI_ADDR_MAX] = '\0';
	if (ofi_local_has(name, len)) {
		sep = strstr(key, "://");
		at = sep ? (size_t)(sep - key) + 3 : 0;
		memmove(key + at + 1, key + at, len - at);
		key[at] = '/';
	}
	return fi_av_insert(av, key, 1, out, 0, NULL) == 1 ? 0 : -1;
}

int ofi_addr_insert(struct dapl_tp_ia *oia, struct fid_av *av,
		    const void *addr, size_t len, fi_addr_t *out)
{
	if (!len || len > OFI_ADDR_MAX)
		return -1;
	if (oia->info->addr_format != FI_ADDR_STR)
		return fi_av_insert(av, addr, 1, out, 0, NULL) == 1 ? 0 : -1;
	return ofi_shm_insert(av, addr, len, out);
}

int ofi_addr_insert_gen(struct dapl_tp_ia *oia, struct ofi_ctl_gen *g,
			const void *addr, size_t len, fi_addr_t *out)
{
	struct ofi_shm_peer *p;
	struct dapl_list *pos;

	if (!len || len > OFI_ADDR_MAX)
		return -1;
	if (oia->info->addr_format != FI_ADDR_STR)
		return ofi_addr_insert(oia, g->av, addr, len, out);
	for (pos = g->shm_peers.next; pos != &g->shm_peers; pos = pos->next) {
		p = dapl_container_of(pos, struct ofi_shm_peer, link);
		if (p->len == len && !memcmp(p->name, addr, len)) {
			*out = p->addr;
			return 0;
		}
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	if (ofi_shm_insert(g->av, addr, len, &p->addr)) {
		free(p);
		ofi_shm_names_count(oia, g, 0);
		return -1;
	}
	ofi_shm_names_count(oia, g, 1);
	p->len = len;
	memcpy(p->name, addr, len);
	dapl_list_add_tail(&g->shm_peers, &p->link);
	*out = p->addr;
	return 0;
}

void ofi_addr_gen_free(struct ofi_ctl_gen *g)
{
	while (g->shm_dests.next != &g->shm_dests) {
		struct ofi_shm_dest *d = dapl_container_of(
		    g->shm_dests.next, struct ofi_shm_dest, link);

		dapl_list_del(&d->link);
		free(d);
	}
	while (g->shm_peers.next != &g->shm_peers) {
		struct ofi_shm_peer *p = dapl_container_of(
		    g->shm_peers.next, struct ofi_shm_peer, link);

		dapl_list_del(&p->link);
		free(p);
	}
}

uint16_t ofi_addr_port(const struct dapl_tp_ia *oia, const void *addr,
		       size_t len)
{
	const struct sockaddr_in *sin = addr;
	const char *s = addr, *dash;

	switch (oia->info->addr_format) {
	case FI_SOCKADDR_IN:
		return len == sizeof(*sin) ? ntohs(sin->sin_port) : 0;
	case FI_ADDR_STR:
		/* "dat-<IP>-<port>"; shm's own names have no port */
		if (len < 5 || strncmp(s, "dat-", 4) || !memchr(s, 0, len))
			return 0;
		dash = strrchr(s, '-');
		return (uint16_t)strtoul(dash + 1, NULL, 10);
	default:
		return 0;
	}
}
