/* SPDX-License-Identifier: GPL-2.0 */
/* Growable arrays: the doubling append step the tables share. */
#ifndef APERTURE_VEC_H
#define APERTURE_VEC_H

#include <stddef.h>
#include <stdlib.h>

/*
 * Make room for element nr of *arr, an array of *cap elements of size
 * bytes: when full, double it (first elements when empty).  0, or -ENOMEM
 * with *arr and *cap unchanged.
 */
int ap_grow(void **arr, size_t *cap, size_t nr, size_t size, size_t first);

/* qsort(3) for arrays that may be empty and NULL (qsort must not be
 * given NULL, even with no elements) */
static inline void ap_sort(void *base, size_t nr, size_t size,
			   int (*cmp)(const void *, const void *))
{
	if (nr > 1)
		qsort(base, nr, size, cmp);
}

/* a sorted copy of the nr elements of arr (a table whose indexes point
 * into arr keeps its order); NULL: no memory.  Not NULL for nr 0 */
void *ap_sorted_copy(const void *arr, size_t nr, size_t size,
		     int (*cmp)(const void *, const void *));

#endif /* APERTURE_VEC_H */
