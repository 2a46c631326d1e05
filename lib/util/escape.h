/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names in a recording come from other users: thread names, file paths,
 * symbols, GPU kernel names.  Printed raw, an ESC sequence in one drives
 * the reader's terminal and a newline forges a line of folded output.
 * Tables and folded lines print them escaped (JSON has its own escaping).
 */
#ifndef APERTURE_ESCAPE_H
#define APERTURE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* folded frames: ';' separates frames, so it becomes ':' (as
 * stackcollapse-perf.pl does) */
#define AP_ESC_FOLDED	(1 << 0)

/* 1 if s holds nothing that ap_escape would change (valid UTF-8 too) */
int ap_escape_clean(const char *s, int flags);
/* Copies src into dst (len bytes, NUL-terminated) with control
 * characters as \xNN and each byte that starts no UTF-8 character as
 * U+FFFD; returns the length it needs, as snprintf does (a character cut
 * by len may be left half: len of the length it needs is always whole). */
size_t ap_escape(char *dst, size_t len, const char *src, int flags);
/* A stream that writes to out with every control character but newline
 * and tab escaped: for tables, whose rows are printed with printf.
 * Closing it flushes into out and leaves out open.  NULL on failure. */
FILE *ap_escape_stream(FILE *out);

#endif /* APERTURE_ESCAPE_H */
