/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for rocecc's userspace tests (the kernel selftests'
 * protocol, consumed by prove): every C test of selftests/unit/ and
 * selftests/bpf/ includes it. Each assertion is one test point; the plan is
 * printed at the end.
 */
#ifndef _ROCECC_TAP_H
#define _ROCECC_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned int tap_n, tap_failed;

/* One line: @prefix, then @fmt. */
static inline void tap_vline(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static inline void tap_vline(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
}

/* A diagnostic line: "# ..." */
static inline void tap_diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("# ", fmt, ap);
	va_end(ap);
}

static inline int tap_vok(int cond, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static inline int tap_vok(int cond, const char *fmt, va_list ap)
{
	tap_n++;
	if (!cond)
		tap_failed++;
	printf("%sok %u - ", cond ? "" : "not ", tap_n);
	tap_vline("", fmt, ap);
	fflush(stdout);
	return cond;
}

/* One test point: "ok N - NAME" if @cond, else "not ok N - NAME". */
static inline int tap_ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

/*
 * Compare two strings and show both on failure ("got  'x'", "want 'y'").
 * Either may be NULL: two NULLs are equal, NULL and a string are not, and
 * NULL is shown as NULL.
 */
static inline int tap_is_str(const char *got, const char *want,
			     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int tap_is_str(const char *got, const char *want,
			     const char *fmt, ...)
{
	int same = got && want ? !strcmp(got, want) : got == want;
	va_list ap;

	va_start(ap, fmt);
	tap_vok(same, fmt, ap);
	va_end(ap);
	if (!same)
		tap_diag("got  %s%s%s\n# want %s%s%s", got ? "'" : "",
			 got ? got : "NULL", got ? "'" : "", want ? "'" : "",
			 want ? want : "NULL", want ? "'" : "");
	return same;
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

/* The whole program skips: the plan "1..0 # SKIP why", nothing else. */
static inline int tap_skip_all(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline int tap_skip_all(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("1..0 # SKIP ", fmt, ap);
	va_end(ap);
	return 0;
}

/* The plan, after the last point; the exit status: 1 if any failed. */
static inline int tap_done(void)
{
	printf("1..%u\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* _ROCECC_TAP_H */
