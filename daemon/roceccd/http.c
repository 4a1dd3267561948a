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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>
#include <microhttpd.h>

#include "roceccd.h"

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
	ret = MHD_queue_response(conn, code, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result rd_http(void *cls, struct MHD_Connection *conn,
			       const char *url, const char *method,
			       const char *version, const char *upload_data,
			       size_t *upload_data_size, void **con_cls)
{
	struct rd *rd = cls;
	const char *type = "text/plain; charset=utf-8";
	unsigned int code = MHD_HTTP_OK;
	char *buf = NULL;
	size_t len = 0;
	struct rd_snap snap;
	FILE *f;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		f = open_memstream(&buf, &len);
		if (!f)
			return MHD_NO;
		fprintf(f, "only GET\n");
		fclose(f);
		return rd_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, type, buf, len);
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return MHD_NO;
	pthread_mutex_lock(&rd->lock);
	if (rd_snap_take(rd, &snap)) {
		pthread_mutex_unlock(&rd->lock);
		fclose(f);
		free(buf);
		return MHD_NO;
	}
	if (!strcmp(url, "/metrics")) {
		type = "text/plain; version=0.0.4; charset=utf-8";
		rd_metrics(rd, &snap, f);
	} else if (!strcmp(url, "/flows.json")) {
		json_object *arr = json_object_new_array();

		rd_snap_each(rd, &snap, rd_json_flow, arr);
		fprintf(f, "%s\n", json_object_to_json_string_ext(arr,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(arr);
		type = "application/json";
	} else if (!strcmp(url, "/flows")) {
		fprintf(f, "  %-40s %-8s %9s %9s %9s %9s %9s %9s %9s\n", "FLOW",
			"DEV", "MSGS", "MCT_P50", "MCT_P99", "MCT_P999",
			"RTT_P50", "RTT_P99", "RTT_P999");
		rd_snap_each(rd, &snap, rd_text_flow, f);
		fprintf(f, "(microseconds; message completion = first packet to completing ACK; ! straggler)\n");
	} else if (!strcmp(url, "/events.json")) {
		const char *a = MHD_lookup_connection_value(conn,
				MHD_GET_ARGUMENT_KIND, "since");
		uint64_t since = 0, q;
		char *end = NULL;
		bool first = true;

		if (a) {
			errno = 0;
			since = strtoull(a, &end, 10);
		}
		if (a && (!*a || *end || errno)) {
			code = MHD_HTTP_BAD_REQUEST;
			fprintf(f, "since: '%s' is not an event number\n", a);
		} else {
			type = "application/json";
			fprintf(f, "{\"last\":%" PRIu64 ",\"events\":[", rd->ev_seq);
			q = rd->ev_seq > RD_EVENTS ? rd->ev_seq - RD_EVENTS + 1 : 1;
			if (q <= since)
				q = since + 1;
			for (; q <= rd->ev_seq; q++) {
				const struct rd_event *e = &rd->ev[q & (RD_EVENTS - 1)];
				struct tm tm;
				char ts[40];

				gmtime_r(&e->when.tv_sec, &tm);
				strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
				fprintf(f, "%s\n{\"seq\":%" PRIu64 ",\"time\":\"%s.%03ldZ\",\"type\":\"%s\",%s}",
					first ? "" : ",",
					e->seq, ts, e->when.tv_nsec / 1000000,
					e->type, e->text);
				first = false;
			}
			fprintf(f, "\n]}\n");
		}
	} else if (!strcmp(url, "/config")) {
		rd_conf_print(f, &rd->conf);
	} else if (!strcmp(url, "/")) {
		type = "text/html; charset=utf-8";
		fprintf(f, "<html><body><h1>roceccd</h1><ul>"
			   "<li><a href=\"/metrics\">/metrics</a></li>"
			   "<li><a href=\"/flows\">/flows</a></li>"
			   "<li><a href=\"/flows.json\">/flows.json</a></li>"
			   "<li><a href=\"/events.json\">/events.json</a></li>"
			   "<li><a href=\"/config\">/config</a></li>"
			   "</ul></body></html>\n");
	} else {
		code = MHD_HTTP_NOT_FOUND;
		fprintf(f, "not found: %s (try /metrics, /flows, /flows.json, /events.json, /config)\n", url);
	}
	pthread_mutex_unlock(&rd->lock);
	rd_snap_free(&snap);
	fclose(f);
	return rd_reply(conn, code, type, buf, len);
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
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_TIMEOUT, 10u,
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
