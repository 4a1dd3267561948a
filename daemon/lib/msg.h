/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages into a caller's buffer, the way the libraries here answer
 * what went wrong ("err", "msg" and its length).
 */
#ifndef _ROCECC_LIB_MSG_H
#define _ROCECC_LIB_MSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* printf @fmt into @buf of @n bytes; nothing if there is no room at all. */
static inline void __attribute__((format(printf, 3, 4)))
msgf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, n, fmt, ap);
	va_end(ap);
}

#endif /* _ROCECC_LIB_MSG_H */
