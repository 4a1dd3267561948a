/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocegen: RoCE traffic generator with per-message truth.
 * Shared declarations of rocegen.c (CLI, TCP exchange, run loops, JSON) and
 * rg_verbs.c (device, GID, CQ, QP plumbing).
 */
#ifndef _ROCEGEN_H
#define _ROCEGEN_H

/* Built with -D_GNU_SOURCE (Makefile): ppoll, cpu_set_t, eventfd. */

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <json-c/json.h>

#include "rg_lib.h"

#define RG_NAME		"rocegen"
#define RG_PROTO	1		/* TCP exchange protocol version */
#define RG_MAX_QPS	1024
#define RG_MAX_DEPTH	4096
#define RG_MAX_SIZE	(1ull << 30)
#define RG_WC_STATUS_MAX 32		/* > every enum ibv_wc_status value */
#define RG_MAX_COUNT	((1ull << 40) - 1)	/* messages per QP (wr_id bits) */

void rg_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t rg_now(void);			/* CLOCK_MONOTONIC, ns */

extern volatile sig_atomic_t g_stop;	/* 1: SIGINT/TERM seen, 2: twice */
extern sigset_t g_origmask;		/* signals are taken in ppoll() only */
extern char g_lasterr[256];		/* the last rg_err() message */
extern cpu_set_t g_cpus_all;		/* affinity before --cpu (or empty) */

/* ------------------------------------------------------------------ verbs */

/* A device port's hw_counters (soft-RoCE: retransmissions, NAKs, ...). */
#define RG_HWC_MAX	48
struct rg_hwc {
	unsigned int n;
	char name[RG_HWC_MAX][40];
	uint64_t val[RG_HWC_MAX];
};

struct rg_dev {
	char name[IBV_SYSFS_NAME_MAX];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	void *buf;
	size_t buf_size;
	uint8_t port;
	int gid_index;
	union ibv_gid gid;
	enum ibv_mtu active_mtu;
	struct ibv_device_attr attr;
	unsigned int unacked_events;
	bool armed;
	struct rg_hwc hwc_start;
};

struct rg_conn_attr {
	uint32_t local_psn;
	uint32_t remote_qpn;
	uint32_t remote_psn;
	union ibv_gid remote_gid;
	enum ibv_mtu mtu;
	uint8_t tclass;
	uint8_t timeout;
	uint8_t retry;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
};

/*
 * Open @name (NULL: the only device) and pick @port's GID: @gid_index if
 * >= 0, else the first IPv4-mapped RoCE v2 GID. Errors are printed.
 */
int rg_dev_open(struct rg_dev *d, const char *name, uint8_t port,
		int gid_index);
/* One CQ of @cqe entries with a non-blocking completion channel. */
int rg_dev_cq(struct rg_dev *d, int cqe);
/* A page-aligned buffer of @size bytes registered with @access. */
int rg_dev_buf(struct rg_dev *d, size_t size, int access);
void rg_dev_close(struct rg_dev *d);

struct ibv_qp *rg_qp_create(struct rg_dev *d, uint32_t max_send,
			    uint32_t max_recv);
/* RESET -> INIT -> RTR -> RTS. */
int rg_qp_connect(struct rg_dev *d, struct ibv_qp *qp,
		  const struct rg_conn_attr *a);
int rg_qp_to_error(struct ibv_qp *qp);

/* Arm the CQ (when not armed) and consume a pending event, if any. */
int rg_cq_arm(struct rg_dev *d);
int rg_cq_consume_event(struct rg_dev *d);

/* Read @d's port counters from sysfs (n = 0 if there are none). */
void rg_hwc_read(const struct rg_dev *d, struct rg_hwc *c);

void rg_gid_to_hex(const union ibv_gid *g, char out[33]);
int rg_gid_from_hex(const char *s, union ibv_gid *g);
void rg_gid_to_str(const union ibv_gid *g, char *out, size_t len);
enum ibv_mtu rg_mtu_from_bytes(unsigned int bytes);	/* 0 if invalid */
unsigned int rg_mtu_bytes(enum ibv_mtu m);

/* ------------------------------------------------------------- run state */

enum rg_op { RG_OP_WRITE, RG_OP_SEND };
enum rg_wait { RG_WAIT_EVENT, RG_WAIT_SLEEP, RG_WAIT_SPIN };

extern const char *const rg_op_names[];
extern const char *const rg_wait_names[];

struct rg_opts {
	bool server;
	const char *peer;
	const char *bind;
	const char *port;
	const char *dev;
	uint8_t ib_port;
	int gid_index;
	unsigned int qps;
	enum rg_op op;
	uint64_t size;
	uint64_t rate_bps;
	uint64_t burst;
	unsigned int depth;
	uint64_t duration_ns;
	uint64_t count;
	unsigned int tclass;
	unsigned int mtu;
	unsigned int timeout;
	unsigned int retry;
	unsigned int rnr_retry;
	unsigned int min_rnr_timer;
	unsigned int sample_ms;
	const char *json;
	enum rg_wait wait;
	unsigned int sleep_us;
	bool allow_errors;
	unsigned int sessions;
	uint64_t connect_timeout_ns;
	int cpu;		/* -1: no pinning */
	bool quiet;
	bool have_window;	/* --window-ms: also "window_latency" */
	struct rg_window window;
};

struct rg_sample {
	double t_ms;
	double mbit;
};

#define RG_POST_FAILED	RG_WC_STATUS_MAX	/* err_status slot */

/*
 * One RC QP and its flow. On the client the poster thread owns posted and
 * tb, the completer thread owns completed, bytes, hist and the series, and
 * publishes done (completions of any status) for the poster to compute
 * what is outstanding. errors, err_status and dead are written by both
 * (atomically). On the server one thread owns everything.
 */
struct rg_flow {
	unsigned int idx;
	struct ibv_qp *qp;
	uint32_t psn;
	uint32_t rqpn;
	uint32_t rpsn;
	uint32_t rkey;
	uint64_t raddr;
	union ibv_gid rgid;
	/* poster */
	uint64_t posted;
	struct rg_tbf tb;
	uint64_t depth_stalls;	/* times tokens were there but depth was not */
	/* completer */
	uint64_t done;
	uint64_t completed;
	uint64_t bytes;
	struct rg_hist hist;
	struct rg_hist *whist;	/* messages posted in --window-ms, or NULL */
	struct rg_sample *ser;
	size_t nser;
	size_t capser;
	uint64_t ser_bytes;
	/* both */
	uint64_t errors;
	uint64_t err_status[RG_WC_STATUS_MAX + 1];
	bool dead;
	uint64_t *post_ns;	/* ring of --depth post times, by sequence */
	/* the server's counts, reported at the end (client) */
	bool have_remote;
	uint64_t r_msgs;
	uint64_t r_bytes;
	uint64_t r_errors;
	/* server: receives posted and not yet completed */
	unsigned int outstanding;
};

struct rg_tcp {
	int fd;
	size_t len;
	char buf[8192];
};

struct rg_run {
	const struct rg_opts *o;
	struct rg_dev dev;
	struct rg_flow *flows;
	unsigned int nflows;
	struct rg_tcp tcp;
	char peer[INET6_ADDRSTRLEN + 8];
	/* what was agreed (server: from the client's hello) */
	enum rg_op op;
	uint64_t size;
	unsigned int depth;
	enum ibv_mtu mtu;
	unsigned int rq_depth;
	/* timing */
	uint64_t t_start;
	uint64_t t_stop;
	uint64_t t_last;
	uint64_t last_sample;
	struct timespec start_real;
	/* client threads */
	int kick_fd;		/* completer -> poster: slots freed */
	int quit_fd;		/* poster -> completer: finish */
	int post_fd;		/* poster -> idle sleep/spin completer */
	bool poster_waiting;
	bool completer_idle;
	bool stopping;
	bool quit;
	bool fatal;
	/* loop accounting, to compare --cq-wait modes */
	uint64_t waits;		/* poster (client) or only loop (server) */
	uint64_t comp_waits;
	uint64_t cq_events;
	uint64_t empty_polls;
	uint64_t cq_polls;
	uint64_t post_calls;
	uint64_t unfinished;	/* never completed, even after a flush */
	bool interrupted;
	bool drain_timeout;
	bool peer_gone;
	const char *failure;
};

/* rocegen.c: TCP exchange */
void tcp_init(struct rg_tcp *t, int fd);
int tcp_printf(struct rg_tcp *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool tcp_take_line(struct rg_tcp *t, char *line, size_t max);
int tcp_fill(struct rg_tcp *t);
int tcp_getline(struct rg_tcp *t, char *line, size_t max, int timeout_ms,
		int stop_at);
void addr_str(const struct sockaddr *sa, char *out, size_t len);
int tcp_connect(const struct rg_opts *o);
int tcp_listen(const struct rg_opts *o);

/* rocegen.c: shared run helpers */
/* @w: --window-ms (NULL: none, the flows get no window histogram). */
struct rg_flow *flows_alloc(unsigned int n, unsigned int depth,
			    const struct rg_window *w);
void run_free(struct rg_run *r);
struct rg_conn_attr rg_conn_attr_of(const struct rg_run *r,
				    const struct rg_flow *f);
void ts_from_ns(struct timespec *ts, uint64_t ns);
void flow_error(struct rg_run *r, struct rg_flow *f, unsigned int status,
		const char *what);
const char *status_name(unsigned int s);

/* rocegen.c: JSON helpers */
struct json_object *jdouble(double v);
struct json_object *jlatency(const struct rg_hist *h);
struct json_object *jerrors(const struct rg_flow *f);
/* Flow @i's entry of "qps" as both sides write it (counts, errors). */
struct json_object *jflow_counts(const struct rg_flow *f, unsigned int i);
void jadd_int(struct json_object *o, const char *k, uint64_t v);
void jadd_str(struct json_object *o, const char *k, const char *v);
struct json_object *jloop(const struct rg_run *r);
struct json_object *jhwc(const struct rg_dev *d);
int write_json_file(const char *path, struct json_object *j);

int client_main(const struct rg_opts *o);
int server_main(const struct rg_opts *o);

#endif /* _ROCEGEN_H */
