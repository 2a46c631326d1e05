// SPDX-License-Identifier: GPL-2.0
#include "report/header.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/format.h"
#include "format/reader.h"
#include "report/session.h"
#include "report/view.h"

static void fmt_time(char *buf, size_t len, const struct ap_header *h)
{
	time_t t = (time_t)((h->start_mono_ns + h->mono_to_real_ns) /
			    1000000000ull);
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm);
	else
		snprintf(buf, len, "?");
}

uint64_t ap_report_header__duration_ns(const struct ap_header *h,
				       const struct ap_read_stats *st,
				       const struct ap_session *s)
{
	uint64_t end = st->has_summary ? st->summary.end_mono_ns :
					 ap_session__last_ts(s);

	return end > h->start_mono_ns ? end - h->start_mono_ns : 0;
}

double ap_report_header__duration_s(const struct ap_header *h,
				    const struct ap_read_stats *st,
				    const struct ap_session *s)
{
	return ap_report_header__duration_ns(h, st, s) / 1e9;
}

/*
 * Drops beyond the ring buffer and stack counters: in-kernel tables that
 * were full, events that could not be attributed (per event), frames the
 * writer could not write.  fn is called for each nonzero count.
 */
static void for_each_drop(const struct ap_session *s,
			  const struct ap_read_stats *st,
			  void (*fn)(void *ctx, const char *source,
				     const char *event, uint64_t n),
			  void *ctx)
{
	static const uint32_t sources[] = { AP_LOST_TABLE, AP_LOST_UNRESOLVED };
	size_t i;
	uint32_t tag;

	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		for (tag = 0; tag <= 32; tag++) {
			uint64_t n = ap_session__lost_tag(s, sources[i],
							  tag < 32 ? tag :
							  UINT32_MAX);
			const char *ev = tag < 32 ? ap_tag__name(tag) : NULL;

			if (n)
				fn(ctx, ap_lost__source_name(sources[i]),
				   ev ? ev : "any", n);
		}
	}
	if (st->has_summary && st->summary.lost[AP_LOST_WRITE])
		fn(ctx, ap_lost__source_name(AP_LOST_WRITE), "any",
		   st->summary.lost[AP_LOST_WRITE]);
}

struct drop_out {
	FILE *out;
	int nr;
};

static void drop_table(void *ctx, const char *source, const char *event,
		       uint64_t n)
{
	struct drop_out *d = ctx;

	fprintf(d->out, "%s%s %s %" PRIu64, d->nr++ ? ", " : "# dropped : ",
		source, event, n);
}

static void drop_json(void *ctx, const char *source, const char *event,
		      uint64_t n)
{
	struct drop_out *d = ctx;

	fprintf(d->out, "%s{\"source\": ", d->nr++ ? ", " : "");
	ap_json_str(d->out, source);
	fputs(", \"event\": ", d->out);
	ap_json_str(d->out, event);
	fprintf(d->out, ", \"count\": %" PRIu64 "}", n);
}

/* one process that lost records: its entries, sorted by source and tag */
struct loser {
	const struct ap_lost_proc *e;
	size_t nr;
	uint64_t total;
};

static int cmp_lost_entry(const void *pa, const void *pb)
{
	const struct ap_lost_proc *a = pa, *b = pb;

	if (a->flags != b->flags)
		return a->flags < b->flags ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->start_ticks != b->start_ticks)
		return a->start_ticks < b->start_ticks ? -1 : 1;
	if (a->source != b->source)
		return a->source < b->source ? -1 : 1;
	if (a->tag != b->tag)
		return a->tag < b->tag ? -1 : 1;
	return 0;
}

/* most lost first; the processes beyond the recorder's table last */
static int cmp_loser(const void *pa, const void *pb)
{
	const struct loser *a = pa, *b = pb;
	int ao = a->e->flags & AP_LOST_PROC_OTHERS;
	int bo = b->e->flags & AP_LOST_PROC_OTHERS;

	if (ao != bo)
		return ao ? 1 : -1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return a->e->pid < b->e->pid ? -1 : a->e->pid > b->e->pid;
}

/*
 * The processes that lost records (format 1.6), most first: *losers and
 * *entries to free; the number of losers, or -ENOMEM.
 */
static long losers_of(const struct ap_session *s, struct loser **losers,
		      struct ap_lost_proc **entries)
{
	const struct ap_lost_proc *in;
	struct ap_lost_proc *e;
	struct loser *l;
	size_t n = ap_session__lost_procs(s, &in), i, nr = 0;

	*losers = NULL;
	*entries = NULL;
	if (!n)
		return 0;
	e = malloc(n * sizeof(*e));
	l = malloc(n * sizeof(*l));
	if (!e || !l) {
		free(e);
		free(l);
		return -ENOMEM;
	}
	memcpy(e, in, n * sizeof(*e));
	qsort(e, n, sizeof(*e), cmp_lost_entry);
	for (i = 0; i < n; i++) {
		if (!nr || e[i].pid != l[nr - 1].e->pid ||
		    e[i].flags != l[nr - 1].e->flags ||
		    e[i].start_ticks != l[nr - 1].e->start_ticks) {
			l[nr].e = &e[i];
			l[nr].nr = 0;
			l[nr].total = 0;
			nr++;
		}
		l[nr - 1].nr++;
		l[nr - 1].total += e[i].count;
	}
	qsort(l, nr, sizeof(*l), cmp_loser);
	*losers = l;
	*entries = e;
	return (long)nr;
}

static const char *lost_event_name(uint32_t tag)
{
	const char *ev = tag < 32 ? ap_tag__name(tag) : NULL;

	return ev ? ev : "any";
}

/* processes named in the table header; the rest are summed as others */
#define TOP_LOSERS	3

/* "# lost by : pid 42 sleepers: table-full syscall 3192; 2 others: 7" */
static void print_losers_table(FILE *out, const struct ap_session *s)
{
	struct ap_lost_proc *entries;
	struct loser *l;
	long nr = losers_of(s, &l, &entries), i;
	uint64_t others = 0, nr_others = 0;
	int beyond = 0;
	size_t j;

	if (nr <= 0)
		return;
	fputs("# lost by :", out);
	for (i = 0; i < nr; i++) {
		if (l[i].e->flags & AP_LOST_PROC_OTHERS) {
			beyond = 1;
			others += l[i].total;
			continue;
		}
		if (i >= TOP_LOSERS) {
			nr_others++;
			others += l[i].total;
			continue;
		}
		fprintf(out, "%s pid %u %s:", i ? ";" : "", l[i].e->pid,
			l[i].e->comm);
		for (j = 0; j < l[i].nr; j++)
			fprintf(out, "%s %s %s %" PRIu64, j ? "," : "",
				ap_lost__source_name(l[i].e[j].source),
				lost_event_name(l[i].e[j].tag),
				l[i].e[j].count);
	}
	if (nr_others || beyond)
		fprintf(out, "%s %" PRIu64 " other%s%s: %" PRIu64,
			nr > 1 || !beyond ? ";" : "", nr_others,
			nr_others == 1 ? "" : "s",
			beyond ? " (and the processes beyond the recorder's table)"
			       : "", others);
	fputc('\n', out);
	free(l);
	free(entries);
}

/* "lost_by_process": every process, most first */
static void print_losers_json(FILE *out, const struct ap_session *s)
{
	struct ap_lost_proc *entries;
	struct loser *l;
	long nr = losers_of(s, &l, &entries), i;
	size_t j;

	fputs(", \"lost_by_process\": [", out);
	for (i = 0; i < nr; i++) {
		int beyond = l[i].e->flags & AP_LOST_PROC_OTHERS;

		fprintf(out, "%s{\"pid\": %u, \"start_ticks\": %" PRIu64
			", \"comm\": ", i ? ", " : "", l[i].e->pid,
			l[i].e->start_ticks);
		ap_json_str(out, l[i].e->comm);
		fprintf(out, ", \"beyond_table\": %s, \"total\": %" PRIu64
			", \"lost\": [", beyond ? "true" : "false",
			l[i].total);
		for (j = 0; j < l[i].nr; j++) {
			fprintf(out, "%s{\"source\": ", j ? ", " : "");
			ap_json_str(out, ap_lost__source_name(l[i].e[j].source));
			fputs(", \"event\": ", out);
			ap_json_str(out, lost_event_name(l[i].e[j].tag));
			fprintf(out, ", \"count\": %" PRIu64 "}",
				l[i].e[j].count);
		}
		fputs("]}", out);
	}
	fputc(']', out);
	free(l);
	free(entries);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0;
}

/* the unwinder's kernel memory, when the file says */
static void print_kmem(FILE *out, const uint64_t *c)
{
	if (c[AP_UWC_KMEM])
		fprintf(out, "; kernel memory at most %.1f MiB",
			c[AP_UWC_KMEM] / 1048576.0);
}

/* one line: how user stacks were unwound, and with whole what went
 * wrong by reason (else a word of where to look, if anything did) */

static void print_unwind(FILE *out, const struct ap_session *s, int whole)
{
	const struct ap_unwind_info *u = ap_session__unwind(s);
	const uint64_t *c;
	int i, failed = 0;

	if (!u)
		return;
	if (u->method == AP_UNWIND_FP) {
		fprintf(out, "# unwind  : frame pointers, up to %u user frames; %"
			PRIu64 " stacks ended at a data address\n", u->max_stack,
			u->c[AP_UWC_DATA_CUT]);
		return;
	}
	c = u->c;
	if (!whole) {
		static const int why[] = {
			AP_UWC_FP_FRAMES, AP_UWC_NO_PROC, AP_UWC_BAD_RULE,
			AP_UWC_FAULT, AP_UWC_DATA_CUT, AP_UWC_NO_ROOM,
		};

		for (i = 0; i < (int)(sizeof(why) / sizeof(why[0])); i++)
			failed |= c[why[i]] != 0;
		fprintf(out, "# unwind  : cfi, up to %u user frames: %" PRIu64
			" stacks, %.1f%% reached the outermost frame, %.1f%%"
			" truncated", u->max_stack, c[AP_UWC_STACKS],
			pct(c[AP_UWC_COMPLETE], c[AP_UWC_STACKS]),
			pct(c[AP_UWC_TRUNCATED], c[AP_UWC_STACKS]));
		print_kmem(out, c);
		fprintf(out, "%s\n",
			failed ? "; --header: fallbacks and failures" : "");
		return;
	}
	fprintf(out, "# unwind  : cfi, up to %u user frames: %" PRIu64
		" stacks, %.1f%% reached the outermost frame, %.1f%% truncated"
		"; fallbacks and failures: %" PRIu64 " frames by frame pointer"
		" (no table), %" PRIu64 " stacks of processes not mirrored yet, %"
		PRIu64 " unexpressible rules, %" PRIu64 " read faults, %" PRIu64
		" ends outside every mapping; %" PRIu64 " tables, %" PRIu64
		" rows (%" PRIu64 " tables from debug files), %" PRIu64
		" files without CFI, %" PRIu64 " without room",
		u->max_stack, c[AP_UWC_STACKS],
		pct(c[AP_UWC_COMPLETE], c[AP_UWC_STACKS]),
		pct(c[AP_UWC_TRUNCATED], c[AP_UWC_STACKS]),
		c[AP_UWC_FP_FRAMES], c[AP_UWC_NO_PROC], c[AP_UWC_BAD_RULE],
		c[AP_UWC_FAULT], c[AP_UWC_DATA_CUT], c[AP_UWC_TABLES],
		c[AP_UWC_ROWS], c[AP_UWC_DEBUG_FILES], c[AP_UWC_NO_CFI],
		c[AP_UWC_NO_ROOM]);
	print_kmem(out, c);
	fputc('\n', out);
}

static void print_unwind_json(FILE *out, const struct ap_session *s)
{
	static const char *const names[AP_UWC_NR] = {
		[AP_UWC_STACKS] = "stacks",
		[AP_UWC_COMPLETE] = "complete",
		[AP_UWC_TRUNCATED] = "truncated",
		[AP_UWC_FP_FRAMES] = "fp_frames",
		[AP_UWC_NO_PROC] = "not_mirrored",
		[AP_UWC_BAD_RULE] = "bad_rules",
		[AP_UWC_FAULT] = "read_faults",
		[AP_UWC_OUTSIDE] = "outside",
		[AP_UWC_VMA] = "found_by_vma",
		[AP_UWC_TABLES] = "tables",
		[AP_UWC_ROWS] = "rows",
		[AP_UWC_NO_CFI] = "files_without_cfi",
		[AP_UWC_BUILD_NS] = "build_ns",
		[AP_UWC_NO_ROOM] = "no_room",
		[AP_UWC_DATA_CUT] = "ended_at_data",
		[AP_UWC_DEBUG_FILES] = "from_debug_files",
		[AP_UWC_KMEM] = "kernel_memory",
	};
	const struct ap_unwind_info *u = ap_session__unwind(s);
	int i;

	if (!u)
		return;
	fprintf(out, ", \"unwind\": {\"method\": \"%s\", \"max_stack\": %u",
		u->method == AP_UNWIND_FP ? "fp" : "cfi", u->max_stack);
	for (i = 0; i < AP_UWC_NR; i++)
		/* not in files before it was recorded */
		if (i != AP_UWC_KMEM || u->c[i])
			fprintf(out, ", \"%s\": %" PRIu64, names[i],
				u->c[i]);
	fputc('}', out);
}

void ap_report_header__table(FILE *out, const char *path,
			     const struct ap_header *h,
			     const struct ap_read_stats *st,
			     const struct ap_session *s, int whole)
{
	struct drop_out drops = { out, 0 };
	const struct ap_sensor *sens;
	char when[64];
	size_t i, n;

	fmt_time(when, sizeof(when), h);
	fprintf(out, "# aperture report of %s (format %u.%u)\n", path,
		h->major, h->minor);
	fprintf(out, "# cmdline : %s\n", h->cmdline);
	fprintf(out, "# target  : %s\n", h->target);
	fprintf(out, "# host    : %s, kernel %s, %u CPUs\n", h->host,
		h->kernel, h->ncpus);
	fprintf(out, "# recorded: %s, duration %.2f s\n", when,
		ap_report_header__duration_s(h, st, s));
	fprintf(out, "# samples : %" PRIu64 "%s, lost %" PRIu64
		" (ring buffer), stack errors %" PRIu64 " kernel / %" PRIu64
		" user\n",
		st->has_summary ? st->summary.samples : 0,
		st->has_summary ? "" : " (no summary: recording cut short)",
		ap_session__lost(s, AP_LOST_RINGBUF),
		ap_session__lost(s, AP_LOST_KSTACK),
		ap_session__lost(s, AP_LOST_USTACK));
	for_each_drop(s, st, drop_table, &drops);
	if (drops.nr)
		fputc('\n', out);
	print_losers_table(out, s);
	print_unwind(out, s, whole);
	n = ap_session__sensors(s, &sens);
	for (i = 0; i < n; i++) {
		if (sens[i].state == AP_SENSOR_UNAVAILABLE)
			fprintf(out, "# sensor  : %s unavailable: %s\n",
				sens[i].name, sens[i].reason);
		else
			fprintf(out, "# sensor  : %s from %s%s%s\n",
				sens[i].name, sens[i].source,
				sens[i].reason[0] ? ": " : "", sens[i].reason);
	}
	if (st->truncated)
		fprintf(out, "# note    : file cut short; %" PRIu64
			" complete blocks recovered\n", st->blocks);
	if (st->blocks_bad)
		fprintf(out, "# note    : %" PRIu64 " corrupted blocks skipped\n",
			st->blocks_bad);
	fprintf(out, "#\n");
}

void ap_report_header__json(FILE *out, const struct ap_header *h,
			    const struct ap_read_stats *st,
			    const struct ap_session *s)
{
	struct drop_out drops = { out, 0 };
	const struct ap_sensor *sens;
	size_t i, n;

	fputs("  \"schema\": {\"name\": \"" AP_REPORT_SCHEMA_NAME
	      "\", \"version\": \"" AP_REPORT_SCHEMA_VERSION "\"},\n", out);
	fprintf(out, "  \"header\": {\"version\": \"%u.%u\", \"cmdline\": ",
		h->major, h->minor);
	ap_json_str(out, h->cmdline);
	fputs(", \"target\": ", out);
	ap_json_str(out, h->target);
	fputs(", \"host\": ", out);
	ap_json_str(out, h->host);
	fputs(", \"kernel\": ", out);
	ap_json_str(out, h->kernel);
	fprintf(out, ", \"ncpus\": %u, \"freq\": %u, \"start_ns\": %" PRIu64
		", \"wall_start_ns\": %" PRIu64 ", \"duration_s\": %.6f",
		h->ncpus, h->freq, h->start_mono_ns,
		h->start_mono_ns + h->mono_to_real_ns, ap_report_header__duration_s(h, st, s));
	fprintf(out, ", \"samples\": %" PRIu64 ", \"lost\": %" PRIu64
		", \"kernel_stack_errors\": %" PRIu64
		", \"user_stack_errors\": %" PRIu64,
		st->has_summary ? st->summary.samples : 0,
		ap_session__lost(s, AP_LOST_RINGBUF),
		ap_session__lost(s, AP_LOST_KSTACK),
		ap_session__lost(s, AP_LOST_USTACK));
	fputs(", \"dropped\": [", out);
	for_each_drop(s, st, drop_json, &drops);
	fputc(']', out);
	print_losers_json(out, s);
	print_unwind_json(out, s);
	fprintf(out, ", \"truncated\": %s, \"blocks\": %" PRIu64
		", \"blocks_bad\": %" PRIu64 ", \"sensors\": [",
		st->truncated ? "true" : "false", st->blocks, st->blocks_bad);
	n = ap_session__sensors(s, &sens);
	for (i = 0; i < n; i++) {
		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		ap_json_str(out, sens[i].name);
		fprintf(out, ", \"available\": %s, \"source\": ",
			sens[i].state == AP_SENSOR_UNAVAILABLE ? "false" : "true");
		ap_json_str(out, sens[i].source);
		fputs(", \"reason\": ", out);
		ap_json_str(out, sens[i].reason);
		fputc('}', out);
	}
	fputs("]}", out);
}
