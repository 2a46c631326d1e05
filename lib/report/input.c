// SPDX-License-Identifier: GPL-2.0
#include "report/input.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/escape.h"
#include "format/reader.h"
#include "report/header.h"
#include "report/session.h"
#include "symbols/debuginfod.h"
#include "symbols/symbolizer.h"

void ap_input__warn(void *ctx, const char *msg)
{
	char esc[2048];

	(void)ctx;
	ap_escape(esc, sizeof(esc), msg, 0);
	fprintf(stderr, "aperture: warning: %s\n", esc);
}

int ap_input__open(struct ap_input *in, const char *path, int flags,
		   struct ap_symbolizer_opts *so)
{
	char errbuf[512];
	int err;

	memset(in, 0, sizeof(*in));
	in->rd = ap_reader__open_stream(path, flags & AP_INPUT_FIFO_OK, &err,
					errbuf, sizeof(errbuf));
	if (!in->rd) {
		fprintf(stderr, "aperture: %s\n", errbuf);
		return err < 0 ? err : -EINVAL;
	}
	ap_reader__set_warn(in->rd, ap_input__warn, NULL);
	if (!so->warn)
		so->warn = ap_input__warn;
	in->sym = ap_symbolizer__new(so);
	in->s = in->sym ? ap_session__new(in->sym) : NULL;
	if (!in->s) {
		fprintf(stderr, "aperture: out of memory\n");
		ap_input__close(in);
		return -ENOMEM;
	}
	return 0;
}

void ap_input__close(struct ap_input *in)
{
	ap_session__free(in->s);
	ap_symbolizer__free(in->sym);
	ap_reader__close(in->rd);
	memset(in, 0, sizeof(*in));
}

int ap_input__next(struct ap_input *in, struct ap_frame *f)
{
	int err;

	while ((err = ap_reader__next(in->rd, f)) > 0)
		if (ap_session__feed(in->s, f) == 1)
			return 1;
	/* all read: what the views' durations must fit in */
	ap_session__set_span(in->s,
			     ap_report_header__duration_ns(
				     ap_reader__header(in->rd),
				     ap_reader__stats(in->rd), in->s),
			     ap_reader__header(in->rd)->ncpus);
	return err;
}

void ap_input__print_stats(const struct ap_input *in, const char *cmd,
			   FILE *out)
{
	struct ap_symbolizer_stats ss;

	ap_symbolizer__stats(in->sym, &ss);
	fprintf(out,
		"aperture %s: %" PRIu64 " user lookups (%" PRIu64 " cached), %" PRIu64 " modules, DWARF read for %" PRIu64 " (%" PRIu64 " bytes of debug sections, %" PRIu64 " bytes inflated); debug cache: %" PRIu64 " files inflated into it, %" PRIu64 " read from it; %" PRIu64 " debug files refused\n",
		cmd, ss.lookups, ss.cache_hits, ss.modules,
		ss.dwarf_modules, ss.dwarf_bytes, ss.dwarf_inflated,
		ss.debug_cache_made, ss.debug_cache_used, ss.debug_refused);
	if (ap_debuginfod__enabled()) {
		struct ap_debuginfod_stats ds;

		ap_debuginfod__stats(&ds);
		fprintf(out,
			"aperture %s: debuginfod: %" PRIu64 " lookups asked, %" PRIu64 " not asked, %.1f s of %" PRIu64 ", %" PRIu64 " bytes of %" PRIu64 " downloaded\n",
			cmd, ds.asked, ds.not_asked, ds.secs, ds.time,
			ds.bytes, ds.size);
	}
}
