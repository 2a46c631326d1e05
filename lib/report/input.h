/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record file opened the way report, script and diff read one: its
 * reader, a symbolizer and a session over them, and the readers'
 * warnings on stderr, escaped (they quote paths and names from the file).
 */
#ifndef APERTURE_INPUT_H
#define APERTURE_INPUT_H

#include <stdio.h>

struct ap_reader;
struct ap_symbolizer;
struct ap_symbolizer_opts;
struct ap_session;

struct ap_input {
	struct ap_reader *rd;
	struct ap_symbolizer *sym;
	struct ap_session *s;
};

/* path ("-": standard input) with so's symbolizer options (a NULL warn
 * gets ap_input__warn): 0, or -errno after saying why on stderr.
 * flags AP_INPUT_FIFO_OK: path is the user's own choice (-i), which may
 * be a FIFO or a pipe, read as a stream */
#define AP_INPUT_FIFO_OK	1
int ap_input__open(struct ap_input *in, const char *path, int flags,
		   struct ap_symbolizer_opts *so);
/* the next frame the session hands back (ap_session__feed's 1),
 * skipping what it keeps for itself: 1, 0 at the end, or -errno */
struct ap_frame;
int ap_input__next(struct ap_input *in, struct ap_frame *f);
/* closes what is open; in may be zeroed and never opened */
void ap_input__close(struct ap_input *in);
/* -v: "aperture CMD: N user lookups ..., debug files refused", what
 * symbolizing read */
void ap_input__print_stats(const struct ap_input *in, const char *cmd,
			   FILE *out);
/* "aperture: warning: MSG", MSG escaped */
void ap_input__warn(void *ctx, const char *msg);

#endif /* APERTURE_INPUT_H */
