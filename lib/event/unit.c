// SPDX-License-Identifier: GPL-2.0
/*
 * Units of the events' weights (event.h): one unit for a graph of several
 * views, and the conversions between time units that it needs.
 */
#include "event/event.h"

#include <errno.h>
#include <string.h>

#include "report/view.h"

int ap_unit__parse(const char *name)
{
	int u;

	for (u = 0; u < AP_UNIT_NR; u++)
		if (!strcmp(ap_unit__name(u), name))
			return u;
	return -EINVAL;
}

int ap_unit__common(const struct ap_unit_pick *v, int n)
{
	int i;

	for (i = 1; i < n; i++)
		if (v[i].unit != v[0].unit)
			break;
	/* counts of two kinds count different things: accesses, launches */
	if (i == n && (n == 1 || v[0].unit != AP_UNIT_COUNT))
		return n ? v[0].unit : AP_UNIT_COUNT;
	for (i = 0; i < n; i++)
		if (!v[i].time)
			return -EDOM;
	return AP_UNIT_TIME;
}

int ap_unit__is_time(int unit)
{
	return unit == AP_UNIT_SAMPLES || unit == AP_UNIT_NS ||
	       unit == AP_UNIT_US;
}

/* a time unit as a fraction of a nanosecond's multiple: num / den ns */
static int in_ns(int unit, uint32_t freq, double *num, double *den)
{
	switch (unit) {
	case AP_UNIT_SAMPLES:
		if (!freq)
			return -EINVAL;
		*num = 1e9;
		*den = freq;
		return 0;
	case AP_UNIT_NS:
		*num = 1;
		*den = 1;
		return 0;
	case AP_UNIT_US:
		*num = 1000;
		*den = 1;
		return 0;
	}
	return -EINVAL;
}

double ap_unit__convert(double v, int from, int to, uint32_t freq)
{
	double fn, fd, tn, td;

	if (from == to || in_ns(from, freq, &fn, &fd) ||
	    in_ns(to, freq, &tn, &td))
		return v;
	/* whole numbers multiplied, then one division: samples to
	 * microseconds is v * 1e6 / freq rounded once */
	return v * (fn * td) / (fd * tn);
}

double ap_event_kind__folded_weight(uint32_t tag,
				    const struct ap_report_opts *o, double w)
{
	const struct ap_event_kind *k = ap_event_kind__of_tag(tag);

	if (!k || !o->folded_us)
		return w;
	return ap_unit__convert(w, k->folded_unit, AP_UNIT_US, o->freq);
}
