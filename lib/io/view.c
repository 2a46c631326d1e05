// SPDX-License-Identifier: GPL-2.0
/*
 * I/O and IPC bytes: calls, bytes and errors per resource (a file by its
 * path, a pipe by its inode, a socket by its addresses), direction and
 * process (or thread with --per-thread); then the pairs of recorded
 * processes that a pipe or socket links, writer -> reader.  The two ends
 * of a pipe are one inode; the two ends of a loopback TCP or UDP
 * connection are two sockets with swapped local and peer addresses; the
 * two ends of a connected AF_UNIX socket name each other's inode.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "io/codec.h"
#include "util/hmap.h"
#include "export/export.h"
#include "export/profile.h"
#include "report/session.h"
#include "util/strtab.h"
#include "util/vec.h"
#include "report/view.h"

struct io_res {
	const char *label;		/* interned */
	struct ap_io id;		/* type, dev, ino, family, addresses */
	uint64_t peer_ino;		/* AF_UNIX, as last seen non-zero */
};

struct io_row {
	uint32_t res;			/* index in resources */
	uint32_t pid, tid;		/* tid 0: the whole process */
	uint32_t dir;
	const char *comm;		/* interned */
	uint64_t bytes, calls, errors, partial;
	uint32_t sys_mask;		/* 1 << AP_IO_SYS_* used */
};

struct io_rows {
	struct io_row *v;
	size_t nr, cap;
	struct ap_hmap by_key;
};

struct view_io {
	const struct ap_report_opts *o;
	struct ap_session *s;
	struct ap_strtab *strs;
	struct ap_hmap names;		/* hash(dev, ino, gen) -> name */
	struct io_res *res;
	size_t nr_res, cap_res;
	struct ap_hmap res_by_key;	/* hash(type, dev, ino, label) -> idx */
	struct io_rows procs;		/* per (resource, pid, dir) */
	struct io_rows threads;		/* per (resource, tid, dir) */
	uint64_t calls, bytes[2], errors;
};

struct io_pair {
	const struct io_row *w, *r;
	const struct io_res *via;
};

static void *io_new(const struct ap_report_opts *o, struct ap_session *s)
{
	struct view_io *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->o = o;
	v->s = s;
	v->strs = ap_view__strtab(o);
	ap_hmap__init(&v->names);
	ap_hmap__init(&v->res_by_key);
	ap_hmap__init(&v->procs.by_key);
	ap_hmap__init(&v->threads.by_key);
	if (!v->strs) {
		free(v);
		return NULL;
	}
	return v;
}

static void io_free(void *p)
{
	struct view_io *v = p;

	if (!v)
		return;
	ap_strtab__free(v->strs);
	ap_hmap__free(&v->names);
	ap_hmap__free(&v->res_by_key);
	ap_hmap__free(&v->procs.by_key);
	ap_hmap__free(&v->threads.by_key);
	free(v->procs.v);
	free(v->threads.v);
	free(v->res);
	free(v);
}

static uint64_t inode_key(const struct ap_io *e)
{
	uint64_t k[3] = { e->dev, e->ino, e->generation };

	return ap_hash_bytes(k, sizeof(k), 7) & ~1ull;	/* never ~0 */
}

/* the path of e's inode: the frame's, else remembered, else "" */
static const char *learn_name(struct view_io *v, const struct ap_io *e)
{
	uint64_t *slot;
	int fresh;

	/* BPF sends no path for these: their inode names them */
	if (e->type == AP_IO_FT_PIPE || e->type == AP_IO_FT_SOCK ||
	    e->type == AP_IO_FT_UNKNOWN)
		return "";
	if (e->name[0]) {
		const char *n = ap_strtab__intern(v->strs, e->name, -1);

		slot = n ? ap_hmap__upsert(&v->names, inode_key(e), &fresh) :
			   NULL;
		if (!slot)
			return NULL;
		*slot = (uintptr_t)n;
		return n;
	}
	slot = ap_hmap__find(&v->names, inode_key(e));
	return slot ? (const char *)(uintptr_t)*slot : "";
}

static long res_index(struct view_io *v, const struct ap_io *e,
		      const char *name)
{
	struct ap_io id;
	struct {
		uint64_t dev, ino;
		uint64_t label;
		uint32_t type;
		uint32_t pad;
	} key;
	char label[AP_IO_NAME_MAX + 128];
	const char *l;
	uint64_t *slot;
	int fresh;

	/* identity: what the descriptor is, not who used it how */
	memset(&id, 0, offsetof(struct ap_io, name));
	id.name[0] = '\0';
	id.fd = e->fd;
	id.type = e->type;
	id.dev = e->dev;
	id.ino = e->ino;
	id.magic = e->magic;
	id.family = e->family;
	id.sock_type = e->sock_type;
	id.protocol = e->protocol;
	id.lport = e->lport;
	id.rport = e->rport;
	memcpy(id.laddr, e->laddr, sizeof(id.laddr));
	memcpy(id.raddr, e->raddr, sizeof(id.raddr));
	ap_io_describe(&id, name, label, sizeof(label));
	l = ap_strtab__intern(v->strs, label, -1);
	if (!l)
		return -ENOMEM;
	memset(&key, 0, sizeof(key));
	key.dev = e->type == AP_IO_FT_UNKNOWN ? 0 : e->dev;
	key.ino = e->ino;
	key.label = (uintptr_t)l;
	key.type = e->type;
	slot = ap_hmap__upsert(&v->res_by_key,
			       ap_hash_bytes(&key, sizeof(key), 3) & ~1ull,
			       &fresh);
	if (!slot)
		return -ENOMEM;
	if (!fresh) {
		if (e->peer_ino)
			v->res[*slot].peer_ino = e->peer_ino;
		return (long)*slot;
	}
	if (ap_grow((void **)&v->res, &v->cap_res, v->nr_res, sizeof(*v->res),
		    64))
		return -ENOMEM;
	v->res[v->nr_res].label = l;
	memcpy(&v->res[v->nr_res].id, &id, offsetof(struct ap_io, name));
	v->res[v->nr_res].id.name[0] = '\0';
	v->res[v->nr_res].peer_ino = e->peer_ino;
	*slot = v->nr_res;
	return (long)v->nr_res++;
}

static struct io_row *get_row(struct io_rows *rs, uint32_t res, uint32_t pid,
			      uint32_t tid, uint32_t dir)
{
	uint64_t key[2] = { (uint64_t)res << 1 | (dir & 1),
			    (uint64_t)pid << 32 | tid };
	uint64_t h = ap_hash_bytes(key, sizeof(key), 11) & ~1ull;
	uint64_t *slot;
	int fresh;

	/* open addressing on the hash: step past a row with another key */
	for (;;) {
		struct io_row *r;

		slot = ap_hmap__upsert(&rs->by_key, h, &fresh);
		if (!slot)
			return NULL;
		if (fresh)
			break;
		r = &rs->v[*slot];
		if (r->res == res && r->pid == pid && r->tid == tid &&
		    r->dir == dir)
			return r;
		h = (h + 2) & ~1ull;
	}
	if (ap_grow((void **)&rs->v, &rs->cap, rs->nr, sizeof(*rs->v), 128)) {
		ap_hmap__remove(&rs->by_key, h);
		return NULL;
	}
	memset(&rs->v[rs->nr], 0, sizeof(rs->v[0]));
	rs->v[rs->nr].res = res;
	rs->v[rs->nr].pid = pid;
	rs->v[rs->nr].tid = tid;
	rs->v[rs->nr].dir = dir;
	*slot = rs->nr;
	return &rs->v[rs->nr++];
}

static void count(struct io_row *r, const struct ap_io *e, const char *comm)
{
	r->comm = comm;
	if (e->flags & AP_IO_F_SUM) {
		r->calls += e->calls;
		r->errors += e->errors;
		r->bytes += e->bytes;
		r->partial += e->partial;
	} else {
		r->calls++;
		if (e->ret < 0)
			r->errors++;
		else
			r->bytes += (uint64_t)e->ret;
		if (e->flags & AP_IO_F_PARTIAL)
			r->partial++;
	}
	if (e->sys < 32)
		r->sys_mask |= 1u << e->sys;
}

static int io_event(void *p, const struct ap_frame *f)
{
	struct view_io *v = p;
	struct ap_io *e;
	struct io_row *r;
	const char *name;
	long res;
	int err = 0;

	e = malloc(sizeof(*e));
	if (!e)
		return -ENOMEM;
	if (ap_io__decode(f->payload, f->len, e)) {
		err = -EBADMSG;
		goto out;
	}
	/* paths are learnt from every frame, filtered or not */
	name = learn_name(v, e);
	if (!name) {
		err = -ENOMEM;
		goto out;
	}
	if (!ap_report_opts__match(v->o, v->s, e->pid, e->tid))
		goto out;
	res = res_index(v, e, name);
	if (res < 0) {
		err = (int)res;
		goto out;
	}
	r = get_row(&v->procs, res, e->pid, 0, e->dir);
	if (!r) {
		err = -ENOMEM;
		goto out;
	}
	count(r, e, ap_session__comm(v->s, e->pid, e->pid));
	/* the exports label each sample with its thread */
	if (v->o->per_thread || ap_format__is_export(v->o->format)) {
		r = get_row(&v->threads, res, e->pid, e->tid, e->dir);
		if (!r) {
			err = -ENOMEM;
			goto out;
		}
		count(r, e, ap_session__comm(v->s, e->pid, e->tid));
	}
	if (e->flags & AP_IO_F_SUM) {
		v->calls += e->calls;
		v->errors += e->errors;
		v->bytes[e->dir & 1] += e->bytes;
	} else {
		v->calls++;
		if (e->ret < 0)
			v->errors++;
		else
			v->bytes[e->dir & 1] += (uint64_t)e->ret;
	}
out:
	free(e);
	return err;
}

static void io_decay(void *p, unsigned num, unsigned den)
{
	struct view_io *v = p;
	struct io_rows *sets[2] = { &v->procs, &v->threads };
	size_t i, k;

#define SCALE(x) ((x) = den ? (x) * num / den : 0)
	for (k = 0; k < 2; k++) {
		for (i = 0; i < sets[k]->nr; i++) {
			struct io_row *r = &sets[k]->v[i];

			SCALE(r->bytes);
			SCALE(r->calls);
			SCALE(r->errors);
			SCALE(r->partial);
		}
	}
	SCALE(v->calls);
	SCALE(v->bytes[0]);
	SCALE(v->bytes[1]);
	SCALE(v->errors);
#undef SCALE
}

static int by_bytes(const void *a, const void *b, void *arg)
{
	const struct io_row *x = *(const struct io_row *const *)a;
	const struct io_row *y = *(const struct io_row *const *)b;
	const struct view_io *v = arg;
	int c;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->calls != y->calls)
		return x->calls < y->calls ? 1 : -1;
	c = strcmp(v->res[x->res].label, v->res[y->res].label);
	if (c)
		return c;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (int)x->dir - (int)y->dir;
}

static const struct io_row **sorted_rows(struct view_io *v,
					 const struct io_rows *rs)
{
	const struct io_row **out = malloc((rs->nr + 1) * sizeof(*out));
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < rs->nr; i++)
		out[i] = &rs->v[i];
	qsort_r(out, rs->nr, sizeof(*out), by_bytes, v);
	return out;
}

/* IPv4 in an IPv4-mapped IPv6 address, as AF_INET: one key for both */
static void norm_addr(uint16_t family, const uint8_t *in, uint16_t *fam_out,
		      uint8_t *out)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					    0xff, 0xff };

	memset(out, 0, 16);
	if (family == AF_INET6 && !memcmp(in, mapped, sizeof(mapped))) {
		*fam_out = AF_INET;
		memcpy(out, in + 12, 4);
	} else if (family == AF_INET) {
		*fam_out = AF_INET;
		memcpy(out, in, 4);
	} else {
		*fam_out = family;
		memcpy(out, in, 16);
	}
}

/* does a carry what b sends: b's reading end of a's writing end? */
static int linked(const struct io_res *a, const struct io_res *b)
{
	const struct ap_io *x = &a->id, *y = &b->id;
	uint8_t xl[16], xr[16], yl[16], yr[16];
	uint16_t fxl, fxr, fyl, fyr;

	if (x->type != y->type)
		return 0;
	if (x->type == AP_IO_FT_PIPE)
		return a == b;
	if (x->type != AP_IO_FT_SOCK)
		return 0;
	if (x->family == AF_UNIX && y->family == AF_UNIX)
		return a != b && x->ino &&
		       (a->peer_ino == y->ino || b->peer_ino == x->ino);
	/* a v6 socket's v4-mapped end meets a v4 socket: compare both
	 * as AF_INET */
	if ((x->family != AF_INET && x->family != AF_INET6) ||
	    (y->family != AF_INET && y->family != AF_INET6))
		return 0;
	if (a == b || !x->rport || !y->rport || x->protocol != y->protocol)
		return 0;
	norm_addr(x->family, x->laddr, &fxl, xl);
	norm_addr(x->family, x->raddr, &fxr, xr);
	norm_addr(y->family, y->laddr, &fyl, yl);
	norm_addr(y->family, y->raddr, &fyr, yr);
	return x->lport == y->rport && x->rport == y->lport &&
	       fxl == fyr && fxr == fyl && !memcmp(xl, yr, 16) &&
	       !memcmp(xr, yl, 16);
}

/*
 * writer -> reader pairs: a process that wrote into one end and one that
 * read from the other.  Quadratic in the rows of pipes and sockets, which
 * is fine for the few a record holds; files never pair.
 */
static int build_pairs(struct view_io *v, struct io_pair **out, size_t *nr)
{
	struct io_pair *pairs = NULL;
	size_t i, j, n = 0, cap = 0;

	for (i = 0; i < v->procs.nr; i++) {
		const struct io_row *w = &v->procs.v[i];
		const struct io_res *wr = &v->res[w->res];

		if (w->dir != AP_IO_WRITE || !w->bytes ||
		    (wr->id.type != AP_IO_FT_PIPE &&
		     wr->id.type != AP_IO_FT_SOCK))
			continue;
		for (j = 0; j < v->procs.nr; j++) {
			const struct io_row *r = &v->procs.v[j];

			if (r->dir != AP_IO_READ || !r->bytes ||
			    !linked(wr, &v->res[r->res]))
				continue;
			if (ap_grow((void **)&pairs, &cap, n, sizeof(*pairs),
				    16)) {
				free(pairs);
				return -ENOMEM;
			}
			pairs[n++] = (struct io_pair){ w, r, wr };
		}
	}
	*out = pairs;
	*nr = n;
	return 0;
}

static void sys_list(char *buf, size_t len, uint32_t mask)
{
	size_t off = 0;
	uint32_t s;

	buf[0] = '\0';
	for (s = 1; s < AP_IO_SYS_NR && off < len; s++)
		if (mask & (1u << s))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? "," : "", ap_io_sys_name(s));
}

/*
 * Bytes for a table, as ls -h and iostat -h print them: exact below
 * 10000, then one decimal and K, M, G, T (powers of 1024).  JSON and
 * folded output keep exact counts.
 */
static void human(char *buf, size_t len, uint64_t n)
{
	static const char units[] = "KMGTPE";
	double x = (double)n;
	int u = -1;

	if (n < 10000) {
		snprintf(buf, len, "%" PRIu64, n);
		return;
	}
	/* 1023.97K prints as 1.0M, not 1024.0K */
	while (x >= 999.95 && u < (int)sizeof(units) - 2) {
		x /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f%c", x, units[u]);
}

static int ulen(uint64_t n)
{
	int l = 1;

	while (n >= 10) {
		n /= 10;
		l++;
	}
	return l;
}

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static void print_table(struct view_io *v, const struct io_row **rows,
			size_t nr, const struct io_pair *pairs, size_t np,
			FILE *out)
{
	const struct ap_report_opts *o = v->o;
	uint64_t unres = ap_session__lost_tag(v->s, AP_LOST_UNRESOLVED,
					      AP_TAG_IO);
	uint64_t full = ap_session__lost_tag(v->s, AP_LOST_TABLE, AP_TAG_IO);
	char rd[32], wr[32], sys[256], b[32];
	size_t i, n = nr;
	/* columns as wide as their widest value or their title */
	int wbytes = 5, wcalls = 5, werr = 6, wpid = 3, wtid = 3, wcomm = 7;
	int wsys = 8, wtype = 4, wpw = 7, wpr = 4, wwho = 6;

	if (o->limit > 0 && (size_t)o->limit < n)
		n = o->limit;
	for (i = 0; i < n; i++) {
		const struct io_row *r = rows[i];

		human(b, sizeof(b), r->bytes);
		wbytes = imax(wbytes, strlen(b));
		wcalls = imax(wcalls, ulen(r->calls));
		werr = imax(werr, ulen(r->errors));
		wpid = imax(wpid, ulen(r->pid));
		wtid = imax(wtid, ulen(r->tid));
		wcomm = imax(wcomm, strlen(r->comm));
		wtype = imax(wtype,
			     strlen(ap_io_type_name(v->res[r->res].id.type)));
		sys_list(sys, sizeof(sys), r->sys_mask);
		wsys = imax(wsys, strlen(sys));
	}
	human(rd, sizeof(rd), v->bytes[AP_IO_READ]);
	human(wr, sizeof(wr), v->bytes[AP_IO_WRITE]);
	fprintf(out, "# I/O: %" PRIu64 " calls (%" PRIu64
		" failed), %s bytes read, %s written, %zu resources\n",
		v->calls, v->errors, rd, wr, v->nr_res);
	if (unres || full)
		fprintf(out, "# not attributed: %" PRIu64
			" calls on unresolved fds, %" PRIu64
			" calls not traced (in-flight table full)\n",
			unres, full);
	fprintf(out, "#\n# %*s %*s %*s  %-5s %*s", wbytes, "Bytes", wcalls,
		"Calls", werr, "Errors", "Dir", wpid, "Pid");
	if (o->per_thread)
		fprintf(out, " %*s", wtid, "Tid");
	fprintf(out, "  %-*s  %-*s  %-*s  %s\n#\n", wcomm, "Command", wtype,
		"Type", wsys, "Syscalls", "Resource");
	for (i = 0; i < n; i++) {
		const struct io_row *r = rows[i];
		const struct io_res *res = &v->res[r->res];

		sys_list(sys, sizeof(sys), r->sys_mask);
		human(b, sizeof(b), r->bytes);
		fprintf(out, "  %*s %*" PRIu64 " %*" PRIu64 "  %-5s %*u",
			wbytes, b, wcalls, r->calls, werr, r->errors,
			r->dir == AP_IO_WRITE ? "write" : "read", wpid, r->pid);
		if (o->per_thread)
			fprintf(out, " %*u", wtid, r->tid);
		fprintf(out, "  %-*s  %-*s  %-*s  %s%s\n", wcomm, r->comm,
			wtype, ap_io_type_name(res->id.type), wsys, sys,
			res->label,
			r->partial ? " (byte counts partial)" : "");
	}
	if (!n)
		fprintf(out, "# no I/O%s\n",
			o->nr_pids || o->nr_tids || o->comm ?
			" matches the filters" : " recorded");
	if (!np)
		return;
	for (i = 0; i < np; i++) {
		char w[64];

		human(b, sizeof(b), pairs[i].w->bytes);
		wpw = imax(wpw, strlen(b));
		human(b, sizeof(b), pairs[i].r->bytes);
		wpr = imax(wpr, strlen(b));
		snprintf(w, sizeof(w), "%s[%u]", pairs[i].w->comm,
			 pairs[i].w->pid);
		wwho = imax(wwho, strlen(w));
		snprintf(w, sizeof(w), "%s[%u]", pairs[i].r->comm,
			 pairs[i].r->pid);
		wwho = imax(wwho, strlen(w));
	}
	fprintf(out, "\n# Pairs: writer -> reader through a pipe or socket\n");
	fprintf(out, "# %*s %*s  %-*s    %-*s  %s\n#\n", wpw, "Written", wpr,
		"Read", wwho, "Writer", wwho, "Reader", "Via");
	for (i = 0; i < np; i++) {
		char w[64], r[64], bw[32], br[32];

		snprintf(w, sizeof(w), "%s[%u]", pairs[i].w->comm,
			 pairs[i].w->pid);
		snprintf(r, sizeof(r), "%s[%u]", pairs[i].r->comm,
			 pairs[i].r->pid);
		human(bw, sizeof(bw), pairs[i].w->bytes);
		human(br, sizeof(br), pairs[i].r->bytes);
		fprintf(out, "  %*s %*s  %-*s -> %-*s  %s", wpw, bw, wpr, br,
			wwho, w, wwho, r, pairs[i].via->label);
		if (pairs[i].via != &v->res[pairs[i].r->res])
			fprintf(out, "  |  %s", v->res[pairs[i].r->res].label);
		fputc('\n', out);
	}
}

static void print_json(struct view_io *v, const struct io_row **rows,
		       size_t nr, const struct io_pair *pairs, size_t np,
		       FILE *out)
{
	const struct ap_report_opts *o = v->o;
	size_t i, n = nr;

	if (o->limit > 0 && (size_t)o->limit < n)
		n = o->limit;
	fprintf(out, "{\"calls\": %" PRIu64 ", \"errors\": %" PRIu64
		", \"bytes_read\": %" PRIu64 ", \"bytes_written\": %" PRIu64
		", \"unresolved\": %" PRIu64 ", \"table_full\": %" PRIu64
		", \"rows\": [",
		v->calls, v->errors, v->bytes[AP_IO_READ],
		v->bytes[AP_IO_WRITE],
		ap_session__lost_tag(v->s, AP_LOST_UNRESOLVED, AP_TAG_IO),
		ap_session__lost_tag(v->s, AP_LOST_TABLE, AP_TAG_IO));
	for (i = 0; i < n; i++) {
		const struct io_row *r = rows[i];
		const struct io_res *res = &v->res[r->res];
		uint32_t s;
		int first = 1;

		fprintf(out, "%s\n    {\"resource\": ", i ? "," : "");
		ap_json_str(out, res->label);
		fprintf(out, ", \"type\": \"%s\", \"dir\": \"%s\", \"pid\": %u",
			ap_io_type_name(res->id.type),
			r->dir == AP_IO_WRITE ? "write" : "read", r->pid);
		if (o->per_thread)
			fprintf(out, ", \"tid\": %u", r->tid);
		fputs(", \"comm\": ", out);
		ap_json_str(out, r->comm);
		fprintf(out, ", \"bytes\": %" PRIu64 ", \"calls\": %" PRIu64
			", \"errors\": %" PRIu64 ", \"partial\": %" PRIu64
			", \"ino\": %" PRIu64 ", \"syscalls\": [",
			r->bytes, r->calls, r->errors, r->partial, res->id.ino);
		for (s = 1; s < AP_IO_SYS_NR; s++) {
			if (!(r->sys_mask & (1u << s)))
				continue;
			fprintf(out, "%s\"%s\"", first ? "" : ", ",
				ap_io_sys_name(s));
			first = 0;
		}
		fputs("]}", out);
	}
	fprintf(out, "%s], \"pairs\": [", n ? "\n  " : "");
	for (i = 0; i < np; i++) {
		fprintf(out, "%s\n    {\"via\": ", i ? "," : "");
		ap_json_str(out, pairs[i].via->label);
		fputs(", \"reader_via\": ", out);
		ap_json_str(out, v->res[pairs[i].r->res].label);
		fprintf(out, ", \"type\": \"%s\", \"writer\": {\"pid\": %u, \"comm\": ",
			ap_io_type_name(pairs[i].via->id.type),
			pairs[i].w->pid);
		ap_json_str(out, pairs[i].w->comm);
		fprintf(out, "}, \"reader\": {\"pid\": %u, \"comm\": ",
			pairs[i].r->pid);
		ap_json_str(out, pairs[i].r->comm);
		fprintf(out, "}, \"written\": %" PRIu64 ", \"read\": %" PRIu64
			"}", pairs[i].w->bytes, pairs[i].r->bytes);
	}
	fprintf(out, "%s]}", np ? "\n  " : "");
}

/* comm;read|write;type;resource BYTES: bytes by process and resource */
static void print_folded(struct view_io *v, const struct io_row **rows,
			 size_t nr, FILE *out)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct io_row *r = rows[i];
		const struct io_res *res = &v->res[r->res];
		const char *c;

		if (!r->bytes)
			continue;
		/* ';' separates frames: keep it out of names */
		fprintf(out, "%s;%s;%s;", r->comm,
			r->dir == AP_IO_WRITE ? "write" : "read",
			ap_io_type_name(res->id.type));
		for (c = res->label; *c; c++)
			fputc(*c == ';' ? ',' : *c, out);
		fprintf(out, " %" PRIu64 "\n", r->bytes);
	}
}

/* bytes and calls per process (per thread with --per-thread),
 * direction and resource: no stacks are recorded for I/O, so the graph is
 * comm;read|write;resource */
static int io_profile(void *p, struct ap_profile *pr)
{
	struct view_io *v = p;
	const struct io_rows *rs = &v->threads;
	size_t i;
	int idx, err;

	idx = ap_profile__add_kind(pr, AP_TAG_IO, 0);
	if (idx < 0)
		return idx;
	for (i = 0; i < rs->nr; i++) {
		const struct io_row *r = &rs->v[i];
		struct ap_prof_sample smp = {
			.view = idx, .pid = r->pid, .tid = r->tid,
			.comm = r->comm,
			.root = r->dir == AP_IO_WRITE ? "write" : "read",
			.leaf = v->res[r->res].label,
			.v = { (int64_t)r->bytes, (int64_t)r->calls },
		};

		if (!r->bytes)
			continue;
		err = ap_profile__add(pr, &smp);
		if (err)
			return err;
	}
	return 0;
}

static int io_print(void *p, FILE *out)
{
	struct view_io *v = p;
	const struct io_rows *rs = v->o->per_thread ? &v->threads : &v->procs;
	const struct io_row **rows;
	struct io_pair *pairs = NULL;
	size_t np = 0;
	int err;

	rows = sorted_rows(v, rs);
	if (!rows)
		return -ENOMEM;
	err = build_pairs(v, &pairs, &np);
	if (err)
		goto out;
	switch (v->o->format) {
	case AP_FMT_JSON:
		print_json(v, rows, rs->nr, pairs, np, out);
		break;
	case AP_FMT_FOLDED:
		print_folded(v, rows, rs->nr, out);
		break;
	default:
		print_table(v, rows, rs->nr, pairs, np, out);
	}
out:
	free(pairs);
	free(rows);
	return err;
}

const struct ap_view_ops ap_view_io = {
	.name = "io",
	.tag = AP_TAG_IO,
	.new = io_new,
	.event = io_event,
	.print = io_print,
	.decay = io_decay,
	.free = io_free,
	.profile = io_profile,
};
