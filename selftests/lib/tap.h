/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for rocecc's userspace unit tests (the kernel
 * selftests' protocol, consumed by prove). Each assertion is one test point;
 * the plan is printed at the end.
 */
#ifndef _ROCECC_TAP_H
#define _ROCECC_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned int tap_n, tap_failed;

static inline void tap_diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
}

static inline int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %u - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	return cond;
}

/* Compare two unsigned integers and show both on failure. */
#define tap_eq(got, want, ...)						\
	({								\
		unsigned long long __g = (got), __w = (want);		\
		int __r = tap_ok(__g == __w, __VA_ARGS__);		\
		if (!__r)						\
			tap_diag("got %llu, want %llu", __g, __w);	\
		__r;							\
	})

static inline int tap_done(void)
{
	printf("1..%u\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* _ROCECC_TAP_H */
