// SPDX-License-Identifier: GPL-2.0
#include "report/opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/view.h"
#include "util/num.h"

int ap_report_opts__sort(struct ap_report_opts *r, const char *arg)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int k, err = 0;

	if (!dup)
		return -ENOMEM;
	r->nr_keys = 0;
	for (tok = strtok_r(dup, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		/* orders, not keys: the cpu view's sort_names */
		if (!strcmp(tok, "self") || !strcmp(tok, "overhead")) {
			r->top_sort = 0;
			r->order_given = 1;
			continue;
		}
		if (!strcmp(tok, "children")) {
			r->top_sort = 1;
			r->order_given = 1;
			continue;
		}
		/* perf spells it "symbol" */
		if (!strcmp(tok, "symbol"))
			tok = "sym";
		for (k = 0; k < AP_KEY_NR; k++)
			if (!strcmp(tok, ap_key_names[k]))
				break;
		if (k == AP_KEY_NR || r->nr_keys == AP_MAX_KEYS)
			err = -EINVAL;
		else
			r->keys[r->nr_keys++] = k;
	}
	r->sort_given = r->nr_keys > 0;
	free(dup);
	if (!err && !r->nr_keys) {
		/* only an order: the default keys */
		r->keys[0] = AP_KEY_COMM;
		r->keys[1] = AP_KEY_DSO;
		r->keys[2] = AP_KEY_SYM;
		r->nr_keys = 3;
	}
	return err;
}

int ap_report_opts__names(const char *arg, const char **list, int *nr,
			  int max)
{
	char *dup = strdup(arg), *tok, *save = NULL;

	if (!dup)
		return -ENOMEM;
	*nr = 0;
	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*nr == max)
			return -EINVAL;
		list[(*nr)++] = tok;
	}
	/* dup stays: list points into it until the process ends */
	return *nr ? 0 : -EINVAL;
}

int ap_report_opts__time(const char *arg, uint64_t *lo, uint64_t *hi)
{
	const char *comma = strchr(arg, ',');

	if (!comma || strchr(comma + 1, ','))
		return -EINVAL;
	*lo = 0;
	*hi = 0;
	if (comma > arg && ap_parse_secs_ns(arg, comma - arg, lo))
		return -EINVAL;
	if (comma[1] && ap_parse_secs_ns(comma + 1, strlen(comma + 1), hi))
		return -EINVAL;
	if (comma == arg && !comma[1])
		return -EINVAL;
	if (*hi && *hi < *lo)
		return -ERANGE;
	return 0;
}

/* a number: -g's least percent of a branch */
static int cg_percent(const char *tok, double *pct)
{
	char *end;

	errno = 0;
	*pct = strtod(tok, &end);
	return errno || *end || end == tok || *pct < 0 || *pct > 100 ?
	       -EINVAL : 0;
}

int ap_report_opts__call_graph(struct ap_report_opts *r, const char *arg,
			       char *note, size_t len)
{
	char *dup, *tok, *save = NULL;
	int err = 0, nums = 0;
	double pct;

	note[0] = '\0';
	r->call_graph = AP_CG_CALLEE;
	if (!arg)
		return 0;
	dup = strdup(arg);
	if (!dup)
		return -ENOMEM;
	for (tok = strtok_r(dup, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "none")) {
			r->call_graph = AP_CG_NONE;
			break;
		} else if (!strcmp(tok, "graph")) {
			continue;
		} else if (!strcmp(tok, "callee")) {
			r->call_graph = AP_CG_CALLEE;
		} else if (!strcmp(tok, "caller")) {
			r->call_graph = AP_CG_CALLER;
		} else if (!strcmp(tok, "fractal") || !strcmp(tok, "flat") ||
			   !strcmp(tok, "folded")) {
			snprintf(note, len,
				 "-g %s: drawn as a graph, branches in percent of all samples",
				 tok);
		} else if (!strcmp(tok, "address")) {
			snprintf(note, len,
				 "-g address: branches are functions, as -g function");
		} else if (!strcmp(tok, "function") || !strcmp(tok, "percent")) {
			continue;
		} else if (nums < 2 && !cg_percent(tok, &pct)) {
			/* MIN, then perf's print limit, which is not a
			 * percent and is taken as no limit */
			if (nums++ == 0)
				r->cg_percent = pct;
		} else {
			err = -EINVAL;
		}
	}
	free(dup);
	return err;
}
