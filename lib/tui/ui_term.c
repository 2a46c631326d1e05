// SPDX-License-Identifier: GPL-2.0
#include "tui/ui_term.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#define ENTER_SEQ	"\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"
#define LEAVE_SEQ	"\x1b[m\x1b[?25h\x1b[?1049l"

struct ap_term {
	int in_fd, out_fd;
	struct termios saved;
	int entered;
	unsigned char pending[64];	/* read but not yet decoded */
	size_t nr_pending;
};

/*
 * What a signal handler needs to give the terminal back.  Handlers take no
 * context, so this is the one piece of file-scope state: written only by
 * ap_term__enter and ap_term__leave, read by ap_term__restore_now.
 */
static struct {
	struct termios saved;
	int in_fd, out_fd;
	volatile sig_atomic_t active;
} emergency;

/* the final byte of an SS3 or CSI cursor key; AP_KEY_UNKNOWN: none */
static int cursor_key(unsigned char c)
{
	switch (c) {
	case 'A': return AP_KEY_UP;
	case 'B': return AP_KEY_DOWN;
	case 'C': return AP_KEY_RIGHT;
	case 'D': return AP_KEY_LEFT;
	case 'H': return AP_KEY_HOME;
	case 'F': return AP_KEY_END;
	}
	return AP_KEY_UNKNOWN;
}

int ap_key__decode(const unsigned char *buf, size_t len, size_t *used)
{
	size_t i;

	*used = 0;
	if (!len)
		return AP_KEY_NONE;
	*used = 1;
	if (buf[0] != 0x1b)
		return buf[0] == '\n' ? AP_KEY_ENTER :
		       buf[0] == 0x08 ? AP_KEY_BACKSPACE : buf[0];
	if (len == 1)
		return AP_KEY_ESC;
	if (buf[1] == 'O' && len >= 3) {	/* SS3: application mode */
		*used = 3;
		return cursor_key(buf[2]);
	}
	if (buf[1] != '[') {
		/* ESC then a key: Alt-key, or ESC typed before a key */
		return AP_KEY_ESC;
	}
	/* CSI: parameters 0x30-0x3f, intermediates 0x20-0x2f, final
	 * 0x40-0x7e */
	for (i = 2; i < len && buf[i] >= 0x20 && buf[i] <= 0x3f; i++)
		;
	if (i == len) {
		*used = len;
		return AP_KEY_UNKNOWN;
	}
	*used = i + 1;
	if (buf[i] == '~') {
		switch (i == 3 ? buf[2] : 0) {
		case '1': case '7': return AP_KEY_HOME;
		case '4': case '8': return AP_KEY_END;
		case '5': return AP_KEY_PGUP;
		case '6': return AP_KEY_PGDN;
		}
	}
	return cursor_key(buf[i]);
}

int ap_term__open(struct ap_term **out, int in_fd, int out_fd)
{
	struct ap_term *t;

	*out = NULL;
	if (!isatty(in_fd) || !isatty(out_fd))
		return -ENOTTY;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->in_fd = in_fd;
	t->out_fd = out_fd;
	if (tcgetattr(in_fd, &t->saved)) {
		int err = -errno;

		free(t);
		return err;
	}
	*out = t;
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= w;
	}
	return 0;
}

/* after ap_term__restore_now from a handler (Ctrl-Z), the object still
 * believes it is entered: let ap_term__enter run again */
static void sync_state(struct ap_term *t)
{
	if (t->entered && !emergency.active)
		t->entered = 0;
}

int ap_term__enter(struct ap_term *t)
{
	struct termios raw;

	sync_state(t);
	if (t->entered)
		return 0;
	/* the settings may have changed since open (a shell job control
	 * round trip): save what is there now */
	if (tcgetattr(t->in_fd, &t->saved))
		return -errno;
	raw = t->saved;
	/* no line editing, no echo, no flow control keys, no CR->NL; ISIG
	 * stays so that Ctrl-C, Ctrl-\ and Ctrl-Z are signals, which the
	 * command turns into a clean exit or a suspend */
	raw.c_lflag &= ~(ICANON | ECHO | IEXTEN);
	raw.c_iflag &= ~(IXON | ICRNL | INLCR | IGNCR);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	emergency.saved = t->saved;
	emergency.in_fd = t->in_fd;
	emergency.out_fd = t->out_fd;
	emergency.active = 1;
	if (tcsetattr(t->in_fd, TCSAFLUSH, &raw)) {
		emergency.active = 0;
		return -errno;
	}
	t->entered = 1;
	return write_all(t->out_fd, ENTER_SEQ, sizeof(ENTER_SEQ) - 1);
}

void ap_term__leave(struct ap_term *t)
{
	if (!t)
		return;
	sync_state(t);
	if (!t->entered)
		return;
	emergency.active = 0;
	write_all(t->out_fd, LEAVE_SEQ, sizeof(LEAVE_SEQ) - 1);
	tcsetattr(t->in_fd, TCSAFLUSH, &t->saved);
	t->entered = 0;
	t->nr_pending = 0;
}

void ap_term__restore_now(void)
{
	ssize_t w;

	if (!emergency.active)
		return;
	emergency.active = 0;
	w = write(emergency.out_fd, LEAVE_SEQ, sizeof(LEAVE_SEQ) - 1);
	(void)w;
	tcsetattr(emergency.in_fd, TCSANOW, &emergency.saved);
}

void ap_term__close(struct ap_term *t)
{
	if (!t)
		return;
	ap_term__leave(t);
	free(t);
}

void ap_term__size(struct ap_term *t, int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (!ioctl(t->out_fd, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

int ap_term__key(struct ap_term *t, int timeout_ms)
{
	size_t used;
	int key;

	sync_state(t);
	if (!t->nr_pending) {
		struct pollfd p = { .fd = t->in_fd, .events = POLLIN };
		ssize_t n;
		int r = poll(&p, 1, timeout_ms);

		if (r < 0)
			return -errno;
		if (!r)
			return AP_KEY_NONE;
		n = read(t->in_fd, t->pending, sizeof(t->pending));
		if (n < 0)
			return errno == EAGAIN ? AP_KEY_NONE : -errno;
		if (!n)
			return -EIO;	/* the terminal hung up */
		t->nr_pending = n;
	}
	key = ap_key__decode(t->pending, t->nr_pending, &used);
	memmove(t->pending, t->pending + used, t->nr_pending - used);
	t->nr_pending -= used;
	return key;
}

int ap_term__compose(const struct ap_term_line *lines, int n, int rows,
		     int cols, char **out, size_t *len)
{
	size_t cap = (size_t)rows * (cols + 16) + 64, off = 0;
	char *b = malloc(cap);
	int i, j;

	if (!b)
		return -ENOMEM;
	memcpy(b + off, "\x1b[H", 3);
	off += 3;
	for (i = 0; i < rows && i < n; i++) {
		const struct ap_term_line *l = &lines[i];
		int w = l->len < cols ? l->len : cols;

		if (l->attr == AP_ATTR_REVERSE) {
			memcpy(b + off, "\x1b[7m", 4);
			off += 4;
		} else if (l->attr == AP_ATTR_BOLD) {
			memcpy(b + off, "\x1b[1m", 4);
			off += 4;
		}
		for (j = 0; j < w; j++) {
			unsigned char c = l->s[j];

			b[off++] = c < 0x20 || c == 0x7f ? ' ' : c;
		}
		/* a reversed bar runs the full width */
		if (l->attr == AP_ATTR_REVERSE)
			for (; j < cols; j++)
				b[off++] = ' ';
		if (l->attr != AP_ATTR_NONE) {
			memcpy(b + off, "\x1b[m", 3);
			off += 3;
		}
		memcpy(b + off, "\x1b[K", 3);
		off += 3;
		/* no newline after the last row: it would scroll */
		if (i + 1 < rows) {
			memcpy(b + off, "\r\n", 2);
			off += 2;
		}
	}
	memcpy(b + off, "\x1b[J", 3);
	off += 3;
	*out = b;
	*len = off;
	return 0;
}

int ap_term__draw(struct ap_term *t, const struct ap_term_line *lines,
		  int n)
{
	int rows, cols, err;
	size_t len;
	char *b;

	ap_term__size(t, &rows, &cols);
	err = ap_term__compose(lines, n, rows, cols, &b, &len);
	if (err)
		return err;
	err = write_all(t->out_fd, b, len);
	free(b);
	return err;
}
