// SPDX-License-Identifier: GPL-2.0
/*
 * SVG flame graphs: one self-contained file, laid out here (so a viewer
 * without scripts shows the whole graph) with a small script for what
 * flamegraph.pl's graphs do: details on hover, click to zoom, search
 * (Ctrl-F or the Search button) with the matched share.  Frames are
 * coloured by kind: user code by module, kernel, inlined functions, and
 * aperture's own labels (the command, [off-cpu]...).  A differential graph
 * (ap_export_svg_diff) colours each frame by its change instead.
 */
#include "export/export.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "event/event.h"
#include "util/hmap.h"
#include "util/utf8.h"
#include "export/profile.h"
#include "report/stackres.h"
#include "util/strtab.h"
#include "util/vec.h"
#include "report/view.h"

#define IMG_W		1200
#define PAD		10
#define FRAME_H		16
#define TOP		60		/* title, buttons, legend */
#define BOTTOM		30		/* the details line */
#define MIN_W		0.1		/* narrower frames are left out */

enum kind { K_USER, K_KERNEL, K_INLINE, K_LABEL };

struct node {
	const char *name;		/* interned */
	const char *dso;
	enum kind kind;
	uint32_t parent, depth;
	double value;			/* this frame and its callees */
	double old;			/* differential: the old profile's */
	uint32_t kids, nr_kids;		/* its children: order[kids..] */
	double x;			/* laid out, in pixels */
};

struct fg {
	struct ap_strtab *strs;
	struct node *nodes;
	size_t nr, cap;
	struct ap_hmap child;		/* parent << 32 | frame id -> node */
	struct ap_hmap frame_id;	/* interned key -> small id */
	uint32_t *order;		/* children grouped by parent */
	uint32_t max_depth;
};

static int fg_init(struct fg *g)
{
	memset(g, 0, sizeof(*g));
	g->strs = ap_strtab__new();
	ap_hmap__init(&g->child);
	ap_hmap__init(&g->frame_id);
	if (!g->strs || ap_grow((void **)&g->nodes, &g->cap, 0,
				sizeof(*g->nodes), 1024))
		return -ENOMEM;
	memset(&g->nodes[0], 0, sizeof(g->nodes[0]));
	g->nodes[0].name = "all";
	g->nodes[0].dso = "";
	g->nodes[0].kind = K_LABEL;
	g->nr = 1;
	return 0;
}

static void fg_free(struct fg *g)
{
	free(g->nodes);
	free(g->order);
	ap_hmap__free(&g->child);
	ap_hmap__free(&g->frame_id);
	ap_strtab__free(g->strs);
}

/* the child of parent for this frame, made when new; -errno */
static long fg_child(struct fg *g, uint32_t parent, const char *name,
		     const char *dso, enum kind kind)
{
	char key[2048];
	const char *k;
	uint64_t *slot, id;
	struct node *n;
	int fresh;

	snprintf(key, sizeof(key), "%s\x1f%s\x1f%d", name, dso, kind);
	k = ap_strtab__intern(g->strs, key, -1);
	slot = k ? ap_hmap__upsert(&g->frame_id, (uintptr_t)k, &fresh) : NULL;
	if (!slot)
		return -ENOMEM;
	if (fresh)
		*slot = g->frame_id.nr;
	id = *slot;
	slot = ap_hmap__upsert(&g->child, (uint64_t)parent << 32 | id, &fresh);
	if (!slot)
		return -ENOMEM;
	if (!fresh)
		return (long)*slot;
	if (ap_grow((void **)&g->nodes, &g->cap, g->nr, sizeof(*g->nodes),
		    1024))
		return -ENOMEM;
	n = &g->nodes[g->nr];
	memset(n, 0, sizeof(*n));
	n->name = ap_strtab__intern(g->strs, name, -1);
	n->dso = ap_strtab__intern(g->strs, dso, -1);
	if (!n->name || !n->dso)
		return -ENOMEM;
	n->kind = kind;
	n->parent = parent;
	n->depth = g->nodes[parent].depth + 1;
	if (n->depth > g->max_depth)
		g->max_depth = n->depth;
	*slot = g->nr;
	return (long)g->nr++;
}

static enum kind frame_kind(const struct ap_rframe *f)
{
	if (!f->dso[0])
		return K_LABEL;
	if (f->kernel)
		return K_KERNEL;
	return f->inlined ? K_INLINE : K_USER;
}

/* one stack, frames leaf first, under all;comm: weight w (old: of the
 * differential's old profile) */
static int fg_add(struct fg *g, const char *comm,
		  const struct ap_rframe *frames, long n, double w, int old)
{
	long cur = 0, j;

	for (j = -1; j < n; j++) {
		const struct ap_rframe *f = j < 0 ? NULL : &frames[n - 1 - j];

		if (old)
			g->nodes[cur].old += w;
		else
			g->nodes[cur].value += w;
		cur = f ? fg_child(g, (uint32_t)cur, f->sym, f->dso,
				   frame_kind(f)) :
			  fg_child(g, (uint32_t)cur, comm, "", K_LABEL);
		if (cur < 0)
			return (int)cur;
	}
	if (old)
		g->nodes[cur].old += w;
	else
		g->nodes[cur].value += w;
	return 0;
}

/* children grouped by parent, each group by name as flamegraph.pl */
static int cmp_kid(const void *a, const void *b, void *arg)
{
	const struct fg *g = arg;
	const struct node *x = &g->nodes[*(const uint32_t *)a];
	const struct node *y = &g->nodes[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->kind - (int)y->kind;
}

static int fg_order(struct fg *g)
{
	uint32_t *fill;
	size_t i;

	g->order = malloc(g->nr * sizeof(*g->order));
	fill = calloc(g->nr, sizeof(*fill));
	if (!g->order || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (i = 1; i < g->nr; i++)
		g->nodes[g->nodes[i].parent].nr_kids++;
	for (i = 0, fill[0] = 0; i < g->nr; i++) {
		g->nodes[i].kids = i ? fill[i - 1] : 0;
		fill[i] = g->nodes[i].kids + g->nodes[i].nr_kids;
	}
	for (i = 0; i < g->nr; i++)
		fill[i] = g->nodes[i].kids;
	for (i = 1; i < g->nr; i++)
		g->order[fill[g->nodes[i].parent]++] = (uint32_t)i;
	for (i = 0; i < g->nr; i++)
		qsort_r(g->order + g->nodes[i].kids, g->nodes[i].nr_kids,
			sizeof(*g->order), cmp_kid, g);
	free(fill);
	return 0;
}

static void fg_layout(struct fg *g, uint32_t i, double x, double scale)
{
	struct node *n = &g->nodes[i];
	uint32_t k;

	n->x = x;
	for (k = 0; k < n->nr_kids; k++) {
		uint32_t c = g->order[n->kids + k];

		fg_layout(g, c, x, scale);
		x += g->nodes[c].value * scale;
	}
}

/* ---- output ---- */

static void xml_str(FILE *out, const char *s)
{
	size_t n;

	for (; *s; s += n ? n : 1) {
		n = ap_utf8_seq(s);
		if (!n) {
			/* not UTF-8: an XML parser refuses the whole file */
			fputs(AP_UTF8_REPLACEMENT, out);
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, out);
			continue;
		}
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			/* control characters are not XML */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, out);
		}
	}
}

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* colours by kind: user code red (off-CPU: blue) shaded by module,
 * kernel orange, inlined aqua, labels grey; a little jitter per function
 * keeps neighbours apart */
static void frame_colour(const struct node *n, int off_cpu, char *buf,
			 size_t len)
{
	uint32_t hm = hash_str(n->dso), hf = hash_str(n->name);
	double a = (hm % 1000) / 1000.0, b = (hf % 1000) / 1000.0;

	switch (n->kind) {
	case K_KERNEL:
		snprintf(buf, len, "rgb(%d,%d,%d)", 235 + (int)(20 * b),
			 150 + (int)(45 * b), 20 + (int)(30 * b));
		break;
	case K_INLINE:
		snprintf(buf, len, "rgb(%d,%d,%d)", 80 + (int)(50 * b),
			 190 + (int)(40 * b), 190 + (int)(40 * a));
		break;
	case K_LABEL:
		snprintf(buf, len, "rgb(%d,%d,%d)", 190 + (int)(20 * b),
			 190 + (int)(20 * b), 200 + (int)(20 * b));
		break;
	default:
		if (off_cpu)	/* flamegraph.pl's blue for off-CPU time */
			snprintf(buf, len, "rgb(%d,%d,%d)", 60 + (int)(60 * a),
				 110 + (int)(60 * b), 200 + (int)(55 * a));
		else		/* reds, the shade by module */
			snprintf(buf, len, "rgb(%d,%d,%d)",
				 200 + (int)(55 * b), 30 + (int)(90 * a),
				 40 + (int)(70 * a));
	}
}

/* differential: red grew, blue shrank, white unchanged; k scales the
 * old weights to the new total (a change in share) */
static void diff_colour(const struct node *n, double k, double max,
			char *buf, size_t len)
{
	double d = n->value - k * n->old;
	double r = max > 0 ? 200 * fabs(d) / max : 0;
	/* NaN too: no float-to-int conversion out of range */
	int c = r < 200 ? (int)r : 200;

	if (d > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", 255 - c, 255 - c);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", 255 - c, 255 - c);
}

/* "1.23 ms", "12 bytes", "34 samples": counts by what they count */
static void fmt_value(char *buf, size_t len, double v,
		      const struct ap_svg_opts *o)
{
	if (!strcmp(o->unit, "nanoseconds"))
		ap_fmt_ns(buf, len, v);
	else if (!strcmp(o->unit, "bytes"))
		snprintf(buf, len, "%.0f bytes", v);
	else
		snprintf(buf, len, "%.0f %s", v, o->counts);
}

struct svg_ctx {
	const struct ap_svg_opts *o;
	struct fg *g;
	double scale;			/* pixels per unit of value */
	int height;
	double k;			/* differential: new total / old */
	double max_delta;		/* ... the largest change, scaled */
};

static void write_frame(struct svg_ctx *c, uint32_t i, FILE *out)
{
	const struct node *n = &c->g->nodes[i];
	const struct node *root = &c->g->nodes[0];
	double w = n->value * c->scale;
	char fill[48], val[64], oldv[64];
	double y;
	uint32_t k;

	if (w < MIN_W)
		return;
	y = c->o->icicle ? TOP + (double)n->depth * FRAME_H :
			   c->height - BOTTOM - (n->depth + 1.0) * FRAME_H;
	if (c->o->diff)
		diff_colour(n, c->k, c->max_delta, fill, sizeof(fill));
	else
		frame_colour(n, c->o->off_cpu, fill, sizeof(fill));
	fmt_value(val, sizeof(val), n->value, c->o);
	fprintf(out, "<g class=\"f\" data-d=\"%u\" data-n=\"", n->depth);
	xml_str(out, n->name);
	fputs("\"><title>", out);
	xml_str(out, n->name);
	if (n->dso[0] && n->kind != K_LABEL) {
		fputs(" [", out);
		xml_str(out, n->dso);
		fputc(']', out);
	}
	if (c->o->diff) {
		/* the old recording's own weight: its share is the change */
		double now = root->value ? 100 * n->value / root->value : 0;
		double then = root->old ? 100 * n->old / root->old : 0;

		fmt_value(oldv, sizeof(oldv), n->old, c->o);
		fprintf(out, " (%s, %.2f%%; before %s, %.2f%%; %+.2f points)",
			val, now, oldv, then, now - then);
	} else {
		fprintf(out, " (%s, %.2f%%)", val,
			root->value ? 100 * n->value / root->value : 0);
	}
	fprintf(out, "</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" rx=\"2\" ry=\"2\"/>"
		"<text x=\"%.1f\" y=\"%.1f\">", PAD + n->x, y, w, FRAME_H - 1,
		fill, PAD + n->x + 3, y + FRAME_H - 5);
	/* the script fits the name to the width; this is for viewers
	 * without scripts */
	if (w > 30) {
		size_t chars = (size_t)((w - 6) / 7), len = strlen(n->name);
		char buf[512];

		if (len > chars) {
			snprintf(buf, sizeof(buf), "%.*s..",
				 (int)(chars > 2 ? chars - 2 : 0), n->name);
			xml_str(out, buf);
		} else {
			xml_str(out, n->name);
		}
	}
	fputs("</text></g>\n", out);
	for (k = 0; k < n->nr_kids; k++)
		write_frame(c, c->g->order[n->kids + k], out);
}

static const char script[] =
"var W = " "1200" ", PAD = 10, FW = W - 2 * PAD, frames, details, matched, unzoombtn, all = [];\n"
"function init(evt) {\n"
"  frames = document.getElementById('frames');\n"
"  details = document.getElementById('details').firstChild;\n"
"  matched = document.getElementById('matched').firstChild;\n"
"  unzoombtn = document.getElementById('unzoom');\n"
"  var gs = frames.getElementsByTagName('g');\n"
"  for (var i = 0; i < gs.length; i++) {\n"
"    var g = gs[i], r = g.getElementsByTagName('rect')[0];\n"
"    var t = g.getElementsByTagName('title')[0].textContent;\n"
"    g.x0 = parseFloat(r.getAttribute('x')); g.w0 = parseFloat(r.getAttribute('width'));\n"
"    g.d = parseInt(g.getAttribute('data-d')); g.fill0 = r.getAttribute('fill');\n"
"    g.info = t; g.name = g.getAttribute('data-n');\n"
"    all.push(g); fit(g);\n"
"  }\n"
"  frames.addEventListener('mouseover', function (e) { var g = owner(e.target); if (g) details.nodeValue = g.info; });\n"
"  frames.addEventListener('mouseout', function (e) { details.nodeValue = ' '; });\n"
"  frames.addEventListener('click', function (e) { var g = owner(e.target); if (g) zoom(g); });\n"
"  window.addEventListener('keydown', function (e) {\n"
"    if ((e.ctrlKey || e.metaKey) && e.key == 'f') { e.preventDefault(); search_prompt(); }\n"
"    else if (e.key == 'Escape') { unzoom(); reset_search(); }\n"
"  });\n"
"}\n"
"function owner(el) { while (el && el.getAttribute && el.getAttribute('class') != 'f') el = el.parentNode; return el && el.getAttribute ? el : null; }\n"
"function place(g, x, w) {\n"
"  var r = g.getElementsByTagName('rect')[0], t = g.getElementsByTagName('text')[0];\n"
"  r.setAttribute('x', x); r.setAttribute('width', w); t.setAttribute('x', x + 3); fit(g);\n"
"}\n"
"function fit(g) {\n"
"  var w = parseFloat(g.getElementsByTagName('rect')[0].getAttribute('width'));\n"
"  var t = g.getElementsByTagName('text')[0], n = Math.floor((w - 6) / 7);\n"
"  t.textContent = n < 3 ? '' : g.name.length <= n ? g.name : g.name.substring(0, n - 2) + '..';\n"
"}\n"
"function zoom(z) {\n"
"  var e = 1e-3;\n"
"  for (var i = 0; i < all.length; i++) {\n"
"    var g = all[i];\n"
"    if (g.d < z.d && g.x0 <= z.x0 + e && g.x0 + g.w0 >= z.x0 + z.w0 - e) {\n"
"      g.style.display = ''; g.style.opacity = 0.6; place(g, PAD, FW);\n"
"    } else if (g.d >= z.d && g.x0 >= z.x0 - e && g.x0 + g.w0 <= z.x0 + z.w0 + e) {\n"
"      g.style.display = ''; g.style.opacity = 1;\n"
"      place(g, PAD + (g.x0 - z.x0) * FW / z.w0, g.w0 * FW / z.w0);\n"
"    } else g.style.display = 'none';\n"
"  }\n"
"  unzoombtn.style.opacity = 1;\n"
"}\n"
"function unzoom() {\n"
"  for (var i = 0; i < all.length; i++) { var g = all[i]; g.style.display = ''; g.style.opacity = 1; place(g, g.x0, g.w0); }\n"
"  unzoombtn.style.opacity = 0;\n"
"}\n"
"function reset_search() {\n"
"  for (var i = 0; i < all.length; i++) all[i].getElementsByTagName('rect')[0].setAttribute('fill', all[i].fill0);\n"
"  matched.nodeValue = ' ';\n"
"}\n"
"function search_prompt() {\n"
"  var term = prompt('Search for (regular expression):', '');\n"
"  if (term != null) search(term);\n"
"}\n"
"function search(term) {\n"
"  var re, iv = [], sum = 0, end = -1;\n"
"  try { re = new RegExp(term); } catch (err) { matched.nodeValue = 'bad expression'; return; }\n"
"  reset_search();\n"
"  for (var i = 0; i < all.length; i++) {\n"
"    var g = all[i];\n"
"    if (g.d > 0 && re.test(g.name)) {\n"
"      g.getElementsByTagName('rect')[0].setAttribute('fill', 'rgb(230,0,230)');\n"
"      iv.push([g.x0, g.x0 + g.w0]);\n"
"    }\n"
"  }\n"
"  iv.sort(function (a, b) { return a[0] - b[0]; });\n"
"  for (var i = 0; i < iv.length; i++) {\n"
"    var a = Math.max(iv[i][0], end);\n"
"    if (iv[i][1] > a) { sum += iv[i][1] - a; end = iv[i][1]; }\n"
"  }\n"
"  matched.nodeValue = 'Matched: ' + (100 * sum / FW).toFixed(2) + '%';\n"
"}\n";

static int write_svg(struct svg_ctx *c, FILE *out)
{
	static const struct { const char *name; enum kind k; } legend[] = {
		{ "user (by module)", K_USER }, { "kernel", K_KERNEL },
		{ "inlined", K_INLINE }, { "label", K_LABEL },
	};
	const struct ap_svg_opts *o = c->o;
	struct node demo = { .dso = "", .name = "" };
	char fill[48];
	size_t i;

	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n",
		IMG_W, c->height, IMG_W, c->height);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	      "#title { font-size: 17px; text-anchor: middle; }\n"
	      "#subtitle { fill: rgb(90,90,90); text-anchor: middle; }\n"
	      "#unzoom, #search { cursor: pointer; }\n"
	      "#unzoom { opacity: 0; }\n"
	      ".f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
	      "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n", out);
	fputs(script, out);
	fputs("]]></script>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(248,248,240)\"/>\n",
		IMG_W, c->height);
	fprintf(out, "<text id=\"title\" x=\"%d\" y=\"22\">", IMG_W / 2);
	xml_str(out, o->title);
	fprintf(out, "</text>\n<text id=\"subtitle\" x=\"%d\" y=\"38\">",
		IMG_W / 2);
	xml_str(out, o->subtitle ? o->subtitle : "");
	fputs(" </text>\n", out);
	fprintf(out, "<text id=\"unzoom\" x=\"%d\" y=\"22\" onclick=\"unzoom()\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"22\" onclick=\"search_prompt()\">Search</text>\n",
		PAD, IMG_W - PAD - 60);
	if (o->diff) {
		fprintf(out, "<text x=\"%d\" y=\"54\">red: grew, blue: shrank (widths: the new profile)</text>\n",
			PAD);
	} else {
		for (i = 0; i < sizeof(legend) / sizeof(legend[0]); i++) {
			demo.kind = legend[i].k;
			frame_colour(&demo, o->off_cpu, fill, sizeof(fill));
			fprintf(out, "<rect x=\"%zu\" y=\"44\" width=\"12\" height=\"12\" fill=\"%s\"/>"
				"<text x=\"%zu\" y=\"54\">%s</text>\n",
				PAD + i * 150, fill, PAD + i * 150 + 16,
				legend[i].name);
		}
	}
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n",
		PAD, c->height - 10, IMG_W - PAD - 160, c->height - 10);
	fputs("<g id=\"frames\">\n", out);
	write_frame(c, 0, out);
	fputs("</g>\n</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

/* the index of a view's type in nanoseconds; -1: none */
static int time_type(const struct ap_prof_view *pv)
{
	int t;

	if (!strcmp(pv->types[pv->main].unit, "nanoseconds"))
		return pv->main;
	for (t = 0; t < pv->nr_types; t++)
		if (!strcmp(pv->types[t].unit, "nanoseconds"))
			return t;
	return -1;
}

/* the value each sample of p weighs: one unit for the whole graph, by
 * the rule folded stacks follow (ap_unit__common), and for a count what
 * it counts (the views' type where they share it: "samples",
 * "launches"); -EDOM: none */
static int pick_types(const struct ap_profile *p, int *type,
		      const char **unit, const char **counts)
{
	struct ap_unit_pick pk[AP_PROF_MAX_VIEWS];
	int v, u;

	for (v = 0; v < p->nr_views; v++) {
		const struct ap_prof_view *pv = &p->views[v];

		pk[v].unit = ap_unit__parse(pv->types[pv->main].unit);
		/* a count of periods (cpu) counts samples, not events */
		if (pk[v].unit == AP_UNIT_COUNT && pv->period_type.type)
			pk[v].unit = AP_UNIT_SAMPLES;
		pk[v].time = time_type(pv) >= 0;
	}
	u = ap_unit__common(pk, p->nr_views);
	if (u < 0)
		return u;
	*unit = p->nr_views ? p->views[0].types[p->views[0].main].unit :
			      "count";
	if (u == AP_UNIT_TIME)
		*unit = "nanoseconds";
	*counts = NULL;
	for (v = 0; v < p->nr_views; v++) {
		const struct ap_prof_view *pv = &p->views[v];

		type[v] = u == AP_UNIT_TIME ? time_type(pv) : pv->main;
		if (!*counts || !strcmp(*counts, pv->types[type[v]].type))
			*counts = pv->types[type[v]].type;
		else
			*counts = "events";
	}
	if (!*counts)
		*counts = "events";
	return 0;
}

static int fg_fill(struct fg *g, const struct ap_profile *p, int old,
		   struct ap_stackres *res, const int *type)
{
	size_t i;
	long n;
	int err;

	for (i = 0; i < p->nr; i++) {
		const struct ap_prof_sample *smp = &p->samples[i];
		double w = (double)smp->v[type[smp->view]];

		if (w <= 0)
			continue;
		n = ap_profile__frames(p, smp, res);
		if (n < 0)
			return (int)n;
		err = fg_add(g, smp->comm, res->frames, n, w, old);
		if (err)
			return err;
	}
	return 0;
}

int ap_export_svg(const struct ap_profile *p, const struct ap_profile *old,
		  const struct ap_svg_opts *o, FILE *out)
{
	int type[AP_PROF_MAX_VIEWS], old_type[AP_PROF_MAX_VIEWS];
	struct ap_svg_opts so = *o;
	struct svg_ctx c = { .o = &so };
	struct ap_stackres res;
	const char *unit, *old_unit, *counts, *old_counts;
	struct fg g;
	size_t i;
	int err;

	if (pick_types(p, type, &unit, &counts) ||
	    (old && (pick_types(old, old_type, &old_unit, &old_counts) ||
		     strcmp(unit, old_unit))))
		return -EDOM;
	so.unit = unit;
	so.counts = counts;
	so.diff = !!old;
	err = fg_init(&g);
	if (err)
		goto out_free;
	ap_stackres__init(&res, g.strs);
	err = fg_fill(&g, p, 0, &res, type);
	if (!err && old)
		err = fg_fill(&g, old, 1, &res, old_type);
	ap_stackres__free(&res);
	if (err)
		goto out_free;
	if (old && g.nodes[0].old > 0) {
		/* colours by share: the old profile scaled to the new total */
		c.k = g.nodes[0].value / g.nodes[0].old;
		for (i = 0; i < g.nr; i++)
			if (fabs(g.nodes[i].value - c.k * g.nodes[i].old) >
			    c.max_delta)
				c.max_delta = fabs(g.nodes[i].value -
						   c.k * g.nodes[i].old);
	}
	err = fg_order(&g);
	if (err)
		goto out_free;
	c.g = &g;
	c.scale = g.nodes[0].value > 0 ?
		  (IMG_W - 2 * PAD) / g.nodes[0].value : 0;
	fg_layout(&g, 0, 0, c.scale);
	c.height = TOP + (g.max_depth + 1) * FRAME_H + BOTTOM + 10;
	err = write_svg(&c, out);
out_free:
	fg_free(&g);
	return err;
}
