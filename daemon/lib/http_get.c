// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP GET with libcurl, for rocecc latency, top and doctor. See http_get.h.
 *
 * libcurl is opened on the first GET (dlopen), not linked: linked, it and
 * the ~30 libraries it needs (TLS, Kerberos, LDAP, ...) would be loaded and
 * relocated by every rocecc command, most of which fetch nothing. That
 * costs 0.2 s a start under QEMU TCG, where the VM tests run rocecc
 * hundreds of times.
 */
#include <dlfcn.h>
#include <stdbool.h>
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

/* What http_get() calls of libcurl. */
struct curl_api {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *curl);
	const char *(*easy_strerror)(CURLcode rc);
};

#define CURL_SONAME	"libcurl.so.4"

/*
 * The libcurl functions, looked up once; the library stays open until the
 * process exits (top fetches every interval). NULL with the reason in @msg.
 */
static const struct curl_api *curl_api(char *msg, size_t msglen)
{
	static struct curl_api api;
	static bool done;
	void *h;

	if (done)
		return &api;
	h = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(msg, msglen, "cannot open libcurl: %s", dlerror());
		return NULL;
	}
	/* POSIX's way to turn dlsym()'s void * into a function pointer */
	*(void **)&api.easy_init = dlsym(h, "curl_easy_init");
	*(void **)&api.easy_setopt = dlsym(h, "curl_easy_setopt");
	*(void **)&api.easy_perform = dlsym(h, "curl_easy_perform");
	*(void **)&api.easy_getinfo = dlsym(h, "curl_easy_getinfo");
	*(void **)&api.easy_cleanup = dlsym(h, "curl_easy_cleanup");
	*(void **)&api.easy_strerror = dlsym(h, "curl_easy_strerror");
	if (!api.easy_init || !api.easy_setopt || !api.easy_perform ||
	    !api.easy_getinfo || !api.easy_cleanup || !api.easy_strerror) {
		snprintf(msg, msglen, "%s lacks a curl_easy_ function", CURL_SONAME);
		dlclose(h);
		return NULL;
	}
	done = true;
	return &api;
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
	const struct curl_api *c;
	CURLcode rc;
	CURL *curl;

	c = curl_api(msg, msglen);
	if (!c)
		return -1;
	curl = c->easy_init();
	if (!curl) {
		snprintf(msg, msglen, "libcurl failed to start");
		return -1;
	}
	c->easy_setopt(curl, CURLOPT_URL, url);
	c->easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http");
	c->easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
	c->easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	c->easy_setopt(curl, CURLOPT_ERRORBUFFER, err);
	c->easy_setopt(curl, CURLOPT_WRITEFUNCTION, http_write);
	c->easy_setopt(curl, CURLOPT_WRITEDATA, &b);
	rc = c->easy_perform(curl);
	if (rc != CURLE_OK) {
		snprintf(msg, msglen, "%s: %s%s", url,
			 err[0] ? err : c->easy_strerror(rc),
			 rc == CURLE_COULDNT_CONNECT ? " (is roceccd running?)" : "");
		c->easy_cleanup(curl);
		free(b.p);
		return -1;
	}
	c->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	c->easy_cleanup(curl);
	*out = b.p ? b.p : strdup("");
	if (!*out) {
		snprintf(msg, msglen, "%s: out of memory", url);
		return -1;
	}
	return 0;
}
