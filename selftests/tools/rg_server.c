// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen server: owns the target buffer (write) or the receive queues
 * (send) of each client's QPs and counts what arrives. One session per
 * client connection; several sessions run concurrently in forked children.
 * Each session's report is one JSON line (JSON Lines), written with a
 * single write() so that concurrent sessions never interleave.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rocegen.h"

static int g_server_json_fd = -1;

/*
 * Wait for a completion (@cq_busy: one may come), the TCP socket, a signal,
 * or @until. Returns -1 on error, else a bitmask: 1 TCP readable.
 * In event mode an unarmed CQ is armed and we return at once, so that the
 * caller polls once more before sleeping (no lost completion).
 */
static int server_wait(struct rg_run *r, bool cq_busy, uint64_t until)
{
	const struct rg_opts *o = r->o;
	struct pollfd p[2];
	struct timespec ts, *tsp = NULL;
	uint64_t now = rg_now(), span = UINT64_MAX;
	int n = 0, tcp_i = -1, ch_i = -1, k;

	if (o->wait == RG_WAIT_EVENT && r->dev.ch && !r->dev.armed)
		return rg_cq_arm(&r->dev) ? -1 : 0;
	if (until != UINT64_MAX)
		span = until > now ? until - now : 0;
	if (cq_busy && o->wait == RG_WAIT_SLEEP &&
	    span > (uint64_t)o->sleep_us * 1000)
		span = (uint64_t)o->sleep_us * 1000;
	if (cq_busy && o->wait == RG_WAIT_SPIN)
		span = 0;
	if (span != UINT64_MAX) {
		ts_from_ns(&ts, span);
		tsp = &ts;
	}
	if (r->tcp.fd >= 0) {
		p[n].fd = r->tcp.fd;
		p[n].events = POLLIN;
		tcp_i = n++;
	}
	if (o->wait == RG_WAIT_EVENT && r->dev.ch) {
		p[n].fd = r->dev.ch->fd;
		p[n].events = POLLIN;
		ch_i = n++;
	}
	r->waits++;
	k = ppoll(p, (nfds_t)n, tsp, &g_origmask);
	if (k < 0) {
		if (errno == EINTR)
			return 0;
		rg_err("poll: %s", strerror(errno));
		return -1;
	}
	if (ch_i >= 0 && (p[ch_i].revents & POLLIN)) {
		k = rg_cq_consume_event(&r->dev);
		if (k < 0)
			return -1;
		r->cq_events += (uint64_t)k;
	}
	return tcp_i >= 0 && (p[tcp_i].revents & (POLLIN | POLLHUP | POLLERR))
	       ? 1 : 0;
}

static int server_post_recv(struct rg_run *r, struct rg_flow *f)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->dev.buf,
		.length = (uint32_t)r->size,
		.lkey = r->dev.mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = f->idx,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int e = ibv_post_recv(f->qp, &wr, &bad);

	if (e) {
		char what[128];

		snprintf(what, sizeof(what), "ibv_post_recv: %s", strerror(e));
		flow_error(r, f, RG_POST_FAILED, what);
		return -1;
	}
	f->outstanding++;
	return 0;
}

static int server_poll(struct rg_run *r, bool closing)
{
	struct ibv_wc wc[32];
	int n, i, total = 0;

	do {
		n = ibv_poll_cq(r->dev.cq, 32, wc);
		r->cq_polls++;
		if (n < 0) {
			rg_err("%s: ibv_poll_cq failed", r->dev.name);
			return -1;
		}
		for (i = 0; i < n; i++) {
			struct rg_flow *f;

			if (wc[i].wr_id >= r->nflows)
				continue;
			f = &r->flows[wc[i].wr_id];
			f->outstanding--;
			if (wc[i].status == IBV_WC_SUCCESS) {
				f->completed++;
				f->bytes += wc[i].byte_len;
				if (!f->dead)
					server_post_recv(r, f);
			} else if (!(closing &&
				     wc[i].status == IBV_WC_WR_FLUSH_ERR)) {
				char what[160];

				snprintf(what, sizeof(what),
					 "receive completion error: %s (vendor error %#x)",
					 ibv_wc_status_str(wc[i].status),
					 wc[i].vendor_err);
				flow_error(r, f, wc[i].status, what);
			}
		}
		total += n;
	} while (n == 32);
	if (!total)
		r->empty_polls++;
	return total;
}

static int server_setup(struct rg_run *r, const char *hello)
{
	const struct rg_opts *o = r->o;
	char op[16], line[512], hex[33];
	unsigned int proto, qps, depth, mtu, i, idx, qpn, psn;
	unsigned long long size;
	enum ibv_mtu m;
	int k;

	if (sscanf(hello, "ROCEGEN %u op=%15s size=%llu qps=%u depth=%u mtu=%u",
		   &proto, op, &size, &qps, &depth, &mtu) != 6) {
		rg_err("client %s: not a rocegen hello: '%.60s'", r->peer, hello);
		return -1;
	}
	if (proto != RG_PROTO) {
		rg_err("client %s speaks protocol %u, this server %u",
		       r->peer, proto, RG_PROTO);
		return -1;
	}
	if (!strcmp(op, "write")) {
		r->op = RG_OP_WRITE;
	} else if (!strcmp(op, "send")) {
		r->op = RG_OP_SEND;
	} else {
		rg_err("client %s: unknown operation '%s'", r->peer, op);
		return -1;
	}
	if (!size || size > RG_MAX_SIZE || !qps || qps > RG_MAX_QPS ||
	    !depth || depth > RG_MAX_DEPTH || !rg_mtu_from_bytes(mtu)) {
		rg_err("client %s: parameters out of range: '%.80s'", r->peer,
		       hello);
		return -1;
	}
	r->size = size;
	r->nflows = qps;
	r->depth = depth;
	m = o->mtu ? rg_mtu_from_bytes(o->mtu) : r->dev.active_mtu;
	r->mtu = rg_mtu_from_bytes(mtu) < m ? rg_mtu_from_bytes(mtu) : m;
	r->rq_depth = r->op == RG_OP_SEND ? 2 * depth + 8 : 1;
	if ((int)r->rq_depth > r->dev.attr.max_qp_wr)
		r->rq_depth = (unsigned int)r->dev.attr.max_qp_wr;

	if (rg_dev_cq(&r->dev, (int)(qps * r->rq_depth)) ||
	    rg_dev_buf(&r->dev, size, IBV_ACCESS_LOCAL_WRITE |
		       IBV_ACCESS_REMOTE_WRITE))
		return -1;
	r->flows = flows_alloc(qps, 1, NULL);
	if (!r->flows)
		return -1;
	for (i = 0; i < qps; i++) {
		r->flows[i].qp = rg_qp_create(&r->dev, 1, r->rq_depth);
		if (!r->flows[i].qp)
			return -1;
	}
	for (i = 0; i < qps; i++) {
		struct rg_flow *f;

		k = tcp_getline(&r->tcp, line, sizeof(line), 30000, 1);
		if (k <= 0) {
			if (!k)
				rg_err("client %s closed the connection during setup",
				       r->peer);
			return -1;
		}
		if (sscanf(line, "QP %u %u %u %32s", &idx, &qpn, &psn, hex) != 4
		    || idx >= qps) {
			rg_err("client %s: bad QP line '%.80s'", r->peer, line);
			return -1;
		}
		f = &r->flows[idx];
		if (rg_gid_from_hex(hex, &f->rgid)) {
			rg_err("client %s: bad GID '%s'", r->peer, hex);
			return -1;
		}
		f->rqpn = qpn;
		f->rpsn = psn;
	}
	for (i = 0; i < qps; i++) {
		struct rg_flow *f = &r->flows[i];
		struct rg_conn_attr a = rg_conn_attr_of(r, f);
		unsigned int j;

		if (rg_qp_connect(&r->dev, f->qp, &a))
			return -1;
		if (r->op == RG_OP_SEND)
			for (j = 0; j < r->rq_depth; j++)
				if (server_post_recv(r, f))
					return -1;
	}
	if (tcp_printf(&r->tcp, "OK mtu=%u\n", rg_mtu_bytes(r->mtu)))
		return -1;
	rg_gid_to_hex(&r->dev.gid, hex);
	for (i = 0; i < qps; i++)
		if (tcp_printf(&r->tcp, "QP %u %u %u %s %u %llx\n", i,
			       r->flows[i].qp->qp_num, r->flows[i].psn, hex,
			       r->dev.mr->rkey,
			       (unsigned long long)(uintptr_t)r->dev.buf))
			return -1;
	return 0;
}

static struct json_object *server_json(const struct rg_run *r)
{
	struct json_object *root = json_object_new_object();
	struct json_object *qps = json_object_new_array();
	uint64_t tm = 0, tb = 0, te = 0;
	char g[INET6_ADDRSTRLEN];
	unsigned int i;

	jadd_str(root, "tool", RG_NAME);
	jadd_int(root, "version", RG_PROTO);
	jadd_str(root, "role", "server");
	jadd_str(root, "peer", r->peer);
	jadd_str(root, "dev", r->dev.name);
	rg_gid_to_str(&r->dev.gid, g, sizeof(g));
	jadd_str(root, "gid", g);
	jadd_str(root, "op", rg_op_names[r->op]);
	jadd_int(root, "size", r->size);
	jadd_int(root, "mtu", rg_mtu_bytes(r->mtu));
	json_object_object_add(root, "start_time",
		jdouble(r->start_real.tv_sec + r->start_real.tv_nsec / 1e9));
	json_object_object_add(root, "elapsed_s",
		jdouble(r->t_stop > r->t_start ?
			(r->t_stop - r->t_start) / 1e9 : 0));
	jadd_str(root, "result", r->failure ? r->failure : "ok");
	json_object_object_add(root, "loop", jloop(r));
	if (r->dev.ctx)
		json_object_object_add(root, "hw_counters", jhwc(&r->dev));
	for (i = 0; r->flows && i < r->nflows; i++) {
		const struct rg_flow *f = &r->flows[i];

		json_object_array_add(qps, jflow_counts(f, i));
		tm += f->completed;
		tb += f->bytes;
		te += f->errors;
	}
	json_object_object_add(root, "qps", qps);
	{
		struct json_object *t = json_object_new_object();

		jadd_int(t, "messages", tm);
		jadd_int(t, "bytes", tb);
		jadd_int(t, "errors", te);
		json_object_object_add(root, "total", t);
	}
	return root;
}

/* Serve one connected client; returns the session's exit status. */
static int serve(const struct rg_opts *o, int fd, const struct sockaddr *sa)
{
	struct rg_run r;
	char line[512];
	bool done = false;
	unsigned int i;
	int k, rc = 1;

	memset(&r, 0, sizeof(r));
	r.o = o;
	tcp_init(&r.tcp, fd);
	addr_str(sa, r.peer, sizeof(r.peer));
	r.t_start = rg_now();
	clock_gettime(CLOCK_REALTIME, &r.start_real);

	if (rg_dev_open(&r.dev, o->dev, o->ib_port, o->gid_index)) {
		tcp_printf(&r.tcp, "ERR server: %s\n", g_lasterr);
		r.failure = "setup";
		goto out;
	}
	rg_hwc_read(&r.dev, &r.dev.hwc_start);
	k = tcp_getline(&r.tcp, line, sizeof(line), 30000, 1);
	if (k <= 0) {
		if (!k)
			rg_err("client %s closed the connection", r.peer);
		r.failure = "setup";
		goto out;
	}
	if (server_setup(&r, line)) {
		tcp_printf(&r.tcp, "ERR server: %s\n", g_lasterr);
		r.failure = "setup";
		goto out;
	}
	if (!o->quiet)
		fprintf(stderr, RG_NAME ": serving %s: %s %llu B on %u QPs\n",
			r.peer, rg_op_names[r.op], (unsigned long long)r.size,
			r.nflows);
	while (!done) {
		k = server_poll(&r, false);
		if (k < 0)
			goto out;
		if (k > 0)
			continue;
		if (g_stop) {
			rg_err("interrupted while serving %s", r.peer);
			r.failure = "interrupted";
			break;
		}
		k = server_wait(&r, r.op == RG_OP_SEND, UINT64_MAX);
		if (k < 0)
			goto out;
		if (!(k & 1))
			continue;
		k = tcp_fill(&r.tcp);
		if (k <= 0) {
			rg_err("client %s closed the connection before DONE",
			       r.peer);
			r.failure = "client gone";
			break;
		}
		while (tcp_take_line(&r.tcp, line, sizeof(line))) {
			if (!strcmp(line, "DONE")) {
				done = true;
				break;
			}
			rg_warn("client %s said '%.60s'", r.peer, line);
		}
	}
	r.t_stop = rg_now();
	if (server_poll(&r, true) < 0)
		goto out;
	if (done) {
		for (i = 0; i < r.nflows; i++)
			tcp_printf(&r.tcp, "STATS %u %llu %llu %llu\n", i,
				   (unsigned long long)r.flows[i].completed,
				   (unsigned long long)r.flows[i].bytes,
				   (unsigned long long)r.flows[i].errors);
		tcp_printf(&r.tcp, "BYE\n");
		rc = 0;
		for (i = 0; i < r.nflows; i++)
			if (r.flows[i].errors && !o->allow_errors)
				rc = 1;
	}
out:
	if (!r.t_stop)
		r.t_stop = rg_now();
	if (!rc && r.failure)
		rc = 1;
	if (rc && !r.failure)
		r.failure = "error";
	if (g_server_json_fd >= 0) {
		struct json_object *j = server_json(&r);
		const char *s = json_object_to_json_string_ext(j,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		size_t len = strlen(s);
		char *buf = malloc(len + 1);

		/* one write(): lines of concurrent sessions never interleave */
		if (buf) {
			memcpy(buf, s, len);
			buf[len] = '\n';
			if (write(g_server_json_fd, buf, len + 1) != (ssize_t)(len + 1))
				rg_err("--json: write: %s", strerror(errno));
			free(buf);
		}
		json_object_put(j);
	}
	if (!o->quiet) {
		uint64_t m = 0, b = 0;

		for (i = 0; r.flows && i < r.nflows; i++) {
			m += r.flows[i].completed;
			b += r.flows[i].bytes;
		}
		fprintf(stderr, RG_NAME ": session %s: %s, %llu messages, %llu bytes received\n",
			r.peer, r.failure ? r.failure : "ok",
			(unsigned long long)m, (unsigned long long)b);
	}
	run_free(&r);
	return rc;
}

int server_main(const struct rg_opts *o)
{
	struct rg_dev probe;
	unsigned int served = 0, children = 0;
	int lfd, rc = 0, st;

	/* fail fast on a bad device; each session opens its own */
	if (rg_dev_open(&probe, o->dev, o->ib_port, o->gid_index))
		return 1;
	rg_dev_close(&probe);
	if (o->json) {
		if (!strcmp(o->json, "-")) {
			g_server_json_fd = STDOUT_FILENO;
		} else {
			g_server_json_fd = open(o->json, O_WRONLY | O_CREAT |
						O_TRUNC | O_APPEND, 0644);
			if (g_server_json_fd < 0) {
				rg_err("--json: cannot write '%s': %s", o->json,
				       strerror(errno));
				return 1;
			}
		}
	}
	lfd = tcp_listen(o);
	if (lfd < 0)
		return 1;
	if (!o->quiet)
		fprintf(stderr, RG_NAME ": listening on port %s\n", o->port);
	while (!g_stop && (!o->sessions || served < o->sessions)) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int fd, one = 1;
		pid_t pid;

		/* reap finished sessions */
		while (children && (pid = waitpid(-1, &st, WNOHANG)) > 0) {
			children--;
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				rc = 1;
		}
		if (ppoll(&p, 1, NULL, &g_origmask) <= 0)
			continue;
		fd = accept(lfd, (struct sockaddr *)&ss, &sl);
		if (fd < 0) {
			if (errno != EINTR && errno != ECONNABORTED)
				rg_warn("accept: %s", strerror(errno));
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		served++;
		if (o->sessions == 1) {
			close(lfd);
			lfd = -1;
			rc |= serve(o, fd, (struct sockaddr *)&ss);
			break;
		}
		pid = fork();
		if (pid < 0) {
			rg_err("fork: %s", strerror(errno));
			close(fd);
			rc = 1;
			continue;
		}
		if (!pid) {
			close(lfd);
			srand48(getpid() ^ (long)rg_now());
			exit(serve(o, fd, (struct sockaddr *)&ss));
		}
		children++;
		close(fd);
	}
	if (lfd >= 0)
		close(lfd);
	while (children) {
		pid_t pid = waitpid(-1, &st, 0);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		children--;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = 1;
	}
	if (g_server_json_fd > STDOUT_FILENO)
		close(g_server_json_fd);
	return rc ? 1 : 0;
}

