/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP client of "rocecc latency" and "rocecc top", which fetch
 * roceccd's /flows.json (top every interval). libcurl.
 */
#ifndef _ROCECC_LIB_HTTP_GET_H
#define _ROCECC_LIB_HTTP_GET_H

#include <stddef.h>

/* "http://ADDR:PORT/PATH" into @buf (IPv6 addresses in brackets). */
void http_url(char *buf, size_t n, const char *addr, const char *port,
	      const char *path);

/*
 * GET @url (10 s timeout) into a malloc'ed, NUL-terminated buffer *@out;
 * the HTTP status in *@status. 0, or -1 with the reason in @msg ("URL:
 * curl's error", plus " (is roceccd running?)" when the connection was
 * refused), without the "rocecc: CMD: " prefix: the caller prints it, or
 * shows it (top's interactive header). @msg of 1024 bytes holds any.
 */
int http_get(const char *url, char **out, long *status, char *msg,
	     size_t msglen);

#endif /* _ROCECC_LIB_HTTP_GET_H */
