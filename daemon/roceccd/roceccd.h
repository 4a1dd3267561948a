/* SPDX-License-Identifier: GPL-2.0 */
/*
 * roceccd's state, and what its files share: roceccd.c (main and its
 * loop), options.c (configuration and reload), bpf.c (flowmon, pinned),
 * http.c (the HTTP server), discovery.c (netdevs and QPs), flows.c (the
 * flow table's snapshots, /flows), groups.c (groups and stragglers),
 * events.c (log, /events.json), tc.c (TC attachment, root qdisc), module.c
 * (rocecc.ko), dp.c (which datapath engine drives each netdev, the qdisc
 * they pace with), bpfdp.c (the BPF datapath engine), pairing.c (the
 * QP table's lookups, the QPs' peers), resolve.c (flowmon's pending
 * entries and unresolved flows, its events), dcb.c (PFC and buffers over
 * DCB netlink), pfcwd.c (PFC storm watchdog and closed-loop buffer
 * tuner), hw.c (NICs with DCQCN in firmware: mlx5) and prom.c
 * (/metrics).
 */
#ifndef _ROCECC_ROCECCD_H
#define _ROCECC_ROCECCD_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <net/if.h>
#include <sys/types.h>
#include <json-c/json.h>

#include "config.h"
#include "families.h"
#include "flowmon.h"
#include "lib/dcbnl.h"
#include "lib/format.h"
#include "lib/hwcc.h"
#include "lib/rdma_nl.h"
#include "lib/rocecc_nl.h"
#include "policy/pfctune.h"
#include "policy/pfcwd.h"
#include "policy/rankmap.h"
#include "policy/straggler.h"

struct flowmon;		/* flowmon.skel.h */
struct ring_buffer;	/* libbpf */
struct bpf_dp;		/* lib/bpf_dp.h */
struct MHD_Daemon;

enum { LOG_ERR_, LOG_WARN_, LOG_INFO_, LOG_DEBUG_ };

struct rd_qp {
	uint32_t ifindex, lqpn, rqpn, pid;
	uint8_t state;
	char comm[64];
	char dev[RDMA_NL_NAME_MAX];
	char netdev[IF_NAMESIZE];
	bool seen;		/* in this round's dump */
	bool gone;		/* vanished; flows deleted at gone_ms + linger */
	uint64_t gone_ms;
	/* pairing.c: the peer, from the QP's address vector (the BPF
	 * engine's learner), else from the flows of our own packets */
	bool have_peer;
	bool peer_av;		/* ... from the address vector: final */
	bool av_due;		/* set up while the learner ran: its address
				 * vector is the peer, a flow that only
				 * received never names one */
	uint8_t peer[16];	/* IPv6, or IPv4-mapped */
	unsigned int peer_gen;	/* bumped when the peer changes */
	uint8_t pair_rank;	/* this round: how its best flow names it */
	unsigned int pair_n;	/* ... flows of that rank */
	uint64_t pair_last_ns;	/* ... the best one's latest packet */
	uint8_t flow_peer[16];	/* ... and its peer */
	uint64_t merge_ms;	/* its qps entry first marked MERGE, 0: never */
	/* bpfdp.c: its dp_qps entry is written, for this peer and rqpn */
	bool dp_set;
	unsigned int dp_gen;
	uint32_t dp_rqpn;
	int dp_timeout;		/* ... and ACK timeout, -1: unknown */
};

struct rd_netdev {
	uint32_t ifindex;
	char name[IF_NAMESIZE];
	char dev[RDMA_NL_NAME_MAX];
	bool created_qdisc;	/* we made its clsact (it stays at exit) */
	bool seen;
	bool mod_attached;	/* we attached rocecc.ko to it */
	bool bpf_attached;	/* we attached the BPF datapath to it */
	unsigned int bpf_gen;	/* rd.conf_gen its BPF configuration follows */
	unsigned int bpf_err_gen;	/* rd.conf_gen of the last error logged */
	bool created_fq;	/* we made its root qdisc (fq or rocecc) for
				 * the datapath */
	unsigned int mod_gen;	/* rd.conf_gen its module parameters follow */
	unsigned int mod_err_gen;	/* rd.conf_gen of the last error logged */
	int rank_host;		/* this host in the rank map, or -1 */
	unsigned int hw_gen;	/* rd.conf_gen "no rocecc.ko on a NIC with
				 * DCQCN in firmware" was logged for */
	/* DCB (dcb.c) */
	unsigned int pfc_gen;	/* rd.conf_gen [pfc] was applied for, 0: not
				 * yet */
	bool pfc_nodcb;		/* the netdev has no DCB: logged */
	bool pfc_errlogged;	/* a read error was logged */
	bool pfc_ok;		/* the last apply worked: pfc_ref is valid */
	struct dcbnl_ieee pfc_ref;	/* read back after that apply */
	bool dcb_have;		/* dcb holds this poll's reading */
	struct dcbnl_ieee dcb;	/* PFC and buffers as last read */
	/* PFC storm watchdog (pfcwd.c) */
	struct pfcwd_prio wd[DCBNL_PRIOS];
	uint8_t wd_active;	/* priorities with a watchdog running */
	uint8_t wd_disabled;	/* priorities whose PFC the watchdog turned
				 * off: dcb.c leaves them off */
	uint8_t wd_tx;		/* transmit side logged as 1 absent, 2 there */
	/* p99.9 message completion of the netdev's flows over the
	 * straggler window (groups.c), for the tuner; 0: none */
	uint64_t tail_ns, tail_samples;
	/* closed-loop buffer tuner (pfcwd.c) */
	struct pfctune_state tune[DCBNL_BUFFERS];
	uint8_t tune_bufs;	/* buffers it tunes (last round) */
	bool tune_have;		/* tune_size is the tuner's target */
	uint32_t tune_size[DCBNL_BUFFERS];	/* as read back after its
						 * last change */
	uint8_t tune_p2b[DCBNL_PRIOS];	/* the prio2buffer it was for */
	uint64_t tune_last_ns;	/* end of the last round; 0: no baseline */
	uint64_t tune_req[DCBNL_PRIOS], tune_ind[DCBNL_PRIOS];
	bool tune_have_mod;	/* the module's counters below are a baseline */
	uint64_t tune_cnp_sent, tune_ce, tune_cnp_handled;
	bool tune_errlogged;
	uint64_t tune_changes[DCBNL_BUFFERS][2];	/* up, down */
	uint64_t tune_proposals[DCBNL_BUFFERS];
	uint32_t tune_proposed[DCBNL_BUFFERS];	/* last dry-run proposal */
	uint8_t tune_held[DCBNL_BUFFERS];	/* 1 + the pfctune_why last
						 * logged as held; 0: none */
};

/* What rd_mod_pfc_get() reads of rocecc.ko for a netdev */
struct rd_mod_pfc_prio {
	bool have;
	uint64_t indications, requests;
	bool have_tx_paused, have_tx_pause_ns, have_tx_packets, have_tx_bytes;
	bool tx_paused;
	uint64_t tx_pause_ns, tx_packets, tx_bytes;
};

struct rd_mod_pfc {
	bool have_stats;	/* per-device counters (all three) */
	uint64_t cnp_sent, ce_marked, cnp_handled;
	bool have_pfc;		/* the PFC nest (software DCB) */
	struct rd_mod_pfc_prio prio[DCBNL_PRIOS];
};

/* An RDMA port whose NIC runs DCQCN in firmware (hw.c) */
struct rd_hw {
	struct hwcc_dev d;
	bool seen;		/* in this poll's discovery */
	unsigned int gen;	/* rd.conf_gen parameters were read (and
				 * [hw] apply done) for */
	bool have_params;
	struct hwcc_params params;	/* as read then */
	bool have_cnt;
	struct hwcc_counters cnt;	/* this poll's */
	bool cnt_errlogged;
	uint64_t writes, errors;
};

/*
 * What the daemon keeps of one flow between polls (sorted by key): the
 * window baselines of its message completion histogram and the straggler
 * verdict.
 */
struct rd_fstate {
	struct flowmon_key key;
	struct strag_win win;
	uint64_t win_samples;	/* in the window */
	uint64_t win_p99_ns;	/* 0 if the window is empty */
	bool straggler;
	uint64_t sgroup;	/* the group it straggles in */
	uint64_t smedian_ns;	/* that group's median p99 */
	unsigned int sflows;	/* eligible flows in that group */
	double ratio;
	char groups[128];	/* "dp0,pp1", "" if none */
	bool seen;
};

/*
 * An event of /events.json as json-c wrote it when it happened,
 * {"seq":N,"time":"...","type":"...",...}; NULL: none, or it could not be
 * stored (out of memory).
 */
struct rd_event {
	uint64_t seq;
	char *json;
};

/* The events of /events.json, the newest this many */
#define RD_EVENTS	256	/* power of two */

struct rd {
	struct rd_conf conf;	/* effective: file, then command line */
	unsigned int conf_gen;	/* bumped on every (re)load */
	const char *conf_path;	/* NULL: none */
	bool conf_explicit;	/* -c given: the file must exist */
	int argc;		/* the command line, re-applied on reload */
	char **argv;
	struct rankmap rmap;
	bool have_rmap;
	bool foreground;

	struct flowmon *skel;
	struct ring_buffer *rb;	/* flowmon's events (resolve.c) */
	unsigned int ev_new;	/* events since the last round they caused */
	uint64_t ev_rounds;	/* rounds of learning events caused */
	uint64_t fm_evicted_pending, fm_evicted_flows;
	struct rdma_nl nl;
	struct MHD_Daemon *httpd;
	int listen_fd;
	const char *pidfile;
	char pinned[256];	/* the pin directory in use, "" if none */
	struct bpf_dp *bdp;	/* the BPF datapath's loader, NULL until used */
	bool bdp_failed_logged;
	bool bdp_tmo_logged;	/* the timeout learner's failure, logged */
	bool bdp_unlearnt;	/* the engine was off for good: no learner
				 * until a netdev is attached again */
	unsigned int bdp_learn_rounds;	/* rounds ended with the learner
					 * attached (capped at 2) */
	uint64_t bdp_errors, bdp_expired;
	struct rnl mod;		/* rocecc.ko's genetlink family */
	bool mod_open;
	bool mod_absent_logged;
	uint64_t start_ms;
	pthread_mutex_t lock;	/* everything below */
	struct rd_qp *qps;
	size_t nqps, capqps;
	struct rd_netdev *nds;
	size_t nnds, capnds;
	struct rd_fstate *fs;	/* sorted by key */
	size_t nfs, capfs;
	unsigned int nstragglers;
	struct rd_event ev[RD_EVENTS];	/* by seq % RD_EVENTS */
	uint64_t ev_seq;	/* seq of the newest event; 0: none yet */
	uint64_t polls, poll_errors;
	uint64_t reloads, reload_errors;
	uint64_t straggler_flagged;
	uint64_t mod_errors;
	struct dcbnl *dcb;	/* DCB netlink, NULL until opened */
	char hw_root[256];	/* --hw-root (tests), "" = / */
	struct hwcc_io hw_io;
	struct rd_hw *hws;	/* NICs with DCQCN in firmware (hw.c) */
	size_t nhws, caphws;
	uint64_t hw_errors;
	bool dcb_open_logged;
	uint64_t pfc_changes, pfc_errors;
};

struct rd_flow_view {
	struct flowmon_key key;
	char name[256];
	char comm[64];
	char peer[64];
	char dev[RDMA_NL_NAME_MAX];
	char netdev[IF_NAMESIZE];
	uint32_t pid;
	uint32_t lqpn;
};

typedef void (*rd_flow_fn)(struct rd *rd, const struct rd_flow_view *v,
			   const struct flowmon_flow *f, void *arg);

/* A consistent copy of every flow (BPF_F_LOCK), named; under rd->lock. */
struct rd_snap {
	struct rd_flow_view *v;
	struct flowmon_flow *f;
	size_t n;
};

/*
 * Group keys: the kind in the top byte, then what names the group.
 * Labels: rank-map groups "tp3", "dp0", ...; a process "comm[pid]"; a peer
 * "peer 10.0.0.2"; "host" for every flow of this host.
 */
#define RD_GK_RANK	(1ULL << 56)
#define RD_GK_PROCESS	(2ULL << 56)
#define RD_GK_PEER	(3ULL << 56)
#define RD_GK_HOST	(4ULL << 56)
#define RD_MAX_GROUPS	16

/* The per-flow counters of struct flowmon_flow, as exported */
struct rd_counter {
	size_t off;
	const char *name;	/* /flows.json key */
	enum rd_family fam;	/* /metrics family */
};

/* roceccd.c */
extern const char rd_prog[];	/* "roceccd" */
/* CLOCK_MONOTONIC in milliseconds */
uint64_t rd_now_ms(void);

/* events.c */
extern int rd_log_max;		/* the most verbose level logged */
extern bool rd_log_to_syslog;	/* daemonized: syslog, else stderr */
void rd_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Record an event for /events.json: @type and its members, each a name and
 * a json-c value (the event takes it; strings from outside through
 * rd_json_str()), the list ended by NULL. json-c writes it at once into
 * the ring (RD_EVENTS slots by seq). Under rd->lock.
 */
void rd_event(struct rd *rd, const char *type, ...)
	__attribute__((sentinel));
/* A JSON number written with printf format @fmt ("%.1f") */
json_object *rd_jfixed(double v, const char *fmt);
void rd_events_free(struct rd *rd);
/*
 * /events.json?since=N, in three steps: the value of since (a decimal
 * 0..2^64-1, digits only; 0, -EINVAL or -ERANGE); the events of @ring
 * (RD_EVENTS slots, @newest the newest seq, 0 if none) after @since,
 * oldest first, copied into @out (at most @max), each once: none if @since
 * is at or past @newest; *@lost counts those after @since that the ring no
 * longer holds (or could not store); then their JSON,
 * {"last":newest,"lost":lost,"events":[...]}, by json-c. The copy is
 * taken under rd->lock, the JSON made outside it; rd_events_put() frees
 * the copy.
 */
int rd_event_since(const char *s, uint64_t *since);
size_t rd_events_after(const struct rd_event *ring, uint64_t newest,
		       uint64_t since, struct rd_event *out, size_t max,
		       uint64_t *lost);
void rd_events_put(struct rd_event *e, size_t n);
void rd_events_json(FILE *f, uint64_t newest, uint64_t lost,
		    const struct rd_event *e, size_t n);

/* options.c */
struct rd_cmdline {
	const char *config;	/* -c */
	const char *pidfile;
	const char *hw_root;	/* --hw-root, tests only */
	bool foreground;
	bool check;		/* --check-config */
	bool list;		/* --list-metrics */
	bool help;
};
int rd_cmdline(struct rd_conf *c, int argc, char **argv,
	       struct rd_cmdline *cl);
/*
 * The configuration: the file (if any), the command line over it, the
 * rank map it names; into @c, @rm and *@have_rm. 0, or -errno with the
 * reason in @err.
 */
int rd_conf_build(struct rd *rd, struct rd_conf *c, struct rankmap *rm,
		  bool *have_rm, char *err, size_t errlen);
void rd_reload(struct rd *rd);

/* bpf.c */
int rd_bpf_load(struct rd *rd);

/* pins.c */
/*
 * Whether pin directory @dir and the pins named @pins in it (those that
 * exist) may be adopted: real directory and regular files, owned by root
 * or @euid, not writable by group or others. 0, or -EPERM (or -errno of
 * lstat) with the reason, naming the path, in @why.
 */
int rd_pin_dir_check(const char *dir, const char *const *pins, size_t npins,
		     uid_t euid, char *why, size_t n);

/* http.c */
int rd_listen(const char *addr, uint16_t port);
struct MHD_Daemon *rd_http_start(struct rd *rd, int fd, const char *addr,
				 uint16_t port);

/* discovery.c */
struct rd_netdev *rd_netdev_find(struct rd *rd, uint32_t ifindex);
/* One round: devices, netdevs, QPs, then the per-netdev work; under lock */
void rd_poll(struct rd *rd);
/* The QPs only (devices, ports, QPs, what follows from them); under lock */
void rd_learn(struct rd *rd);

/* pairing.c */
struct rd_qp *rd_qp_find(struct rd *rd, uint32_t ifindex, uint32_t lqpn);
/* The one QP of @ifindex whose remote QPN is @rqpn, else NULL */
struct rd_qp *rd_qp_by_rqpn(struct rd *rd, uint32_t ifindex, uint32_t rqpn);
/* The QP flow @key/@f is of: by its local QPN, else by the remote one */
struct rd_qp *rd_qp_of_flow(struct rd *rd, const struct flowmon_key *key,
			    const struct flowmon_flow *f);
/*
 * A round of pairing: begin, every flow through rd_pair_flow() (which
 * returns rd_qp_of_flow()), then rd_pair_end() sets the QPs' peers.
 */
void rd_pair_begin(struct rd *rd);
struct rd_qp *rd_pair_flow(struct rd *rd, const struct flowmon_key *key,
			   const struct flowmon_flow *f);
void rd_pair_end(struct rd *rd);
/* @e's peer is @raddr, from its address vector: flows no longer change it */
void rd_pair_av(struct rd_qp *e, const uint8_t *raddr);

/* resolve.c */
/* After learning QPs: merge marks, peers, evictions (under lock) */
void rd_resolve(struct rd *rd, uint64_t now_ms);
int rd_events_open(struct rd *rd);
void rd_events_close(struct rd *rd);
/*
 * Sleep @ms (until *@stop or *@reload), learning the QPs at once when
 * flowmon announces a new flow or pending entry (rate-limited).
 */
void rd_events_wait(struct rd *rd, uint64_t ms, volatile sig_atomic_t *stop,
		    volatile sig_atomic_t *reload);

/* flows.c */
int rd_snap_take(struct rd *rd, struct rd_snap *s);
void rd_snap_free(struct rd_snap *s);
unsigned int rd_snap_each(struct rd *rd, const struct rd_snap *s,
			  rd_flow_fn fn, void *arg);
/* rd_flow_fn's for /flows.json (@arg: a json array) and /flows (a FILE) */
void rd_json_flow(struct rd *rd, const struct rd_flow_view *v,
		  const struct flowmon_flow *f, void *arg);
void rd_text_flow(struct rd *rd, const struct rd_flow_view *v,
		  const struct flowmon_flow *f, void *arg);

/* groups.c */
struct rd_fstate *rd_fstate_find(struct rd *rd, const struct flowmon_key *key);
size_t rd_rank_groups(struct rd *rd, const struct rd_flow_view *v,
		      uint64_t *keys, size_t max, char *labels, size_t lsize);
void rd_group_label(uint64_t key, const struct rd_flow_view *v, char *buf,
		    size_t n);
/* This host and each netdev in the rank map (after a (re)load) */
void rd_rank_hosts(struct rd *rd);
/* The straggler round over every flow, once per poll */
void rd_strag_round(struct rd *rd, uint64_t now);

/* tc.c */
int rd_root_kind(uint32_t ifindex, char *kind, size_t n);
int rd_root_fq(uint32_t ifindex, bool add);
int rd_root_rocecc(uint32_t ifindex);
int rd_attach(struct rd *rd, struct rd_netdev *nd);
void rd_detach(struct rd_netdev *nd);

/* dp.c: the datapath engine of each netdev, and the qdisc they pace with */
void rd_dp_sync(struct rd *rd, struct rd_netdev *nd);
/* Off @nd: @stopping (exit) keeps the BPF engine's state pinned */
void rd_dp_release(struct rd *rd, struct rd_netdev *nd, bool stopping);
void rd_dp_qdisc(struct rd *rd, struct rd_netdev *nd);
void rd_dp_unqdisc(struct rd_netdev *nd);

/* bpfdp.c: the BPF datapath engine */
void rd_bpf_sync(struct rd *rd, struct rd_netdev *nd);
void rd_bpf_release(struct rd *rd, struct rd_netdev *nd, bool stopping);
/* dp_qps from the QPs whose peers are known; after each round of learning */
void rd_bpf_qps(struct rd *rd);
/* The QPs' peers from their address vectors, before the flows' pairing */
void rd_bpf_peers(struct rd *rd);
/* Is a QP first seen now on @ifindex surely set up under the learner? */
bool rd_bpf_av_due(struct rd *rd, uint32_t ifindex);
void rd_bpf_expire(struct rd *rd);
void rd_bpf_close(struct rd *rd);
/* @nd's counters (enum rocecc_stat, enum dcqcn_stat), if BPF drives it */
int rd_bpf_stats(struct rd *rd, const struct rd_netdev *nd,
		 uint64_t v[]);
/*
 * The series {netdev, engine="bpf"} of counter @stat in @family, one per
 * netdev BPF drives, to @f (NULL: only count them); how many.
 */
int rd_bpf_stat_lines(struct rd *rd, FILE *f, const char *family,
		      unsigned int stat);
/* Its own counters (rocecc_dp_<dcqcn_stat_name>_total), errors */
void rd_bpf_metrics(struct rd *rd, FILE *f);

/* module.c */
void rd_mod_sync(struct rd *rd, struct rd_netdev *nd, bool want);
void rd_mod_release(struct rd *rd, struct rd_netdev *nd);
void rd_mod_metrics(struct rd *rd, FILE *f);
/* DEV_GET of @nd: counters and PFC nest into @out. 0 or -errno. */
int rd_mod_pfc_get(struct rd *rd, const struct rd_netdev *nd,
		   struct rd_mod_pfc *out);

/* dcb.c */
void rd_dcb_sync(struct rd *rd, struct rd_netdev *nd);
void rd_dcb_metrics(struct rd *rd, FILE *f);
void rd_dcb_close(struct rd *rd);
bool rd_dcb_ready(struct rd *rd);
unsigned int rd_sysfs_uint(const char *dev, const char *attr);

/* pfcwd.c */
void rd_pfcwd_poll(struct rd *rd, struct rd_netdev *nd);
void rd_pfcwd_metrics(struct rd *rd, FILE *f);
/* On exit: PFC back on the priorities the watchdog holds off */
void rd_pfcwd_release(struct rd *rd, struct rd_netdev *nd);
/* The tuner's buffer sizes onto @b, if it holds @nd's (dcb.c's apply) */
bool rd_pfctune_target(const struct rd *rd, struct rd_netdev *nd,
		       struct dcbnl_buffer *b);

/* hw.c */
int rd_hw_init(struct rd *rd);
void rd_hw_poll(struct rd *rd);
/* The port of netdev @netdev if its NIC runs DCQCN in firmware */
struct rd_hw *rd_hw_find(struct rd *rd, const char *netdev);
/*
 * If @netdev's NIC runs DCQCN in firmware: its counters onto @m (when it
 * has this poll's) in rocecc.ko's terms, and true.
 */
bool rd_hw_pfc(struct rd *rd, const char *netdev, struct rd_mod_pfc *m);
/* The series of the families module.c and dcb.c own, engine="hw" */
bool rd_hw_has_stat(const struct rd *rd, unsigned int stat);
void rd_hw_stat_lines(struct rd *rd, FILE *f, const char *family,
		      unsigned int stat);
void rd_hw_pfc_lines(struct rd *rd, FILE *f, const char *family, bool tx);
void rd_hw_metrics(struct rd *rd, FILE *f);

/* prom.c */
extern const struct rd_counter rd_counters[];
extern const unsigned int rd_ncounters;
void rd_metrics(struct rd *rd, const struct rd_snap *snap, FILE *f);

#endif
