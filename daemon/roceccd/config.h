/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration file of roceccd (RD_CONF_DEFAULT_PATH; an annotated
 * example is daemon/roceccd/roceccd.conf). Pure logic: parsing, checking and
 * printing, no side effects. Unit-tested by
 * selftests/unit/daemon/test_config.c.
 *
 * File format (read with inih, Debian's libinih-dev; '#' or ';' start a
 * comment line, " ;" (blank, then ';') an inline comment, '#' after a value
 * is part of the value; "key: value" is the same as "key = value"; lines are
 * at most 197 characters and must not be indented, since inih would take an
 * indented line as the continuation of the previous value). Section and key
 * names are case-sensitive; every key is optional and may appear once (a
 * section may be opened more than once). Unknown sections and keys are
 * errors. Keys and defaults:
 *
 *	[daemon]
 *	listen = 127.0.0.1	; metrics address, an IPv4 or IPv6 literal
 *	port = 9468		; metrics TCP port, 1..65535
 *	interval = 1s		; discovery / QP poll interval (*)
 *	linger = 15s		; keep a vanished QP's flows this long (*)
 *	buckets_per_octave = 4	; histogram buckets per power of 2: 1 2 4 8 16
 *	log_level = info	; error, warn, info or debug (any case)
 *	pin_dir = /sys/fs/bpf/rocecc	; an absolute path, or none
 *
 *	[datapath]		; the software DCQCN datapath
 *	engine = none		; none, module (rocecc.ko, when it is
 *				; loaded), bpf (bpf/dcqcn.bpf.c, loaded and
 *				; pinned by the daemon) or auto (module when
 *				; rocecc.ko is loaded, else bpf, chosen per
 *				; netdev when it is attached). Not set by
 *				; default: [module] attach decides (yes:
 *				; module), which must agree if both are set
 *
 *	[module]		; the datapath's netdevs and parameters,
 *				; whichever engine drives them
 *	attach = no		; the old spelling of engine = module (**)
 *	devices = all		; all, or netdev names separated by blanks or
 *				; commas: which netdevs the engine drives
 *	fq = yes		; before attaching, replace a default root
 *				; qdisc (noqueue, pfifo_fast, fq_codel) by fq,
 *				; which pacing needs; removed again on
 *				; detach. no: leave qdiscs alone
 *	profile = mlx5		; mlx5 or paper; not set by default: the
 *				; module's parameter set is left as it is
 *				; (the BPF engine starts from mlx5's)
 *	NAME = VALUE		; any rocecc parameter by its mlx5 name
 *				; (rocecc param show), decimal or 0x hex,
 *				; within the parameter's range; applied after
 *				; the profile. None is set by default.
 *
 *	[straggler]
 *	factor = 2.0		; above 1, at most 1000
 *	min_messages = 100	; at least 1
 *	min_flows = 3		; 2..100000
 *	window = 10s		; (*), at least twice interval
 *	group_by = auto		; auto, process, peer, rankmap or host; auto
 *				; is rankmap if a rank map is configured,
 *				; else process
 *
 *	[rankmap]
 *	file = none		; an absolute path of a rank map (policy/rankmap.h),
 *				; or none
 *	host = NAME		; this host's name in the rank map; not set by
 *				; default: found from this host's addresses
 *
 *	[pfc]			; IEEE PFC and DCB buffers over DCB netlink
 *	devices = all		; all: every RoCE netdev roceccd manages; or
 *				; netdev names as in [module] devices
 *	priorities = 3		; the PFC-enabled (lossless) priorities 0..7,
 *				; comma-separated ("3,4"), or none: PFC off
 *				; on every priority. Not set by default: left
 *				; as the device has it
 *	delay = 0		; ieee_pfc.delay, bits 0..65535 (mlx5 reads
 *				; it as cable length in metres). Not set by
 *				; default
 *	mbc = no		; MACsec bypass capability (**). Not set by
 *				; default
 *	prio2buffer = 0:0,3:1	; PRIO:BUFFER pairs (PRIO 0..7 or all, BUFFER
 *				; 0..7); priorities not listed are left. Not
 *				; set by default
 *	buffer_size = auto	; BUFFER:SIZE pairs (SIZE bytes, or K / M,
 *				; 1024-based), or auto: every buffer that
 *				; holds a PFC priority gets the headroom
 *				; calculator's size (policy/headroom.h) for speed,
 *				; mtu and cable_length, the lossy buffers
 *				; share the rest of the device's total_size
 *				; (rd_pfc_target()). Not set by default
 *	cable_length = 7	; metres 0..10000 ("5", "5m", "2.5m"), for auto
 *	speed = auto		; link speed for auto: 25G, 100G, Mb/s, or
 *				; auto (the netdev's, from sysfs)
 *	mtu = auto		; the largest lossless frame for auto, bytes
 *				; 64..16384, or auto (netdev MTU + 22: L2
 *				; header, VLAN tag, FCS)
 *	watchdog = auto		; PFC storm watchdog: on, off, or auto (on
 *				; when priorities is set and not none) (**)
 *	detection_time = 200ms	; (*) paused this long without progress
 *	restoration_time = 400ms	; (*) no PFC frame this long: over
 *	action = alert		; alert, or disable: PFC off on the stormed
 *				; priority until restoration
 *	tune = off		; closed-loop buffer tuner: off, on, dry-run
 *				; (on and dry-run need priorities)
 *	target_latency = 1ms	; p99.9 completion above which the tuner may
 *				; shrink: 500us, 2ms, 1s (1us..60s), or none
 *	tune_interval = 2s	; (*) at least [daemon] interval
 *	tune_min_size = 0	; bytes (K, M): floor besides the headroom
 *	tune_max_step = 0	; bytes per change, 0: unbounded
 *	tune_up_pct = 25	; grow step, % of the size, 1..1000
 *	tune_down_pct = 10	; shrink step, % of the size, 1..99
 *	tune_hold_up = 3	; tune intervals of pressure to grow, 1..1000
 *	tune_hold_down = 10	; tune intervals quiet and slow to shrink
 *	tune_min_change = 30s	; (*) at most one change per buffer per this
 *	tune_pause_hi = 50	; PFC requests/s that are pressure
 *	tune_ecn_lo = 100	; (CE marks + CNPs sent)/s below: ECN low
 *
 *	[hw]			; NICs that run DCQCN in firmware (mlx5)
 *	apply = no		; write [module] profile and NAME = VALUE to
 *				; their firmware (**); no: only read it
 *	devices = all		; netdev names as in [module] devices
 *
 * (*) rd_parse_ms(): seconds ("1", "0.25"), or with a unit "ms" or "s"
 *     ("250ms", "2s"), 1 ms to one day.
 * (**) yes, no, true, false, on, off, 1 or 0 (any case).
 *
 * Errors read "FILE:LINE: [SECTION] KEY: 'VALUE' what is wrong"; without
 * "[SECTION] KEY: " for a syntax error, an indented or too long line, an
 * unknown section and a key outside of a section; "FILE: ..." without a
 * line for a file that cannot be opened or read and for rd_conf_check().
 * Only the first error is reported.
 */
#ifndef _ROCECC_ROCECCD_CONFIG_H
#define _ROCECC_ROCECCD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rocecc/params.h>

#include "lib/dcbnl.h"

#define RD_CONF_DEFAULT_PATH	"/etc/rocecc/roceccd.conf"

/* What straggler detection compares a flow with. */
enum rd_group_by {
	RD_GROUP_AUTO,		/* RANKMAP if a rank map is configured, else
				 * PROCESS */
	RD_GROUP_PROCESS,
	RD_GROUP_PEER,
	RD_GROUP_RANKMAP,
	RD_GROUP_HOST,
	RD_GROUP_NR,		/* number of values, not one itself */
};

/* The configuration; the defaults are rd_conf_defaults()'s. */
struct rd_conf {
	/* [daemon] */
	char listen[64];		/* "127.0.0.1"; valid for inet_pton()
					 * AF_INET or AF_INET6 */
	uint16_t port;			/* 9468 */
	uint64_t interval_ms;		/* 1000 */
	uint64_t linger_ms;		/* 15000 */
	unsigned int per_octave;	/* 4; rd_valid_per_octave() */
	int log_level;			/* rd_log_level("info"): 0 error,
					 * 1 warn, 2 info, 3 debug */
	char pin_dir[256];		/* "/sys/fs/bpf/rocecc"; absolute, or
					 * "" for no pinning ("none") */
	/* [datapath] */
	int dp_engine;			/* -1 = not set, else enum rd_engine */
	/* [module] */
	bool module_attach;		/* false */
	bool module_fq;			/* true */
	char module_devices[512];	/* "" = all (written "all"), else
					 * distinct netdev names, each
					 * followed by one blank except the
					 * last: "eth0 eth1" */
	int profile;			/* -1 = not set, else enum
					 * rocecc_profile */
	bool param_set[ROCECC_PARAM_MAX + 1];	/* by enum rocecc_param */
	uint32_t param[ROCECC_PARAM_MAX + 1];	/* valid where param_set */
	/* [straggler] */
	double factor;			/* 2.0; (1, 1000] */
	uint64_t min_messages;		/* 100; >= 1 */
	unsigned int min_flows;		/* 3; 2..100000 */
	uint64_t window_ms;		/* 10000 */
	enum rd_group_by group_by;	/* RD_GROUP_AUTO */
	/* [rankmap] */
	char rankmap_file[256];		/* "" = none; else absolute. Only the
					 * path: loading it is
					 * rd_rankmap_load()'s job */
	char local_host[256];		/* "" = not set; else 1 to 255 of
					 * [A-Za-z0-9._:-] (policy/rankmap.h's host
					 * names) */
	/* [pfc]; a key not set leaves the device's value alone */
	char pfc_devices[512];		/* as module_devices: "" = all */
	bool pfc_prio_set;		/* priorities given */
	uint8_t pfc_en;			/* its bitmap, bit = priority */
	int pfc_delay;			/* -1 = not set, else 0..65535 */
	int pfc_mbc;			/* -1 = not set, else 0 or 1 */
	uint8_t pfc_p2b_mask;		/* priorities given in prio2buffer */
	uint8_t pfc_p2b[DCBNL_PRIOS];	/* their buffers, where in the mask */
	bool pfc_size_auto;		/* buffer_size = auto */
	uint8_t pfc_size_mask;		/* buffers given in buffer_size */
	uint32_t pfc_size[DCBNL_BUFFERS];	/* bytes, where in the mask */
	double pfc_cable_m;		/* 7 */
	unsigned int pfc_speed_mbps;	/* 0 = auto */
	unsigned int pfc_mtu;		/* 0 = auto */
	/* [pfc] PFC storm watchdog (policy/pfcwd.h, pfcwd.c) */
	int pfc_wd;			/* -1 = auto (on when priorities
					 * are set and not none), 0, 1 */
	uint64_t pfc_wd_detect_ms;	/* 200 */
	uint64_t pfc_wd_restore_ms;	/* 400 */
	int pfc_wd_action;		/* RD_PFCWD_ALERT */
	/* [pfc] closed-loop buffer tuner (policy/pfctune.h, pfcwd.c) */
	int pfc_tune;			/* RD_PFCTUNE_OFF */
	uint64_t pfc_tune_lat_us;	/* 1000; 0 = none (never shrink) */
	uint64_t pfc_tune_ivl_ms;	/* 2000; >= interval */
	uint32_t pfc_tune_min_size;	/* 0 bytes */
	uint32_t pfc_tune_max_step;	/* 0 = unbounded */
	unsigned int pfc_tune_up_pct;	/* 25; 1..1000 */
	unsigned int pfc_tune_down_pct;	/* 10; 1..99 */
	unsigned int pfc_tune_hold_up;	/* 3; 1..1000 */
	unsigned int pfc_tune_hold_down;	/* 10; 1..1000 */
	uint64_t pfc_tune_min_change_ms;	/* 30000 */
	uint64_t pfc_tune_pause_hi;	/* 50 PFC requests/s */
	uint64_t pfc_tune_ecn_lo;	/* 100 (CE + CNP sent)/s */
	/* [hw] (hw.c) */
	bool hw_apply;			/* false */
	char hw_devices[512];		/* as module_devices: "" = all */
};

enum { RD_PFCWD_ALERT, RD_PFCWD_DISABLE };
enum { RD_PFCTUNE_OFF, RD_PFCTUNE_ON, RD_PFCTUNE_DRY_RUN };

/* [datapath] engine */
enum rd_engine {
	RD_ENGINE_NONE,
	RD_ENGINE_MODULE,	/* rocecc.ko */
	RD_ENGINE_BPF,		/* bpf/dcqcn.bpf.c */
	RD_ENGINE_AUTO,		/* rocecc.ko if loaded, else BPF */
	RD_ENGINE_NR,
};

/* "none", "module", "bpf", "auto"; NULL out of range. */
const char *rd_engine_name(int e);
/* The enum rd_engine of such a name, or -1. */
int rd_engine_parse(const char *s);
/* The engine @c asks for: engine, or else [module] attach. */
int rd_conf_engine(const struct rd_conf *c);

/* Is the PFC watchdog on (watchdog = on, or auto with priorities)? */
bool rd_conf_pfcwd_on(const struct rd_conf *c);

/* Does the configuration ask anything of PFC or buffers? */
bool rd_conf_pfc_wanted(const struct rd_conf *c);

/* Is netdev @name selected by @devices ("" = all; names blank-separated)? */
bool rd_conf_dev_selected(const char *devices, const char *name);

/* rd_pfc_target()'s result bits */
#define RD_PFC_CHANGE_PFC	1	/* struct ieee_pfc differs */
#define RD_PFC_CHANGE_BUF	2	/* struct dcbnl_buffer differs */

/*
 * What [pfc] of @c asks of one netdev. @pfc (if @have_pfc) and @buf (if
 * @have_buf) hold the device's current structs and are changed into the
 * wanted ones. @speed_mbps and @netdev_mtu are the netdev's (0: unknown),
 * used by buffer_size = auto unless [pfc] speed / mtu are set. auto gives
 * every buffer that holds a PFC-enabled priority (after prio2buffer) one
 * headroom_calc() size (in-flight bytes are bounded by the link, not by
 * the number of priorities sharing the buffer); if the device reports a
 * total_size, the rest of it is split evenly among the buffers that hold
 * only lossy priorities and buffers that hold none get 0 (so the sizes add
 * up to the total, as drivers require), else those are left as they are.
 * Returns RD_PFC_CHANGE_* bits, or -EINVAL with @why: PFC keys set but
 * the device has no IEEE PFC, buffer keys set but it has no buffers, auto
 * with an unknown speed or a speed without headroom defaults, or lossless
 * buffers that need more than total_size. @why (if
 * @n) is "" on success.
 */
int rd_pfc_target(const struct rd_conf *c, unsigned int speed_mbps,
		  unsigned int netdev_mtu, struct ieee_pfc *pfc, bool have_pfc,
		  struct dcbnl_buffer *buf, bool have_buf, char *why, size_t n);

/* Fill @c with the defaults. */
void rd_conf_defaults(struct rd_conf *c);

/*
 * Parse the file @path onto @c (rd_conf_defaults() first: keys absent from
 * the file keep their values). 0, or a negative errno with a message in @err
 * (@errlen 0: no message): -EINVAL for bad content, or the errno of opening
 * or reading @path ("FILE: cannot open: No such file or directory"). On
 * failure @c may be partly written: parse into a scratch copy.
 */
int rd_conf_load(struct rd_conf *c, const char *path, char *err,
		 size_t errlen);

/* The same from a string; @name stands for the file name in messages. */
int rd_conf_load_string(struct rd_conf *c, const char *name, const char *text,
			char *err, size_t errlen);

/*
 * Set one key as if read from a file (for command-line overrides): the same
 * values and checks, without duplicate detection. 0 or -EINVAL with
 * "NAME: [SECTION] KEY: 'VALUE' what is wrong" in @err (@name NULL: without
 * "NAME: "), also for an unknown section or key. @c is untouched on failure.
 */
int rd_conf_set(struct rd_conf *c, const char *name, const char *section,
		const char *key, const char *value, char *err, size_t errlen);

/*
 * The command-line flags that set a key (--listen, --port, ...): the long
 * name of flag @i (without "--") and in *@letter its short form (0: none);
 * NULL for @i past the last.
 */
const char *rd_conf_flag(unsigned int i, int *letter);

/*
 * Set the key of flag @i to @value, with the checks of the file; 0, or
 * -EINVAL with "--NAME: 'VALUE' what is wrong" in @err (the words of the
 * file's message). @c is untouched on failure.
 */
int rd_conf_set_flag(struct rd_conf *c, unsigned int i, const char *value,
		     char *err, size_t errlen);

/*
 * Checks across keys, after the file and the command line are applied:
 * [module] attach = yes with [datapath] engine none or bpf, group_by =
 * rankmap without [rankmap] file, [rankmap] host without file,
 * window shorter than 2 * interval, [pfc] buffer_size = auto without
 * priorities (or with priorities = none). 0 or -EINVAL with a message
 * "NAME: [SECTION] KEY: what is wrong" (no line; @name NULL: without
 * "NAME: ").
 */
int rd_conf_check(const struct rd_conf *c, const char *name, char *err,
		  size_t errlen);

/*
 * The configuration in the file's syntax, every section and key (a key that
 * is not set, such as profile or a module parameter, as a comment), which
 * rd_conf_load_string() reads back to an equal struct rd_conf. That holds
 * for any @c that rd_conf_load*() or rd_conf_set() produced; a string field
 * written otherwise must hold no blank followed by ';' nor leading or
 * trailing blanks, and with such long values a line may exceed inih's
 * limit.
 */
void rd_conf_print(FILE *f, const struct rd_conf *c);

/* "auto", "process", "peer", "rankmap", "host"; NULL out of range. */
const char *rd_group_by_name(enum rd_group_by g);

/* The enum rd_group_by of a name as above (case-sensitive), or -1. */
int rd_group_by_parse(const char *s);

/*
 * Two configurations are the same as the file says them: rd_conf_print()
 * writes the same text for both (so module parameters that are not set,
 * bytes after a string's end and the bitmap of priorities that are not set
 * do not count).
 */
bool rd_conf_equal(const struct rd_conf *a, const struct rd_conf *b);

#endif /* _ROCECC_ROCECCD_CONFIG_H */
