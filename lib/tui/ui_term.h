/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A full-screen terminal for aperture top without a curses dependency:
 * termios raw mode (keeping ISIG, so that Ctrl-C and Ctrl-Z stay signals),
 * the alternate screen and cursor control through ANSI escapes, which
 * every terminal emulator in use understands, and key decoding.
 *
 * The terminal is always given back: ap_term__leave on the normal path,
 * and ap_term__restore_now (async-signal-safe) from signal handlers and
 * atexit, for fatal signals, Ctrl-Z and exit() from anywhere.
 */
#ifndef APERTURE_UI_TERM_H
#define APERTURE_UI_TERM_H

#include <stddef.h>

struct ap_term;

/* keys beyond the bytes a key sends */
#define AP_KEY_NONE	0
#define AP_KEY_ESC	0x1b
#define AP_KEY_ENTER	'\r'
#define AP_KEY_BACKSPACE 0x7f
#define AP_KEY_UP	0x101
#define AP_KEY_DOWN	0x102
#define AP_KEY_LEFT	0x103
#define AP_KEY_RIGHT	0x104
#define AP_KEY_PGUP	0x105
#define AP_KEY_PGDN	0x106
#define AP_KEY_HOME	0x107
#define AP_KEY_END	0x108
#define AP_KEY_UNKNOWN	0x1ff		/* a sequence we ignore */

/*
 * Decodes the first key in buf[len]: returns it (a byte, or AP_KEY_*) and
 * sets *used to the bytes it took.  A lone ESC is AP_KEY_ESC; an unknown
 * or cut sequence is AP_KEY_UNKNOWN and is consumed whole.  len 0 returns
 * AP_KEY_NONE.
 */
int ap_key__decode(const unsigned char *buf, size_t len, size_t *used);

/* Opens the terminal on in_fd/out_fd (both must be terminals): -ENOTTY
 * otherwise.  Does not change it yet. */
int ap_term__open(struct ap_term **out, int in_fd, int out_fd);
/* Raw mode, alternate screen, hidden cursor.  0 or -errno. */
int ap_term__enter(struct ap_term *t);
/* Gives the terminal back as it was; idempotent. */
void ap_term__leave(struct ap_term *t);
/* ap_term__leave for signal handlers and atexit: only tcsetattr and
 * write.  Does nothing when no terminal is entered. */
void ap_term__restore_now(void);
void ap_term__close(struct ap_term *t);

/* rows and columns; 24x80 when the terminal does not say */
void ap_term__size(struct ap_term *t, int *rows, int *cols);
/* the next key, waiting up to timeout_ms (0: only what is there);
 * AP_KEY_NONE on timeout, -EINTR when a signal came, or -errno */
int ap_term__key(struct ap_term *t, int timeout_ms);

#define AP_ATTR_NONE	0
#define AP_ATTR_REVERSE	1		/* column header, status bar */
#define AP_ATTR_BOLD	2

struct ap_term_line {
	const char *s;
	int len;
	int attr;			/* AP_ATTR_* */
};

/*
 * Redraws the whole screen in one write: line i on row i, cut to the
 * width (control characters shown as spaces), the rest of each row and
 * the rows below cleared.  0 or -errno.
 */
int ap_term__draw(struct ap_term *t, const struct ap_term_line *lines,
		  int n);

/* Composes what ap_term__draw writes into a malloc'd buffer: for tests */
int ap_term__compose(const struct ap_term_line *lines, int n, int rows,
		     int cols, char **out, size_t *len);

#endif /* APERTURE_UI_TERM_H */
