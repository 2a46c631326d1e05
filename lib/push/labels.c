// SPDX-License-Identifier: GPL-2.0
/*
 * What push takes from its command line: the server's URL, series labels
 * and the token file, checked against both servers' rules so that a bad
 * one is a usage error here rather than a refusal there.
 */
#include "push/push.h"
#include "push/send.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/labels.h"
#include "util/utf8.h"

int ap_push__parse_to(const char *url, struct ap_push_opts *o, char **base,
		      char *why, size_t len)
{
	static const struct {
		const char *prefix;
		enum ap_push_server server;
	} schemes[] = {
		{ "pyroscope+", AP_PUSH_PYROSCOPE },
		{ "parca+", AP_PUSH_PARCA },
	};
	const char *rest = NULL, *host;
	size_t i, n;

	for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		n = strlen(schemes[i].prefix);
		if (!strncmp(url, schemes[i].prefix, n)) {
			rest = url + n;
			o->server = schemes[i].server;
		}
	}
	if (!rest || (strncmp(rest, "http://", 7) &&
		      strncmp(rest, "https://", 8))) {
		snprintf(why, len, "give pyroscope+http://HOST:PORT, parca+http://HOST:PORT or their https");
		return -EINVAL;
	}
	host = strstr(rest, "://") + 3;
	/* the server's root: the paths are the servers' own */
	if (!*host || strpbrk(host, "/?#@ \t\r\n")) {
		snprintf(why, len, "HOST[:PORT] only, with no path, query or user");
		return -EINVAL;
	}
	*base = strdup(rest);
	if (!*base) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	o->base = *base;
	return 0;
}

int ap_push__parse_label(char *arg, struct ap_push_label *l, char *why,
			 size_t len)
{
	char *eq = strchr(arg, '=');

	if (!eq) {
		snprintf(why, len, "give NAME=VALUE");
		return -EINVAL;
	}
	*eq = '\0';
	l->name = arg;
	l->value = eq + 1;
	return ap_label__check(l->name, l->value, why, len);
}

#define AP_PUSH_TOKEN_MAX	8192

int ap_push__read_token(const char *path, char **token, char *why,
			size_t len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	size_t i;
	int fd, err;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		snprintf(why, len, "%s", strerror(errno));
		return err;
	}
	err = -EPERM;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, len, "not a regular file");
		goto fail;
	}
	/* a token someone else can replace sends our profiles to whoever
	 * holds theirs */
	if (st.st_mode & (S_IWGRP | S_IWOTH) ||
	    (st.st_uid != geteuid() && st.st_uid != 0)) {
		snprintf(why, len, "others can write it (mode %03o, uid %u): chmod go-w, owned by you or root",
			 (unsigned int)(st.st_mode & 0777),
			 (unsigned int)st.st_uid);
		goto fail;
	}
	err = -ENOMEM;
	buf = malloc(AP_PUSH_TOKEN_MAX + 1);
	if (!buf) {
		snprintf(why, len, "out of memory");
		goto fail;
	}
	n = read(fd, buf, AP_PUSH_TOKEN_MAX + 1);
	if (n < 0 || n > AP_PUSH_TOKEN_MAX) {
		err = n < 0 ? -errno : -EFBIG;
		snprintf(why, len, "%s", n < 0 ? strerror(errno) :
			 "more than 8 KiB");
		free(buf);
		goto fail;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' ||
			 buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	/* one header line: a newline in it would add headers */
	for (i = 0; i < (size_t)n; i++) {
		if ((unsigned char)buf[i] <= 0x20 || buf[i] == 0x7f) {
			n = 0;
			break;
		}
	}
	if (!n) {
		err = -EINVAL;
		snprintf(why, len, "no token, or spaces or control characters in it");
		free(buf);
		goto fail;
	}
	close(fd);
	*token = buf;
	return 0;
fail:
	close(fd);
	return err;
}

char *ap_push__clean_value(char *dst, size_t len, const char *src)
{
	char copy[AP_PUSH_LABEL_MAX + 1];
	size_t i, n;

	if (len > AP_PUSH_LABEL_MAX + 1)
		len = AP_PUSH_LABEL_MAX + 1;
	/* src may be dst: U+FFFD is longer than the byte it stands for */
	snprintf(copy, sizeof(copy), "%s", src);
	ap_utf8_sanitize(dst, len, copy);
	for (i = 0; dst[i]; i += n) {
		unsigned char c = dst[i];

		n = ap_utf8_seq(dst + i);
		if (!n)
			n = 1;
		if (c < 0x20 || c == 0x7f || strchr("{},=", c))
			dst[i] = '_';
	}
	/* Pyroscope trims spaces around a value: none to trim */
	for (i = 0; dst[i] == ' '; i++)
		dst[i] = '_';
	for (n = strlen(dst); n > 0 && dst[n - 1] == ' '; n--)
		dst[n - 1] = '_';
	if (!dst[0] && len > 1)
		snprintf(dst, len, "_");
	return dst;
}

int ap_push__series_labels(const struct ap_push_req *rq,
			   struct ap_push_label *out)
{
	int i, n = 0, host = 0, service = 0;

	for (i = 0; i < rq->nr_labels; i++) {
		host |= !strcmp(rq->labels[i].name, "host");
		service |= !strcmp(rq->labels[i].name, "service");
	}
	if (!host && rq->host[0])
		out[n++] = (struct ap_push_label){ "host", rq->host };
	if (!service)
		out[n++] = (struct ap_push_label){ "service", rq->app };
	for (i = 0; i < rq->nr_labels; i++)
		out[n++] = rq->labels[i];
	return n;
}
