/* SPDX-License-Identifier: GPL-2.0 */
/* The pyframe frames of a file, by id, for the symbolizer (names.c). */
#ifndef APERTURE_PYNAMES_H
#define APERTURE_PYNAMES_H

#include <stdint.h>

#include "format/format.h"

struct ap_pynames;
struct ap_sym_loc;

struct ap_pynames *ap_pynames__new(void);
void ap_pynames__free(struct ap_pynames *t);
/* a pyframe frame; the first of an id stays.  0 or -errno */
int ap_pynames__add(struct ap_pynames *t, const struct ap_pyframe *f);
/* the location of a frame ap_pyframe_ip says is Python's, at ip or
 * ip - 1: its function, file and line; an unknown one when the file did
 * not name it */
const struct ap_sym_loc *ap_pynames__loc(const struct ap_pynames *t,
					 uint64_t ip);

#endif /* APERTURE_PYNAMES_H */
