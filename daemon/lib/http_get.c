// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP GET with libcurl, for rocecc latency and rocecc top. See http_get.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "array.h"
#include "http_get.h"

/* The largest reply taken: far above any roceccd /flows.json. */
#define HTTP_GET_MAX		(64u << 20)

struct http_buf {
	char *p;
	size_t len, cap;
};

static size_t http_write(char *data, size_t size, size_t n, void *arg)
{
	struct http_buf *b = arg;
	size_t add = size * n;
	char *p;

	if (b->len + add + 1 > HTTP_GET_MAX)
		return 0;			/* curl fails the transfer */
	p = array_grow(b->p, &b->cap, b->len + add + 1, 1);
	if (!p)
		return 0;
	memcpy(p + b->len, data, add);
	b->len += add;
	p[b->len] = '\0';
	b->p = p;
	return add;
}

void http_url(char *buf, size_t n, const char *addr, const char *port,
	      const char *path)
{
	snprintf(buf, n, strchr(addr, ':') ? "http://[%s]:%s%s" :
		 "http://%s:%s%s", addr, port, path);
}

int http_get(const char *url, char **out, long *status, char *msg,
	     size_t msglen)
{
	struct http_buf b = { 0 };
	char err[CURL_ERROR_SIZE] = "";
	CURLcode rc;
	CURL *curl;

	curl = curl_easy_init();
	if (!curl) {
		snprintf(msg, msglen, "libcurl failed to start");
		return -1;
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, err);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, http_write);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
	rc = curl_easy_perform(curl);
	if (rc != CURLE_OK) {
		snprintf(msg, msglen, "%s: %s%s", url,
			 err[0] ? err : curl_easy_strerror(rc),
			 rc == CURLE_COULDNT_CONNECT ? " (is roceccd running?)" : "");
		curl_easy_cleanup(curl);
		free(b.p);
		return -1;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(curl);
	*out = b.p ? b.p : strdup("");
	if (!*out) {
		snprintf(msg, msglen, "%s: out of memory", url);
		return -1;
	}
	return 0;
}
