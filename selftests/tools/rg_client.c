// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen client: the side that measures.
 *
 * Two threads. The poster (main thread) decides when each QP may post:
 * --depth outstanding messages at most, --count in total, and a token
 * bucket at --rate. The completer polls the CQ (completion channel, sleep
 * or spin: --cq-wait), stamps each completion, and owns the latency
 * histograms (all messages; with --window-ms also those posted in that
 * window) and throughput series.
 *
 * Why not one thread: soft-RoCE runs its requester inside the
 * ibv_post_send() system call of a user QP ("process context"), so a post
 * can take a millisecond or more under TCG. A single thread would stamp
 * every completion that arrived meanwhile only after that call returns;
 * with its own thread the completer stamps it when the CQ event comes.
 *
 * Sharing: the poster owns flow->posted, the completer flow->done (all
 * completions, any status); outstanding = posted - done. The completer
 * kicks the poster through an eventfd when it frees slots while the poster
 * sleeps (poster_waiting, Dekker-style with sequentially consistent
 * atomics), the poster wakes an idle polling completer (completer_idle,
 * same pattern) and tells the completer to quit through a third.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rocegen.h"

#define WR_SEQ_BITS	40	/* RG_MAX_COUNT */
#define WR_SEQ_MASK	((1ull << WR_SEQ_BITS) - 1)
#define POST_BATCH	64

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

static void efd_write(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		rg_warn("eventfd write: %s", strerror(errno));
}

static void efd_drain(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		rg_warn("eventfd read: %s", strerror(errno));
}

/* Poster side: posted is its own. */
static uint64_t flow_outstanding(const struct rg_flow *f)
{
	return f->posted - LOAD(f->done);
}

/*
 * Completer side: should the sleeping poster be woken? Back-to-back, only
 * once a flow is down to half its depth, so that posts go out in chains
 * (one doorbell, one requester run in rxe) instead of one wakeup per
 * completion; paced, at every freed slot (the bucket may hold tokens).
 */
static bool want_kick(const struct rg_run *r, const struct rg_flow *f)
{
	/*
	 * Signed: rxe may complete a message inside ibv_post_send(), so the
	 * completer can count it before the poster has published posted.
	 */
	int64_t out = (int64_t)(LOAD(f->posted) - f->done);

	if (r->o->rate_bps || LOAD(r->stopping) || f->dead)
		return true;
	return out <= (int64_t)(r->depth / 2);
}

/* ------------------------------------------------------------- handshake */

static int client_handshake(struct rg_run *r)
{
	char line[512], hex[33];
	unsigned int i, idx, qpn, psn, rkey, mtu;
	unsigned long long addr;
	int k;

	if (tcp_printf(&r->tcp, "ROCEGEN %u op=%s size=%llu qps=%u depth=%u mtu=%u\n",
		       RG_PROTO, rg_op_names[r->op],
		       (unsigned long long)r->size, r->nflows, r->depth,
		       rg_mtu_bytes(r->mtu)))
		return -1;
	rg_gid_to_hex(&r->dev.gid, hex);
	for (i = 0; i < r->nflows; i++)
		if (tcp_printf(&r->tcp, "QP %u %u %u %s\n", i,
			       r->flows[i].qp->qp_num, r->flows[i].psn, hex))
			return -1;
	k = tcp_getline(&r->tcp, line, sizeof(line), 30000, 1);
	if (k <= 0) {
		if (!k)
			rg_err("server %s closed the connection during setup",
			       r->peer);
		return -1;
	}
	if (!strncmp(line, "ERR ", 4)) {
		rg_err("server %s refused: %s", r->peer, line + 4);
		return -1;
	}
	if (sscanf(line, "OK mtu=%u", &mtu) != 1 || !rg_mtu_from_bytes(mtu)) {
		rg_err("server %s: unexpected answer '%.80s' (is it a rocegen server?)",
		       r->peer, line);
		return -1;
	}
	r->mtu = rg_mtu_from_bytes(mtu);
	for (i = 0; i < r->nflows; i++) {
		struct rg_flow *f;

		k = tcp_getline(&r->tcp, line, sizeof(line), 30000, 1);
		if (k <= 0) {
			if (!k)
				rg_err("server %s closed the connection during setup",
				       r->peer);
			return -1;
		}
		if (sscanf(line, "QP %u %u %u %32s %u %llx", &idx, &qpn, &psn,
			   hex, &rkey, &addr) != 6 || idx >= r->nflows ||
		    rg_gid_from_hex(hex, &r->flows[idx].rgid)) {
			rg_err("server %s: bad QP line '%.80s'", r->peer, line);
			return -1;
		}
		f = &r->flows[idx];
		f->rqpn = qpn;
		f->rpsn = psn;
		f->rkey = rkey;
		f->raddr = addr;
	}
	for (i = 0; i < r->nflows; i++) {
		struct rg_conn_attr a = rg_conn_attr_of(r, &r->flows[i]);

		if (rg_qp_connect(&r->dev, r->flows[i].qp, &a))
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- poster */

/* Post @n messages on @f in one call (one doorbell for rxe). */
static int post_chain(struct rg_run *r, struct rg_flow *f, unsigned int n,
		      uint64_t now)
{
	struct ibv_send_wr wr[POST_BATCH], *bad = NULL;
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->dev.buf,
		.length = (uint32_t)r->size,
		.lkey = r->dev.mr->lkey,
	};
	unsigned int i, ok;
	int e;

	memset(wr, 0, n * sizeof(wr[0]));
	for (i = 0; i < n; i++) {
		uint64_t seq = f->posted + i;

		wr[i].wr_id = ((uint64_t)f->idx << WR_SEQ_BITS) | seq;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		if (r->op == RG_OP_WRITE) {
			wr[i].opcode = IBV_WR_RDMA_WRITE;
			wr[i].wr.rdma.remote_addr = f->raddr;
			wr[i].wr.rdma.rkey = f->rkey;
		} else {
			wr[i].opcode = IBV_WR_SEND;
		}
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		__atomic_store_n(&f->post_ns[seq % r->depth], now,
				 __ATOMIC_RELEASE);
	}
	r->post_calls++;
	e = ibv_post_send(f->qp, wr, &bad);
	ok = e ? (unsigned int)(bad ? bad - wr : 0) : n;
	STORE(f->posted, f->posted + ok);
	/* sleep/spin: a completer with nothing outstanding sleeps: wake it */
	if (ok && LOAD(r->completer_idle))
		efd_write(r->post_fd);
	if (e) {
		char what[128];

		snprintf(what, sizeof(what), "ibv_post_send: %s", strerror(e));
		flow_error(r, f, RG_POST_FAILED, what);
		return -1;
	}
	return 0;
}

/* Post what depth, count and tokens allow; returns the next token time. */
static uint64_t post_all(struct rg_run *r)
{
	const struct rg_opts *o = r->o;
	uint64_t wake = UINT64_MAX;
	unsigned int i;

	for (i = 0; i < r->nflows; i++) {
		struct rg_flow *f = &r->flows[i];
		uint64_t room, now = rg_now();
		unsigned int n = 0;

		if (LOAD(f->dead))
			continue;
		room = r->depth - flow_outstanding(f);
		if (o->count && o->count - f->posted < room)
			room = o->count - f->posted;
		if (room > POST_BATCH)
			room = POST_BATCH;
		while (n < room) {
			if (o->rate_bps && !rg_tbf_take(&f->tb, now, r->size)) {
				uint64_t w = now + rg_tbf_wait_ns(&f->tb, now,
								  r->size);

				if (w < wake)
					wake = w;
				break;
			}
			n++;
		}
		if (o->rate_bps && n == room && flow_outstanding(f) + n ==
		    r->depth && !rg_tbf_wait_ns(&f->tb, now, r->size))
			f->depth_stalls++;
		if (n)
			post_chain(r, f, n, now);
	}
	return wake;
}

/*
 * Could a flow post right now (room, count and tokens)? If not, *wake is
 * lowered to when the first flow with room has its tokens: a completion
 * that came before the poster said it was waiting kicked no one, and the
 * slot it freed waits for tokens, not for another completion (a paced
 * depth-1 flow slept until its deadline after a few messages).
 */
static bool can_post_now(struct rg_run *r, uint64_t *wake)
{
	uint64_t now = rg_now(), w;
	unsigned int i;

	for (i = 0; i < r->nflows; i++) {
		struct rg_flow *f = &r->flows[i];

		if (LOAD(f->dead) || (r->o->count && f->posted >= r->o->count))
			continue;
		if (flow_outstanding(f) >= r->depth)
			continue;
		if (!r->o->rate_bps)
			return true;
		w = rg_tbf_wait_ns(&f->tb, now, r->size);
		if (!w)
			return true;
		if (now + w < *wake)
			*wake = now + w;
	}
	return false;
}

static uint64_t total_outstanding(const struct rg_run *r)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < r->nflows; i++)
		n += flow_outstanding(&r->flows[i]);
	return n;
}

static bool all_counted(const struct rg_run *r)
{
	unsigned int i;

	if (!r->o->count)
		return false;
	for (i = 0; i < r->nflows; i++)
		if (!LOAD(r->flows[i].dead) &&
		    r->flows[i].posted < r->o->count)
			return false;
	return true;
}

static bool all_dead(const struct rg_run *r)
{
	unsigned int i;

	for (i = 0; i < r->nflows; i++)
		if (!LOAD(r->flows[i].dead))
			return false;
	return true;
}

/*
 * Is the run over at @now (a signal, the duration, --count all posted,
 * every flow dead, the server gone, a fatal error)? Asked at the top of
 * every loop and again just before the poster sleeps: with --count, the
 * last post can leave nothing that would wake it (see client_loop()).
 */
static bool run_over(const struct rg_run *r, uint64_t now, uint64_t deadline)
{
	return g_stop || now >= deadline || all_counted(r) || all_dead(r) ||
	       r->peer_gone || LOAD(r->fatal);
}

static uint64_t drain_budget_ns(const struct rg_opts *o)
{
	/* ACK timeout 4.096 us * 2^t, (retry + 1) tries, twice, + 1 s */
	double ack_ns = 4096.0 * pow(2.0, o->timeout);
	double ns = 2.0 * ack_ns * (o->retry + 1) + 1e9;

	if (!o->timeout)	/* no ACK timeout: wait a while, then flush */
		return 5000000000ull;
	return ns > 60e9 ? 60000000000ull : (uint64_t)ns;
}

/* ------------------------------------------------------------- completer */

static int client_poll(struct rg_run *r)
{
	struct ibv_wc wc[32];
	int n, i, total = 0;
	bool kick = false;

	do {
		uint64_t now;

		n = ibv_poll_cq(r->dev.cq, 32, wc);
		r->cq_polls++;
		if (n < 0) {
			rg_err("%s: ibv_poll_cq failed", r->dev.name);
			return -1;
		}
		if (!n)
			break;
		now = rg_now();
		for (i = 0; i < n; i++) {
			unsigned int fi = (unsigned int)(wc[i].wr_id >> WR_SEQ_BITS);
			uint64_t seq = wc[i].wr_id & WR_SEQ_MASK;
			struct rg_flow *f;

			if (fi >= r->nflows) {
				rg_err("completion for unknown wr_id %#llx",
				       (unsigned long long)wc[i].wr_id);
				return -1;
			}
			f = &r->flows[fi];
			if (wc[i].status == IBV_WC_SUCCESS) {
				uint64_t t0 = __atomic_load_n(
					&f->post_ns[seq % r->depth],
					__ATOMIC_ACQUIRE);

				rg_hist_add_split(&f->hist, f->whist,
						  r->o->have_window ?
						  &r->o->window : NULL,
						  r->t_start, t0,
						  now > t0 ? now - t0 : 0);
				f->completed++;
				f->bytes += r->size;
				r->t_last = now;
			} else {
				char what[160];

				snprintf(what, sizeof(what),
					 "completion error on message %llu: %s (vendor error %#x)",
					 (unsigned long long)seq,
					 ibv_wc_status_str(wc[i].status),
					 wc[i].vendor_err);
				flow_error(r, f, wc[i].status, what);
			}
			STORE(f->done, f->done + 1);
			kick = kick || want_kick(r, f);
		}
		total += n;
	} while (n == 32);
	if (!total)
		r->empty_polls++;
	else if (kick && LOAD(r->poster_waiting))
		efd_write(r->kick_fd);
	return total;
}

/* Completer side: QPs with messages posted and not yet completed. */
static uint64_t completer_outstanding(const struct rg_run *r)
{
	uint64_t n = 0;
	unsigned int i;

	/* a flow may be at -1 (see want_kick()): count it as busy */
	for (i = 0; i < r->nflows; i++)
		if (LOAD(r->flows[i].posted) != r->flows[i].done)
			n++;
	return n;
}

static int sample_push(struct rg_flow *f, double t_ms, double mbit)
{
	if (f->nser == f->capser) {
		size_t cap = f->capser ? 2 * f->capser : 256;
		struct rg_sample *s = realloc(f->ser, cap * sizeof(*s));

		if (!s) {
			rg_err("out of memory");
			return -1;
		}
		f->ser = s;
		f->capser = cap;
	}
	f->ser[f->nser].t_ms = t_ms;
	f->ser[f->nser].mbit = mbit;
	f->nser++;
	return 0;
}

static int take_samples(struct rg_run *r, uint64_t now)
{
	double span_us = (double)(now - r->last_sample) / 1000.0;
	double t_ms = (double)(now - r->t_start) / 1e6;
	unsigned int i;

	if (span_us <= 0)
		return 0;
	for (i = 0; i < r->nflows; i++) {
		struct rg_flow *f = &r->flows[i];

		if (sample_push(f, t_ms, (double)(f->bytes - f->ser_bytes) *
				8.0 / span_us))
			return -1;
		f->ser_bytes = f->bytes;
	}
	r->last_sample = now;
	return 0;
}

/*
 * Sleep until a completion may be there, quit, or @until. event: the
 * completion channel. sleep/spin: while messages are outstanding, poll
 * again after --sleep-us (or at once); while none are, sleep until the
 * poster says it posted (post_fd) — no completion can come before.
 */
static int completer_wait(struct rg_run *r, uint64_t until)
{
	const struct rg_opts *o = r->o;
	struct pollfd p[2] = {
		{ .fd = r->quit_fd, .events = POLLIN },
		{ .fd = o->wait == RG_WAIT_EVENT ? r->dev.ch->fd : r->post_fd,
		  .events = POLLIN },
	};
	struct timespec ts;
	uint64_t now = rg_now(), span;
	bool idle = false;
	int k;

	if (o->wait == RG_WAIT_EVENT && !r->dev.armed)
		return rg_cq_arm(&r->dev);	/* then poll once more */
	if (o->wait != RG_WAIT_EVENT) {
		STORE(r->completer_idle, true);
		idle = !completer_outstanding(r);
		if (!idle)
			STORE(r->completer_idle, false);
	}
	span = until > now ? until - now : 0;
	if (!idle && o->wait == RG_WAIT_SLEEP &&
	    span > (uint64_t)o->sleep_us * 1000)
		span = (uint64_t)o->sleep_us * 1000;
	if (!idle && o->wait == RG_WAIT_SPIN)
		span = 0;
	ts_from_ns(&ts, span);
	r->comp_waits++;
	k = ppoll(p, 2, until == UINT64_MAX && (idle || o->wait ==
		  RG_WAIT_EVENT) ? NULL : &ts, NULL);
	if (idle) {
		STORE(r->completer_idle, false);
		if (p[1].revents & POLLIN)
			efd_drain(r->post_fd);
	}
	if (k < 0) {
		if (errno == EINTR)
			return 0;
		rg_err("completer: poll: %s", strerror(errno));
		return -1;
	}
	if (o->wait == RG_WAIT_EVENT && (p[1].revents & POLLIN)) {
		k = rg_cq_consume_event(&r->dev);
		if (k < 0)
			return -1;
		r->cq_events += (uint64_t)k;
	}
	return 0;
}

static void *completer(void *arg)
{
	struct rg_run *r = arg;
	uint64_t sample_ns = (uint64_t)r->o->sample_ms * 1000000ull;
	uint64_t next_sample = r->t_start + sample_ns, now;
	int n;

	/* --cpu pins the poster (rxe runs its requester in post calls) */
	if (CPU_COUNT(&g_cpus_all))
		pthread_setaffinity_np(pthread_self(), sizeof(g_cpus_all),
				       &g_cpus_all);

	while (!LOAD(r->quit)) {
		n = client_poll(r);
		if (n < 0)
			goto fatal;
		now = rg_now();
		if (now >= next_sample && !LOAD(r->stopping)) {
			if (take_samples(r, now))
				goto fatal;
			next_sample += sample_ns;
			if (next_sample <= now)	/* overslept: realign */
				next_sample = now + sample_ns -
					(now - r->t_start) % sample_ns;
		}
		if (n > 0)
			continue;
		/* no samples while draining: wait for completions or quit */
		if (completer_wait(r, LOAD(r->stopping) ? UINT64_MAX :
				   next_sample))
			goto fatal;
	}
	return NULL;
fatal:
	STORE(r->fatal, true);
	efd_write(r->kick_fd);
	return NULL;
}

/* ------------------------------------------------------------ the run */

static int client_loop(struct rg_run *r)
{
	const struct rg_opts *o = r->o;
	uint64_t now, deadline, drain_deadline = 0, flush_deadline = 0;
	bool stopping = false, flushed = false;
	pthread_t thr;
	unsigned int i;
	int e, rc = 0;

	rg_hwc_read(&r->dev, &r->dev.hwc_start);
	now = rg_now();
	r->t_start = r->last_sample = r->t_last = now;
	clock_gettime(CLOCK_REALTIME, &r->start_real);
	for (i = 0; i < r->nflows; i++)
		rg_tbf_init(&r->flows[i].tb, o->rate_bps, o->burst, r->size,
			    now);
	deadline = o->duration_ns ? now + o->duration_ns : UINT64_MAX;
	e = pthread_create(&thr, NULL, completer, r);
	if (e) {
		rg_err("pthread_create: %s", strerror(e));
		return -1;
	}

	for (;;) {
		struct pollfd p[2];
		struct timespec ts, *tsp = NULL;
		uint64_t wake = UINT64_MAX, out;
		int np = 0, k;

		now = rg_now();
		if (!stopping && run_over(r, now, deadline)) {
			stopping = true;
			STORE(r->stopping, true);
			r->t_stop = now;
			r->interrupted = g_stop != 0;
			drain_deadline = now + drain_budget_ns(o);
		}
		if (LOAD(r->fatal)) {
			rc = -1;
			break;
		}
		if (!stopping)
			wake = post_all(r);
		out = total_outstanding(r);
		if (stopping && !out)
			break;
		if (stopping && !flushed &&
		    (now >= drain_deadline || g_stop > 1)) {
			/* unfinished messages: flush them, as errors */
			STORE(r->drain_timeout, true);
			rg_err("%llu messages still outstanding %s; flushing the QPs",
			       (unsigned long long)out,
			       g_stop > 1 ? "at the second signal" :
			       "after the drain timeout");
			for (i = 0; i < r->nflows; i++)
				if (flow_outstanding(&r->flows[i]))
					rg_qp_to_error(r->flows[i].qp);
			flushed = true;
			flush_deadline = now + 5000000000ull;
		}
		if (flushed && now >= flush_deadline) {
			rg_err("%llu messages never completed, even flushed",
			       (unsigned long long)out);
			r->unfinished = out;
			break;
		}
		if (!stopping)
			wake = deadline < wake ? deadline : wake;
		else
			wake = flushed ? flush_deadline : drain_deadline;

		/*
		 * Sleep unless the completer freed a slot meanwhile, or the
		 * run is over. The completer kicks a waiting poster only
		 * once a flow is down to half its depth (want_kick()); if
		 * the completions of --count's last messages all come
		 * before poster_waiting is set, none will come after it,
		 * and without a deadline (no --duration) the poster would
		 * sleep for ever: a run over (all_counted() now) must not
		 * sleep.
		 */
		STORE(r->poster_waiting, true);
		if (!stopping && (can_post_now(r, &wake) ||
				  run_over(r, rg_now(), deadline))) {
			STORE(r->poster_waiting, false);
			continue;
		}
		if (stopping && !total_outstanding(r)) {
			STORE(r->poster_waiting, false);
			continue;
		}
		p[np].fd = r->kick_fd;
		p[np++].events = POLLIN;
		if (r->tcp.fd >= 0) {
			p[np].fd = r->tcp.fd;
			p[np++].events = POLLIN;
		}
		if (wake != UINT64_MAX) {
			now = rg_now();
			ts_from_ns(&ts, wake > now ? wake - now : 0);
			tsp = &ts;
		}
		r->waits++;
		k = ppoll(p, (nfds_t)np, tsp, &g_origmask);
		STORE(r->poster_waiting, false);
		if (k < 0 && errno != EINTR) {
			rg_err("poll: %s", strerror(errno));
			rc = -1;
			break;
		}
		if (k <= 0)
			continue;
		if (p[0].revents & POLLIN)
			efd_drain(r->kick_fd);
		if (np > 1 && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			char line[256];

			k = tcp_fill(&r->tcp);
			if (k <= 0 && !r->peer_gone) {
				rg_err("server %s closed the connection",
				       r->peer);
				r->peer_gone = true;
				close(r->tcp.fd);
				r->tcp.fd = -1;
			}
			while (r->tcp.fd >= 0 &&
			       tcp_take_line(&r->tcp, line, sizeof(line)))
				rg_warn("server said '%.60s' mid-run", line);
		}
	}
	STORE(r->quit, true);
	efd_write(r->quit_fd);
	pthread_join(thr, NULL);
	if (!r->t_stop)
		r->t_stop = rg_now();
	return rc;
}

static int client_finish(struct rg_run *r)
{
	char line[256];
	unsigned int idx;
	unsigned long long m, b, e;
	int k;

	if (r->tcp.fd < 0)
		return -1;
	if (tcp_printf(&r->tcp, "DONE\n"))
		return -1;
	for (;;) {
		/* after a first SIGINT too: that is how we got here */
		k = tcp_getline(&r->tcp, line, sizeof(line), 30000, 2);
		if (k <= 0) {
			if (!k)
				rg_err("server %s closed before its statistics",
				       r->peer);
			return -1;
		}
		if (!strcmp(line, "BYE"))
			return 0;
		if (sscanf(line, "STATS %u %llu %llu %llu", &idx, &m, &b, &e) == 4
		    && idx < r->nflows) {
			r->flows[idx].have_remote = true;
			r->flows[idx].r_msgs = m;
			r->flows[idx].r_bytes = b;
			r->flows[idx].r_errors = e;
		} else {
			rg_warn("server %s: unexpected line '%.60s'", r->peer,
				line);
		}
	}
}

/* ---------------------------------------------------------------- report */

/* First post to last successful completion (or to the stop, if none). */
static double run_elapsed_s(const struct rg_run *r)
{
	uint64_t end = r->t_last > r->t_start ? r->t_last : r->t_stop;

	if (end <= r->t_start)
		return 0.0;
	return (double)(end - r->t_start) / 1e9;
}

/* --window-ms as [from, to] in ms since the start, to null: the end. */
static struct json_object *jwindow(const struct rg_window *w)
{
	struct json_object *a = json_object_new_array();

	json_object_array_add(a, jdouble(w->from_ns / 1e6));
	json_object_array_add(a, w->to_ns == UINT64_MAX ? NULL :
			      jdouble(w->to_ns / 1e6));
	return a;
}

/* The report's "params": what was asked and what was agreed on. */
static struct json_object *jparams(const struct rg_run *r)
{
	const struct rg_opts *o = r->o;
	struct json_object *p = json_object_new_object();

	jadd_str(p, "server", o->peer);
	jadd_str(p, "port", o->port);
	jadd_str(p, "op", rg_op_names[r->op]);
	jadd_int(p, "size", r->size);
	jadd_int(p, "qps", r->nflows);
	json_object_object_add(p, "rate_mbit", jdouble(o->rate_bps / 1e6));
	jadd_int(p, "burst", o->rate_bps ? o->burst : 0);
	jadd_int(p, "depth", r->depth);
	json_object_object_add(p, "duration_s", jdouble(o->duration_ns / 1e9));
	jadd_int(p, "count", o->count);
	jadd_int(p, "tclass", o->tclass);
	jadd_int(p, "mtu", rg_mtu_bytes(r->mtu));
	jadd_int(p, "timeout", o->timeout);
	jadd_int(p, "retry", o->retry);
	jadd_int(p, "rnr_retry", o->rnr_retry);
	jadd_int(p, "sample_ms", o->sample_ms);
	jadd_str(p, "cq_wait", rg_wait_names[o->wait]);
	if (o->cpu >= 0)
		jadd_int(p, "cpu", (uint64_t)o->cpu);
	if (o->have_window)
		json_object_object_add(p, "window_ms", jwindow(&o->window));
	return p;
}

/* The report's "local": the RDMA device, port and GIDs. */
static struct json_object *jlocal(const struct rg_run *r)
{
	struct json_object *loc = json_object_new_object();
	char g[INET6_ADDRSTRLEN];

	jadd_str(loc, "dev", r->dev.name);
	jadd_int(loc, "port", r->dev.port);
	jadd_int(loc, "gid_index", (uint64_t)r->dev.gid_index);
	rg_gid_to_str(&r->dev.gid, g, sizeof(g));
	jadd_str(loc, "gid", g);
	if (r->nflows) {
		rg_gid_to_str(&r->flows[0].rgid, g, sizeof(g));
		jadd_str(loc, "remote_gid", g);
	}
	return loc;
}

/* One QP's entry of "qps", @el seconds into the run. */
static struct json_object *jflow(const struct rg_run *r, unsigned int i,
				 double el)
{
	const struct rg_flow *f = &r->flows[i];
	struct json_object *q = jflow_counts(f, i);
	struct json_object *s = json_object_new_array();
	struct json_object *e, *rm;
	size_t k;

	jadd_int(q, "posted", f->posted);
	json_object_object_add(q, "mbit",
			       jdouble(el > 0 ? f->bytes * 8 / el / 1e6 : 0));
	if (r->o->rate_bps) {
		jadd_int(q, "tokens_lost_bytes", rg_tbf_lost_bytes(&f->tb));
		jadd_int(q, "depth_stalls", f->depth_stalls);
	}
	json_object_object_add(q, "latency", jlatency(&f->hist));
	if (r->o->have_window)
		json_object_object_add(q, "window_latency",
				       jlatency(f->whist));
	for (k = 0; k < f->nser; k++) {
		e = json_object_new_object();
		json_object_object_add(e, "t_ms", jdouble(f->ser[k].t_ms));
		json_object_object_add(e, "mbit", jdouble(f->ser[k].mbit));
		json_object_array_add(s, e);
	}
	json_object_object_add(q, "throughput", s);
	if (f->have_remote) {
		rm = json_object_new_object();
		jadd_int(rm, "messages", f->r_msgs);
		jadd_int(rm, "bytes", f->r_bytes);
		jadd_int(rm, "errors", f->r_errors);
		json_object_object_add(q, "remote", rm);
	}
	return q;
}

/* The report's "qps" and "total" (all QPs summed, histograms merged). */
static void jqps_total(const struct rg_run *r, double el,
		       struct json_object *root)
{
	struct json_object *qps = json_object_new_array();
	struct json_object *tot = json_object_new_object();
	static struct rg_hist all, wall;
	uint64_t tb = 0, tm = 0, te = 0, tp = 0, tl = 0;
	unsigned int i;

	rg_hist_init(&all);
	rg_hist_init(&wall);
	for (i = 0; i < r->nflows; i++) {
		const struct rg_flow *f = &r->flows[i];

		json_object_array_add(qps, jflow(r, i, el));
		rg_hist_merge(&all, &f->hist);
		if (f->whist)
			rg_hist_merge(&wall, f->whist);
		tb += f->bytes;
		tm += f->completed;
		te += f->errors;
		tp += f->posted;
		tl += rg_tbf_lost_bytes(&f->tb);
	}
	json_object_object_add(root, "qps", qps);
	jadd_int(tot, "messages", tm);
	jadd_int(tot, "bytes", tb);
	jadd_int(tot, "posted", tp);
	jadd_int(tot, "errors", te);
	jadd_int(tot, "unfinished", r->unfinished);
	json_object_object_add(tot, "mbit",
			       jdouble(el > 0 ? tb * 8 / el / 1e6 : 0));
	if (r->o->rate_bps)
		jadd_int(tot, "tokens_lost_bytes", tl);
	json_object_object_add(tot, "latency", jlatency(&all));
	if (r->o->have_window)
		json_object_object_add(tot, "window_latency", jlatency(&wall));
	json_object_object_add(root, "total", tot);
}

static struct json_object *client_json(const struct rg_run *r)
{
	struct json_object *root = json_object_new_object();
	double el = run_elapsed_s(r);

	jadd_str(root, "tool", RG_NAME);
	jadd_int(root, "version", RG_PROTO);
	jadd_str(root, "role", "client");
	json_object_object_add(root, "params", jparams(r));
	json_object_object_add(root, "local", jlocal(r));
	json_object_object_add(root, "start_time",
		jdouble(r->start_real.tv_sec + r->start_real.tv_nsec / 1e9));
	json_object_object_add(root, "elapsed_s", jdouble(el));
	json_object_object_add(root, "interrupted",
			       json_object_new_boolean(r->interrupted));
	json_object_object_add(root, "drain_timeout",
			       json_object_new_boolean(r->drain_timeout));
	json_object_object_add(root, "loop", jloop(r));
	json_object_object_add(root, "hw_counters", jhwc(&r->dev));
	jqps_total(r, el, root);
	return root;
}

/* --window-ms: the messages posted in it, all QPs merged. */
static void window_summary(const struct rg_run *r, FILE *out)
{
	const struct rg_window *w = &r->o->window;
	static struct rg_hist h;
	unsigned int i;

	rg_hist_init(&h);
	for (i = 0; i < r->nflows; i++)
		rg_hist_merge(&h, r->flows[i].whist);
	fprintf(out, "window %.0f..", w->from_ns / 1e6);
	if (w->to_ns != UINT64_MAX)
		fprintf(out, "%.0f", w->to_ns / 1e6);
	fprintf(out, " ms: %llu msgs, latency us p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f\n",
		(unsigned long long)h.count,
		rg_hist_percentile(&h, 500000) / 1e3,
		rg_hist_percentile(&h, 900000) / 1e3,
		rg_hist_percentile(&h, 990000) / 1e3,
		rg_hist_percentile(&h, 999000) / 1e3,
		h.count ? h.max / 1e3 : 0.0);
}

static void client_summary(const struct rg_run *r, FILE *out)
{
	double el = run_elapsed_s(r);
	uint64_t tb = 0, tm = 0, te = 0;
	unsigned int i;

	for (i = 0; i < r->nflows; i++) {
		const struct rg_flow *f = &r->flows[i];
		const struct rg_hist *h = &f->hist;

		fprintf(out, "qp %u (%u->%u): %llu msgs %.2f Mbit/s, latency us p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f%s\n",
			i, f->qp ? f->qp->qp_num : 0, f->rqpn,
			(unsigned long long)f->completed,
			el > 0 ? f->bytes * 8 / el / 1e6 : 0,
			rg_hist_percentile(h, 500000) / 1e3,
			rg_hist_percentile(h, 900000) / 1e3,
			rg_hist_percentile(h, 990000) / 1e3,
			rg_hist_percentile(h, 999000) / 1e3,
			h->count ? h->max / 1e3 : 0.0,
			f->errors ? ", ERRORS" : "");
		tb += f->bytes;
		tm += f->completed;
		te += f->errors;
	}
	fprintf(out, "total: %s %llu B x %llu msgs in %.3f s = %.2f Mbit/s, %llu errors%s\n",
		rg_op_names[r->op], (unsigned long long)r->size,
		(unsigned long long)tm, el, el > 0 ? tb * 8 / el / 1e6 : 0,
		(unsigned long long)te, r->interrupted ? " (interrupted)" : "");
	if (r->o->have_window)
		window_summary(r, out);
}

int client_main(const struct rg_opts *o)
{
	struct rg_run r;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	uint64_t errors = 0;
	unsigned int i;
	int rc = 1, fd;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.tcp.fd = -1;
	r.kick_fd = r.quit_fd = r.post_fd = -1;
	r.op = o->op;
	r.size = o->size;
	r.depth = o->depth;
	r.nflows = o->qps;

	if (rg_dev_open(&r.dev, o->dev, o->ib_port, o->gid_index))
		goto out;
	if (o->size > r.dev.attr.max_mr_size) {
		rg_err("--size: %llu exceeds %s's largest MR (%llu)",
		       (unsigned long long)o->size, r.dev.name,
		       (unsigned long long)r.dev.attr.max_mr_size);
		goto out;
	}
	r.mtu = o->mtu ? rg_mtu_from_bytes(o->mtu) : r.dev.active_mtu;
	if (rg_dev_cq(&r.dev, (int)(o->qps * o->depth)) ||
	    rg_dev_buf(&r.dev, o->size, IBV_ACCESS_LOCAL_WRITE))
		goto out;
	r.flows = flows_alloc(o->qps, o->depth,
			      o->have_window ? &o->window : NULL);
	if (!r.flows)
		goto out;
	for (i = 0; i < r.nflows; i++) {
		r.flows[i].qp = rg_qp_create(&r.dev, o->depth, 1);
		if (!r.flows[i].qp)
			goto out;
	}
	r.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r.quit_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	r.post_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r.kick_fd < 0 || r.quit_fd < 0 || r.post_fd < 0) {
		rg_err("eventfd: %s", strerror(errno));
		goto out;
	}
	fd = tcp_connect(o);
	if (fd < 0)
		goto out;
	tcp_init(&r.tcp, fd);
	if (!getpeername(fd, (struct sockaddr *)&ss, &sl))
		addr_str((struct sockaddr *)&ss, r.peer, sizeof(r.peer));
	if (client_handshake(&r))
		goto out;
	if (client_loop(&r))
		goto out;
	if (!r.peer_gone && client_finish(&r))
		rg_warn("no statistics from the server");
	for (i = 0; i < r.nflows; i++)
		errors += r.flows[i].errors;
	rc = 0;
	if (r.peer_gone)
		rc = 1;
	if ((errors || r.unfinished) && !o->allow_errors)
		rc = 1;
	if (o->json) {
		struct json_object *j = client_json(&r);

		if (write_json_file(o->json, j))
			rc = 1;
		json_object_put(j);
	}
	if (!o->quiet)
		client_summary(&r, o->json && !strcmp(o->json, "-") ?
			       stderr : stdout);
out:
	if (r.kick_fd >= 0)
		close(r.kick_fd);
	if (r.quit_fd >= 0)
		close(r.quit_fd);
	if (r.post_fd >= 0)
		close(r.post_fd);
	run_free(&r);
	return rc;
}
