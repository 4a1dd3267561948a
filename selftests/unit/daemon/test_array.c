// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of array_grow() (daemon/lib/array.h), the daemon's and the
 * CLI's one way to grow an array.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "tap.h"

int main(void)
{
	size_t cap = 0, i;
	int *a = NULL, *p;

	p = array_grow(a, &cap, 1, sizeof(*a));
	tap_ok(p && cap == 16, "from nothing: room for 16");
	a = p;
	tap_ok(array_grow(a, &cap, 16, sizeof(*a)) == a && cap == 16,
	       "enough room: the same array");
	for (i = 0; i < 16; i++)
		a[i] = (int)i;
	p = array_grow(a, &cap, 17, sizeof(*a));
	tap_ok(p && cap == 32, "one more: twice the room");
	a = p;
	tap_ok(a[15] == 15 && a[0] == 0, "  the elements are kept");
	p = array_grow(a, &cap, 1000, sizeof(*a));
	tap_ok(p && cap == 1024, "far more: doubled until it fits (1024)");
	a = p;
	p = array_grow(a, &cap, SIZE_MAX / 2, sizeof(*a));
	tap_ok(!p && cap == 1024, "a size that does not fit: NULL, room as it was");
	p = array_grow(a, &cap, SIZE_MAX, 1);
	tap_ok(!p && cap == 1024, "more than SIZE_MAX / 2 elements: NULL");
	free(a);
	return tap_done();
}
