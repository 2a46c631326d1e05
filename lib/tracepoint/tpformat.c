// SPDX-License-Identifier: GPL-2.0
#include "tracepoint/tpformat.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/collector.h"
#include "tracepoint.h"
#include "util/vec.h"

_Static_assert(AP_COLLECT_TP_MAX == AP_TP_MAX,
	       "ap_collect_opts holds as many tracepoints as the cookies name");

const char *ap_tracefs(void)
{
	if (!access("/sys/kernel/tracing/events", F_OK))
		return "/sys/kernel/tracing";
	if (!access("/sys/kernel/debug/tracing/events", F_OK))
		return "/sys/kernel/debug/tracing";
	return NULL;
}

int ap_tp__split(const char *spec, char *cat, size_t catlen, char *name,
		 size_t namelen)
{
	const char *colon = strchr(spec, ':');
	size_t n;

	if (!colon || colon == spec || !colon[1] || strchr(colon + 1, ':') ||
	    strchr(spec, '/'))
		return -EINVAL;
	n = (size_t)(colon - spec);
	if (n >= catlen || strlen(colon + 1) >= namelen)
		return -EINVAL;
	memcpy(cat, spec, n);
	cat[n] = '\0';
	strcpy(name, colon + 1);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names of dir's subdirectories, sorted; -errno */
static int subdirs(const char *dir, char ***out, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nr = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		if (ap_grow((void **)&v, &cap, n, sizeof(*v), 64))
			goto nomem;
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto nomem;
		n++;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	*nr = n;
	return 0;
nomem:
	while (n)
		free(v[--n]);
	free(v);
	closedir(d);
	return -ENOMEM;
}

static void free_strs(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

int ap_tp__each(const char *glob,
		int (*fn)(void *ctx, const char *cat, const char *name),
		void *ctx)
{
	const char *fs = ap_tracefs();
	char path[512], spec[AP_TP_NAME_MAX * 2];
	char **cats, **names;
	size_t nc, nn, i, j;
	int ret = 0;

	if (!fs)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/events", fs);
	ret = subdirs(path, &cats, &nc);
	if (ret)
		return ret;
	for (i = 0; i < nc && !ret; i++) {
		snprintf(path, sizeof(path), "%s/events/%s", fs, cats[i]);
		if (subdirs(path, &names, &nn))
			continue;
		for (j = 0; j < nn && !ret; j++) {
			snprintf(spec, sizeof(spec), "%s:%s", cats[i],
				 names[j]);
			if (!fnmatch(glob, spec, 0))
				ret = fn(ctx, cats[i], names[j]);
		}
		free_strs(names, nn);
	}
	free_strs(cats, nc);
	return ret;
}

/* "char prev_comm[16]", "__data_loc char[] filename", "const char *
 * filename" into the field's name, type and flags */
static int parse_decl(const char *decl, struct ap_tp_field *fl)
{
	char buf[256], *name, *br, *end;
	size_t n = strlen(decl);

	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, decl, n + 1);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	br = strchr(buf, '[');
	/* the name is the last word, before an array's [N] */
	end = br && br > buf && !isspace((unsigned char)br[-1]) &&
	      br[-1] != ']' && strncmp(buf, "__data_loc", 10) ? br :
	      buf + n;
	name = end;
	while (name > buf && (isalnum((unsigned char)name[-1]) ||
			      name[-1] == '_'))
		name--;
	if (name == end || (size_t)(end - name) >= sizeof(fl->name))
		return -EINVAL;
	memcpy(fl->name, name, (size_t)(end - name));
	fl->name[end - name] = '\0';
	/* the type: the rest, the array's bounds kept */
	snprintf(fl->type, sizeof(fl->type), "%.*s%s", (int)(name - buf), buf,
		 end < buf + n ? end : "");
	n = strlen(fl->type);
	while (n && isspace((unsigned char)fl->type[n - 1]))
		fl->type[--n] = '\0';
	if (!strncmp(buf, "__data_loc", 10)) {
		fl->flags |= AP_TP_F_DYN;
		if (strstr(buf, "char"))
			fl->flags |= AP_TP_F_STR;
	} else if (strchr(fl->type, '[')) {
		fl->flags |= strstr(fl->type, "char") ? AP_TP_F_STR :
			     AP_TP_F_ARRAY;
	} else if (strchr(fl->type, '*')) {
		fl->flags |= AP_TP_F_PTR;
	}
	return 0;
}

int ap_tp_format__parse(const char *text, struct ap_tp_format *f)
{
	const char *p = text, *nl;
	int have_id = 0;

	memset(f, 0, sizeof(*f));
	for (; *p; p = nl ? nl + 1 : p + strlen(p)) {
		struct ap_tp_field fl = { 0 };
		const char *decl, *semi;
		char line[512];
		unsigned off, size;
		int sgn = 0;
		size_t n;

		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		if (n >= sizeof(line))
			continue;
		memcpy(line, p, n);
		line[n] = '\0';
		if (sscanf(line, "ID: %u", &f->id) == 1) {
			have_id = 1;
			continue;
		}
		decl = strstr(line, "field:");
		if (!decl)
			continue;
		decl += 6;
		semi = strchr(decl, ';');
		if (!semi)
			continue;
		if (sscanf(semi, "; offset:%u; size:%u; signed:%d", &off,
			   &size, &sgn) < 2)
			continue;
		line[semi - line] = '\0';
		if (parse_decl(decl, &fl) || !strncmp(fl.name, "common_", 7))
			continue;
		fl.offset = off;
		fl.size = size;
		if (sgn > 0)
			fl.flags |= AP_TP_F_SIGNED;
		if (f->nr_fields < AP_TP_FIELDS_MAX)
			f->fields[f->nr_fields++] = fl;
	}
	return have_id ? 0 : -EINVAL;
}

int ap_tp_format__read(const char *spec, struct ap_tp_format *f)
{
	/* halves of AP_TP_NAME_MAX: "cat:name" fits f->name */
	char cat[AP_TP_NAME_MAX / 2], name[AP_TP_NAME_MAX / 2], path[600];
	const char *fs;
	char *text;
	size_t n = 0;
	FILE *fp;
	int err;

	if (ap_tp__split(spec, cat, sizeof(cat), name, sizeof(name)))
		return -EINVAL;
	fs = ap_tracefs();
	if (!fs)
		return -ENODEV;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", fs, cat, name);
	fp = fopen(path, "re");
	if (!fp)
		return errno == ENOENT || errno == ENOTDIR ? -ENOENT : -errno;
	text = calloc(1, 65536);
	if (!text) {
		fclose(fp);
		return -ENOMEM;
	}
	n = fread(text, 1, 65535, fp);
	fclose(fp);
	text[n] = '\0';
	err = ap_tp_format__parse(text, f);
	free(text);
	if (!err)
		snprintf(f->name, sizeof(f->name), "%s:%s", cat, name);
	return err;
}

const struct ap_tp_field *ap_tp_format__field(const struct ap_tp_format *f,
					      const char *name)
{
	uint32_t i;

	for (i = 0; i < f->nr_fields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

static uint64_t get_uint(const uint8_t *p, uint32_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size > 8 ? 8 : size);	/* little-endian */
	return v;
}

size_t ap_tp_format__fixed_size(const struct ap_tp_format *f)
{
	size_t end = 8;			/* the common fields */
	uint32_t i;

	for (i = 0; i < f->nr_fields; i++)
		if ((size_t)f->fields[i].offset + f->fields[i].size > end)
			end = (size_t)f->fields[i].offset + f->fields[i].size;
	return end;
}

size_t ap_tp_format__extent(const struct ap_tp_format *f, const uint8_t *data,
			    size_t len)
{
	size_t end = 8;			/* the common fields */
	uint32_t i;

	for (i = 0; i < f->nr_fields; i++) {
		const struct ap_tp_field *fl = &f->fields[i];
		size_t e = (size_t)fl->offset + fl->size;

		if ((fl->flags & AP_TP_F_DYN) && e <= len) {
			uint32_t loc = (uint32_t)get_uint(data + fl->offset,
							  4);

			e = (size_t)(loc & 0xffff) + (loc >> 16);
		}
		if (e > end)
			end = e;
	}
	return end < len ? end : len;
}

void ap_tp_field__value(const struct ap_tp_field *fl, const uint8_t *data,
			size_t len, struct ap_tp_value *v)
{
	size_t off = fl->offset, n = fl->size, i, k;

	memset(v, 0, sizeof(*v));
	if (off + n > len) {
		v->missing = 1;
		return;
	}
	if (fl->flags & AP_TP_F_DYN) {
		uint32_t loc = (uint32_t)get_uint(data + off, 4);

		off = loc & 0xffff;
		n = loc >> 16;
		if (off > len)
			off = len;
		if (n > len - off)
			n = len - off;
	}
	if (fl->flags & AP_TP_F_STR) {
		v->is_str = 1;
		k = strnlen((const char *)data + off, n);
		if (k >= sizeof(v->s))
			k = sizeof(v->s) - 1;
		memcpy(v->s, data + off, k);
		v->s[k] = '\0';
		return;
	}
	if (fl->flags & (AP_TP_F_ARRAY | AP_TP_F_DYN) || n > 8) {
		v->is_str = 1;
		for (i = 0, k = 0; i < n && k + 3 < sizeof(v->s); i++)
			k += snprintf(v->s + k, sizeof(v->s) - k, "%02x",
				      data[off + i]);
		return;
	}
	v->u = get_uint(data + off, (uint32_t)n);
	if ((fl->flags & AP_TP_F_SIGNED) && n && n < 8 &&
	    (v->u >> (n * 8 - 1) & 1))
		v->u |= ~0ull << (n * 8);
}

int ap_tp_field__format(const struct ap_tp_field *fl, const uint8_t *data,
			size_t len, char *buf, size_t buflen)
{
	struct ap_tp_value v;

	ap_tp_field__value(fl, data, len, &v);
	if (v.missing) {
		snprintf(buf, buflen, "?");
		return 0;
	}
	if (v.is_str) {
		snprintf(buf, buflen, "%s", v.s);
		return 0;
	}
	/* addresses and flag words read best in hex, counts in decimal */
	if ((fl->flags & AP_TP_F_PTR) ||
	    (!(fl->flags & AP_TP_F_SIGNED) && fl->size == 8)) {
		snprintf(buf, buflen, "0x%" PRIx64, v.u);
		return 0;
	}
	if (fl->flags & AP_TP_F_SIGNED)
		snprintf(buf, buflen, "%" PRId64, (int64_t)v.u);
	else
		snprintf(buf, buflen, "%" PRIu64, v.u);
	return 1;
}

/* the filter: a tree of predicates */
enum { N_OR, N_AND, N_NOT, N_PRED };
enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_GLOB };

struct ap_tp_filter {
	int type;			/* N_* */
	struct ap_tp_filter *l, *r;	/* r: NULL for N_NOT */
	uint32_t field;			/* N_PRED: index in the format */
	int op;				/* OP_* */
	uint64_t num;
	char *str;
};

struct fparse {
	const char *p;
	const struct ap_tp_format *f;
	char *err;
	size_t errlen;
};

static void skip_ws(struct fparse *s)
{
	while (isspace((unsigned char)*s->p))
		s->p++;
}

static int accept(struct fparse *s, const char *tok)
{
	size_t n = strlen(tok);

	skip_ws(s);
	if (strncmp(s->p, tok, n))
		return 0;
	s->p += n;
	return 1;
}

static struct ap_tp_filter *node(int type)
{
	struct ap_tp_filter *n = calloc(1, sizeof(*n));

	if (n)
		n->type = type;
	return n;
}

static struct ap_tp_filter *fail(struct fparse *s, const char *what)
{
	if (!s->err[0])
		snprintf(s->err, s->errlen, "%s at '%.32s'", what,
			 *s->p ? s->p : "the end");
	return NULL;
}

static struct ap_tp_filter *parse_or(struct fparse *s);

/* a number or a string: "quoted", or up to a blank or a bracket */
static int parse_value(struct fparse *s, char *buf, size_t len)
{
	size_t n = 0;

	skip_ws(s);
	if (*s->p == '"' || *s->p == '\'') {
		char q = *s->p++;

		while (*s->p && *s->p != q && n + 1 < len)
			buf[n++] = *s->p++;
		if (*s->p != q)
			return -1;
		s->p++;
	} else {
		while (*s->p && !isspace((unsigned char)*s->p) &&
		       *s->p != ')' && *s->p != '&' && *s->p != '|' &&
		       n + 1 < len)
			buf[n++] = *s->p++;
		if (!n)
			return -1;
	}
	buf[n] = '\0';
	return 0;
}

static struct ap_tp_filter *parse_pred(struct fparse *s)
{
	static const struct { const char *tok; int op; } ops[] = {
		{ "==", OP_EQ }, { "!=", OP_NE }, { "<=", OP_LE },
		{ ">=", OP_GE }, { "<", OP_LT }, { ">", OP_GT },
		{ "~", OP_GLOB }, { "&", OP_AND },
	};
	const struct ap_tp_field *fl;
	struct ap_tp_filter *n;
	char name[64], val[256], *end;
	size_t k = 0, i;
	int op = -1;

	skip_ws(s);
	while ((isalnum((unsigned char)*s->p) || *s->p == '_') &&
	       k + 1 < sizeof(name))
		name[k++] = *s->p++;
	name[k] = '\0';
	if (!k)
		return fail(s, "a field name expected");
	fl = ap_tp_format__field(s->f, name);
	if (!fl) {
		snprintf(s->err, s->errlen, "no field '%s' in %s", name,
			 s->f->name);
		return NULL;
	}
	skip_ws(s);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && op < 0; i++)
		if (!strncmp(s->p, ops[i].tok, strlen(ops[i].tok)) &&
		    /* '&' but not '&&' */
		    !(ops[i].op == OP_AND && s->p[1] == '&')) {
			op = ops[i].op;
			s->p += strlen(ops[i].tok);
		}
	if (op < 0)
		return fail(s, "an operator (==, !=, <, <=, >, >=, &, ~) expected");
	if (parse_value(s, val, sizeof(val)))
		return fail(s, "a value expected");
	n = node(N_PRED);
	if (!n)
		return fail(s, "out of memory");
	n->field = (uint32_t)(fl - s->f->fields);
	n->op = op;
	if (fl->flags & AP_TP_F_STR) {
		if (op != OP_EQ && op != OP_NE && op != OP_GLOB) {
			free(n);
			snprintf(s->err, s->errlen,
				 "'%s' is a string: compare it with ==, != or ~",
				 name);
			return NULL;
		}
		n->str = strdup(val);
		if (!n->str) {
			free(n);
			return fail(s, "out of memory");
		}
		return n;
	}
	if (op == OP_GLOB || (fl->flags & (AP_TP_F_ARRAY | AP_TP_F_DYN))) {
		free(n);
		snprintf(s->err, s->errlen,
			 "'%s' is %s: ~ compares strings", name,
			 op == OP_GLOB ? "a number" : "no number or string");
		return NULL;
	}
	errno = 0;
	n->num = val[0] == '-' ? (uint64_t)strtoll(val, &end, 0) :
		 strtoull(val, &end, 0);
	if (errno || *end) {
		free(n);
		snprintf(s->err, s->errlen, "'%s' is a number, not '%s'",
			 name, val);
		return NULL;
	}
	return n;
}

static struct ap_tp_filter *parse_unary(struct fparse *s)
{
	struct ap_tp_filter *n, *e;

	if (accept(s, "!")) {
		e = parse_unary(s);
		if (!e)
			return NULL;
		n = node(N_NOT);
		if (!n) {
			ap_tp_filter__free(e);
			return fail(s, "out of memory");
		}
		n->l = e;
		return n;
	}
	if (accept(s, "(")) {
		e = parse_or(s);
		if (!e)
			return NULL;
		if (!accept(s, ")")) {
			ap_tp_filter__free(e);
			return fail(s, "')' expected");
		}
		return e;
	}
	return parse_pred(s);
}

static struct ap_tp_filter *parse_bin(struct fparse *s, int type)
{
	const char *tok = type == N_OR ? "||" : "&&";
	struct ap_tp_filter *l, *r, *n;

	l = type == N_OR ? parse_bin(s, N_AND) : parse_unary(s);
	while (l && accept(s, tok)) {
		r = type == N_OR ? parse_bin(s, N_AND) : parse_unary(s);
		n = r ? node(type) : NULL;
		if (!n) {
			ap_tp_filter__free(l);
			ap_tp_filter__free(r);
			return r ? fail(s, "out of memory") : NULL;
		}
		n->l = l;
		n->r = r;
		l = n;
	}
	return l;
}

static struct ap_tp_filter *parse_or(struct fparse *s)
{
	return parse_bin(s, N_OR);
}

int ap_tp_filter__compile(const char *expr, const struct ap_tp_format *f,
			  struct ap_tp_filter **out, char *err, size_t errlen)
{
	struct fparse s = { expr, f, err, errlen };
	struct ap_tp_filter *n;

	err[0] = '\0';
	*out = NULL;
	n = parse_or(&s);
	if (n) {
		skip_ws(&s);
		if (*s.p) {
			ap_tp_filter__free(n);
			n = fail(&s, "'&&', '||' or the end expected");
		}
	}
	if (!n)
		return -EINVAL;
	*out = n;
	return 0;
}

static int pred_match(const struct ap_tp_filter *n,
		      const struct ap_tp_format *f, const uint8_t *data,
		      size_t len)
{
	const struct ap_tp_field *fl = &f->fields[n->field];
	struct ap_tp_value v;
	int c;

	ap_tp_field__value(fl, data, len, &v);
	if (v.missing)
		return 0;
	if (v.is_str) {
		if (n->op == OP_GLOB)
			return !fnmatch(n->str, v.s, 0);
		c = !strcmp(n->str, v.s);
		return n->op == OP_EQ ? c : !c;
	}
	if (n->op == OP_AND)
		return !!(v.u & n->num);
	if (n->op == OP_EQ || n->op == OP_NE)
		return (v.u == n->num) == (n->op == OP_EQ);
	if (fl->flags & AP_TP_F_SIGNED)
		c = (int64_t)v.u < (int64_t)n->num ? -1 :
		    (int64_t)v.u > (int64_t)n->num;
	else
		c = v.u < n->num ? -1 : v.u > n->num;
	switch (n->op) {
	case OP_LT:
		return c < 0;
	case OP_LE:
		return c <= 0;
	case OP_GT:
		return c > 0;
	default:
		return c >= 0;
	}
}

int ap_tp_filter__match(const struct ap_tp_filter *flt,
			const struct ap_tp_format *f, const uint8_t *data,
			size_t len)
{
	if (!flt)
		return 1;
	switch (flt->type) {
	case N_OR:
		return ap_tp_filter__match(flt->l, f, data, len) ||
		       ap_tp_filter__match(flt->r, f, data, len);
	case N_AND:
		return ap_tp_filter__match(flt->l, f, data, len) &&
		       ap_tp_filter__match(flt->r, f, data, len);
	case N_NOT:
		return !ap_tp_filter__match(flt->l, f, data, len);
	}
	return pred_match(flt, f, data, len);
}

void ap_tp_filter__free(struct ap_tp_filter *flt)
{
	if (!flt)
		return;
	ap_tp_filter__free(flt->l);
	ap_tp_filter__free(flt->r);
	free(flt->str);
	free(flt);
}

struct add_ctx {
	struct ap_collect_opts *o;
	int added;
	int err;
};

static int add_one(void *p, const char *cat, const char *name)
{
	struct add_ctx *a = p;
	struct ap_collect_opts *o = a->o;
	char spec[AP_TP_NAME_MAX * 2];
	int i;

	snprintf(spec, sizeof(spec), "%s:%s", cat, name);
	a->added++;
	for (i = 0; i < o->nr_tracepoints; i++)
		if (!strcmp(o->tracepoints[i], spec))
			return 0;
	if (o->nr_tracepoints == AP_COLLECT_TP_MAX) {
		a->err = -E2BIG;
		return 1;
	}
	o->tracepoints[o->nr_tracepoints] = strdup(spec);
	if (!o->tracepoints[o->nr_tracepoints]) {
		a->err = -ENOMEM;
		return 1;
	}
	o->tp_filters[o->nr_tracepoints++] = NULL;
	return 0;
}

int ap_tp__parse_event(const char *tok, struct ap_collect_opts *o)
{
	struct ap_collect_opts scratch;
	struct add_ctx a = { o, 0, 0 };
	char cat[AP_TP_NAME_MAX], name[AP_TP_NAME_MAX];
	int ret;

	if (!strchr(tok, ':'))
		return 1;
	if (ap_tp__split(tok, cat, sizeof(cat), name, sizeof(name)))
		return -ENOENT;
	if (!o) {
		memset(&scratch, 0, sizeof(scratch));
		a.o = &scratch;
	}
	ret = ap_tp__each(tok, add_one, &a);
	if (!o)
		while (scratch.nr_tracepoints)
			free(scratch.tracepoints[--scratch.nr_tracepoints]);
	if (ret < 0)
		return ret;
	if (a.err)
		return a.err;
	return a.added ? 0 : -ENOENT;
}

int ap_tp_filter__check(const char *expr, const char *const *tps, int n,
			char *err, size_t errlen)
{
	struct ap_tp_format *f = malloc(sizeof(*f));
	struct ap_tp_filter *flt;
	char why[256];
	int i, ret = 0;

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n && !ret; i++) {
		ret = ap_tp_format__read(tps[i], f);
		if (ret) {
			snprintf(err, errlen, "--filter: reading the format of %s: %s",
				 tps[i], strerror(-ret));
		} else if (ap_tp_filter__compile(expr, f, &flt, why,
						 sizeof(why))) {
			snprintf(err, errlen, "bad --filter '%s' for %s: %s",
				 expr, tps[i], why);
			ret = -EINVAL;
		} else {
			ap_tp_filter__free(flt);
		}
	}
	free(f);
	return ret;
}
