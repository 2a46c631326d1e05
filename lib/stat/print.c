// SPDX-License-Identifier: GPL-2.0
#include "stat/print.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <linux/perf_event.h>

/* perf stat's columns: value, unit, event name, the metric's */
#define VALUE_W		18
#define UNIT_W		4
#define NAME_W		32
#define METRIC_UNIT_W	23
/* what perf pads a line with where a metric would be: none for an event
 * it has no metric for, less for one not counted */
#define NO_METRIC_W	35
#define NOT_COUNTED_W	28

int ap_stat_group(char *buf, size_t len, double v, int decimals)
{
	char tmp[64], out[96];
	const char *dot, *digits = tmp;
	size_t n, i, o = 0;

	snprintf(tmp, sizeof(tmp), "%.*f", decimals, v);
	if (*digits == '-')
		out[o++] = *digits++;
	dot = strchr(digits, '.');
	n = dot ? (size_t)(dot - digits) : strlen(digits);
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	return snprintf(buf, len, "%s%s", out, dot ? dot : "");
}

/* the value column: a count, a clock in msec, or why there is none */
static void value_str(const struct ap_stat_fmt *f,
		      const struct ap_stat_line *l, char *buf, size_t len)
{
	double v = l->unit ? l->value / 1e6 : l->value;

	if (l->state == AP_STAT_NOT_SUPPORTED)
		snprintf(buf, len, "<not supported>");
	else if (l->state == AP_STAT_NOT_COUNTED)
		snprintf(buf, len, "<not counted>");
	else if (f->sep)
		snprintf(buf, len, "%.*f", l->unit ? 2 : 0, v);
	else
		ap_stat_group(buf, len, v, l->unit ? 2 : 0);
}

static void print_csv(const struct ap_stat_fmt *f,
		      const struct ap_stat_line *l, const char *val)
{
	const char *s = f->sep;
	double pct = l->run != l->ena ? 100.0 * l->run / l->ena : 100.0;
	char m[64], *p, *e;

	fprintf(f->out, "%s%s%s%s%s", val, s, l->unit ? l->unit : "", s,
		l->name);
	if (f->runs > 1)
		fprintf(f->out, "%s%.2f%%", s, l->noise_pct);
	fprintf(f->out, "%s%" PRIu64 "%s%.2f", s, l->run, s, pct);
	if (l->state != AP_STAT_COUNTED || !l->metric_fmt) {
		fprintf(f->out, "%s%s\n", s, s);
		return;
	}
	/* the number alone, as perf: no padding, no '%' */
	snprintf(m, sizeof(m), l->metric_fmt, l->metric);
	for (p = m; *p == ' '; p++)
		;
	for (e = p; isdigit((unsigned char)*e) || *e == '.' || *e == '-';
	     e++)
		;
	*e = '\0';
	fprintf(f->out, "%s%s%s%s\n", s, p, s, l->metric_unit);
}

void ap_stat_print_line(const struct ap_stat_fmt *f,
			const struct ap_stat_line *l)
{
	char val[64], m[64];

	value_str(f, l, val, sizeof(val));
	if (f->prefix)
		fprintf(f->out, "%s%s", f->prefix, f->sep ? f->sep : " ");
	if (f->sep) {
		print_csv(f, l, val);
		return;
	}
	fprintf(f->out, "%*s %-*s %-*s", VALUE_W, val, UNIT_W,
		l->unit ? l->unit : "", NAME_W, l->name);
	if (l->state != AP_STAT_COUNTED) {
		fprintf(f->out, "%*s\n", NOT_COUNTED_W, "");
		return;
	}
	if (l->metric_fmt) {
		snprintf(m, sizeof(m), l->metric_fmt, l->metric);
		fprintf(f->out, " # %8s %-*s", m, METRIC_UNIT_W,
			l->metric_unit);
	} else {
		fprintf(f->out, "%*s", NO_METRIC_W, "");
	}
	if (f->runs > 1 && l->noise_pct)
		fprintf(f->out, "  ( +-%6.2f%% )", l->noise_pct);
	if (l->run != l->ena)
		fprintf(f->out, "  (%.2f%%)", 100.0 * l->run / l->ena);
	fputc('\n', f->out);
}

/* a counter's values in a block */
struct shown {
	double value;
	uint64_t ena, run;
	double noise_pct;
	enum ap_stat_state state;
};

static void shown_of(const struct ap_stat_counter *c,
		     enum ap_stat_values which, struct shown *v)
{
	struct ap_stat_count d = c->now;

	memset(v, 0, sizeof(*v));
	if (c->err) {
		v->state = AP_STAT_NOT_SUPPORTED;
		return;
	}
	if (which == AP_STAT_MEAN) {
		v->value = c->runs[0].mean;
		v->ena = (uint64_t)llround(c->runs[1].mean);
		v->run = (uint64_t)llround(c->runs[2].mean);
		v->noise_pct = ap_stat_runs__pct(&c->runs[0]);
	} else {
		if (which == AP_STAT_DELTA) {
			d.val -= c->last.val;
			d.ena -= c->last.ena;
			d.run -= c->last.run;
		}
		v->value = ap_stat_count__scaled(&d);
		v->ena = d.ena;
		v->run = d.run;
	}
	v->state = v->run && v->ena ? AP_STAT_COUNTED : AP_STAT_NOT_COUNTED;
}

/* the first counted counter of that type and config, else NULL */
static const struct ap_stat_counter *
find_counted(const struct ap_stat_counters *s, enum ap_stat_values which,
	     uint32_t type, uint64_t config, struct shown *v)
{
	int i;

	for (i = 0; i < s->nr; i++) {
		const struct ap_stat_counter *c = &s->c[i];

		if (c->ev->type != type || c->ev->config != config)
			continue;
		shown_of(c, which, v);
		if (v->state == AP_STAT_COUNTED)
			return c;
	}
	return NULL;
}

static const struct ap_stat_counter *
find_clock(const struct ap_stat_counters *s, enum ap_stat_values which,
	   struct shown *v)
{
	return find_counted(s, which, PERF_TYPE_SOFTWARE,
			    PERF_COUNT_SW_TASK_CLOCK, v) ?:
	       find_counted(s, which, PERF_TYPE_SOFTWARE,
			    PERF_COUNT_SW_CPU_CLOCK, v);
}

/* v of c as perf says it next to the count: a ratio to another counter
 * where perf has one, else a rate per second of the clock */
static void metric_of(const struct ap_stat_counters *s,
		      const struct ap_stat_counter *c,
		      enum ap_stat_values which, double v, double wall_ns,
		      struct ap_stat_line *l)
{
	static const char *const rate_units[] = {
		"/sec", "K/sec", "M/sec", "G/sec",
	};
	struct shown base, clock;
	int have_clock = find_clock(s, which, &clock) != NULL;
	uint64_t cfg = c->ev->config;
	int u = 0;

	if (ap_stat_counter__is_clock(c)) {
		l->metric_fmt = "%8.3f";
		l->metric = wall_ns ? v / wall_ns : 0;
		l->metric_unit = "CPUs utilized";
		return;
	}
	if (c->ev->type == PERF_TYPE_HARDWARE) {
		uint64_t base_cfg = cfg == PERF_COUNT_HW_INSTRUCTIONS ?
			PERF_COUNT_HW_CPU_CYCLES :
			cfg == PERF_COUNT_HW_BRANCH_MISSES ?
			PERF_COUNT_HW_BRANCH_INSTRUCTIONS :
			cfg == PERF_COUNT_HW_CACHE_MISSES ?
			PERF_COUNT_HW_CACHE_REFERENCES : cfg;

		if (cfg == PERF_COUNT_HW_CPU_CYCLES && have_clock) {
			l->metric_fmt = "%8.3f";
			l->metric = clock.value ? v / clock.value : 0;
			l->metric_unit = "GHz";
			return;
		}
		if (base_cfg != cfg &&
		    find_counted(s, which, PERF_TYPE_HARDWARE, base_cfg,
				 &base) && base.value) {
			int insn = cfg == PERF_COUNT_HW_INSTRUCTIONS;

			l->metric_fmt = insn ? "%7.2f " : "%7.2f%%";
			l->metric = insn ? v / base.value :
					   100.0 * v / base.value;
			l->metric_unit = insn ? "insn per cycle" :
				cfg == PERF_COUNT_HW_BRANCH_MISSES ?
				"of all branches" : "of all cache refs";
			return;
		}
	}
	if (!have_clock)
		return;
	v = clock.value ? 1e9 * v / clock.value : 0;
	while (v > 1000.0 && u < 3) {
		v /= 1000.0;
		u++;
	}
	l->metric_fmt = "%8.3f";
	l->metric = v;
	l->metric_unit = rate_units[u];
}

void ap_stat_print_counters(const struct ap_stat_fmt *f,
			    const struct ap_stat_counters *s,
			    enum ap_stat_values which, double wall_ns)
{
	int i;

	for (i = 0; i < s->nr; i++) {
		const struct ap_stat_counter *c = &s->c[i];
		struct ap_stat_line l = {
			.name = c->name,
			.unit = c->ev->unit,
		};
		struct shown v;

		shown_of(c, which, &v);
		l.state = v.state;
		l.value = v.value;
		l.ena = v.ena;
		l.run = v.run;
		l.noise_pct = v.noise_pct;
		if (v.state == AP_STAT_COUNTED)
			metric_of(s, c, which, v.value, wall_ns, &l);
		ap_stat_print_line(f, &l);
	}
}

void ap_stat_print_header(const struct ap_stat_fmt *f, const char *target)
{
	if (f->sep)
		return;
	fprintf(f->out, "\n Performance counter stats for %s", target);
	if (f->runs > 1)
		fprintf(f->out, " (%d runs)", f->runs);
	fprintf(f->out, ":\n\n");
}

void ap_stat_print_interval_head(const struct ap_stat_fmt *f,
				 unsigned long nr)
{
	if (!f->sep && nr % 25 == 0)
		fprintf(f->out, "#%15s%19s %*s events\n", "time", "counts",
			UNIT_W, "unit");
}

/* perf's: two digits more than the spread's first significant one */
static int precision(double sd)
{
	if (sd > 1)
		return 2;
	if (!(sd > 0))
		return 9;
	return (int)lround(ceil(-log10(sd))) + 2;
}

void ap_stat_print_footer(const struct ap_stat_fmt *f,
			  const struct ap_stat_runs *wall_ns,
			  double user_ns, double sys_ns)
{
	double avg = wall_ns->mean / 1e9;

	if (f->sep)
		return;
	fputc('\n', f->out);
	if (wall_ns->n > 1) {
		double sd = ap_stat_runs__stderr(wall_ns) / 1e9;
		double pct = ap_stat_runs__pct(wall_ns);
		int p = precision(sd);

		fprintf(f->out, " %17.*f +- %.*f seconds time elapsed", p, avg,
			p, sd);
		if (pct)
			fprintf(f->out, "  ( +-%6.2f%% )", pct);
		fputc('\n', f->out);
	} else {
		fprintf(f->out, " %17.9f seconds time elapsed\n", avg);
	}
	if (user_ns >= 0)
		fprintf(f->out, "\n %17.9f seconds user\n %17.9f seconds sys\n",
			user_ns / 1e9, sys_ns / 1e9);
	fputc('\n', f->out);
}
