// SPDX-License-Identifier: GPL-2.0
#include "report/view.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "event/event.h"
#include "report/ctxtab.h"
#include "report/stackres.h"
#include "report/session.h"
#include "util/strtab.h"
#include "util/utf8.h"


const struct ap_view_ops *ap_view__find(const char *name)
{
	const struct ap_event_kind *k = ap_event_kind__find(name);

	return k ? k->view : NULL;
}

int ap_view__wants(const struct ap_view_ops *ops, uint32_t tag)
{
	return ops->tag == tag ||
	       (tag < 32 && (ops->more_tags & AP_EVMASK(tag)));
}

const char *ap_view__names(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < ap_nr_event_kinds && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				ap_event_kinds[i]->view->name);
	return buf;
}

struct ap_strtab *ap_view__strtab(const struct ap_report_opts *o)
{
	struct ap_strtab *t = ap_strtab__new();

	ap_strtab__set_escape(t, o->format != AP_FMT_JSON);
	return t;
}

int ap_view__names_init(const struct ap_report_opts *o, struct ap_strtab **strs,
			struct ap_ctxtab *ctxs, struct ap_stackres *res)
{
	*strs = ap_view__strtab(o);
	if (!*strs)
		return -ENOMEM;
	if (ctxs)
		ap_ctxtab__init(ctxs, *strs);
	ap_stackres__init(res, *strs);
	return 0;
}

void ap_view__names_free(struct ap_strtab *strs, struct ap_ctxtab *ctxs,
			 struct ap_stackres *res)
{
	if (ctxs)
		ap_ctxtab__free(ctxs);
	ap_stackres__free(res);
	ap_strtab__free(strs);
}

const char *const ap_key_names[AP_KEY_NR] = {
	[AP_KEY_COMM] = "comm", [AP_KEY_PID] = "pid", [AP_KEY_TID] = "tid",
	[AP_KEY_DSO] = "dso", [AP_KEY_SYM] = "sym",
	[AP_KEY_SRCLINE] = "srcline", [AP_KEY_CPU] = "cpu",
};

int ap_report_opts__has_key(const struct ap_report_opts *o, int key)
{
	int i;

	for (i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == key)
			return 1;
	return 0;
}

int ap_report_opts__match(const struct ap_report_opts *o,
			  struct ap_session *s, uint32_t pid, uint32_t tid)
{
	int i, ok;

	if (o->nr_pids) {
		for (ok = 0, i = 0; i < o->nr_pids; i++)
			ok |= o->pids[i] == pid;
		if (!ok)
			return 0;
	}
	if (o->nr_tids) {
		for (ok = 0, i = 0; i < o->nr_tids; i++)
			ok |= o->tids[i] == tid;
		if (!ok)
			return 0;
	}
	if (o->comm && strcmp(o->comm, ap_session__comm(s, pid, tid)))
		return 0;
	return 1;
}

void ap_json_str(FILE *out, const char *s)
{
	const char *p = s ? s : "";
	size_t n;

	fputc('"', out);
	for (; *p; p += n ? n : 1) {
		n = ap_utf8_seq(p);
		if (!n) {
			/* JSON is UTF-8 (RFC 8259): a byte that starts no
			 * character stands for U+FFFD */
			fputs(AP_UTF8_REPLACEMENT, out);
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, out);
			continue;
		}
		switch (*p) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if ((unsigned char)*p < 0x20)
				fprintf(out, "\\u%04x", (unsigned char)*p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

/* the '+' shows the cut, so that two names cut alike do not read as one */
void ap_put_col(FILE *out, const char *s, int w)
{
	if (w > 1 && (int)strlen(s) > w)
		fprintf(out, "  %.*s+", w - 1, s);
	else
		fprintf(out, "  %-*s", w, s);
}

void ap_pct(char *buf, size_t len, double n, double total)
{
	snprintf(buf, len, "%.2f%%", total > 0 ? 100.0 * n / total : 0.0);
}

void ap_fmt_ns(char *buf, size_t len, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
}
