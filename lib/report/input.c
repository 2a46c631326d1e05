// SPDX-License-Identifier: GPL-2.0
#include "report/input.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/escape.h"
#include "format/reader.h"
#include "report/session.h"
#include "symbols/symbolizer.h"

void ap_input__warn(void *ctx, const char *msg)
{
	char esc[2048];

	(void)ctx;
	ap_escape(esc, sizeof(esc), msg, 0);
	fprintf(stderr, "aperture: warning: %s\n", esc);
}

int ap_input__open(struct ap_input *in, const char *path,
		   struct ap_symbolizer_opts *so)
{
	char errbuf[512];
	int err;

	memset(in, 0, sizeof(*in));
	in->rd = ap_reader__open(path, &err, errbuf, sizeof(errbuf));
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
