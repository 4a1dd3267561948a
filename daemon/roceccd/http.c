// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the HTTP server (libmicrohttpd): /metrics, /flows, /flows.json,
 * /events.json and /config, on a socket bound before daemonizing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <microhttpd.h>

#include "roceccd.h"

static const char rd_text[] = "text/plain; charset=utf-8";

static enum MHD_Result rd_reply(struct MHD_Connection *conn, unsigned int code,
				const char *type, char *buf, size_t len)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "Content-Type", type);
	/* what a request names is echoed in plain text: never as HTML */
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, "Allow", "GET, HEAD");
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* What a client sent, for a message: 64 bytes at most, one line. */
static void rd_echo(FILE *f, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i < 64; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
	if (s[i])
		fputs("...", f);
}

struct rd_page {
	unsigned int code;
	const char *type;
};

/*
 * /metrics, /flows.json and /flows: made from a snapshot of the flow
 * table, named from the QP table, under rd->lock. 0 or -ENOMEM.
 */
static int rd_page_flows(struct rd *rd, const char *url, FILE *f,
			 struct rd_page *pg)
{
	struct rd_snap snap;

	pthread_mutex_lock(&rd->lock);
	if (rd_snap_take(rd, &snap)) {
		pthread_mutex_unlock(&rd->lock);
		return -ENOMEM;
	}
	if (!strcmp(url, "/metrics")) {
		pg->type = "text/plain; version=0.0.4; charset=utf-8";
		rd_metrics(rd, &snap, f);
	} else if (!strcmp(url, "/flows.json")) {
		json_object *arr = json_object_new_array();

		rd_snap_each(rd, &snap, rd_json_flow, arr);
		fprintf(f, "%s\n", json_object_to_json_string_ext(arr,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(arr);
		pg->type = "application/json";
	} else {
		fprintf(f, "  %-40s %-8s %9s %9s %9s %9s %9s %9s %9s\n", "FLOW",
			"DEV", "MSGS", "MCT_P50", "MCT_P99", "MCT_P999",
			"RTT_P50", "RTT_P99", "RTT_P999");
		rd_snap_each(rd, &snap, rd_text_flow, f);
		fprintf(f, "(microseconds; message completion = first packet to completing ACK; ! straggler)\n");
	}
	pthread_mutex_unlock(&rd->lock);
	rd_snap_free(&snap);
	return 0;
}

/*
 * /events.json?since=N: the events after N (all the ring holds without
 * it). The lock is held only to copy them. 0 or -ENOMEM.
 */
static int rd_page_events(struct rd *rd, struct MHD_Connection *conn,
			  FILE *f, struct rd_page *pg)
{
	const char *a = MHD_lookup_connection_value(conn,
			MHD_GET_ARGUMENT_KIND, "since");
	uint64_t since = 0, newest, lost;
	struct rd_event *ev;
	size_t n;
	int err;

	err = a ? rd_event_since(a, &since) : 0;
	if (err) {
		pg->code = MHD_HTTP_BAD_REQUEST;
		fputs("since: '", f);
		rd_echo(f, a);
		fprintf(f, "' is not an event number (%s)\n", err == -ERANGE ?
			"above 18446744073709551615" :
			"decimal digits only; 0 for every event held");
		return 0;
	}
	ev = malloc(RD_EVENTS * sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	pthread_mutex_lock(&rd->lock);
	newest = rd->ev_seq;
	n = rd_events_after(rd->ev, newest, since, ev, RD_EVENTS, &lost);
	pthread_mutex_unlock(&rd->lock);
	rd_events_json(f, newest, lost, ev, n);
	rd_events_put(ev, n);
	free(ev);
	pg->type = "application/json";
	return 0;
}

/*
 * A request's first call: refuse what is not a GET or HEAD without a
 * body at once (the connection then closes), else note it and wait for
 * the second call (answering on the first would close the connection:
 * no keep-alive). 0: go on; 1: answered, *@ret is the result.
 */
static int rd_http_first(struct MHD_Connection *conn, const char *method,
			 void **con_cls, enum MHD_Result *ret)
{
	static int seen;
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						     "Content-Length");
	const char *msg = NULL;
	unsigned int code;
	char *buf;

	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		code = MHD_HTTP_METHOD_NOT_ALLOWED;
		msg = "only GET and HEAD\n";
	} else if ((cl && strcmp(cl, "0")) ||
		   MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					       "Transfer-Encoding")) {
		code = MHD_HTTP_BAD_REQUEST;
		msg = "a GET or HEAD has no body\n";
	} else {
		*con_cls = &seen;
		return 0;
	}
	buf = strdup(msg);
	*ret = buf ? rd_reply(conn, code, rd_text, buf, strlen(buf)) : MHD_NO;
	return 1;
}

/* Only what needs the daemon's state takes its lock. */
static enum MHD_Result rd_http(void *cls, struct MHD_Connection *conn,
			       const char *url, const char *method,
			       const char *version, const char *upload_data,
			       size_t *upload_data_size, void **con_cls)
{
	struct rd *rd = cls;
	struct rd_page pg = { MHD_HTTP_OK, rd_text };
	enum MHD_Result ret;
	char *buf = NULL;
	size_t len = 0;
	int err = 0;
	FILE *f;

	(void)version;
	(void)upload_data;
	if (!*con_cls)
		return rd_http_first(conn, method, con_cls, &ret) ? ret : MHD_YES;
	if (*upload_data_size)
		return MHD_NO;		/* a body rd_http_first did not see */
	f = open_memstream(&buf, &len);
	if (!f)
		return MHD_NO;
	if (!strcmp(url, "/metrics") || !strcmp(url, "/flows.json") ||
	    !strcmp(url, "/flows")) {
		err = rd_page_flows(rd, url, f, &pg);
	} else if (!strcmp(url, "/events.json")) {
		err = rd_page_events(rd, conn, f, &pg);
	} else if (!strcmp(url, "/config")) {
		pthread_mutex_lock(&rd->lock);
		rd_conf_print(f, &rd->conf);
		pthread_mutex_unlock(&rd->lock);
	} else if (!strcmp(url, "/")) {
		pg.type = "text/html; charset=utf-8";
		fprintf(f, "<html><body><h1>roceccd</h1><ul>"
			   "<li><a href=\"/metrics\">/metrics</a></li>"
			   "<li><a href=\"/flows\">/flows</a></li>"
			   "<li><a href=\"/flows.json\">/flows.json</a></li>"
			   "<li><a href=\"/events.json\">/events.json</a></li>"
			   "<li><a href=\"/config\">/config</a></li>"
			   "</ul></body></html>\n");
	} else {
		pg.code = MHD_HTTP_NOT_FOUND;
		fputs("not found: ", f);
		rd_echo(f, url);
		fputs(" (try /metrics, /flows, /flows.json, /events.json, /config)\n", f);
	}
	if (fclose(f) || err) {
		free(buf);
		return MHD_NO;
	}
	return rd_reply(conn, pg.code, pg.type, buf, len);
}

/*
 * A listening socket on @addr:@port, made before daemonizing (so that a
 * bad address or a port in use is reported on stderr with exit status 1)
 * or before a reload replaces the old one; libmicrohttpd's thread is
 * started on it later. The fd, or -errno.
 */
int rd_listen(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	socklen_t slen;
	int fd, one = 1, err;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		slen = sizeof(*s4);
	} else if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		slen = sizeof(*s6);
	} else {
		rd_log(LOG_ERR_, "listen: '%s' is not an IPv4 or IPv6 address",
		       addr);
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = -errno;
		rd_log(LOG_ERR_, "socket: %s", strerror(errno));
		return err;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, slen) || listen(fd, 64)) {
		err = -errno;
		rd_log(LOG_ERR_, "cannot listen on %s port %u: %s", addr, port,
		       strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}

/*
 * The server's limits. Prometheus scrapes over one connection, rocecc top
 * and latency hold one each: 64 at once, 16 from one address (so that one
 * client cannot take them all), each closed after 10 s without a byte
 * either way (one that trickles a byte every few seconds keeps its
 * connection: the per-address limit bounds how many it can hold), a
 * request's line and headers within 32 KiB (else 414 or 431).
 */
#define RD_HTTP_MAX_CONN	64u
#define RD_HTTP_MAX_PER_IP	16u
#define RD_HTTP_TIMEOUT_S	10u
#define RD_HTTP_MEM		((size_t)32 * 1024)

/* libmicrohttpd's messages, about what clients sent: debug only */
static void rd_http_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	(void)cls;
	if (rd_log_max < LOG_DEBUG_)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	rd_log(LOG_DEBUG_, "http: %s", msg);
}

/* libmicrohttpd on listening socket @fd (taken over, closed on failure). */
struct MHD_Daemon *rd_http_start(struct rd *rd, int fd,
				 const char *addr, uint16_t port)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	bool v6 = strchr(addr, ':') != NULL;
	struct MHD_Daemon *d;

	if (v6)
		flags |= MHD_USE_IPv6;
	d = MHD_start_daemon(flags, 0, NULL, NULL, rd_http, rd,
			     MHD_OPTION_EXTERNAL_LOGGER, rd_http_log, NULL,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, RD_HTTP_MAX_CONN,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, RD_HTTP_MAX_PER_IP,
			     MHD_OPTION_CONNECTION_TIMEOUT, RD_HTTP_TIMEOUT_S,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, RD_HTTP_MEM,
			     MHD_OPTION_END);
	if (!d) {
		rd_log(LOG_ERR_, "cannot start the HTTP server on %s port %u",
		       addr, port);
		close(fd);
		return NULL;
	}
	rd_log(LOG_INFO_, "metrics on http://%s%s%s:%u/metrics", v6 ? "[" : "",
	       addr, v6 ? "]" : "", port);
	return d;
}
