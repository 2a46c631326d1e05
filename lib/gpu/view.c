// SPDX-License-Identifier: GPL-2.0
/*
 * GPU kernel launches per kernel: how many, with which grid and block
 * shapes, how long the launch calls took on the host, how long the
 * kernels ran on the device, and from where; then the device's memory
 * copies by direction, memsets and synchronisations.
 *
 * Events are counted per kernel identity (address space, host stub or
 * CUfunction, api) and per (identity, comm, stack); names are resolved
 * once per identity at print time and identities with the same name are
 * merged, so the cost grows with kernels and stacks, not launches.
 *
 * Launch times are host-side (the launch call, entry to return).  Device
 * times come from CUPTI through libaperture-cupti.so (AP_TAG_GPU_DEV
 * frames): each kernel record is joined to its launch by (pid, CUPTI
 * correlation id), which the launch carries when the injection library
 * was loaded; a kernel whose launch was not seen gets a row of its own,
 * by its demangled name.  Without CUPTI the device columns stay '-'.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"
#include "util/escape.h"
#include "gpu/codec.h"
#include "util/hmap.h"
#include "export/profile.h"
#include "report/session.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"
#include "report/view.h"

#define STACKS_SHOWN	3	/* per kernel in the table */
#define FRAMES_SHOWN	6	/* per stack in the table */
#define MAX_FRAMES	512

struct ident {				/* a kernel as launched */
	struct ap_addrspace *as;
	uint64_t kernel;
	uint32_t api;
	const char *name;		/* driver name, interned, or NULL */
	uint32_t row;			/* print time: index in rows */
};

struct site {
	uint32_t ident;
	uint32_t stack_id;
	uint32_t pid, tid;
	const char *comm;		/* interned */
	double count;
	double launch_ns;
	double failed;			/* calls that returned an error */
};

struct shape {
	uint32_t ident;
	uint32_t grid[3], block[3];
	uint64_t shared_mem;
	double count;
};

struct vec {
	void *v;
	size_t nr, cap, size;
};

struct dev {				/* one device record */
	uint64_t key;			/* pid << 32 | correlation id */
	uint64_t dur;
	uint64_t bytes;
	const char *name;		/* kernel: CUPTI's, interned */
	uint32_t kind, sub;
	uint32_t grid[3], block[3];
	uint32_t smem;			/* dynamic shared memory */
};

struct view_gpu {
	const struct ap_report_opts *o;
	struct ap_session *s;
	struct ap_strtab *strs;
	struct vec idents, sites, shapes, devs;
	/* interned key -> index in the vec */
	struct ap_hmap ident_by, site_by, shape_by;
	/* pid << 32 | correlation id -> site index + 1 */
	struct ap_hmap launch_by;
	struct ap_report_opts proc_opts;	/* o without --tid */
	double total, launch_ns;
	uint64_t no_stack;
	uint64_t dropped;		/* records CUPTI said it dropped */
	struct ap_stackres res;		/* print-time scratch */
};

/* print time */
struct krow {
	const char *name;
	uint32_t apis;			/* 1 << AP_GPU_* */
	double count, launch_ns, failed;
	/* device: kernels run, their times (sorted at the end) */
	uint64_t *durs;
	size_t nr_durs, cap_durs;
	double dev_ns;
	struct shape *shapes;		/* merged, sorted */
	size_t nr_shapes;
	struct kstack *stacks;
	size_t nr_stacks;
};

struct kstack {
	const char *frames;		/* "leaf <- ... <- root", interned */
	const char *folded;		/* "root;...;leaf", interned */
	double count;
};

static void *vec_push(struct vec *v)
{
	if (ap_grow(&v->v, &v->cap, v->nr, v->size, 64))
		return NULL;
	memset((char *)v->v + v->nr * v->size, 0, v->size);
	return (char *)v->v + v->nr++ * v->size;
}

#define VEC_AT(vec, type, i)	(&((type *)(vec).v)[i])

static void *gpu_new(const struct ap_report_opts *o, struct ap_session *s)
{
	struct view_gpu *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->o = o;
	v->s = s;
	v->proc_opts = *o;
	v->proc_opts.nr_tids = 0;
	v->idents.size = sizeof(struct ident);
	v->sites.size = sizeof(struct site);
	v->shapes.size = sizeof(struct shape);
	v->devs.size = sizeof(struct dev);
	ap_hmap__init(&v->launch_by);
	ap_hmap__init(&v->ident_by);
	ap_hmap__init(&v->site_by);
	ap_hmap__init(&v->shape_by);
	if (ap_view__names_init(o, &v->strs, NULL, &v->res)) {
		free(v);
		return NULL;
	}
	return v;
}

static void gpu_free(void *p)
{
	struct view_gpu *v = p;

	if (!v)
		return;
	ap_view__names_free(v->strs, NULL, &v->res);
	ap_hmap__free(&v->ident_by);
	ap_hmap__free(&v->site_by);
	ap_hmap__free(&v->shape_by);
	ap_hmap__free(&v->launch_by);
	free(v->devs.v);
	free(v->idents.v);
	free(v->sites.v);
	free(v->shapes.v);
	free(v);
}

/* index of the entry under key in vec, added (zeroed) when new */
static long lookup(struct view_gpu *v, struct ap_hmap *m, struct vec *vec,
		   const char *key, int *fresh)
{
	const char *k = ap_strtab__intern(v->strs, key, -1);
	uint64_t *slot;

	if (!k)
		return -ENOMEM;
	slot = ap_hmap__upsert(m, (uintptr_t)k, fresh);
	if (!slot)
		return -ENOMEM;
	if (*fresh) {
		if (!vec_push(vec))
			return -ENOMEM;
		*slot = vec->nr - 1;
	}
	return (long)*slot;
}

/* a device record: kept whole, joined to its launch at print time */
static int dev_event(struct view_gpu *v, const struct ap_frame *f)
{
	struct ap_gpu_dev e;
	struct dev *d;

	if (ap_gpu_dev__decode(f->payload, f->len, &e))
		return -EBADMSG;
	/* CUPTI reports from a thread of its own: --pid and --comm are
	 * the process's; --tid keeps the kernels of that thread's launches
	 * (at print time) */
	if (!ap_report_opts__match(&v->proc_opts, v->s, e.pid, e.pid))
		return 0;
	if (e.kind == AP_GPU_DROPPED) {
		v->dropped += e.bytes;
		return 0;
	}
	d = vec_push(&v->devs);
	if (!d)
		return -ENOMEM;
	d->key = (uint64_t)e.pid << 32 | e.corr;
	d->dur = e.duration_ns;
	d->bytes = e.bytes;
	d->kind = e.kind;
	d->sub = e.sub;
	memcpy(d->grid, e.grid, sizeof(d->grid));
	memcpy(d->block, e.block, sizeof(d->block));
	d->smem = e.dynamic_smem;
	if (e.kind == AP_GPU_KERNEL) {
		d->name = ap_strtab__intern(v->strs, e.name[0] ? e.name :
					    "[unnamed kernel]", -1);
		if (!d->name)
			return -ENOMEM;
	}
	return 0;
}

static int gpu_event(void *p, const struct ap_frame *f)
{
	struct view_gpu *v = p;
	const struct ap_proc_info *pi;
	struct ap_gpu_launch e;
	struct ap_addrspace *as;
	const char *comm, *name = NULL;
	struct ident *id;
	struct site *st;
	struct shape *sh;
	char key[256];
	long ii, si, i;
	int fresh;

	if (f->tag == AP_TAG_GPU_DEV)
		return dev_event(v, f);
	if (ap_gpu_launch__decode(f->payload, f->len, &e))
		return -EBADMSG;
	if (!ap_report_opts__match(v->o, v->s, e.pid, e.tid))
		return 0;
	pi = ap_session__proc(v->s, e.pid);
	as = pi ? ap_session__event_as(v->s, e.pid) : NULL;
	comm = ap_session__comm(v->s, e.pid, e.tid);
	if (e.name[0]) {
		name = ap_strtab__intern(v->strs, e.name, -1);
		if (!name)
			return -ENOMEM;
	}

	snprintf(key, sizeof(key), "i/%p/%" PRIx64 "/%u/%p", (void *)as,
		 e.kernel, e.api, (const void *)name);
	ii = lookup(v, &v->ident_by, &v->idents, key, &fresh);
	if (ii < 0)
		return (int)ii;
	id = VEC_AT(v->idents, struct ident, ii);
	if (fresh)
		*id = (struct ident){ as, e.kernel, e.api, name, 0 };

	snprintf(key, sizeof(key), "s/%ld/%u/%u/%u/%p", ii, e.stack_id,
		 e.pid, e.tid, (const void *)comm);
	si = lookup(v, &v->site_by, &v->sites, key, &fresh);
	if (si < 0)
		return (int)si;
	st = VEC_AT(v->sites, struct site, si);
	if (fresh)
		*st = (struct site){ (uint32_t)ii, e.stack_id, e.pid, e.tid,
				     comm, 0, 0, 0 };
	st->count += 1;
	st->launch_ns += e.launch_ns;
	if (e.result)
		st->failed += 1;

	snprintf(key, sizeof(key), "h/%ld/%u,%u,%u/%u,%u,%u/%" PRIu64, ii,
		 e.grid[0], e.grid[1], e.grid[2], e.block[0], e.block[1],
		 e.block[2], e.shared_mem);
	i = lookup(v, &v->shape_by, &v->shapes, key, &fresh);
	if (i < 0)
		return (int)i;
	sh = VEC_AT(v->shapes, struct shape, i);
	if (fresh) {
		sh->ident = (uint32_t)ii;
		memcpy(sh->grid, e.grid, sizeof(sh->grid));
		memcpy(sh->block, e.block, sizeof(sh->block));
		sh->shared_mem = e.shared_mem;
	}
	sh->count += 1;

	for (i = 0; i < 2; i++) {
		uint64_t *slot;

		if (!e.corr[i])
			continue;
		slot = ap_hmap__upsert(&v->launch_by,
				       (uint64_t)e.pid << 32 | e.corr[i],
				       NULL);
		if (!slot)
			return -ENOMEM;
		*slot = (uint64_t)si + 1;
	}
	v->total += 1;
	v->launch_ns += e.launch_ns;
	if (!e.stack_id)
		v->no_stack++;
	return 0;
}

static void gpu_decay(void *p, unsigned num, unsigned den)
{
	struct view_gpu *v = p;
	double k = den ? (double)num / den : 0;
	size_t i;

	for (i = 0; i < v->sites.nr; i++) {
		struct site *s = VEC_AT(v->sites, struct site, i);

		s->count *= k;
		s->launch_ns *= k;
		s->failed *= k;
		if (s->count < 0.01)
			s->count = s->launch_ns = s->failed = 0;
	}
	for (i = 0; i < v->shapes.nr; i++) {
		struct shape *s = VEC_AT(v->shapes, struct shape, i);

		s->count *= k;
		if (s->count < 0.01)
			s->count = 0;
	}
	v->total *= k;
	v->launch_ns *= k;
	/* device times need every record (p95): top shows those of the
	 * last interval, and forgets old launches past a bound */
	if (k < 1) {
		v->devs.nr = 0;
		v->dropped = 0;
	}
	if (v->launch_by.nr > (1u << 20)) {
		ap_hmap__free(&v->launch_by);
		ap_hmap__init(&v->launch_by);
	}
}

/* the display name of a kernel identity */
static const char *ident_name(struct view_gpu *v, const struct ident *id)
{
	struct ap_symbolizer *sym = ap_session__symbolizer(v->s);
	char buf[1024];

	if (id->name)
		return id->name;
	if ((id->api == AP_GPU_RUNTIME || id->api == AP_GPU_RUNTIME_EXC) &&
	    id->as) {
		const struct ap_sym_loc *loc =
			ap_symbolizer__user(sym, id->as, id->kernel, 0);

		if (loc->nr_frames) {
			ap_sym_loc__format(loc, loc->nr_frames - 1, buf,
					   sizeof(buf));
			return ap_strtab__intern(v->strs, buf, -1);
		}
	}
	snprintf(buf, sizeof(buf), "%s 0x%" PRIx64,
		 id->api == AP_GPU_DRIVER || id->api == AP_GPU_DRIVER_EX ?
		 "CUfunction" : "stub", id->kernel);
	return ap_strtab__intern(v->strs, buf, -1);
}

/* user frames of a stack, leaf first, interned, into out[max] */
static long resolve(struct view_gpu *v, struct ap_addrspace *as,
		    uint32_t stack_id, const char **out, size_t max)
{
	long n, i;

	n = ap_stackres__resolve(&v->res, v->s, as, stack_id,
				 AP_STACKRES_USER_ONLY);
	for (i = 0; i < n && (size_t)i < max; i++) {
		/* a launch from Python: its function with file:line */
		out[i] = ap_rframe__name(&v->res.frames[i], v->strs);
		if (!out[i])
			return -ENOMEM;
	}
	return n < 0 ? n : i;
}

struct rows {
	struct krow *v;
	size_t nr, cap;
	/* the device's other work: by copy kind, memsets, by sync type */
	struct xfer {
		double count, bytes, ns;
	} copies[16], memsets, syncs[8];
	double dev_kernels, dev_ns, dev_joined;
};

static int by_count(const void *a, const void *b)
{
	const struct krow *x = a, *y = b;

	/* the most device time first where it is known */
	if (x->dev_ns != y->dev_ns)
		return x->dev_ns < y->dev_ns ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int shape_by_count(const void *a, const void *b)
{
	const struct shape *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return memcmp(x->grid, y->grid, sizeof(x->grid) * 2);
}

static int stack_by_count(const void *a, const void *b)
{
	const struct kstack *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->folded, y->folded);
}

static void free_rows(struct rows *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++) {
		free(rs->v[i].shapes);
		free(rs->v[i].stacks);
		free(rs->v[i].durs);
	}
	free(rs->v);
	rs->v = NULL;
	rs->nr = 0;
}

/* frames as "a <- b" (leaf first) and "root;...;leaf" */
static int stack_strings(struct view_gpu *v, const char **fr, long n,
			 const char **chain, const char **folded)
{
	size_t len = 1, blen = 1;
	char *a, *b;
	long i;
	size_t oa = 0, ob = 0;

	for (i = 0; i < n; i++) {
		len += strlen(fr[i]) + 4;
		blen += 4 * strlen(fr[i]) + 1;	/* each byte as \xNN */
	}
	a = malloc(len);
	b = malloc(blen);
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	a[0] = b[0] = '\0';
	/* the table skips frame 0, the CUDA entry point itself */
	for (i = n > 1 ? 1 : 0; i < n && i <= FRAMES_SHOWN; i++)
		oa += snprintf(a + oa, len - oa, "%s%s", oa ? " <- " : "",
			       fr[i]);
	for (i = n - 1; i >= 0; i--) {
		if (ob)
			b[ob++] = ';';
		ob += ap_escape(b + ob, blen - ob, fr[i], AP_ESC_FOLDED);
	}
	*chain = ap_strtab__intern(v->strs, n ? a : "[no stack]", -1);
	*folded = ap_strtab__intern(v->strs, b, -1);
	free(a);
	free(b);
	return *chain && *folded ? 0 : -ENOMEM;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* the kernel identity of a launch_by value */
static const struct ident *launch_ident(struct view_gpu *v, uint64_t slot)
{
	const struct site *s = VEC_AT(v->sites, struct site, slot - 1);

	return VEC_AT(v->idents, struct ident, s->ident);
}

/* the row named name, added when new */
static struct krow *row_by_name(struct rows *rs, struct ap_hmap *by_name,
				const char *name)
{
	uint64_t *slot;
	int fresh;

	slot = ap_hmap__upsert(by_name, (uintptr_t)name, &fresh);
	if (!slot)
		return NULL;
	if (fresh) {
		if (ap_grow((void **)&rs->v, &rs->cap, rs->nr, sizeof(*rs->v),
			    16))
			return NULL;
		memset(&rs->v[rs->nr], 0, sizeof(*rs->v));
		rs->v[rs->nr].name = name;
		*slot = rs->nr++;
	}
	return &rs->v[*slot];
}

/* a shape seen on the device for a kernel whose launch was not seen */
static int add_dev_shape(struct krow *r, const struct dev *d)
{
	struct shape *n;
	size_t j;

	for (j = 0; j < r->nr_shapes; j++)
		if (!memcmp(r->shapes[j].grid, d->grid, sizeof(d->grid)) &&
		    !memcmp(r->shapes[j].block, d->block, sizeof(d->block)) &&
		    r->shapes[j].shared_mem == d->smem)
			break;
	if (j == r->nr_shapes) {
		n = realloc(r->shapes, (j + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		r->shapes = n;
		memset(&n[j], 0, sizeof(*n));
		memcpy(n[j].grid, d->grid, sizeof(d->grid));
		memcpy(n[j].block, d->block, sizeof(d->block));
		n[j].shared_mem = d->smem;
		r->nr_shapes++;
	}
	r->shapes[j].count += 1;
	return 0;
}

/*
 * Device records into rows: a kernel joins the row of its launch (same
 * process, a correlation id the launch carried), else the row of its
 * demangled name; copies, memsets and synchronisations are summed.
 */
static int join_devs(struct view_gpu *v, struct rows *rs,
		     struct ap_hmap *by_name)
{
	size_t i;

	for (i = 0; i < v->devs.nr; i++) {
		const struct dev *d = VEC_AT(v->devs, struct dev, i);
		const uint64_t *slot;
		struct krow *r;

		switch (d->kind) {
		case AP_GPU_MEMCPY:
			rs->copies[d->sub < 16 ? d->sub : 0].count += 1;
			rs->copies[d->sub < 16 ? d->sub : 0].bytes += d->bytes;
			rs->copies[d->sub < 16 ? d->sub : 0].ns += d->dur;
			continue;
		case AP_GPU_MEMSET:
			rs->memsets.count += 1;
			rs->memsets.bytes += d->bytes;
			rs->memsets.ns += d->dur;
			continue;
		case AP_GPU_SYNC:
			rs->syncs[d->sub < 8 ? d->sub : 0].count += 1;
			rs->syncs[d->sub < 8 ? d->sub : 0].ns += d->dur;
			continue;
		case AP_GPU_KERNEL:
			break;
		default:
			continue;
		}
		slot = ap_hmap__find(&v->launch_by, d->key);
		if (slot) {
			const struct ident *id = launch_ident(v, *slot);

			r = &rs->v[id->row];
			rs->dev_joined += 1;
		} else {
			char *dm;
			const char *name;

			/* --tid: only the kernels of its launches */
			if (v->o->nr_tids)
				continue;
			dm = ap_demangle(d->name);
			name = ap_strtab__intern(v->strs, dm ? dm : d->name,
						 -1);
			free(dm);
			r = name ? row_by_name(rs, by_name, name) : NULL;
			if (!r || add_dev_shape(r, d))
				return -ENOMEM;
		}
		if (ap_grow((void **)&r->durs, &r->cap_durs, r->nr_durs,
			    sizeof(*r->durs), 16))
			return -ENOMEM;
		r->durs[r->nr_durs++] = d->dur;
		r->dev_ns += d->dur;
		rs->dev_kernels += 1;
		rs->dev_ns += d->dur;
	}
	return 0;
}

static int build_rows(struct view_gpu *v, struct rows *rs)
{
	const char **fr = NULL;
	struct ap_hmap by_name;
	size_t i, j;
	int err = 0;

	ap_hmap__init(&by_name);
	rs->cap = v->idents.nr ? v->idents.nr : 1;
	rs->v = calloc(rs->cap, sizeof(*rs->v));
	fr = malloc(MAX_FRAMES * sizeof(*fr));
	if (!rs->v || !fr) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < v->idents.nr; i++) {
		struct ident *id = VEC_AT(v->idents, struct ident, i);
		const char *name = ident_name(v, id);
		uint64_t *slot;
		int fresh;

		slot = name ? ap_hmap__upsert(&by_name, (uintptr_t)name,
					      &fresh) : NULL;
		if (!slot) {
			err = -ENOMEM;
			goto out;
		}
		if (fresh) {
			rs->v[rs->nr].name = name;
			*slot = rs->nr++;
		}
		id->row = (uint32_t)*slot;
		rs->v[*slot].apis |= 1u << (id->api & 31);
	}
	/* sites: counts, times and stacks per row */
	for (i = 0; i < v->sites.nr; i++) {
		const struct site *s = VEC_AT(v->sites, struct site, i);
		const struct ident *id = VEC_AT(v->idents, struct ident,
						s->ident);
		struct krow *r = &rs->v[id->row];
		const char *chain, *folded;
		struct kstack *k;
		long n;

		if (s->count <= 0)
			continue;
		r->count += s->count;
		r->launch_ns += s->launch_ns;
		r->failed += s->failed;
		n = resolve(v, id->as, s->stack_id, fr, MAX_FRAMES);
		if (n < 0 || stack_strings(v, fr, n, &chain, &folded)) {
			err = -ENOMEM;
			goto out;
		}
		for (j = 0; j < r->nr_stacks; j++)
			if (r->stacks[j].folded == folded)
				break;
		if (j == r->nr_stacks) {
			k = realloc(r->stacks, (j + 1) * sizeof(*k));
			if (!k) {
				err = -ENOMEM;
				goto out;
			}
			r->stacks = k;
			r->stacks[j] = (struct kstack){ chain, folded, 0 };
			r->nr_stacks++;
		}
		r->stacks[j].count += s->count;
	}
	err = join_devs(v, rs, &by_name);
	if (err)
		goto out;
	for (i = 0; i < v->shapes.nr; i++) {
		const struct shape *s = VEC_AT(v->shapes, struct shape, i);
		struct krow *r = &rs->v[VEC_AT(v->idents, struct ident,
					       s->ident)->row];
		struct shape *n;

		if (s->count <= 0)
			continue;
		for (j = 0; j < r->nr_shapes; j++)
			if (!memcmp(r->shapes[j].grid, s->grid,
				    sizeof(s->grid)) &&
			    !memcmp(r->shapes[j].block, s->block,
				    sizeof(s->block)) &&
			    r->shapes[j].shared_mem == s->shared_mem)
				break;
		if (j == r->nr_shapes) {
			n = realloc(r->shapes, (j + 1) * sizeof(*n));
			if (!n) {
				err = -ENOMEM;
				goto out;
			}
			r->shapes = n;
			r->shapes[j] = *s;
			r->shapes[j].count = 0;
			r->nr_shapes++;
		}
		r->shapes[j].count += s->count;
	}
	for (i = 0; i < rs->nr; i++) {
		ap_sort(rs->v[i].durs, rs->v[i].nr_durs, sizeof(uint64_t),
			cmp_u64);
		ap_sort(rs->v[i].shapes, rs->v[i].nr_shapes,
		      sizeof(*rs->v[i].shapes), shape_by_count);
		ap_sort(rs->v[i].stacks, rs->v[i].nr_stacks,
		      sizeof(*rs->v[i].stacks), stack_by_count);
	}
	ap_sort(rs->v, rs->nr, sizeof(*rs->v), by_count);
	/* rows emptied by decay (top) are not shown */
	while (rs->nr && rs->v[rs->nr - 1].count <= 0 &&
	       !rs->v[rs->nr - 1].nr_durs) {
		rs->nr--;
		free(rs->v[rs->nr].shapes);
		free(rs->v[rs->nr].stacks);
		free(rs->v[rs->nr].durs);
	}
out:
	free(fr);
	ap_hmap__free(&by_name);
	return err;
}

static void apis_str(uint32_t apis, char *buf, size_t len, const char *sep)
{
	size_t off = 0;
	uint32_t a;

	buf[0] = '\0';
	for (a = 0; a < 32 && off < len; a++)
		if (apis & (1u << a))
			off += snprintf(buf + off, len - off, "%s%s",
					off ? sep : "", ap_gpu_api_name(a));
}

static size_t shown(const struct view_gpu *v, size_t n)
{
	if (v->o->limit > 0 && (size_t)v->o->limit < n)
		return v->o->limit;
	return n;
}

/* device times of a row: total, avg, p95 (nearest rank), max */
struct dstat {
	double n, total, avg, p95, max;
};

static struct dstat dev_stat(const struct krow *k)
{
	struct dstat d = { 0 };
	size_t rank;

	if (!k->nr_durs)
		return d;
	d.n = k->nr_durs;
	d.total = k->dev_ns;
	d.avg = k->dev_ns / k->nr_durs;
	rank = (k->nr_durs * 95 + 99) / 100;
	d.p95 = k->durs[rank ? rank - 1 : 0];
	d.max = k->durs[k->nr_durs - 1];
	return d;
}

static void fmt_dev(char *buf, size_t len, double ns, int known)
{
	if (known)
		ap_fmt_ns(buf, len, ns);
	else
		snprintf(buf, len, "-");
}

static void print_device_work(struct rows *rs, FILE *out)
{
	char tot[32], avg[32];
	size_t i;
	int any = 0;

	for (i = 0; i < 16; i++) {
		const struct xfer *x = &rs->copies[i];

		if (!x->count)
			continue;
		if (!any++)
			fprintf(out, "#\n# GPU memory copies (device time)\n# %9s  %14s  %12s  %10s  %10s  %s\n",
				"Copies", "Bytes", "Time total", "Time avg",
				"GB/s", "Direction");
		ap_fmt_ns(tot, sizeof(tot), x->ns);
		ap_fmt_ns(avg, sizeof(avg), x->ns / x->count);
		fprintf(out, "  %9.0f  %14.0f  %12s  %10s  %10.2f  %s\n",
			x->count, x->bytes, tot, avg,
			x->ns ? x->bytes / x->ns : 0, ap_gpu_copy_name(i));
	}
	if (rs->memsets.count) {
		ap_fmt_ns(tot, sizeof(tot), rs->memsets.ns);
		ap_fmt_ns(avg, sizeof(avg), rs->memsets.ns / rs->memsets.count);
		fprintf(out, "#\n# GPU memsets: %.0f, %.0f bytes, %s (avg %s)\n",
			rs->memsets.count, rs->memsets.bytes, tot, avg);
	}
	for (any = 0, i = 0; i < 8; i++) {
		const struct xfer *x = &rs->syncs[i];

		if (!x->count)
			continue;
		if (!any++)
			fprintf(out, "#\n# GPU synchronisations\n# %9s  %12s  %10s  %s\n",
				"Count", "Time total", "Time avg", "Type");
		ap_fmt_ns(tot, sizeof(tot), x->ns);
		ap_fmt_ns(avg, sizeof(avg), x->ns / x->count);
		fprintf(out, "  %9.0f  %12s  %10s  %s\n", x->count, tot, avg,
			ap_gpu_sync_name(i));
	}
}

static void print_table(struct view_gpu *v, struct rows *rs, FILE *out)
{
	size_t n = shown(v, rs->nr), r, i;
	char tot[32], avg[32], dt[32], da[32], dp[32], dm[32], apis[64];

	fprintf(out, "# GPU kernel launches: %.0f", v->total);
	if (v->no_stack)
		fprintf(out, " (%" PRIu64 " without a stack)", v->no_stack);
	if (rs->dev_kernels)
		fprintf(out, "; kernels run on the device: %.0f (%.0f joined to their launch)",
			rs->dev_kernels, rs->dev_joined);
	fprintf(out, "\n# Launch: host-side launch calls (entry to return), not kernel execution.\n"
		"# Device: the kernels' execution on the GPU (CUPTI, libaperture-cupti.so);\n"
		"# '-' where the program ran without it.\n");
	if (v->dropped)
		fprintf(out, "# CUPTI dropped %" PRIu64 " device records (buffers full)\n",
			v->dropped);
	fprintf(out, "#\n# %9s  %6s  %12s  %10s  %12s  %10s  %10s  %10s  %-12s %s\n",
		"Launches", "Failed", "Launch total", "Launch avg",
		"Device total", "Device avg", "Device p95", "Device max",
		"API", "Kernel");
	fprintf(out, "#\n");
	for (r = 0; r < n; r++) {
		const struct krow *k = &rs->v[r];
		struct dstat d = dev_stat(k);

		ap_fmt_ns(tot, sizeof(tot), k->launch_ns);
		ap_fmt_ns(avg, sizeof(avg),
			  k->count ? k->launch_ns / k->count : 0);
		fmt_dev(dt, sizeof(dt), d.total, d.n > 0);
		fmt_dev(da, sizeof(da), d.avg, d.n > 0);
		fmt_dev(dp, sizeof(dp), d.p95, d.n > 0);
		fmt_dev(dm, sizeof(dm), d.max, d.n > 0);
		apis_str(k->apis, apis, sizeof(apis), ",");
		fprintf(out, "  %9.0f  %6.0f  %12s  %10s  %12s  %10s  %10s  %10s  %-12s %s\n",
			k->count, k->failed, tot, avg, dt, da, dp, dm,
			apis[0] ? apis : "-", k->name);
		if (d.n && d.n != k->count)
			fprintf(out, "  %9s  %14.0f x run on the device\n", "",
				d.n);
		for (i = 0; i < k->nr_shapes; i++) {
			const struct shape *s = &k->shapes[i];

			fprintf(out, "  %9s  %14.0f x grid(%u,%u,%u) block(%u,%u,%u) shared %" PRIu64 "\n",
				"", s->count, s->grid[0], s->grid[1],
				s->grid[2], s->block[0], s->block[1],
				s->block[2], s->shared_mem);
		}
		for (i = 0; i < k->nr_stacks && i < STACKS_SHOWN; i++)
			fprintf(out, "  %9s  %14.0f from %s\n", "",
				k->stacks[i].count, k->stacks[i].frames);
	}
	if (!n)
		fprintf(out, "# no GPU kernel launches%s\n",
			v->o->nr_pids || v->o->nr_tids || v->o->comm ?
			" match the filters" : " recorded");
	print_device_work(rs, out);
}

/* "root;...;leaf" as a JSON array, leaf first */
static void json_frames(FILE *out, const char *folded)
{
	char *dup = strdup(folded), *semi;
	int first = 1;

	if (!dup || !*dup) {
		free(dup);
		return;
	}
	for (;;) {
		semi = strrchr(dup, ';');
		fputs(first ? "" : ", ", out);
		ap_json_str(out, semi ? semi + 1 : dup);
		first = 0;
		if (!semi)
			break;
		*semi = '\0';
	}
	free(dup);
}

static void json_num(FILE *out, double x, int known)
{
	if (known)
		fprintf(out, "%.0f", x);
	else
		fputs("null", out);
}

static void print_json(struct view_gpu *v, struct rows *rs, FILE *out)
{
	size_t n = shown(v, rs->nr), r, i;

	fprintf(out, "{\"launches\": %.0f, \"launch_ns\": %.0f, \"device_ns\": ",
		v->total, v->launch_ns);
	json_num(out, rs->dev_ns, rs->dev_kernels > 0);
	fprintf(out, ", \"device_kernels\": %.0f, \"device_joined\": %.0f, \"device_dropped\": %" PRIu64,
		rs->dev_kernels, rs->dev_joined, v->dropped);
	fputs(", \"times\": \"launch_ns: host launch calls; device_ns: execution on the GPU (CUPTI), null without it\", \"kernels\": [",
	      out);
	for (r = 0; r < n; r++) {
		const struct krow *k = &rs->v[r];
		struct dstat d;
		uint32_t a;
		int first = 1;

		fprintf(out, "%s\n    {\"name\": ", r ? "," : "");
		ap_json_str(out, k->name);
		fputs(", \"api\": [", out);
		for (a = 0; a < 32; a++) {
			if (!(k->apis & (1u << a)))
				continue;
			fprintf(out, "%s\"%s\"", first ? "" : ", ",
				ap_gpu_api_name(a));
			first = 0;
		}
		fprintf(out, "], \"launches\": %.0f, \"failed\": %.0f, \"launch_ns_total\": %.0f, \"launch_ns_avg\": %.1f, \"device_ns\": ",
			k->count, k->failed, k->launch_ns,
			k->count ? k->launch_ns / k->count : 0);
		d = dev_stat(k);
		json_num(out, d.total, d.n > 0);
		fprintf(out, ", \"device_kernels\": %.0f, \"device_ns_avg\": ",
			d.n);
		json_num(out, d.avg, d.n > 0);
		fputs(", \"device_ns_p95\": ", out);
		json_num(out, d.p95, d.n > 0);
		fputs(", \"device_ns_max\": ", out);
		json_num(out, d.max, d.n > 0);
		fputs(", \"shapes\": [", out);
		for (i = 0; i < k->nr_shapes; i++) {
			const struct shape *s = &k->shapes[i];

			fprintf(out, "%s{\"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"shared_mem\": %" PRIu64 ", \"launches\": %.0f}",
				i ? ", " : "", s->grid[0], s->grid[1],
				s->grid[2], s->block[0], s->block[1],
				s->block[2], s->shared_mem, s->count);
		}
		fputs("], \"stacks\": [", out);
		for (i = 0; i < k->nr_stacks; i++) {
			fprintf(out, "%s{\"launches\": %.0f, \"frames\": [",
				i ? ", " : "", k->stacks[i].count);
			json_frames(out, k->stacks[i].folded);
			fputs("]}", out);
		}
		fputs("]}", out);
	}
	fprintf(out, "%s], \"memcpy\": [", n ? "\n  " : "");
	for (r = 0, i = 0; i < 16; i++) {
		const struct xfer *x = &rs->copies[i];

		if (!x->count)
			continue;
		fprintf(out, "%s{\"direction\": \"%s\", \"copies\": %.0f, \"bytes\": %.0f, \"device_ns\": %.0f}",
			r++ ? ", " : "", ap_gpu_copy_name(i), x->count,
			x->bytes, x->ns);
	}
	fprintf(out, "], \"memset\": {\"count\": %.0f, \"bytes\": %.0f, \"device_ns\": %.0f}, \"sync\": [",
		rs->memsets.count, rs->memsets.bytes, rs->memsets.ns);
	for (r = 0, i = 0; i < 8; i++) {
		const struct xfer *x = &rs->syncs[i];

		if (!x->count)
			continue;
		fprintf(out, "%s{\"type\": \"%s\", \"count\": %.0f, \"device_ns\": %.0f}",
			r++ ? ", " : "", ap_gpu_sync_name(i), x->count, x->ns);
	}
	fputs("]}", out);
}

struct line {
	const char *s;
	double n;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->s, ((const struct line *)b)->s);
}

/* comm;root;...;leaf;KERNEL_[gpu] LAUNCHES */
static int print_folded(struct view_gpu *v, FILE *out)
{
	const char **fr = malloc(MAX_FRAMES * sizeof(*fr));
	struct ap_hmap by_line;
	struct line *lines = NULL;
	size_t nr = 0, i;
	int err = 0;

	if (!fr)
		return -ENOMEM;
	ap_hmap__init(&by_line);
	for (i = 0; i < v->sites.nr; i++) {
		const struct site *s = VEC_AT(v->sites, struct site, i);
		const struct ident *id = VEC_AT(v->idents, struct ident,
						s->ident);
		const char *name = ident_name(v, id), *line, *chain, *folded;
		uint64_t *slot;
		size_t len;
		char *buf;
		long n;
		int fresh;

		if (s->count <= 0)
			continue;
		n = resolve(v, id->as, s->stack_id, fr, MAX_FRAMES);
		if (n < 0 || stack_strings(v, fr, n, &chain, &folded)) {
			err = -ENOMEM;
			break;
		}
		len = strlen(s->comm) + strlen(folded) + strlen(name) + 16;
		buf = malloc(len);
		if (!buf) {
			err = -ENOMEM;
			break;
		}
		snprintf(buf, len, "%s;%s%s%s_[gpu]", s->comm, folded,
			 *folded ? ";" : "", name);
		line = ap_strtab__intern(v->strs, buf, -1);
		free(buf);
		slot = line ? ap_hmap__upsert(&by_line, (uintptr_t)line,
					      &fresh) : NULL;
		if (!slot) {
			err = -ENOMEM;
			break;
		}
		if (fresh) {
			void *nl = realloc(lines, (nr + 1) * sizeof(*lines));

			if (!nl) {
				err = -ENOMEM;
				break;
			}
			lines = nl;
			lines[nr].s = line;
			lines[nr].n = 0;
			*slot = nr++;
		}
		lines[*slot].n += s->count;
	}
	if (!err)
		ap_sort(lines, nr, sizeof(*lines), cmp_line);
	for (i = 0; !err && i < nr; i++)
		fprintf(out, "%s %.0f\n", lines[i].s, lines[i].n);
	ap_hmap__free(&by_line);
	free(lines);
	free(fr);
	return err;
}

/* "NAME_[gpu]", the frame a kernel is under its launching stack */
static const char *kernel_frame(struct view_gpu *v, const char *name)
{
	char buf[AP_GPU_DEV_NAME_MAX + 16];

	snprintf(buf, sizeof(buf), "%s_[gpu]", name);
	return ap_strtab__intern(v->strs, buf, -1);
}

/*
 * The exporters' profile: per launching stack and thread, launches, the
 * host launch calls' time and the device time of the kernels they
 * started (CUPTI), under the kernel as the leaf; kernels whose launch
 * was not seen weigh under their name alone.  Flame graphs weigh by
 * device time where the recording has it, else by launches.
 */
static int gpu_profile(void *p, struct ap_profile *pr)
{
	struct view_gpu *v = p;
	double *dev = calloc(v->sites.nr ? v->sites.nr : 1, sizeof(*dev));
	struct ap_hmap by;		/* unjoined: "u/pid/name" -> sample */
	int idx, err = 0, any = 0;
	size_t i;

	if (!dev)
		return -ENOMEM;
	for (i = 0; i < v->devs.nr; i++) {
		const struct dev *d = VEC_AT(v->devs, struct dev, i);
		const uint64_t *slot;

		if (d->kind != AP_GPU_KERNEL)
			continue;
		any = 1;
		slot = ap_hmap__find(&v->launch_by, d->key);
		if (slot)
			dev[*slot - 1] += d->dur;
	}
	/* the descriptor's types: launches, launch time, device time */
	idx = ap_profile__add_kind(pr, AP_TAG_GPU, any ? 2 : 0);
	if (idx < 0) {
		free(dev);
		return idx;
	}
	for (i = 0; !err && i < v->sites.nr; i++) {
		const struct site *s = VEC_AT(v->sites, struct site, i);
		const struct ident *id = VEC_AT(v->idents, struct ident,
						s->ident);
		const char *name = ident_name(v, id);
		struct ap_prof_sample smp = {
			.view = idx, .pid = s->pid, .tid = s->tid,
			.comm = s->comm, .as = id->as,
			.stack_id = s->stack_id,
			.v = { (int64_t)s->count, (int64_t)s->launch_ns,
			       (int64_t)dev[i] },
		};

		if (s->count <= 0 && !dev[i])
			continue;
		smp.leaf = name ? kernel_frame(v, name) : NULL;
		err = smp.leaf ? ap_profile__add(pr, &smp) : -ENOMEM;
	}
	/* kernels run on the device whose launch was not seen (--tid: only
	 * those of its launches) */
	ap_hmap__init(&by);
	for (i = 0; !err && !v->o->nr_tids && i < v->devs.nr; i++) {
		const struct dev *d = VEC_AT(v->devs, struct dev, i);
		uint32_t pid = d->key >> 32;
		struct ap_prof_sample smp = {
			.view = idx, .pid = pid,
			.comm = ap_session__comm(v->s, pid, pid),
		};
		char key[AP_GPU_DEV_NAME_MAX + 16], *dm;
		const char *k;
		uint64_t *slot;
		int fresh;

		if (d->kind != AP_GPU_KERNEL ||
		    ap_hmap__find(&v->launch_by, d->key))
			continue;
		/* one sample per process and kernel */
		snprintf(key, sizeof(key), "u/%u/%s", pid, d->name);
		k = ap_strtab__intern(v->strs, key, -1);
		slot = k ? ap_hmap__upsert(&by, (uintptr_t)k, &fresh) : NULL;
		if (!slot) {
			err = -ENOMEM;
			break;
		}
		if (fresh) {
			dm = ap_demangle(d->name);
			smp.leaf = kernel_frame(v, dm ? dm : d->name);
			free(dm);
			err = smp.leaf ? ap_profile__add(pr, &smp) : -ENOMEM;
			*slot = pr->nr - 1;
		}
		if (!err)
			pr->samples[*slot].v[2] += (int64_t)d->dur;
	}
	ap_hmap__free(&by);
	free(dev);
	return err;
}

static int gpu_print(void *p, FILE *out)
{
	struct view_gpu *v = p;
	struct rows rs = { 0 };
	int err;

	if (v->o->format == AP_FMT_FOLDED)
		return print_folded(v, out);
	err = build_rows(v, &rs);
	if (!err) {
		if (v->o->format == AP_FMT_JSON)
			print_json(v, &rs, out);
		else
			print_table(v, &rs, out);
	}
	free_rows(&rs);
	return err;
}

const struct ap_view_ops ap_view_gpu = {
	.name = "gpu",
	.tag = AP_TAG_GPU,
	.more_tags = AP_EVMASK(AP_TAG_GPU_DEV),
	.new = gpu_new,
	.event = gpu_event,
	.print = gpu_print,
	.decay = gpu_decay,
	.free = gpu_free,
	.profile = gpu_profile,
};
