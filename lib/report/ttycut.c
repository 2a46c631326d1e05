// SPDX-License-Identifier: GPL-2.0
#include "report/ttycut.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/num.h"

int ap_tty_cut__width(void)
{
	const char *env = getenv("COLUMNS");
	unsigned long long v;
	struct winsize ws;

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (env && !ap_parse_u64(env, 10, 100000, &v))
		return (int)v;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 10)
		return ws.ws_col;
	return 80;
}

FILE *ap_tty_cut__open(struct ap_tty_cut *c, int width)
{
	c->width = width;
	c->f = width > 0 ? open_memstream(&c->buf, &c->len) : NULL;
	return c->f ? c->f : stdout;
}

void ap_tty_cut__close(struct ap_tty_cut *c)
{
	const char *p, *end;

	if (!c->f)
		return;
	fclose(c->f);
	for (p = c->buf, end = c->buf + c->len; p < end; ) {
		const char *nl = memchr(p, '\n', end - p), *q;
		int cols = 0;

		if (!nl)
			nl = end;
		/* columns are characters: UTF-8 continuation bytes add none */
		for (q = p; q < nl; q++) {
			if ((*q & 0xc0) != 0x80 && ++cols > c->width)
				break;
		}
		fwrite(p, 1, q - p, stdout);
		fputc('\n', stdout);
		p = nl + 1;
	}
	free(c->buf);
}
