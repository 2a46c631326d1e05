// SPDX-License-Identifier: GPL-2.0
/*
 * pprof export: the profile as perftools.profiles.Profile, encoded by the
 * protobuf-c code generated from proto/profile.proto, gzipped with zlib.
 * Every view's value types side by side (a sample of one view has zeros in
 * the others), locations with their mapping, address and lines (inlined
 * functions first), labels pid, tid and comm.  Symbolized here, so pprof
 * needs neither the binaries nor their debug info.
 *
 * What the profiling servers take: Pyroscope refuses a sample type with
 * '-' in it ("sample type contains -", pkg/validation) and Parca one that
 * is not a PromQL name (its profile type "name:type:unit:..." must parse),
 * so types are written with '_'; both servers drop numeric labels, so
 * pid and tid are strings, as comm is.  A process whose cgroup the file
 * holds has it as cgroup, and its container (util/labels.h) as
 * container_id; record --label's labels are on every sample.
 */
#include "export/export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/hmap.h"
#include "export/profile.h"
#include "proto/profile.pb-c.h"
#include "report/session.h"
#include "util/labels.h"
#include "util/strtab.h"
#include "util/utf8.h"
#include "symbols/symbolizer.h"
#include "util/vec.h"

/* record --label's kept, as push's --label */
#define AP_PPROF_MAX_LABELS	16

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_vtype;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;


struct pp {
	const struct ap_profile *p;
	struct ap_symbolizer *sym;
	struct ap_strtab *strs;		/* keys of the tables below */
	char **str;			/* string_table */
	size_t nr_str, cap_str;
	struct ap_hmap str_idx;		/* interned string -> index */
	pb_function **fn;
	size_t nr_fn, cap_fn;
	struct ap_hmap fn_idx;		/* interned "name\x1ffile" -> index */
	pb_mapping **map;
	size_t nr_map, cap_map;
	struct ap_hmap map_idx;		/* struct ap_mmap * -> index */
	pb_location **loc;
	size_t nr_loc, cap_loc;
	struct ap_hmap loc_idx;		/* interned key -> index */
	pb_sample **smp;
	size_t nr_smp, cap_smp;
	uint64_t *ids;			/* scratch: one sample's locations */
	size_t nr_ids, cap_ids;
	int64_t kernel_map;		/* its mapping id; 0: none yet */
	int oom;			/* a string could not be added */
	/* record --label's: string ids of each name and value */
	int64_t lab_key[AP_PPROF_MAX_LABELS], lab_val[AP_PPROF_MAX_LABELS];
	int nr_labs;
};

/* index of s in the string table, added when new; out of memory sets
 * x->oom (checked once, before packing).  proto3 strings are UTF-8: a
 * parser refuses the profile for one byte that is not (a thread name cut
 * by the kernel in the middle of a character), so such a byte is U+FFFD. */
static int64_t str_id(struct pp *x, const char *s)
{
	const char *k;
	uint64_t *slot;
	char *fixed = NULL;
	size_t need;
	int fresh;

	s = s ? s : "";
	if (!ap_utf8_valid(s)) {
		need = ap_utf8_sanitize(NULL, 0, s) + 1;
		fixed = malloc(need);
		if (!fixed) {
			x->oom = 1;
			return 0;
		}
		ap_utf8_sanitize(fixed, need, s);
		s = fixed;
	}
	k = ap_strtab__intern(x->strs, s, -1);
	free(fixed);
	slot = k ? ap_hmap__upsert(&x->str_idx, (uintptr_t)k, &fresh) : NULL;
	if (!slot) {
		x->oom = 1;
		return 0;
	}
	if (fresh) {
		if (ap_grow((void **)&x->str, &x->cap_str, x->nr_str,
			    sizeof(*x->str), 1024)) {
			ap_hmap__remove(&x->str_idx, (uintptr_t)k);
			x->oom = 1;
			return 0;
		}
		x->str[x->nr_str] = (char *)k;
		*slot = x->nr_str++;
	}
	return (int64_t)*slot;
}

/* a sample or period type's name as the servers take it: '-' is '_' */
static int64_t type_id(struct pp *x, const char *name)
{
	char buf[64];
	size_t i;

	for (i = 0; name[i] && i < sizeof(buf) - 1; i++)
		buf[i] = name[i] == '-' ? '_' : name[i];
	buf[i] = '\0';
	return str_id(x, buf);
}

/* push a pointer onto one of the tables; its id is the new count */
static int push(void ***arr, size_t *nr, size_t *cap, void *obj)
{
	if (!obj || ap_grow((void **)arr, cap, *nr, sizeof(void *), 256)) {
		free(obj);
		return -ENOMEM;
	}
	(*arr)[(*nr)++] = obj;
	return 0;
}

/* the function of name (its system_name: linkage, the symbol's own
 * mangled name, or name), declared in file at start_line */
static int64_t func_id(struct pp *x, const char *name, const char *linkage,
		       const char *file, int start_line)
{
	char key[2048];
	const char *k;
	uint64_t *slot;
	pb_function *f;
	int fresh;

	snprintf(key, sizeof(key), "%s\x1f%s\x1f%s\x1f%d", name,
		 linkage ? linkage : "", file ? file : "", start_line);
	k = ap_strtab__intern(x->strs, key, -1);
	slot = k ? ap_hmap__upsert(&x->fn_idx, (uintptr_t)k, &fresh) : NULL;
	if (!slot)
		return -1;
	if (!fresh)
		return (int64_t)*slot + 1;
	f = malloc(sizeof(*f));
	if (!f)
		goto fail;
	perftools__profiles__function__init(f);
	f->id = x->nr_fn + 1;
	f->name = str_id(x, name);
	f->system_name = linkage ? str_id(x, linkage) : f->name;
	f->filename = str_id(x, file);
	f->start_line = start_line;
	if (push((void ***)&x->fn, &x->nr_fn, &x->cap_fn, f))
		goto fail;
	*slot = f->id - 1;
	return (int64_t)f->id;
fail:
	ap_hmap__remove(&x->fn_idx, (uintptr_t)k);
	return -1;
}

static void build_id_hex(const uint8_t *id, uint32_t n, char *buf,
			 size_t len)
{
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < n && 2 * i + 3 <= len; i++)
		snprintf(buf + 2 * i, len - 2 * i, "%02x", id[i]);
}

/* the mapping id of m (NULL: the kernel's); 0 on error */
static uint64_t map_id(struct pp *x, const struct ap_mmap *m)
{
	char bid[2 * AP_BUILD_ID_MAX + 1];
	pb_mapping *pm;
	uint64_t *slot;
	int fresh;

	if (!m && x->kernel_map)
		return x->kernel_map;
	if (m) {
		slot = ap_hmap__upsert(&x->map_idx, (uintptr_t)m, &fresh);
		if (!slot)
			return 0;
		if (!fresh)
			return *slot + 1;
	}
	pm = malloc(sizeof(*pm));
	if (!pm)
		goto fail;
	perftools__profiles__mapping__init(pm);
	pm->id = x->nr_map + 1;
	pm->has_functions = pm->has_filenames = 1;
	pm->has_line_numbers = pm->has_inline_frames = 1;
	if (m) {
		pm->memory_start = m->start;
		pm->memory_limit = m->end;
		pm->file_offset = m->pgoff;
		pm->filename = str_id(x, m->path);
		build_id_hex(m->build_id, m->build_id_len, bid, sizeof(bid));
		pm->build_id = str_id(x, bid);
	} else {
		pm->memory_start = AP_KERNEL_START;
		pm->memory_limit = UINT64_MAX;
		pm->filename = str_id(x, "[kernel.kallsyms]");
		build_id_hex(x->p->kernel_build_id, x->p->kernel_build_id_len,
			     bid, sizeof(bid));
		pm->build_id = bid[0] ? str_id(x, bid) : 0;
	}
	if (push((void ***)&x->map, &x->nr_map, &x->cap_map, pm))
		goto fail;
	if (m)
		*slot = pm->id - 1;
	else
		x->kernel_map = pm->id;
	return pm->id;
fail:
	if (m)
		ap_hmap__remove(&x->map_idx, (uintptr_t)m);
	return 0;
}

/* a location of nr lines (names[i], files[i], lines[i]), inlined first */
static pb_location *new_loc(struct pp *x, uint64_t mapping, uint64_t addr,
			    int nr)
{
	pb_location *l;
	pb_line *lines;
	int i;

	l = calloc(1, sizeof(*l) + nr * (sizeof(pb_line *) + sizeof(pb_line)));
	if (!l)
		return NULL;
	perftools__profiles__location__init(l);
	l->id = x->nr_loc + 1;
	l->mapping_id = mapping;
	l->address = addr;
	l->n_line = nr;
	l->line = (pb_line **)(l + 1);
	lines = (pb_line *)(l->line + nr);
	for (i = 0; i < nr; i++) {
		perftools__profiles__line__init(&lines[i]);
		l->line[i] = &lines[i];
	}
	return l;
}

/* the location id for key, made by symbolizing when new; 0 on error */
static uint64_t loc_id(struct pp *x, const char *key, const char *label,
		       struct ap_addrspace *as, uint64_t ip, int kernel,
		       int is_ret)
{
	const struct ap_sym_loc *sl = NULL;
	const char *k = ap_strtab__intern(x->strs, key, -1);
	uint64_t *slot, mapping = 0;
	pb_location *l;
	char name[1024];
	int fresh, i, nr = 1;

	slot = k ? ap_hmap__upsert(&x->loc_idx, (uintptr_t)k, &fresh) : NULL;
	if (!slot)
		return 0;
	if (!fresh)
		return *slot + 1;
	if (!label) {
		if (kernel) {
			sl = ap_symbolizer__kernel(x->sym, ip);
			mapping = map_id(x, NULL);
		} else {
			const struct ap_mmap *m = ap_addrspace__find(as, ip);

			sl = ap_symbolizer__user(x->sym, as, ip, is_ret);
			mapping = m ? map_id(x, m) : 0;
		}
		/* no symbol: the address alone, no made-up name, and its
		 * mapping says so, for a server that symbolizes by build-id */
		nr = sl->nr_frames;
		if (!nr && mapping)
			x->map[mapping - 1]->has_functions = 0;
	}
	l = new_loc(x, mapping, label ? 0 : ip, nr);
	if (!l)
		goto fail;
	for (i = 0; i < nr; i++) {
		const struct ap_sym_frame *fr = NULL;
		int64_t fid;

		if (label) {
			snprintf(name, sizeof(name), "%s", label);
		} else {
			ap_sym_loc__format(sl, i, name, sizeof(name));
			fr = &sl->frames[i];
			l->line[i]->line = fr->line;
		}
		fid = fr ? func_id(x, name, fr->linkage, fr->file,
				   fr->start_line) :
			   func_id(x, name, NULL, NULL, 0);
		if (fid < 0) {
			free(l);
			goto fail;
		}
		l->line[i]->function_id = fid;
	}
	if (push((void ***)&x->loc, &x->nr_loc, &x->cap_loc, l))
		goto fail;
	*slot = l->id - 1;
	return l->id;
fail:
	ap_hmap__remove(&x->loc_idx, (uintptr_t)k);
	return 0;
}

static int add_id(struct pp *x, uint64_t id)
{
	if (!id)
		return -ENOMEM;
	if (ap_grow((void **)&x->ids, &x->cap_ids, x->nr_ids,
		    sizeof(*x->ids), 256))
		return -ENOMEM;
	x->ids[x->nr_ids++] = id;
	return 0;
}

static int label_loc(struct pp *x, const char *label)
{
	char key[512];

	snprintf(key, sizeof(key), "L\x1f%s", label);
	return add_id(x, loc_id(x, key, label, NULL, 0, 0, 0));
}

/* the location ids of a sample into x->ids, leaf first */
static int sample_locs(struct pp *x, const struct ap_prof_sample *smp)
{
	struct ap_stack st;
	char key[64];
	int i, err = 0;

	x->nr_ids = 0;
	if (smp->leaf)
		err = label_loc(x, smp->leaf);
	if (!err && smp->stack_id &&
	    !ap_session__stack(x->p->s, smp->stack_id, &st)) {
		for (i = 0; !x->p->user_only && !err && i < st.nr_kernel; i++) {
			snprintf(key, sizeof(key), "k%" PRIx64, st.ips[i]);
			err = add_id(x, loc_id(x, key, NULL, NULL, st.ips[i],
					       1, 0));
		}
		for (i = 0; smp->as && !err && i < st.nr_user; i++) {
			uint64_t ip = st.ips[st.nr_kernel + i];

			snprintf(key, sizeof(key), "u%p:%" PRIx64 ":%d",
				 (void *)smp->as, ip, i > 0);
			err = add_id(x, loc_id(x, key, NULL, smp->as, ip, 0,
					       i > 0));
		}
	}
	if (!err && !smp->stack_id && smp->ip) {
		int kernel = smp->ip >= AP_KERNEL_START;

		if (kernel && x->p->user_only) {
			err = label_loc(x, "[kernel]");
		} else {
			snprintf(key, sizeof(key), "%c%p:%" PRIx64 ":0",
				 kernel ? 'k' : 'u', kernel ? NULL :
				 (void *)smp->as, smp->ip);
			err = add_id(x, loc_id(x, key, NULL, smp->as, smp->ip,
					       kernel, 0));
		}
	}
	if (!err && smp->root)
		err = label_loc(x, smp->root);
	if (!err && !x->nr_ids)
		err = label_loc(x, "[unknown]");
	return err;
}

/* the value columns: every view's types in turn */
static int col_base(const struct ap_profile *p, int view)
{
	int i, n = 0;

	for (i = 0; i < view; i++)
		n += p->views[i].nr_types;
	return n;
}

/* a sample's string label key=val into lab */
static void str_label(struct pp *x, pb_label *lab, const char *key,
		      const char *val)
{
	perftools__profiles__label__init(lab);
	lab->key = str_id(x, key);
	lab->str = str_id(x, val);
}

static int add_sample(struct pp *x, const struct ap_prof_sample *smp,
		      int nr_cols)
{
	const struct ap_prof_view *pv = &x->p->views[smp->view];
	const struct ap_proc_info *proc = ap_session__proc(x->p->s, smp->pid);
	int base = col_base(x->p, smp->view), nl, i, err;
	char num[16], cid[80];
	int has_cid = proc && proc->cgroup &&
		      ap_label__container_id(proc->cgroup, cid, sizeof(cid));
	pb_sample *s;
	pb_label *lab;
	size_t sz;

	err = sample_locs(x, smp);
	if (err)
		return err;
	nl = 2 + !!smp->tid + (proc && proc->cgroup) + has_cid + x->nr_labs;
	sz = sizeof(*s) + x->nr_ids * sizeof(uint64_t) +
	     nr_cols * sizeof(int64_t) + nl * (sizeof(pb_label *) +
					       sizeof(pb_label));
	s = calloc(1, sz);
	if (!s)
		return -ENOMEM;
	perftools__profiles__sample__init(s);
	s->n_location_id = x->nr_ids;
	s->location_id = (uint64_t *)(s + 1);
	memcpy(s->location_id, x->ids, x->nr_ids * sizeof(uint64_t));
	s->n_value = nr_cols;
	s->value = (int64_t *)(s->location_id + x->nr_ids);
	for (i = 0; i < pv->nr_types; i++)
		s->value[base + i] = smp->v[i];
	s->n_label = nl;
	s->label = (pb_label **)(s->value + nr_cols);
	lab = (pb_label *)(s->label + nl);
	for (i = 0; i < nl; i++)
		s->label[i] = &lab[i];
	snprintf(num, sizeof(num), "%" PRIu32, smp->pid);
	str_label(x, lab++, "pid", num);
	str_label(x, lab++, "comm", smp->comm);
	if (smp->tid) {
		snprintf(num, sizeof(num), "%" PRIu32, smp->tid);
		str_label(x, lab++, "tid", num);
	}
	if (proc && proc->cgroup)
		str_label(x, lab++, "cgroup", proc->cgroup);
	if (has_cid)
		str_label(x, lab++, "container_id", cid);
	for (i = 0; i < x->nr_labs; i++, lab++) {
		perftools__profiles__label__init(lab);
		lab->key = x->lab_key[i];
		lab->str = x->lab_val[i];
	}
	return push((void ***)&x->smp, &x->nr_smp, &x->cap_smp, s);
}

/* record --label's lines, the ones a server takes */
static void header_labels(struct pp *x)
{
	char name[160], value[AP_LABEL_VALUE_MAX + 1];
	size_t pos = 0;
	int r;

	while (x->p->labels && x->nr_labs < AP_PPROF_MAX_LABELS &&
	       (r = ap_label__next(x->p->labels, &pos, name, sizeof(name),
				   value, sizeof(value))) >= 0) {
		if (!r)
			continue;
		x->lab_key[x->nr_labs] = str_id(x, name);
		x->lab_val[x->nr_labs++] = str_id(x, value);
	}
}

/* gzip buf to out */
static int write_gz(const uint8_t *buf, size_t len, FILE *out)
{
	unsigned char chunk[65536];
	z_stream z = { 0 };
	int zr, err = 0;

	/* 16 + window bits: a gzip header and trailer, not zlib's */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			err = -EIO;
			break;
		}
		if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) !=
		    sizeof(chunk) - z.avail_out) {
			err = -errno ? -errno : -EIO;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

/*
 * pprof names mapping[0] as the profile's main binary ("File:"): put first
 * the user mapping that holds the most samples' innermost user frame.
 * Samples are weighed by their count (their view's first value of unit
 * count, else its first value): a hot loop is a few entries of thousands,
 * the start-up in ld.so and libc many entries of one each.  The ids are
 * then renumbered in table order.
 */
static int main_mapping_first(struct pp *x, const int *is_count)
{
	uint64_t *hits, *new_id, best = 0;
	size_t i, j, top = 0;
	pb_mapping *m;
	int err = -ENOMEM;

	if (x->nr_map < 2)
		return 0;
	hits = calloc(x->nr_map, sizeof(*hits));
	new_id = calloc(x->nr_map + 1, sizeof(*new_id));
	if (!hits || !new_id)
		goto out;
	for (i = 0; i < x->nr_smp; i++) {
		const pb_sample *s = x->smp[i];
		uint64_t weight = 0;

		/* only its view's columns are set: its count, whatever the
		 * unit of the view's first column (syscall: nanoseconds) */
		for (j = 0; j < s->n_value && !weight; j++)
			if (is_count[j] && s->value[j] > 0)
				weight = (uint64_t)s->value[j];
		for (j = 0; j < s->n_value && !weight; j++)
			weight = s->value[j] > 0 ? (uint64_t)s->value[j] : 0;
		for (j = 0; j < s->n_location_id; j++) {
			uint64_t mid = x->loc[s->location_id[j] - 1]->mapping_id;

			if (mid && (int64_t)mid != x->kernel_map) {
				hits[mid - 1] += weight;
				break;
			}
		}
	}
	for (i = 0; i < x->nr_map; i++) {
		if (hits[i] > best) {
			best = hits[i];
			top = i;
		}
	}
	m = x->map[top];
	memmove(x->map + 1, x->map, top * sizeof(*x->map));
	x->map[0] = m;
	/* ids in table order again: readers (Parca's validator) take
	 * mapping_id N as mapping[N - 1] */
	for (i = 0; i < x->nr_map; i++) {
		new_id[x->map[i]->id] = i + 1;
		x->map[i]->id = i + 1;
	}
	for (i = 0; i < x->nr_loc; i++)
		x->loc[i]->mapping_id = new_id[x->loc[i]->mapping_id];
	if (x->kernel_map)
		x->kernel_map = (int64_t)new_id[x->kernel_map];
	err = 0;
out:
	free(hits);
	free(new_id);
	return err;
}

static void pp_free(struct pp *x)
{
	size_t i;

	for (i = 0; i < x->nr_fn; i++)
		free(x->fn[i]);
	for (i = 0; i < x->nr_map; i++)
		free(x->map[i]);
	for (i = 0; i < x->nr_loc; i++)
		free(x->loc[i]);
	for (i = 0; i < x->nr_smp; i++)
		free(x->smp[i]);
	free(x->fn);
	free(x->map);
	free(x->loc);
	free(x->smp);
	free(x->str);
	free(x->ids);
	ap_hmap__free(&x->str_idx);
	ap_hmap__free(&x->fn_idx);
	ap_hmap__free(&x->map_idx);
	ap_hmap__free(&x->loc_idx);
	ap_strtab__free(x->strs);
}

int ap_export_pprof(const struct ap_profile *p, FILE *out)
{
	pb_profile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	pb_vtype *types = NULL, period_type = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	pb_vtype **tptr = NULL;
	struct pp x = { .p = p };
	int *is_count = NULL;
	uint8_t *buf = NULL;
	size_t i, len;
	int nr_cols, v, t, c, err = -ENOMEM;

	x.sym = ap_session__symbolizer(p->s);
	x.strs = ap_strtab__new();
	ap_hmap__init(&x.str_idx);
	ap_hmap__init(&x.fn_idx);
	ap_hmap__init(&x.map_idx);
	ap_hmap__init(&x.loc_idx);
	nr_cols = col_base(p, p->nr_views);
	if (!x.strs || !nr_cols)
		goto out;
	str_id(&x, "");			/* string_table[0] must be "" */
	header_labels(&x);
	types = calloc(nr_cols, sizeof(*types));
	tptr = calloc(nr_cols, sizeof(*tptr));
	is_count = calloc(nr_cols, sizeof(*is_count));
	if (!types || !tptr || !is_count)
		goto out;
	for (c = 0, v = 0; v < p->nr_views; v++) {
		for (t = 0; t < p->views[v].nr_types; t++, c++) {
			perftools__profiles__value_type__init(&types[c]);
			types[c].type = type_id(&x, p->views[v].types[t].type);
			types[c].unit = str_id(&x, p->views[v].types[t].unit);
			tptr[c] = &types[c];
			is_count[c] = !strcmp(p->views[v].types[t].unit,
					      "count");
		}
	}
	prof.n_sample_type = nr_cols;
	prof.sample_type = tptr;
	prof.default_sample_type = types[p->views[0].main].type;
	if (p->views[0].period_type.type) {
		period_type.type = type_id(&x, p->views[0].period_type.type);
		period_type.unit = str_id(&x, p->views[0].period_type.unit);
		prof.period_type = &period_type;
		prof.period = p->views[0].period;
	}
	prof.time_nanos = (int64_t)p->wall_start_ns;
	/* p->duration_ns is within AP_WEIGHT_MAX (ap_viewset__export) */
	prof.duration_nanos = (int64_t)p->duration_ns;
	for (i = 0; i < p->nr; i++) {
		err = add_sample(&x, &p->samples[i], nr_cols);
		if (err)
			goto out;
	}
	err = -ENOMEM;
	if (x.oom || main_mapping_first(&x, is_count))
		goto out;
	prof.n_sample = x.nr_smp;
	prof.sample = x.smp;
	prof.n_mapping = x.nr_map;
	prof.mapping = x.map;
	prof.n_location = x.nr_loc;
	prof.location = x.loc;
	prof.n_function = x.nr_fn;
	prof.function = x.fn;
	prof.n_string_table = x.nr_str;
	prof.string_table = x.str;
	len = perftools__profiles__profile__get_packed_size(&prof);
	buf = malloc(len ? len : 1);
	if (!buf)
		goto out;
	perftools__profiles__profile__pack(&prof, buf);
	err = write_gz(buf, len, out);
out:
	free(buf);
	free(types);
	free(tptr);
	free(is_count);
	pp_free(&x);
	return err;
}
