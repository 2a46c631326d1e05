// SPDX-License-Identifier: GPL-2.0
/*
 * The report's side: the pyframe frames of a file, by id, as the
 * symbolizer's locations (one frame each: the function, its file and
 * line), so that every output that names addresses names Python frames
 * the same way.
 */
#include "python/names.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbolizer.h"
#include "util/hmap.h"
#include "util/strtab.h"

struct ap_pynames {
	struct ap_hmap by_id;		/* id -> struct ap_sym_loc * */
	struct ap_strtab *strs;
};

static const struct ap_sym_loc py_unknown = { .dso = "[py]" };

struct ap_pynames *ap_pynames__new(void)
{
	struct ap_pynames *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	ap_hmap__init(&t->by_id);
	t->strs = ap_strtab__new();
	if (!t->strs) {
		free(t);
		return NULL;
	}
	return t;
}

void ap_pynames__free(struct ap_pynames *t)
{
	size_t i = 0;
	uint64_t k, v;

	if (!t)
		return;
	while (ap_hmap__next(&t->by_id, &i, &k, &v))
		free((void *)(uintptr_t)v);
	ap_hmap__free(&t->by_id);
	ap_strtab__free(t->strs);
	free(t);
}

int ap_pynames__add(struct ap_pynames *t, const struct ap_pyframe *f)
{
	struct ap_sym_loc *loc;
	const char *base;
	uint64_t *slot;
	int fresh;

	if (!f->id || f->id > AP_PYFRAME_ID_MAX)
		return -EINVAL;
	slot = ap_hmap__upsert(&t->by_id, f->id, &fresh);
	if (!slot)
		return -ENOMEM;
	if (!fresh)
		return 0;	/* the first one: an id names one frame */
	loc = calloc(1, sizeof(*loc) + sizeof(loc->frames[0]));
	if (!loc) {
		ap_hmap__remove(&t->by_id, f->id);
		return -ENOMEM;
	}
	base = strrchr(f->file, '/');
	loc->dso = ap_strtab__intern(t->strs, base ? base + 1 :
				     f->file[0] ? f->file : "[py]", -1);
	loc->dso_path = f->file[0] ? ap_strtab__intern(t->strs, f->file, -1)
				   : NULL;
	loc->nr_frames = 1;
	loc->frames[0].sym = ap_strtab__intern(t->strs, f->func, -1);
	loc->frames[0].file = loc->dso_path;
	loc->frames[0].line = f->line > 0 ? f->line : 0;
	loc->frames[0].start_line = f->first_line > 0 ? f->first_line : 0;
	if (!loc->dso || !loc->frames[0].sym) {
		free(loc);
		ap_hmap__remove(&t->by_id, f->id);
		return -ENOMEM;
	}
	*slot = (uintptr_t)loc;
	return 0;
}

const struct ap_sym_loc *ap_pynames__loc(const struct ap_pynames *t,
					 uint64_t ip)
{
	uint64_t *v = t ? ap_hmap__find(&t->by_id, ap_pyframe_id(ip)) : NULL;

	return v ? (const struct ap_sym_loc *)(uintptr_t)*v : &py_unknown;
}
