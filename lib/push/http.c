// SPDX-License-Identifier: GPL-2.0
/*
 * push's HTTP client: libcurl, one POST at a time, each try bounded by
 * --timeout, retried with exponential backoff on what may pass (the
 * server down or restarting, a timeout, 429, 5xx), never on what will
 * not (another 4xx).  Only http and https, no redirects followed: a
 * profile goes where --to says.
 */
#include "push/send.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* backoff before try n (1, 2, ...): 0.25 s doubled, at most 8 s */
#define AP_HTTP_BACKOFF_MS	250
#define AP_HTTP_BACKOFF_MAX_MS	8000
/* what of a refusal's body goes into the error line */
#define AP_HTTP_REPLY_MAX	512

struct reply {
	char buf[AP_HTTP_REPLY_MAX + 1];
	size_t len;
};

static size_t on_reply(char *data, size_t size, size_t n, void *ctx)
{
	struct reply *r = ctx;
	size_t len = size * n, room = AP_HTTP_REPLY_MAX - r->len;

	memcpy(r->buf + r->len, data, len < room ? len : room);
	r->len += len < room ? len : room;
	r->buf[r->len] = '\0';
	return len;
}

/* the server's words, one line of printable ASCII: its reply is not ours
 * to print raw */
static void reply_line(struct reply *r)
{
	size_t i;

	for (i = 0; i < r->len; i++)
		if ((unsigned char)r->buf[i] < 0x20 ||
		    (unsigned char)r->buf[i] >= 0x7f)
			r->buf[i] = ' ';
	while (r->len && r->buf[r->len - 1] == ' ')
		r->buf[--r->len] = '\0';
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int global_init(void)
{
	static int done;

	if (!done && curl_global_init(CURL_GLOBAL_DEFAULT))
		return -ENOMEM;
	done = 1;
	return 0;
}

/* a transport failure that another try cannot mend */
static int hopeless(CURLcode c)
{
	switch (c) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_OUT_OF_MEMORY:
		return 1;
	default:
		return 0;
	}
}

/* line appended to *hdrs: 0, or -ENOMEM with *hdrs kept for freeing */
static int add_header(struct curl_slist **hdrs, const char *line)
{
	struct curl_slist *l = curl_slist_append(*hdrs, line);

	if (!l)
		return -ENOMEM;
	*hdrs = l;
	return 0;
}

static int setup(CURL *c, const struct ap_push_opts *o, const char *url,
		 struct curl_slist **hdrs, struct reply *rep,
		 const char *content_type, const void *body, size_t len,
		 const struct ap_http_part *parts, int nr_parts,
		 curl_mime **mime)
{
	char line[64];
	int i;

	curl_easy_setopt(c, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS,
			 (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, o->timeout_s * 1000L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, o->timeout_s * 1000L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "aperture/" APERTURE_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_reply);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, rep);
	if (o->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, o->ca_file);
	/* Expect: 100-continue waits a second for servers that never
	 * answer it */
	if (add_header(hdrs, "Expect:"))
		return -ENOMEM;
	if (content_type) {
		snprintf(line, sizeof(line), "Content-Type: %s", content_type);
		if (add_header(hdrs, line))
			return -ENOMEM;
	}
	if (o->token) {
		size_t n = strlen(o->token) + 32;
		char *auth = malloc(n);
		int err;

		if (!auth)
			return -ENOMEM;
		snprintf(auth, n, "Authorization: Bearer %s", o->token);
		err = add_header(hdrs, auth);
		/* curl copies it; the token does not stay in a heap left
		 * to whoever reads a core */
		memset(auth, 0, n);
		free(auth);
		if (err)
			return err;
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
	if (!nr_parts) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)len);
		return 0;
	}
	*mime = curl_mime_init(c);
	if (!*mime)
		return -ENOMEM;
	for (i = 0; i < nr_parts; i++) {
		curl_mimepart *p = curl_mime_addpart(*mime);

		if (!p || curl_mime_name(p, parts[i].name) ||
		    curl_mime_data(p, parts[i].data, parts[i].len) ||
		    (parts[i].filename &&
		     curl_mime_filename(p, parts[i].filename)) ||
		    (parts[i].type && curl_mime_type(p, parts[i].type)))
			return -ENOMEM;
	}
	curl_easy_setopt(c, CURLOPT_MIMEPOST, *mime);
	return 0;
}

int ap_http__post(const struct ap_push_opts *o, const char *path,
		  const char *what, const char *url, const char *content_type,
		  const void *body, size_t len,
		  const struct ap_http_part *parts, int nr_parts)
{
	char err[CURL_ERROR_SIZE];
	char why[CURL_ERROR_SIZE + AP_HTTP_REPLY_MAX + 64];
	long backoff = AP_HTTP_BACKOFF_MS;
	int try, ret = AP_PUSH_TEMPFAIL;

	if (global_init()) {
		fprintf(stderr, "aperture push: %s: %s: libcurl would not start\n",
			path, what);
		return AP_PUSH_TEMPFAIL;
	}
	for (try = 0; try <= o->retries; try++) {
		struct curl_slist *hdrs = NULL;
		curl_mime *mime = NULL;
		struct reply rep = { .len = 0 };
		long status = 0;
		CURLcode cc;
		CURL *c;

		if (try) {
			sleep_ms(backoff);
			backoff = backoff * 2 < AP_HTTP_BACKOFF_MAX_MS ?
				  backoff * 2 : AP_HTTP_BACKOFF_MAX_MS;
		}
		c = curl_easy_init();
		if (!c || setup(c, o, url, &hdrs, &rep, content_type, body,
				len, parts, nr_parts, &mime)) {
			snprintf(why, sizeof(why), "out of memory");
			curl_mime_free(mime);
			curl_slist_free_all(hdrs);
			curl_easy_cleanup(c);
			ret = AP_PUSH_TEMPFAIL;
			break;
		}
		err[0] = '\0';
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, err);
		cc = curl_easy_perform(c);
		if (cc == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		curl_mime_free(mime);
		curl_slist_free_all(hdrs);
		curl_easy_cleanup(c);
		reply_line(&rep);
		if (cc != CURLE_OK) {
			snprintf(why, sizeof(why), "%s", err[0] ? err :
				 curl_easy_strerror(cc));
			ret = AP_PUSH_TEMPFAIL;
		} else if (status >= 200 && status < 300) {
			ret = AP_PUSH_SENT;
		} else {
			snprintf(why, sizeof(why), "HTTP %ld%s%s", status,
				 rep.len ? ": " : "", rep.buf);
			/* 408, 429 and 5xx: the server's state, not the
			 * profile's; any other answer is its last word */
			ret = status == 408 || status == 429 || status >= 500 ?
			      AP_PUSH_TEMPFAIL : AP_PUSH_DATAERR;
		}
		if (ret != AP_PUSH_TEMPFAIL || (cc != CURLE_OK && hopeless(cc)))
			break;
		if (o->verbose && try < o->retries)
			fprintf(stderr, "aperture push: %s: %s: try %d: %s; again in %ld ms\n",
				path, what, try + 1, why, backoff);
	}
	if (ret != AP_PUSH_SENT)
		fprintf(stderr, "aperture push: %s: %s: %s (%s)\n", path, what,
			why, ret == AP_PUSH_TEMPFAIL ?
			"not sent: try again later" : "refused: not sent");
	return ret;
}

char *ap_http__escape(const char *s)
{
	char *e, *copy;

	if (global_init())
		return NULL;
	e = curl_easy_escape(NULL, s, 0);
	if (!e)
		return NULL;
	copy = strdup(e);
	curl_free(e);
	return copy;
}
