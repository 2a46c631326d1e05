/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A table on a terminal: lines cut to its width, so that 1,000-character
 * C++ names do not wrap.  Through a pipe or into a file (width 0)
 * nothing is cut.
 */
#ifndef APERTURE_TTYCUT_H
#define APERTURE_TTYCUT_H

#include <stddef.h>
#include <stdio.h>

struct ap_tty_cut {
	FILE *f;
	char *buf;
	size_t len;
	int width;
};

/* The width to cut to: COLUMNS, else the terminal's; 0 when standard
 * output is no terminal (a pipe, a file) */
int ap_tty_cut__width(void);
/* The stream to print the table to: standard output itself for width 0
 * (or when memory runs out), else one held until ap_tty_cut__close */
FILE *ap_tty_cut__open(struct ap_tty_cut *c, int width);
/* What was held, to standard output, each line cut to the width in
 * characters (UTF-8 continuation bytes count none) */
void ap_tty_cut__close(struct ap_tty_cut *c);

#endif /* APERTURE_TTYCUT_H */
