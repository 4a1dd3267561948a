// SPDX-License-Identifier: GPL-2.0
/* The clock and the output files of the benchmark suites (suite.h). */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "suite.h"

double suite_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

FILE *suite_create(const char *prog, const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
	return f;
}
