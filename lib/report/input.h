/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A record file opened the way report, script and diff read one: its
 * reader, a symbolizer and a session over them, and the readers'
 * warnings on stderr, escaped (they quote paths and names from the file).
 */
#ifndef APERTURE_INPUT_H
#define APERTURE_INPUT_H

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
 * gets ap_input__warn): 0, or -errno after saying why on stderr */
int ap_input__open(struct ap_input *in, const char *path,
		   struct ap_symbolizer_opts *so);
/* closes what is open; in may be zeroed and never opened */
void ap_input__close(struct ap_input *in);
/* "aperture: warning: MSG", MSG escaped */
void ap_input__warn(void *ctx, const char *msg);

#endif /* APERTURE_INPUT_H */
