// SPDX-License-Identifier: GPL-2.0
/* Growable arrays: the doubling append step the tables share. */
#include "util/vec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ap_grow(void **arr, size_t *cap, size_t nr, size_t size, size_t first)
{
	size_t ncap;
	void *n;

	if (nr < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	n = realloc(*arr, ncap * size);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

void *ap_sorted_copy(const void *arr, size_t nr, size_t size,
		     int (*cmp)(const void *, const void *))
{
	void *copy = malloc((nr ? nr : 1) * size);

	if (!copy)
		return NULL;
	if (nr)
		memcpy(copy, arr, nr * size);
	ap_sort(copy, nr, size, cmp);
	return copy;
}
