// SPDX-License-Identifier: GPL-2.0
/*
 * Parca's ProfileStoreService/WriteRaw through its HTTP/JSON gateway
 * (parca-dev/parca, proto/parca/profilestore/v1alpha1: POST
 * /profiles/writeraw, the request as protobuf's JSON mapping, bytes in
 * base64): one RawProfileSeries whose labels hold the __name__ Parca
 * requires (pkg/normalizer: "missing __name__ label"), no name twice,
 * and one raw_profile sample per view, so each profile's one period type
 * is its own view's.  __name__ is "aperture", as parca-agent's is
 * parca_agent: a profile type per kind of sample
 * (aperture:off_cpu:nanoseconds::delta), the program in the labels.
 */
#include "push/send.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_base64(FILE *f, const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i + 2 < len; i += 3) {
		fputc(b64[p[i] >> 2], f);
		fputc(b64[(p[i] & 3) << 4 | p[i + 1] >> 4], f);
		fputc(b64[(p[i + 1] & 15) << 2 | p[i + 2] >> 6], f);
		fputc(b64[p[i + 2] & 63], f);
	}
	if (i < len) {
		fputc(b64[p[i] >> 2], f);
		if (i + 1 < len) {
			fputc(b64[(p[i] & 3) << 4 | p[i + 1] >> 4], f);
			fputc(b64[(p[i + 1] & 15) << 2], f);
		} else {
			fputc(b64[(p[i] & 3) << 4], f);
			fputc('=', f);
		}
		fputc('=', f);
	}
}

/* a JSON string of s (UTF-8 already: names and values are cleaned) */
static void put_json(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

int ap_push__parca(const struct ap_push_opts *o,
		   const struct ap_push_req *rq)
{
	struct ap_push_label ls[AP_PUSH_MAX_LABELS + 2];
	char *body = NULL, *url;
	size_t len = 0, total = 0;
	int i, nl, ret;
	FILE *f;

	url = malloc(strlen(o->base) + 32);
	f = url ? open_memstream(&body, &len) : NULL;
	if (!f) {
		free(url);
		fprintf(stderr, "aperture push: %s: out of memory\n", rq->path);
		return AP_PUSH_TEMPFAIL;
	}
	sprintf(url, "%s/profiles/writeraw", o->base);
	nl = ap_push__series_labels(rq, ls);
	fputs("{\"series\":[{\"labels\":{\"labels\":[{\"name\":\"__name__\",\"value\":\"aperture\"}",
	      f);
	for (i = 0; i < nl; i++) {
		fputs(",{\"name\":", f);
		put_json(f, ls[i].name);
		fputs(",\"value\":", f);
		put_json(f, ls[i].value);
		fputc('}', f);
	}
	fputs("]},\"samples\":[", f);
	for (i = 0; i < rq->nr; i++) {
		fprintf(f, "%s{\"rawProfile\":\"", i ? "," : "");
		put_base64(f, (const unsigned char *)rq->views[i].pprof,
			   rq->views[i].len);
		fputs("\"}", f);
		total += rq->views[i].nr_samples;
	}
	fputs("]}],\"normalized\":false}", f);
	if (fclose(f)) {
		free(body);
		free(url);
		fprintf(stderr, "aperture push: %s: out of memory\n", rq->path);
		return AP_PUSH_TEMPFAIL;
	}
	ret = ap_http__post(o, rq->path, "WriteRaw", url, "application/json",
			    body, len, NULL, 0);
	if (ret == AP_PUSH_SENT && o->verbose)
		fprintf(stderr, "aperture push: %s: WriteRaw: %d profiles, %zu stacks, %zu bytes to %s\n",
			rq->path, rq->nr, total, len, o->base);
	free(body);
	free(url);
	return ret;
}
