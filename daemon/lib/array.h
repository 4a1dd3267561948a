/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way arrays grow in the daemon and the CLI. Pure logic; its
 * callers' unit tests exercise it.
 */
#ifndef _ROCECC_LIB_ARRAY_H
#define _ROCECC_LIB_ARRAY_H

#include <stdint.h>
#include <stdlib.h>

/*
 * Room for @need elements of @size bytes in the array @p that has room for
 * *@cap: @p itself if it has, else @p reallocated to twice its room (at
 * least @need, and 16 elements to begin with) and *@cap updated. NULL if
 * the memory is not there or the size does not fit a size_t; @p and *@cap
 * are then as they were.
 */
static inline void *array_grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	if (!size || n > SIZE_MAX / size)
		return NULL;
	q = realloc(p, n * size);
	if (!q)
		return NULL;
	*cap = n;
	return q;
}

#endif /* _ROCECC_LIB_ARRAY_H */
