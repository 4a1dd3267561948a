/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two benchmark suites (dcqcn_sim --suite, dcqcn_fluid --suite)
 * share: the wall clock and their output files.
 */
#ifndef _SUITE_H
#define _SUITE_H

#include <stdio.h>

/* CLOCK_MONOTONIC in seconds. */
double suite_now(void);

/*
 * Create DIR/NAME for writing; NULL with a message naming @prog and the
 * path if it cannot be.
 */
FILE *suite_create(const char *prog, const char *dir, const char *name);

#endif /* _SUITE_H */
