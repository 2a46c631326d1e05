// SPDX-License-Identifier: GPL-2.0
/*
 * Stack resolution shared by the views: frames leaf first, names interned,
 * and the folded-line helpers built on them.
 */
#include "report/stackres.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "event/event.h"
#include "util/escape.h"
#include "report/session.h"
#include "util/strtab.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"

void ap_stackres__init(struct ap_stackres *r, struct ap_strtab *strs)
{
	memset(r, 0, sizeof(*r));
	r->strs = strs;
	ap_hmap__init(&r->cache);
	ap_hmap__init(&r->ips.map);
	ap_hmap__init(&r->locs.map);
}

static void cache_reset(struct ap_stackres *r)
{
	ap_hmap__free(&r->cache);
	ap_hmap__init(&r->cache);
	r->nr_ents = r->nr_pool = 0;
}

static void fcache_reset(struct ap_fcache *c)
{
	ap_hmap__free(&c->map);
	ap_hmap__init(&c->map);
	c->nr_ents = c->nr_pool = 0;
}

static void fcache_free(struct ap_fcache *c)
{
	ap_hmap__free(&c->map);
	free(c->ents);
	free(c->pool);
	memset(c, 0, sizeof(*c));
	ap_hmap__init(&c->map);
}

static uint64_t fcache_hash(const uint64_t key[4])
{
	/* each word times its odd constant: the map mixes the sum */
	uint64_t h = key[0] * 0x9e3779b97f4a7c15ull +
		     key[1] * 0xbf58476d1ce4e5b9ull +
		     key[2] * 0x94d049bb133111ebull +
		     key[3] * 0xd6e8feb86659fd93ull;

	return h == AP_HMAP_EMPTY ? 0 : h;
}

/* the entry of key; NULL when none */
static const struct ap_fcache_ent *fcache_get(const struct ap_fcache *c,
					      const uint64_t key[4])
{
	uint64_t *slot = ap_hmap__find(&c->map, fcache_hash(key));
	const struct ap_fcache_ent *e;

	if (!slot)
		return NULL;
	e = &c->ents[*slot];
	return memcmp(e->key, key, sizeof(e->key)) ? NULL : e;
}

/* room for n elements in *arr (ap_grow doubles once a call) */
static int grow_to(void **arr, size_t *cap, size_t n, size_t size,
		   size_t first)
{
	while (*cap < n)
		if (ap_grow(arr, cap, *cap, size, first))
			return -ENOMEM;
	return 0;
}

/* keeps frames[0..nr) under key, within the budget; nothing when out of
 * memory or when another key has its hash (they are made again) */
static void fcache_put(struct ap_fcache *c, const uint64_t key[4],
		       const struct ap_rframe *frames, size_t nr, int cut)
{
	uint64_t *slot;
	int fresh;

	if (nr > AP_STACKRES_FCACHE)
		return;
	if (nr > AP_STACKRES_FCACHE - c->nr_pool)
		fcache_reset(c);
	if (ap_grow((void **)&c->ents, &c->cap_ents, c->nr_ents,
		    sizeof(*c->ents), 256) ||
	    grow_to((void **)&c->pool, &c->cap_pool, c->nr_pool + nr,
		    sizeof(*c->pool), 1024))
		return;
	slot = ap_hmap__upsert(&c->map, fcache_hash(key), &fresh);
	if (!slot || !fresh)
		return;
	*slot = c->nr_ents;
	c->ents[c->nr_ents] = (struct ap_fcache_ent){ .off = c->nr_pool,
						      .nr = nr, .cut = cut };
	memcpy(c->ents[c->nr_ents++].key, key, sizeof(c->ents->key));
	if (nr)
		memcpy(c->pool + c->nr_pool, frames, nr * sizeof(*frames));
	c->nr_pool += nr;
}

/* appends e's frames to r's */
static int fcache_push(struct ap_stackres *r, const struct ap_fcache *c,
		       const struct ap_fcache_ent *e)
{
	if (grow_to((void **)&r->frames, &r->cap, r->nr + e->nr,
		    sizeof(*r->frames), 256))
		return -ENOMEM;
	r->last_valid = 0;
	if (e->nr)
		memcpy(r->frames + r->nr, c->pool + e->off,
		       e->nr * sizeof(*r->frames));
	r->nr += e->nr;
	return 0;
}

/* what the session learnt since the caches were filled may change any
 * frame, and a new kernel symbol frees the symbolizer's kernel locs */
static void cache_sync(struct ap_stackres *r, const struct ap_session *s)
{
	uint64_t epoch = ap_session__epoch(s);

	if (r->cache_s == s && r->cache_epoch == epoch)
		return;
	cache_reset(r);
	fcache_reset(&r->ips);
	fcache_reset(&r->locs);
	r->last_valid = 0;
	r->cache_s = s;
	r->cache_epoch = epoch;
}

void ap_stackres__free(struct ap_stackres *r)
{
	if (!r)
		return;
	free(r->frames);
	r->frames = NULL;
	r->nr = r->cap = 0;
	r->last_valid = 0;
	ap_hmap__free(&r->cache);
	free(r->ents);
	free(r->pool);
	r->ents = NULL;
	r->pool = NULL;
	r->nr_ents = r->cap_ents = r->nr_pool = r->cap_pool = 0;
	fcache_free(&r->ips);
	fcache_free(&r->locs);
	r->cache_s = NULL;
}

void ap_stackres__clear(struct ap_stackres *r)
{
	r->nr = 0;
	r->last_valid = 0;
}

int ap_stackres__push(struct ap_stackres *r, const char *sym, const char *dso,
		      int kernel)
{
	if (ap_grow((void **)&r->frames, &r->cap, r->nr, sizeof(*r->frames),
		    256))
		return -ENOMEM;
	r->last_valid = 0;
	sym = ap_strtab__intern(r->strs, sym, -1);
	dso = ap_strtab__intern(r->strs, dso, -1);
	if (!sym || !dso)
		return -ENOMEM;
	r->frames[r->nr++] = (struct ap_rframe){ sym, dso, kernel, 0,
						 .nosym = -1 };
	return 0;
}

/* the frames of loc, looked up at ip - adj, printed at addr by perf
 * script's lines; formatted and interned afresh */
static int push_loc_fmt(struct ap_stackres *r, const struct ap_sym_loc *loc,
			int kernel, uint64_t addr, uint64_t adj)
{
	const char *dso = loc->dso ? loc->dso : "[unknown]";
	int i, err, nr = loc->nr_frames ? loc->nr_frames : 1;
	const char *path = NULL;
	char buf[1024];

	if (loc->dso_path) {
		path = ap_strtab__intern(r->strs, loc->dso_path, -1);
		if (!path)
			return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		struct ap_rframe *f;

		ap_sym_loc__format(loc, i, buf, sizeof(buf));
		err = ap_stackres__push(r, buf, dso, kernel);
		if (err)
			return err;
		f = &r->frames[r->nr - 1];
		f->addr = addr;
		f->symoff = loc->sym_offset + adj;
		f->path = path;
		f->nosym = !loc->nr_frames || !loc->frames[i].sym;
		if (!loc->nr_frames)
			continue;
		f->inlined = loc->frames[i].inlined;
		if (loc->frames[i].file && loc->frames[i].line > 0) {
			f->file = ap_strtab__intern(r->strs,
						    loc->frames[i].file, -1);
			if (!f->file)
				return -ENOMEM;
			f->line = loc->frames[i].line;
		}
	}
	return 0;
}

/* push_loc_fmt's frames through the cache of locs: only while
 * cache_sync() holds (the locs it keys are alive) */
static int push_loc_at(struct ap_stackres *r, const struct ap_sym_loc *loc,
		       int kernel, uint64_t addr, uint64_t adj)
{
	uint64_t key[4] = { (uintptr_t)loc, !!kernel };
	const struct ap_fcache_ent *e = fcache_get(&r->locs, key);
	size_t from = r->nr, i;
	int err;

	if (!e) {
		err = push_loc_fmt(r, loc, kernel, addr, adj);
		if (!err) {
			r->formatted++;
			fcache_put(&r->locs, key, r->frames + from,
				   r->nr - from, 0);
		}
		return err;
	}
	err = fcache_push(r, &r->locs, e);
	if (err)
		return err;
	for (i = from; i < r->nr; i++) {
		r->frames[i].addr = addr;
		r->frames[i].symoff = loc->sym_offset + adj;
	}
	return 0;
}

int ap_stackres__push_loc(struct ap_stackres *r, const struct ap_sym_loc *loc,
			  int kernel)
{
	return push_loc_fmt(r, loc, kernel, loc->dso_offset, 0);
}

/* where perf script prints a user address: in its file (perf's
 * map__map_ip, ip - start + pgoff), itself in anonymous memory or none */
static uint64_t user_addr(struct ap_addrspace *as, uint64_t ip)
{
	const struct ap_mmap *m = ap_addrspace__find(as, ip);

	return m && m->path[0] ? ip - m->start + m->pgoff : ip;
}

/* A return address, named by its call at ip - 1 as the symbolizer's
 * ap_symbolizer__user(is_return_addr) does, the same two lookups in the
 * same order (so its counters are the same): but known here to be at
 * ip - 1, which perf script's lines undo (they print the address and
 * its offset as they are).  Where nothing covers ip - 1, ip is the first
 * byte of a signal trampoline, named at ip. */
static int push_return(struct ap_stackres *r, struct ap_symbolizer *sym,
		       struct ap_addrspace *as, uint64_t ip)
{
	uint64_t addr = user_addr(as, ip);
	const struct ap_sym_loc *loc, *at;

	if (!ip)
		return push_loc_at(r, ap_symbolizer__user(sym, as, 0, 0), 0,
				   addr, 0);
	loc = ap_symbolizer__user(sym, as, ip - 1, 0);
	if (loc->nr_frames)
		return push_loc_at(r, loc, 0, addr, 1);
	at = ap_symbolizer__user(sym, as, ip, 0);
	if (at->nr_frames)
		return push_loc_at(r, at, 0, addr, 0);
	return push_loc_at(r, loc, 0, addr, 1);
}

const char *ap_rframe__srcline(const struct ap_rframe *f, char *buf,
			       size_t len)
{
	const char *base;

	if (!f->file || f->line <= 0) {
		snprintf(buf, len, "??:0");
		return buf;
	}
	base = strrchr(f->file, '/');
	snprintf(buf, len, "%s:%d", base ? base + 1 : f->file, f->line);
	return buf;
}

const char *ap_rframe__name(const struct ap_rframe *f,
			    struct ap_strtab *strs)
{
	char src[512], *name;
	const char *s;

	if (!f->python || !f->file)
		return f->sym;
	if (asprintf(&name, "%s (%s)", f->sym,
		     ap_rframe__srcline(f, src, sizeof(src))) < 0)
		return NULL;
	s = ap_strtab__intern(strs, name, -1);
	free(name);
	return s;
}

/* an executable mapping covers addr (or nothing is known of as) */
static int code_at(struct ap_addrspace *as, uint64_t addr)
{
	const struct ap_mmap *m;

	if (!ap_addrspace__count(as))
		return 1;
	m = ap_addrspace__find(as, addr);
	return m && (m->prot & PROT_EXEC);
}

static int known_root(const char *sym)
{
	static const char *const roots[] = {
		"_start", "__libc_start_main", "__libc_start_call_main",
		"start_thread", "clone", "clone3", "__clone", "__clone3",
		"thread_start", "ret_from_fork", "ret_from_fork_asm",
		"start_kernel", "secondary_startup_64",
		"secondary_startup_64_no_verify", "x86_64_start_kernel",
		"cpu_startup_entry", "common_startup_64",
		/* Go: a goroutine's stack starts at goexit, a thread's own
		 * (g0) at mstart, the first one's at rt0_go; ".abi0" is
		 * the name of their assembly since Go 1.17 */
		"runtime.goexit", "runtime.goexit.abi0", "runtime.mstart",
		"runtime.mstart.abi0", "runtime.rt0_go", "runtime.rt0_go.abi0",
	};
	size_t i;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(sym, roots[i]))
			return 1;
	/* the kernel's entry points: system calls, interrupts, faults */
	return !strncmp(sym, "entry_", 6) || !strncmp(sym, "asm_", 4);
}

int ap_stackres__root(const struct ap_stackres *r)
{
	const char *sym;

	if (!r->nr)
		return AP_ROOT_UNKNOWN;
	sym = r->frames[r->nr - 1].sym;
	if (!strcmp(sym, "[truncated]"))
		return AP_ROOT_TRUNCATED;
	if (r->outermost)
		return AP_ROOT_KNOWN;
	if (r->cut || sym[0] == '[' || strstr(sym, "+0x"))
		return AP_ROOT_UNKNOWN;
	return known_root(sym) ? AP_ROOT_KNOWN : AP_ROOT_OTHER;
}

/* "bpf_prog_" TAG "_ap_...": one of aperture's programs (their names all
 * start with ap_), as kallsyms names a JIT image */
static int own_prog(const char *sym)
{
	size_t i;

	if (strncmp(sym, "bpf_prog_", 9))
		return 0;
	for (i = 9; i < 9 + 16; i++)
		if (!((sym[i] >= '0' && sym[i] <= '9') ||
		      (sym[i] >= 'a' && sym[i] <= 'f')))
			return 0;
	return !strncmp(sym + 9 + 16, "_ap_", 4);
}

int ap_stackres__own_bpf(const struct ap_stackres *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		if (r->frames[i].kernel && !strcmp(r->frames[i].dso, "[bpf]") &&
		    own_prog(r->frames[i].sym))
			return 1;
	return 0;
}

long ap_stackres__resolve_stack(struct ap_stackres *r, struct ap_session *s,
				struct ap_addrspace *as,
				const struct ap_stack *st, int flags)
{
	struct ap_symbolizer *sym = ap_session__symbolizer(s);
	int i, err;

	cache_sync(r, s);
	ap_stackres__clear(r);
	r->cut = 0;
	r->outermost = 0;
	if (!(flags & AP_STACKRES_USER_ONLY)) {
		for (i = 0; i < st->nr_kernel; i++) {
			uint64_t key[4] = { 0, 0, st->ips[i], 3 };
			const struct ap_fcache_ent *e = fcache_get(&r->ips,
								   key);
			size_t from = r->nr;

			if (e) {
				err = fcache_push(r, &r->ips, e);
				if (err)
					return err;
				continue;
			}
			err = push_loc_at(r,
					  ap_symbolizer__kernel(sym, st->ips[i]),
					  1, st->ips[i], 0);
			if (err)
				return err;
			fcache_put(&r->ips, key, r->frames + from,
				   r->nr - from, 0);
		}
	}
	for (i = 0; i < st->nr_user && as; i++) {
		uint64_t ip = st->ips[st->nr_kernel + i];
		/* how ip is taken: a leaf, a return address as leaf, a
		 * caller (whose chain may end at it); 3 is the kernel's */
		uint64_t key[4] = { (uintptr_t)as, ap_addrspace__stamp(as), ip,
				    i > 0 ? 2 : !!(flags & AP_STACKRES_LEAF_RET) };
		const struct ap_fcache_ent *e = fcache_get(&r->ips, key);
		size_t from = r->nr;

		/* a Python frame (lib/python): a name of the file's */
		if (ap_pyframe_ip(ip)) {
			err = push_loc_at(r, ap_symbolizer__user(sym, as, ip,
								 0),
					  0, 0, 0);
			if (err)
				return err;
			r->frames[r->nr - 1].python = 1;
			continue;
		}
		if (e && e->cut) {
			r->cut = 1;
			break;
		}
		if (e) {
			err = fcache_push(r, &r->ips, e);
			if (err)
				return err;
			continue;
		}
		/* a return address that is not in code (frame-pointer
		 * garbage: the stack, the heap, data) ends the chain */
		if (i > 0 && !code_at(as, ip - 1)) {
			fcache_put(&r->ips, key, NULL, 0, 1);
			r->cut = 1;
			break;
		}
		/* return addresses are looked up at ip - 1: every caller,
		 * and the leaf where it is one */
		if (i > 0 || (flags & AP_STACKRES_LEAF_RET))
			err = push_return(r, sym, as, ip);
		else
			err = push_loc_at(r, ap_symbolizer__user(sym, as, ip,
								 0),
					  0, user_addr(as, ip), 0);
		if (err)
			return err;
		fcache_put(&r->ips, key, r->frames + from, r->nr - from, 0);
	}
	r->outermost = (st->flags & AP_STACK_OUTERMOST) && as && !r->cut &&
		       st->nr_user && r->nr && !r->frames[r->nr - 1].kernel;
	if (st->flags & AP_STACK_TRUNCATED) {
		err = ap_stackres__push(r, "[truncated]", "[truncated]",
					r->nr && r->frames[r->nr - 1].kernel);
		if (err)
			return err;
	}
	if (!r->nr && (flags & AP_STACKRES_KERNEL)) {
		err = ap_stackres__push(r, "[kernel]", "[kernel.kallsyms]", 1);
		if (err)
			return err;
	}
	return (long)r->nr;
}

static int same_key(const struct ap_stackres_key *a,
		    const struct ap_stackres_key *b)
{
	return a->as == b->as && a->as_stamp == b->as_stamp &&
	       a->stack_id == b->stack_id && a->flags == b->flags;
}

static uint64_t key_hash(const struct ap_stackres_key *k)
{
	uint64_t h = ap_hash64(k->as_stamp ^
			       ap_hash64((uint64_t)k->stack_id << 8 |
					 (uint64_t)(k->flags & 0xff)));

	return h == AP_HMAP_EMPTY ? 0 : h;
}

/* the cached frames of k into r; 1 when there were some */
static int cache_get(struct ap_stackres *r, const struct ap_stackres_key *k)
{
	uint64_t *slot = ap_hmap__find(&r->cache, key_hash(k));
	const struct ap_stackres_ent *e;

	if (!slot)
		return 0;
	e = &r->ents[*slot];
	if (!same_key(&e->key, k))
		return 0;
	if (e->nr > r->cap) {
		struct ap_rframe *f = realloc(r->frames, e->nr * sizeof(*f));

		if (!f)
			return 0;
		r->frames = f;
		r->cap = e->nr;
	}
	if (e->nr)
		memcpy(r->frames, r->pool + e->off, e->nr * sizeof(*r->frames));
	r->nr = e->nr;
	r->cut = e->cut;
	r->outermost = e->outermost;
	return 1;
}

/* keeps the frames of the last resolve under k, within the budget; a
 * key whose hash is taken by another stays out */
static void cache_put(struct ap_stackres *r, const struct ap_stackres_key *k)
{
	uint64_t *slot;
	int fresh;

	if (r->nr > AP_STACKRES_CACHE)
		return;
	if (r->nr > AP_STACKRES_CACHE - r->nr_pool)
		cache_reset(r);	/* a live session's old entries go */
	if (ap_grow((void **)&r->ents, &r->cap_ents, r->nr_ents,
		    sizeof(*r->ents), 64))
		return;
	if (r->nr_pool + r->nr > r->cap_pool) {
		size_t cap = r->cap_pool ? r->cap_pool : 1024;
		struct ap_rframe *p;

		while (cap < r->nr_pool + r->nr)
			cap *= 2;
		p = realloc(r->pool, cap * sizeof(*p));
		if (!p)
			return;
		r->pool = p;
		r->cap_pool = cap;
	}
	slot = ap_hmap__upsert(&r->cache, key_hash(k), &fresh);
	if (!slot || !fresh)
		return;
	*slot = r->nr_ents;
	r->ents[r->nr_ents++] = (struct ap_stackres_ent){
		.key = *k, .off = r->nr_pool, .nr = r->nr, .cut = r->cut,
		.outermost = r->outermost,
	};
	if (r->nr)
		memcpy(r->pool + r->nr_pool, r->frames,
		       r->nr * sizeof(*r->frames));
	r->nr_pool += r->nr;
}

long ap_stackres__resolve(struct ap_stackres *r, struct ap_session *s,
			  struct ap_addrspace *as, uint32_t stack_id,
			  int flags)
{
	struct ap_stackres_key k = { as, ap_addrspace__stamp(as), stack_id,
				     flags };
	struct ap_stack st;
	long n;
	int err;

	cache_sync(r, s);
	if (r->last_valid && same_key(&r->last, &k))
		return (long)r->nr;
	if (!stack_id || ap_session__stack(s, stack_id, &st)) {
		ap_stackres__clear(r);
		if (!(flags & AP_STACKRES_UNKNOWN))
			return 0;
		err = ap_stackres__push(r, "[unknown]", "[unknown]", 0);
		return err ? err : (long)r->nr;
	}
	if (!cache_get(r, &k)) {
		n = ap_stackres__resolve_stack(r, s, as, &st, flags);
		if (n < 0)
			return n;
		r->resolved++;
		cache_put(r, &k);
	}
	r->last = k;
	r->last_valid = 1;
	return (long)r->nr;
}

int ap_fbuf__add(struct ap_fbuf *b, const char *sep, const char *s,
		 const char *suffix)
{
	size_t need = b->len + strlen(sep) + strlen(s) + strlen(suffix) + 1;
	int clean = ap_escape_clean(s, AP_ESC_FOLDED);

	/* a name from someone else: no newline, no ';', no ESC in a line */
	if (!clean)
		need += 3 * strlen(s);

	if (need > b->cap) {
		size_t cap = need * 2;
		char *n = realloc(b->p, cap);

		if (!n)
			return -ENOMEM;
		b->p = n;
		b->cap = cap;
	}
	if (clean) {
		b->len += snprintf(b->p + b->len, b->cap - b->len, "%s%s%s",
				   sep, s, suffix);
		return 0;
	}
	b->len += snprintf(b->p + b->len, b->cap - b->len, "%s", sep);
	b->len += ap_escape(b->p + b->len, b->cap - b->len, s, AP_ESC_FOLDED);
	b->len += snprintf(b->p + b->len, b->cap - b->len, "%s", suffix);
	return 0;
}

int ap_fbuf__frames(struct ap_fbuf *b, const struct ap_rframe *frames,
		    long n)
{
	long j;
	int err;

	char src[512];

	for (j = n - 1; j >= 0; j--) {
		const char *suffix = frames[j].kernel ? "_[k]" : "";
		char *name;

		/* a Python frame: "function (file.py:12)", as py-spy's */
		if (!frames[j].file || (!b->srcline && !frames[j].python)) {
			err = ap_fbuf__add(b, ";", frames[j].sym, suffix);
		} else {
			/* the file name is the target's: escaped with the
			 * rest of the frame */
			if (asprintf(&name, "%s (%s)", frames[j].sym,
				     ap_rframe__srcline(&frames[j], src,
							sizeof(src))) < 0)
				return -ENOMEM;
			err = ap_fbuf__add(b, ";", name, suffix);
			free(name);
		}
		if (err)
			return err;
	}
	return 0;
}

int ap_fbuf__stack(struct ap_fbuf *b, const char *comm, const char *root,
		   const struct ap_rframe *frames, long n)
{
	int err;

	b->len = 0;
	err = ap_fbuf__add(b, "", comm, "");
	if (!err && root)
		err = ap_fbuf__add(b, ";", root, "");
	return err ? err : ap_fbuf__frames(b, frames, n);
}

const char *ap_fbuf__intern(const struct ap_fbuf *b, struct ap_strtab *strs)
{
	return ap_strtab__intern(strs, b->p ? b->p : "", (long)b->len);
}

void ap_folded__init(struct ap_folded *f)
{
	memset(f, 0, sizeof(*f));
	ap_hmap__init(&f->by_line);
}

void ap_folded__free(struct ap_folded *f)
{
	if (!f)
		return;
	ap_hmap__free(&f->by_line);
	free(f->lines);
	f->lines = NULL;
	f->nr = f->cap = 0;
}

int ap_folded__add(struct ap_folded *f, const char *line, double weight)
{
	uint64_t *slot;
	int fresh;

	slot = line ? ap_hmap__upsert(&f->by_line, (uintptr_t)line, &fresh) :
		      NULL;
	if (!slot)
		return -ENOMEM;
	if (fresh) {
		if (ap_grow((void **)&f->lines, &f->cap, f->nr,
			    sizeof(*f->lines), 256)) {
			ap_hmap__remove(&f->by_line, (uintptr_t)line);
			return -ENOMEM;
		}
		f->lines[f->nr] = (struct ap_fline){ line, 0 };
		*slot = f->nr++;
	}
	f->lines[*slot].weight += weight;
	return 0;
}

static int cmp_fline(const void *a, const void *b)
{
	return strcmp(((const struct ap_fline *)a)->s,
		      ((const struct ap_fline *)b)->s);
}

void ap_folded__sort(struct ap_folded *f)
{
	if (f->nr)
		ap_sort(f->lines, f->nr, sizeof(*f->lines), cmp_fline);
}

void ap_folded__print(struct ap_folded *f, FILE *out, double div,
		      uint32_t tag, const struct ap_report_opts *o)
{
	size_t i;

	ap_folded__sort(f);
	for (i = 0; i < f->nr; i++)
		fprintf(out, "%s %.0f\n", f->lines[i].s,
			ap_event_kind__folded_weight(tag, o,
						     f->lines[i].weight / div));
}
