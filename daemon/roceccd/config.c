// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd's configuration file: parsing, cross-key checks and printing
 * (format in config.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <ini.h>

#include "config.h"
#include "lib/parse.h"
#include "policy/headroom.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define IFNAME_MAX	15	/* IFNAMSIZ - 1 */
#define HOST_MAX	255	/* RANKMAP_HOST_MAX */

enum {
	S_DAEMON, S_DATAPATH, S_MODULE, S_STRAGGLER, S_RANKMAP, S_PFC, S_HW,
	S_NR
};

static const char *const sections[S_NR] = {
	[S_DAEMON] = "daemon",
	[S_DATAPATH] = "datapath",
	[S_MODULE] = "module",
	[S_STRAGGLER] = "straggler",
	[S_RANKMAP] = "rankmap",
	[S_PFC] = "pfc",
	[S_HW] = "hw",
};

#define SECTIONS_KNOWN	"daemon, datapath, module, straggler, rankmap, pfc, hw"

/*
 * The keys other than module parameters; a module parameter's key number is
 * K_NKEYS - 1 + its enum rocecc_param.
 */
enum {
	K_LISTEN, K_PORT, K_INTERVAL, K_LINGER, K_PER_OCTAVE, K_LOG_LEVEL,
	K_PIN_DIR,
	K_ENGINE,
	K_ATTACH, K_DEVICES, K_FQ, K_PROFILE,
	K_FACTOR, K_MIN_MESSAGES, K_MIN_FLOWS, K_WINDOW, K_GROUP_BY,
	K_FILE, K_HOST,
	K_PFC_DEVICES, K_PFC_PRIOS, K_PFC_DELAY, K_PFC_MBC, K_PFC_P2B,
	K_PFC_SIZE, K_PFC_CABLE, K_PFC_SPEED, K_PFC_MTU,
	K_WD, K_WD_DETECT, K_WD_RESTORE, K_WD_ACTION,
	K_TUNE, K_TUNE_LAT, K_TUNE_IVL, K_TUNE_MIN_SIZE, K_TUNE_MAX_STEP,
	K_TUNE_UP_PCT, K_TUNE_DOWN_PCT, K_TUNE_HOLD_UP, K_TUNE_HOLD_DOWN,
	K_TUNE_MIN_CHANGE, K_TUNE_PAUSE_HI, K_TUNE_ECN_LO,
	K_HW_APPLY, K_HW_DEVICES,
	K_NKEYS,
	K_ALL = K_NKEYS + ROCECC_PARAM_MAX,
};

static const struct {
	int section;
	const char *name;
} keys[K_NKEYS] = {
	[K_LISTEN] = { S_DAEMON, "listen" },
	[K_PORT] = { S_DAEMON, "port" },
	[K_INTERVAL] = { S_DAEMON, "interval" },
	[K_LINGER] = { S_DAEMON, "linger" },
	[K_PER_OCTAVE] = { S_DAEMON, "buckets_per_octave" },
	[K_LOG_LEVEL] = { S_DAEMON, "log_level" },
	[K_PIN_DIR] = { S_DAEMON, "pin_dir" },
	[K_ENGINE] = { S_DATAPATH, "engine" },
	[K_ATTACH] = { S_MODULE, "attach" },
	[K_DEVICES] = { S_MODULE, "devices" },
	[K_FQ] = { S_MODULE, "fq" },
	[K_PROFILE] = { S_MODULE, "profile" },
	[K_FACTOR] = { S_STRAGGLER, "factor" },
	[K_MIN_MESSAGES] = { S_STRAGGLER, "min_messages" },
	[K_MIN_FLOWS] = { S_STRAGGLER, "min_flows" },
	[K_WINDOW] = { S_STRAGGLER, "window" },
	[K_GROUP_BY] = { S_STRAGGLER, "group_by" },
	[K_FILE] = { S_RANKMAP, "file" },
	[K_HOST] = { S_RANKMAP, "host" },
	[K_PFC_DEVICES] = { S_PFC, "devices" },
	[K_PFC_PRIOS] = { S_PFC, "priorities" },
	[K_PFC_DELAY] = { S_PFC, "delay" },
	[K_PFC_MBC] = { S_PFC, "mbc" },
	[K_PFC_P2B] = { S_PFC, "prio2buffer" },
	[K_PFC_SIZE] = { S_PFC, "buffer_size" },
	[K_PFC_CABLE] = { S_PFC, "cable_length" },
	[K_PFC_SPEED] = { S_PFC, "speed" },
	[K_PFC_MTU] = { S_PFC, "mtu" },
	[K_WD] = { S_PFC, "watchdog" },
	[K_WD_DETECT] = { S_PFC, "detection_time" },
	[K_WD_RESTORE] = { S_PFC, "restoration_time" },
	[K_WD_ACTION] = { S_PFC, "action" },
	[K_TUNE] = { S_PFC, "tune" },
	[K_TUNE_LAT] = { S_PFC, "target_latency" },
	[K_TUNE_IVL] = { S_PFC, "tune_interval" },
	[K_TUNE_MIN_SIZE] = { S_PFC, "tune_min_size" },
	[K_TUNE_MAX_STEP] = { S_PFC, "tune_max_step" },
	[K_TUNE_UP_PCT] = { S_PFC, "tune_up_pct" },
	[K_TUNE_DOWN_PCT] = { S_PFC, "tune_down_pct" },
	[K_TUNE_HOLD_UP] = { S_PFC, "tune_hold_up" },
	[K_TUNE_HOLD_DOWN] = { S_PFC, "tune_hold_down" },
	[K_TUNE_MIN_CHANGE] = { S_PFC, "tune_min_change" },
	[K_TUNE_PAUSE_HI] = { S_PFC, "tune_pause_hi" },
	[K_TUNE_ECN_LO] = { S_PFC, "tune_ecn_lo" },
	[K_HW_APPLY] = { S_HW, "apply" },
	[K_HW_DEVICES] = { S_HW, "devices" },
};

static const char *const group_by_names[RD_GROUP_NR] = {
	[RD_GROUP_AUTO] = "auto",
	[RD_GROUP_PROCESS] = "process",
	[RD_GROUP_PEER] = "peer",
	[RD_GROUP_RANKMAP] = "rankmap",
	[RD_GROUP_HOST] = "host",
};

static const char *const profile_names[__ROCECC_PROFILE_MAX] = {
	[ROCECC_PROFILE_MLX5] = "mlx5",
	[ROCECC_PROFILE_PAPER] = "paper",
};

/* rd_log_level()'s names, for printing. */
static const char *const log_level_names[] = {
	"error", "warn", "info", "debug",
};

static const char *const engine_names[RD_ENGINE_NR] = {
	[RD_ENGINE_NONE] = "none",
	[RD_ENGINE_MODULE] = "module",
	[RD_ENGINE_BPF] = "bpf",
	[RD_ENGINE_AUTO] = "auto",
};

const char *rd_engine_name(int e)
{
	return e >= 0 && e < RD_ENGINE_NR ? engine_names[e] : NULL;
}

int rd_engine_parse(const char *s)
{
	int e;

	for (e = 0; e < RD_ENGINE_NR; e++)
		if (!strcmp(s, engine_names[e]))
			return e;
	return -1;
}

int rd_conf_engine(const struct rd_conf *c)
{
	if (c->dp_engine >= 0)
		return c->dp_engine;
	return c->module_attach ? RD_ENGINE_MODULE : RD_ENGINE_NONE;
}

const char *rd_group_by_name(enum rd_group_by g)
{
	return (unsigned int)g < RD_GROUP_NR ? group_by_names[g] : NULL;
}

int rd_group_by_parse(const char *s)
{
	int g;

	for (g = 0; g < RD_GROUP_NR; g++)
		if (!strcmp(s, group_by_names[g]))
			return g;
	return -1;
}

void rd_conf_defaults(struct rd_conf *c)
{
	memset(c, 0, sizeof(*c));
	strcpy(c->listen, "127.0.0.1");
	c->port = 9468;
	c->interval_ms = 1000;
	c->linger_ms = 15000;
	c->per_octave = 4;
	c->log_level = rd_log_level("info");
	strcpy(c->pin_dir, "/sys/fs/bpf/rocecc");
	c->dp_engine = -1;
	c->module_attach = false;
	c->hw_apply = false;
	c->module_fq = true;
	c->profile = -1;
	c->factor = 2.0;
	c->min_messages = 100;
	c->min_flows = 3;
	c->window_ms = 10000;
	c->group_by = RD_GROUP_AUTO;
	c->pfc_delay = -1;
	c->pfc_mbc = -1;
	c->pfc_cable_m = 7;
	c->pfc_wd = -1;
	c->pfc_wd_detect_ms = 200;
	c->pfc_wd_restore_ms = 400;
	c->pfc_wd_action = RD_PFCWD_ALERT;
	c->pfc_tune = RD_PFCTUNE_OFF;
	c->pfc_tune_lat_us = 1000;
	c->pfc_tune_ivl_ms = 2000;
	c->pfc_tune_up_pct = 25;
	c->pfc_tune_down_pct = 10;
	c->pfc_tune_hold_up = 3;
	c->pfc_tune_hold_down = 10;
	c->pfc_tune_min_change_ms = 30000;
	c->pfc_tune_pause_hi = 50;
	c->pfc_tune_ecn_lo = 100;
}

bool rd_conf_pfcwd_on(const struct rd_conf *c)
{
	return c->pfc_wd > 0 ||
	       (c->pfc_wd < 0 && c->pfc_prio_set && c->pfc_en);
}

bool rd_conf_equal(const struct rd_conf *a, const struct rd_conf *b)
{
	unsigned int id;

	for (id = 1; id <= ROCECC_PARAM_MAX; id++)
		if (a->param_set[id] != b->param_set[id] ||
		    (a->param_set[id] && a->param[id] != b->param[id]))
			return false;
	for (id = 0; id < DCBNL_PRIOS; id++)
		if (((a->pfc_p2b_mask ^ b->pfc_p2b_mask) & 1u << id) ||
		    ((a->pfc_p2b_mask & 1u << id) && a->pfc_p2b[id] != b->pfc_p2b[id]))
			return false;
	for (id = 0; id < DCBNL_BUFFERS; id++)
		if (((a->pfc_size_mask ^ b->pfc_size_mask) & 1u << id) ||
		    ((a->pfc_size_mask & 1u << id) && a->pfc_size[id] != b->pfc_size[id]))
			return false;
	if (strcmp(a->pfc_devices, b->pfc_devices) ||
	    a->pfc_prio_set != b->pfc_prio_set ||
	    (a->pfc_prio_set && a->pfc_en != b->pfc_en) ||
	    a->pfc_delay != b->pfc_delay || a->pfc_mbc != b->pfc_mbc ||
	    a->pfc_size_auto != b->pfc_size_auto ||
	    a->pfc_cable_m != b->pfc_cable_m ||
	    a->pfc_speed_mbps != b->pfc_speed_mbps || a->pfc_mtu != b->pfc_mtu)
		return false;
	if (a->pfc_wd != b->pfc_wd ||
	    a->pfc_wd_detect_ms != b->pfc_wd_detect_ms ||
	    a->pfc_wd_restore_ms != b->pfc_wd_restore_ms ||
	    a->pfc_wd_action != b->pfc_wd_action ||
	    a->pfc_tune != b->pfc_tune ||
	    a->pfc_tune_lat_us != b->pfc_tune_lat_us ||
	    a->pfc_tune_ivl_ms != b->pfc_tune_ivl_ms ||
	    a->pfc_tune_min_size != b->pfc_tune_min_size ||
	    a->pfc_tune_max_step != b->pfc_tune_max_step ||
	    a->pfc_tune_up_pct != b->pfc_tune_up_pct ||
	    a->pfc_tune_down_pct != b->pfc_tune_down_pct ||
	    a->pfc_tune_hold_up != b->pfc_tune_hold_up ||
	    a->pfc_tune_hold_down != b->pfc_tune_hold_down ||
	    a->pfc_tune_min_change_ms != b->pfc_tune_min_change_ms ||
	    a->pfc_tune_pause_hi != b->pfc_tune_pause_hi ||
	    a->pfc_tune_ecn_lo != b->pfc_tune_ecn_lo)
		return false;
	return !strcmp(a->listen, b->listen) && a->port == b->port &&
	       a->interval_ms == b->interval_ms &&
	       a->linger_ms == b->linger_ms &&
	       a->per_octave == b->per_octave &&
	       a->log_level == b->log_level &&
	       !strcmp(a->pin_dir, b->pin_dir) &&
	       a->dp_engine == b->dp_engine &&
	       a->module_attach == b->module_attach &&
	       a->hw_apply == b->hw_apply &&
	       !strcmp(a->hw_devices, b->hw_devices) &&
	       a->module_fq == b->module_fq &&
	       !strcmp(a->module_devices, b->module_devices) &&
	       a->profile == b->profile && a->factor == b->factor &&
	       a->min_messages == b->min_messages &&
	       a->min_flows == b->min_flows && a->window_ms == b->window_ms &&
	       a->group_by == b->group_by &&
	       !strcmp(a->rankmap_file, b->rankmap_file) &&
	       !strcmp(a->local_host, b->local_host);
}

/* Values. Each parser returns 0, or -EINVAL with the reason in @why. */

/* Decimal, no sign, no blanks; -EINVAL, or -ERANGE above @max. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (max - (*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 0;
}

/* Decimal or 0x hex, no sign, no blanks; -EINVAL, or -ERANGE above u32. */
static int parse_u32_hex(const char *s, uint32_t *out)
{
	uint64_t v = 0;
	unsigned int d;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
		int err = parse_u64(s, UINT32_MAX, &v);

		if (!err)
			*out = v;
		return err;
	}
	s += 2;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		v = v << 4 | d;
		if (v > UINT32_MAX) {
			/* the rest must still be hex digits */
			while (*++s)
				if (!strchr("0123456789abcdefABCDEF", *s))
					return -EINVAL;
			return -ERANGE;
		}
	}
	*out = v;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* A plain decimal number: no sign, blanks, hex, nan or infinity. */
static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s || strchr(" \t+-", *s) || strpbrk(s, "xXpPnNiI"))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "none" -> "", else an absolute path that fits @n. */
static int parse_path(const char *s, char *out, size_t n, char *why,
		      size_t whylen)
{
	if (!strcmp(s, "none")) {
		out[0] = '\0';
		return 0;
	}
	if (s[0] != '/') {
		snprintf(why, whylen, "is not an absolute path (or none)");
		return -EINVAL;
	}
	if (strlen(s) >= n) {
		snprintf(why, whylen, "is longer than %zu characters", n - 1);
		return -EINVAL;
	}
	strcpy(out, s);
	return 0;
}

/* What the kernel's dev_valid_name() accepts. */
static bool valid_ifname(const char *s, size_t n)
{
	size_t i;

	if (!n || n > IFNAME_MAX || (n == 1 && s[0] == '.') ||
	    (n == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	for (i = 0; i < n; i++)
		if (s[i] == '/' || s[i] == ':' || s[i] == ' ' ||
		    (s[i] >= '\t' && s[i] <= '\r'))
			return false;
	return true;
}

#define DEV_SEP	" \t,"

/* "all", or netdev names separated by DEV_SEP, normalised into @out. */
static int parse_devices(const char *s, char *out, size_t n, char *why,
			 size_t whylen)
{
	const char *p, *q;
	size_t len = 0, w, wq;

	if (!strcmp(s, "all")) {
		out[0] = '\0';
		return 0;
	}
	out[0] = '\0';
	for (p = s + strspn(s, DEV_SEP); *p; p += w, p += strspn(p, DEV_SEP)) {
		w = strcspn(p, DEV_SEP);
		if (w == 3 && !strncmp(p, "all", 3)) {
			snprintf(why, whylen,
				 "lists 'all' with netdev names (all, or names)");
			return -EINVAL;
		}
		if (!valid_ifname(p, w)) {
			snprintf(why, whylen,
				 "has '%.*s', not a netdev name (1 to %d characters, no '/' or ':')",
				 (int)w, p, IFNAME_MAX);
			return -EINVAL;
		}
		for (q = out; *q; q += wq, q += *q == ' ') {
			wq = strcspn(q, " ");
			if (wq == w && !strncmp(q, p, w)) {
				snprintf(why, whylen, "lists '%.*s' twice",
					 (int)w, p);
				return -EINVAL;
			}
		}
		if (len + !!len + w >= n) {
			snprintf(why, whylen, "is longer than %zu characters",
				 n - 1);
			return -EINVAL;
		}
		if (len)
			out[len++] = ' ';
		memcpy(out + len, p, w);
		len += w;
		out[len] = '\0';
	}
	if (!len) {
		snprintf(why, whylen, "lists no netdev (all, or names)");
		return -EINVAL;
	}
	return 0;
}

/* policy/rankmap.h's host names. */
static bool valid_host(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' ||
		      *s == ':' || *s == '-'))
			return false;
	return n && n <= HOST_MAX;
}

static int set_time(const char *s, uint64_t *ms, char *why, size_t whylen)
{
	int err = rd_parse_ms(s, ms);

	if (err == -ERANGE)
		snprintf(why, whylen, "is out of range (1ms to 1 day)");
	else if (err)
		snprintf(why, whylen,
			 "is not a time (seconds, or with a unit: 250ms, 2s)");
	return err ? -EINVAL : 0;
}

/*
 * A latency: an integer with a unit, "500us", "2ms", "1s", 1 us to 60 s,
 * into microseconds; or "none" (0). 0 or -EINVAL.
 */
static int parse_latency(const char *s, uint64_t *us)
{
	static const struct {
		const char *unit;
		uint64_t mult;
	} units[] = { { "us", 1 }, { "ms", 1000 }, { "s", 1000000 } };
	char num[24];
	size_t n = strspn(s, "0123456789");
	uint64_t v;
	unsigned int i;

	if (!strcmp(s, "none")) {
		*us = 0;
		return 0;
	}
	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (parse_u64(num, 60000000, &v))
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s + n, units[i].unit)) {
			if (!v || v > 60000000 / units[i].mult)
				return -EINVAL;
			*us = v * units[i].mult;
			return 0;
		}
	return -EINVAL;
}

/* A latency as parse_latency() reads it back. */
static const char *latency_str(uint64_t us, char *buf, size_t n)
{
	if (!us)
		snprintf(buf, n, "none");
	else if (!(us % 1000000))
		snprintf(buf, n, "%llus", (unsigned long long)(us / 1000000));
	else if (!(us % 1000))
		snprintf(buf, n, "%llums", (unsigned long long)(us / 1000));
	else
		snprintf(buf, n, "%lluus", (unsigned long long)us);
	return buf;
}

/* An integer @lo..@hi into *@out. */
static int set_uint(const char *s, unsigned int lo, unsigned int hi,
		    unsigned int *out, const char *what, char *why,
		    size_t whylen)
{
	uint64_t v;

	if (parse_u64(s, hi, &v) || v < lo) {
		snprintf(why, whylen, "is not an integer from %u to %u%s", lo,
			 hi, what);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

/* Module parameter @id. */
static int set_param(struct rd_conf *c, unsigned int id, const char *s,
		     char *why, size_t whylen)
{
	const struct rocecc_param_info *pi = rocecc_param_info(id);
	uint32_t v;
	int err;

	err = parse_u32_hex(s, &v);
	if (err == -EINVAL) {
		snprintf(why, whylen,
			 "is not a number (decimal, or hex with 0x)");
		return -EINVAL;
	}
	if (err || rocecc_param_validate(id, v)) {
		snprintf(why, whylen, "is out of range: %u..%u (%s)", pi->min,
			 pi->max, pi->unit);
		return -EINVAL;
	}
	c->param_set[id] = true;
	c->param[id] = v;
	return 0;
}

/* Key number @k (K_*, or a module parameter) := @s. */
static int set_key(struct rd_conf *c, int k, const char *s, char *why,
		   size_t whylen)
{
	uint64_t v;
	bool b;
	int i;

	why[0] = '\0';
	switch (k) {
	case K_LISTEN: {
		unsigned char addr[16];

		if (strlen(s) >= sizeof(c->listen) ||
		    (inet_pton(AF_INET, s, addr) != 1 &&
		     inet_pton(AF_INET6, s, addr) != 1)) {
			snprintf(why, whylen, "is not an IPv4 or IPv6 address");
			return -EINVAL;
		}
		strcpy(c->listen, s);
		return 0;
	}
	case K_PORT:
		if (rd_parse_port(s, &c->port)) {
			snprintf(why, whylen, "is not a TCP port (1..65535)");
			return -EINVAL;
		}
		return 0;
	case K_INTERVAL:
		return set_time(s, &c->interval_ms, why, whylen);
	case K_LINGER:
		return set_time(s, &c->linger_ms, why, whylen);
	case K_WINDOW:
		return set_time(s, &c->window_ms, why, whylen);
	case K_PER_OCTAVE:
		if (parse_u64(s, 16, &v) || !rd_valid_per_octave(v)) {
			snprintf(why, whylen, "is not 1, 2, 4, 8 or 16");
			return -EINVAL;
		}
		c->per_octave = v;
		return 0;
	case K_LOG_LEVEL:
		i = rd_log_level(s);
		if (i < 0) {
			snprintf(why, whylen,
				 "is not a log level (error, warn, info, debug)");
			return -EINVAL;
		}
		c->log_level = i;
		return 0;
	case K_PIN_DIR:
		return parse_path(s, c->pin_dir, sizeof(c->pin_dir), why,
				  whylen);
	case K_ENGINE:
		i = rd_engine_parse(s);
		if (i < 0) {
			snprintf(why, whylen, "is not none, module, bpf or auto");
			return -EINVAL;
		}
		c->dp_engine = i;
		return 0;
	case K_ATTACH:
		if (parse_bool(s, &b)) {
			snprintf(why, whylen,
				 "is not yes, no, true, false, on, off, 1 or 0");
			return -EINVAL;
		}
		c->module_attach = b;
		return 0;
	case K_HW_APPLY:
		if (parse_bool(s, &b)) {
			snprintf(why, whylen,
				 "is not yes, no, true, false, on, off, 1 or 0");
			return -EINVAL;
		}
		c->hw_apply = b;
		return 0;
	case K_HW_DEVICES: {
		char devs[sizeof(c->hw_devices)];

		if (parse_devices(s, devs, sizeof(devs), why, whylen))
			return -EINVAL;
		strcpy(c->hw_devices, devs);
		return 0;
	}
	case K_FQ:
		if (parse_bool(s, &b)) {
			snprintf(why, whylen,
				 "is not yes, no, true, false, on, off, 1 or 0");
			return -EINVAL;
		}
		c->module_fq = b;
		return 0;
	case K_DEVICES: {
		char devs[sizeof(c->module_devices)];

		if (parse_devices(s, devs, sizeof(devs), why, whylen))
			return -EINVAL;
		strcpy(c->module_devices, devs);
		return 0;
	}
	case K_PROFILE:
		for (i = 0; i < __ROCECC_PROFILE_MAX; i++)
			if (!strcmp(s, profile_names[i])) {
				c->profile = i;
				return 0;
			}
		snprintf(why, whylen, "is not a profile (mlx5, paper)");
		return -EINVAL;
	case K_FACTOR: {
		double d;

		if (parse_double(s, &d)) {
			snprintf(why, whylen, "is not a number");
			return -EINVAL;
		}
		if (!(d > 1.0 && d <= 1000.0)) {
			snprintf(why, whylen,
				 "is out of range (above 1, at most 1000)");
			return -EINVAL;
		}
		c->factor = d;
		return 0;
	}
	case K_MIN_MESSAGES:
		if (parse_u64(s, UINT64_MAX, &v) || !v) {
			snprintf(why, whylen,
				 "is not an integer from 1 to %llu",
				 (unsigned long long)UINT64_MAX);
			return -EINVAL;
		}
		c->min_messages = v;
		return 0;
	case K_MIN_FLOWS:
		if (parse_u64(s, 100000, &v) || v < 2) {
			snprintf(why, whylen,
				 "is not an integer from 2 to 100000");
			return -EINVAL;
		}
		c->min_flows = v;
		return 0;
	case K_GROUP_BY:
		i = rd_group_by_parse(s);
		if (i < 0) {
			snprintf(why, whylen,
				 "is not auto, process, peer, rankmap or host");
			return -EINVAL;
		}
		c->group_by = i;
		return 0;
	case K_FILE:
		return parse_path(s, c->rankmap_file, sizeof(c->rankmap_file),
				  why, whylen);
	case K_HOST:
		if (!valid_host(s)) {
			snprintf(why, whylen,
				 "is not a host name (1 to %d of [A-Za-z0-9._:-])",
				 HOST_MAX);
			return -EINVAL;
		}
		strcpy(c->local_host, s);
		return 0;
	case K_PFC_DEVICES: {
		char devs[sizeof(c->pfc_devices)];

		if (parse_devices(s, devs, sizeof(devs), why, whylen))
			return -EINVAL;
		strcpy(c->pfc_devices, devs);
		return 0;
	}
	case K_PFC_PRIOS: {
		struct dcbnl_perr pe;
		uint8_t m;

		if (dcbnl_parse_prio_list(s, &m, &pe)) {
			snprintf(why, whylen, "has '%s': %s (a list like 3,4, or none)",
				 pe.item, pe.why);
			return -EINVAL;
		}
		c->pfc_prio_set = true;
		c->pfc_en = m;
		return 0;
	}
	case K_PFC_DELAY:
		if (parse_u64(s, 65535, &v)) {
			snprintf(why, whylen, "is not an integer from 0 to 65535 (bits)");
			return -EINVAL;
		}
		c->pfc_delay = (int)v;
		return 0;
	case K_PFC_MBC:
		if (parse_bool(s, &b)) {
			snprintf(why, whylen,
				 "is not yes, no, true, false, on, off, 1 or 0");
			return -EINVAL;
		}
		c->pfc_mbc = b;
		return 0;
	case K_PFC_P2B: {
		struct dcbnl_perr pe;
		uint8_t p2b[DCBNL_PRIOS], m;

		memcpy(p2b, c->pfc_p2b, sizeof(p2b));
		if (dcbnl_parse_prio2buffer(s, p2b, &m, &pe)) {
			snprintf(why, whylen, "has '%s': %s (PRIO:BUFFER pairs like 0:0,3:1)",
				 pe.item, pe.why);
			return -EINVAL;
		}
		memset(c->pfc_p2b, 0, sizeof(c->pfc_p2b));
		for (i = 0; i < DCBNL_PRIOS; i++)
			if (m & 1u << i)
				c->pfc_p2b[i] = p2b[i];
		c->pfc_p2b_mask = m;
		return 0;
	}
	case K_PFC_SIZE: {
		struct dcbnl_perr pe;
		uint32_t sz[DCBNL_BUFFERS] = { 0 };
		uint8_t m;

		if (!strcmp(s, "auto")) {
			c->pfc_size_auto = true;
			c->pfc_size_mask = 0;
			memset(c->pfc_size, 0, sizeof(c->pfc_size));
			return 0;
		}
		if (dcbnl_parse_buffer_sizes(s, sz, &m, &pe)) {
			snprintf(why, whylen, "has '%s': %s (auto, or BUFFER:SIZE pairs like 0:256K,1:128K)",
				 pe.item, pe.why);
			return -EINVAL;
		}
		c->pfc_size_auto = false;
		c->pfc_size_mask = m;
		memcpy(c->pfc_size, sz, sizeof(sz));
		return 0;
	}
	case K_PFC_CABLE: {
		double d;

		if (dcbnl_parse_length(s, &d)) {
			snprintf(why, whylen, "is not a length in metres from 0 to 10000 (5, 5m, 2.5m)");
			return -EINVAL;
		}
		c->pfc_cable_m = d;
		return 0;
	}
	case K_PFC_SPEED: {
		unsigned int mbps;

		if (!strcmp(s, "auto")) {
			c->pfc_speed_mbps = 0;
			return 0;
		}
		if (dcbnl_parse_speed(s, &mbps)) {
			snprintf(why, whylen, "is not a link speed (auto, 25G, 100G, or Mb/s up to 1600000)");
			return -EINVAL;
		}
		c->pfc_speed_mbps = mbps;
		return 0;
	}
	case K_PFC_MTU:
		if (!strcmp(s, "auto")) {
			c->pfc_mtu = 0;
			return 0;
		}
		if (parse_u64(s, HEADROOM_MTU_MAX, &v) || v < HEADROOM_MTU_MIN) {
			snprintf(why, whylen, "is not auto or a frame size from %u to %u bytes",
				 HEADROOM_MTU_MIN, HEADROOM_MTU_MAX);
			return -EINVAL;
		}
		c->pfc_mtu = (unsigned int)v;
		return 0;
	case K_WD:
		if (!strcmp(s, "auto")) {
			c->pfc_wd = -1;
			return 0;
		}
		if (parse_bool(s, &b)) {
			snprintf(why, whylen,
				 "is not on, off or auto (on when priorities are set)");
			return -EINVAL;
		}
		c->pfc_wd = b;
		return 0;
	case K_WD_DETECT:
		return set_time(s, &c->pfc_wd_detect_ms, why, whylen);
	case K_WD_RESTORE:
		return set_time(s, &c->pfc_wd_restore_ms, why, whylen);
	case K_WD_ACTION:
		if (!strcmp(s, "alert"))
			c->pfc_wd_action = RD_PFCWD_ALERT;
		else if (!strcmp(s, "disable"))
			c->pfc_wd_action = RD_PFCWD_DISABLE;
		else {
			snprintf(why, whylen, "is not alert or disable");
			return -EINVAL;
		}
		return 0;
	case K_TUNE:
		if (!strcmp(s, "dry-run")) {
			c->pfc_tune = RD_PFCTUNE_DRY_RUN;
			return 0;
		}
		if (parse_bool(s, &b)) {
			snprintf(why, whylen, "is not off, on or dry-run");
			return -EINVAL;
		}
		c->pfc_tune = b ? RD_PFCTUNE_ON : RD_PFCTUNE_OFF;
		return 0;
	case K_TUNE_LAT:
		if (parse_latency(s, &v)) {
			snprintf(why, whylen,
				 "is not a latency from 1us to 60s with a unit (500us, 2ms, 1s), or none");
			return -EINVAL;
		}
		c->pfc_tune_lat_us = v;
		return 0;
	case K_TUNE_IVL:
		return set_time(s, &c->pfc_tune_ivl_ms, why, whylen);
	case K_TUNE_MIN_SIZE:
	case K_TUNE_MAX_STEP: {
		uint32_t sz;

		if (dcbnl_parse_size(s, &sz)) {
			snprintf(why, whylen,
				 "is not a size in bytes, or with K or M (1024-based)%s",
				 k == K_TUNE_MAX_STEP ? "; 0: unbounded" : "");
			return -EINVAL;
		}
		if (k == K_TUNE_MIN_SIZE)
			c->pfc_tune_min_size = sz;
		else
			c->pfc_tune_max_step = sz;
		return 0;
	}
	case K_TUNE_UP_PCT:
		return set_uint(s, 1, 1000, &c->pfc_tune_up_pct, " (%)", why,
				whylen);
	case K_TUNE_DOWN_PCT:
		return set_uint(s, 1, 99, &c->pfc_tune_down_pct, " (%)", why,
				whylen);
	case K_TUNE_HOLD_UP:
		return set_uint(s, 1, 1000, &c->pfc_tune_hold_up,
				" (tune intervals)", why, whylen);
	case K_TUNE_HOLD_DOWN:
		return set_uint(s, 1, 1000, &c->pfc_tune_hold_down,
				" (tune intervals)", why, whylen);
	case K_TUNE_MIN_CHANGE:
		return set_time(s, &c->pfc_tune_min_change_ms, why, whylen);
	case K_TUNE_PAUSE_HI:
	case K_TUNE_ECN_LO:
		if (parse_u64(s, 100000000, &v)) {
			snprintf(why, whylen,
				 "is not a rate per second from 0 to 100000000");
			return -EINVAL;
		}
		if (k == K_TUNE_PAUSE_HI)
			c->pfc_tune_pause_hi = v;
		else
			c->pfc_tune_ecn_lo = v;
		return 0;
	default:
		return set_param(c, k - (K_NKEYS - 1), s, why, whylen);
	}
}

static int find_section(const char *s)
{
	int i;

	for (i = 0; i < S_NR; i++)
		if (!strcmp(s, sections[i]))
			return i;
	return -1;
}

/* Key number of @name in section @sec, or -1. */
static int find_key(int sec, const char *name)
{
	unsigned int id;
	int k;

	for (k = 0; k < K_NKEYS; k++)
		if (keys[k].section == sec && !strcmp(name, keys[k].name))
			return k;
	if (sec == S_MODULE) {
		id = rocecc_param_by_name(name);
		if (id != ROCECC_PARAM_UNSPEC)
			return K_NKEYS - 1 + id;
	}
	return -1;
}

/* "unknown key (...)" for section @sec into @buf. */
static void unknown_key(int sec, char *buf, size_t n)
{
	bool first = true;
	size_t len;
	int k;

	if (sec == S_MODULE) {
		snprintf(buf, n,
			 "unknown key: neither attach, devices, profile nor a rocecc parameter (rocecc param show lists them)");
		return;
	}
	len = snprintf(buf, n, "unknown key (known:");
	for (k = 0; k < K_NKEYS && len < n; k++) {
		if (keys[k].section != sec)
			continue;
		len += snprintf(buf + len, n - len, "%s %s", first ? "" : ",",
				keys[k].name);
		first = false;
	}
	if (len < n)
		snprintf(buf + len, n - len, ")");
}

/* The message prefix "NAME:LINE: " / "NAME: " / "" into @buf. */
static size_t where(char *buf, size_t n, const char *name, unsigned int line)
{
	int r;

	if (!n)
		return 0;
	if (!name)
		r = snprintf(buf, n, "%s", "");
	else if (line)
		r = snprintf(buf, n, "%s:%u: ", name, line);
	else
		r = snprintf(buf, n, "%s: ", name);
	return r < 0 ? 0 : (size_t)r < n ? (size_t)r : n - 1;
}

static void msg(char *buf, size_t n, const char *name, unsigned int line,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void msg(char *buf, size_t n, const char *name, unsigned int line,
		const char *fmt, ...)
{
	size_t len = where(buf, n, name, line);
	va_list ap;

	if (!n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

int rd_conf_set(struct rd_conf *c, const char *name, const char *section,
		const char *key, const char *value, char *err, size_t errlen)
{
	struct rd_conf tmp = *c;
	char why[448];
	int sec, k;

	sec = find_section(section);
	if (sec < 0) {
		msg(err, errlen, name, 0,
		    "unknown section [%s] (known: " SECTIONS_KNOWN ")",
		    section);
		return -EINVAL;
	}
	k = find_key(sec, key);
	if (k < 0) {
		unknown_key(sec, why, sizeof(why));
		msg(err, errlen, name, 0, "[%s] %s: %s", section, key, why);
		return -EINVAL;
	}
	if (set_key(&tmp, k, value, why, sizeof(why))) {
		msg(err, errlen, name, 0, "[%s] %s: '%s' %s", section, key,
		    value, why);
		return -EINVAL;
	}
	*c = tmp;
	if (errlen)
		err[0] = '\0';
	return 0;
}

/* Loading. */

struct load {
	const char *name;
	/* source: a FILE or a string */
	FILE *f;
	const char *s;
	char *buf;
	size_t bufsize;
	unsigned int lineno;
	bool indented;
	/* first error */
	int err;
	unsigned int err_line;
	char *msg;
	size_t msglen;
	/* content */
	struct rd_conf *c;
	unsigned int key_line[K_ALL + 1];
};

static void load_err(struct load *l, int err, unsigned int line,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void load_err(struct load *l, int err, unsigned int line,
		     const char *fmt, ...)
{
	size_t n;
	va_list ap;

	if (l->err)
		return;
	l->err = err;
	l->err_line = line;
	if (!l->msglen)
		return;
	n = where(l->msg, l->msglen, l->name, line);
	va_start(ap, fmt);
	vsnprintf(l->msg + n, l->msglen - n, fmt, ap);
	va_end(ap);
}

/*
 * An unknown section is reported on its own line, even if no key follows
 * (inih calls the handler for keys only). Section names are what inih
 * takes: everything between '[' and the first ']', blanks included.
 */
static void check_section(struct load *l, const char *line, size_t len)
{
	const char *end;
	char name[64];

	if (l->lineno == 1 && len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3)) {
		line += 3;
		len -= 3;
	}
	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (!len || *line != '[')
		return;
	if (l->indented) {
		load_err(l, -EINVAL, l->lineno,
			 "indented line (inih would read it as a continuation of the previous value)");
		return;
	}
	end = memchr(line, ']', len);
	if (!end)
		return;		/* inih's syntax error */
	snprintf(name, sizeof(name), "%.*s", (int)(end - line - 1), line + 1);
	if (find_section(name) < 0)
		load_err(l, -EINVAL, l->lineno,
			 "unknown section [%.*s] (known: " SECTIONS_KNOWN ")",
			 (int)(end - line - 1), line + 1);
}

/*
 * inih's reader: one whole line per call, so that l->lineno is the line of
 * the handler's key (inih counts the same way). A line too long for inih's
 * buffer is an error and handed over empty.
 */
static char *reader(char *str, int num, void *stream)
{
	struct load *l = stream;
	const char *line, *nl;
	size_t len, text;
	ssize_t got;

	if (l->f) {
		errno = 0;
		got = getline(&l->buf, &l->bufsize, l->f);
		if (got < 0) {
			if (ferror(l->f))
				load_err(l, errno ? -errno : -EIO, 0,
					 "cannot read: %s",
					 strerror(errno ? errno : EIO));
			return NULL;
		}
		line = l->buf;
		len = got;
	} else {
		if (!*l->s)
			return NULL;
		line = l->s;
		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line + 1) : strlen(line);
		l->s += len;
	}
	l->lineno++;
	l->indented = len && (line[0] == ' ' || line[0] == '\t');
	for (text = len; text && (line[text - 1] == '\n' ||
				  line[text - 1] == '\r'); text--)
		;
	/* at most num - 3: room for "\r\n" and the NUL in inih's buffer */
	if (num < 3 || text > (size_t)num - 3 || len > (size_t)num - 1 ||
	    memchr(line, '\0', len)) {
		if (memchr(line, '\0', len))
			load_err(l, -EINVAL, l->lineno,
				 "NUL character in line");
		else
			load_err(l, -EINVAL, l->lineno,
				 "line longer than %d characters", num - 3);
		line = "\n";
		len = 1;
	}
	check_section(l, line, len);
	memcpy(str, line, len);
	str[len] = '\0';
	return str;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct load *l = user;
	char why[448];
	int sec, k;

	if (l->err)
		return 1;
	if (l->indented) {
		load_err(l, -EINVAL, l->lineno,
			 "indented line (inih would read it as a continuation of the previous value)");
		return 1;
	}
	if (!*section) {
		load_err(l, -EINVAL, l->lineno,
			 "key '%s' outside of a section (known: " SECTIONS_KNOWN ")",
			 name);
		return 1;
	}
	sec = find_section(section);
	if (sec < 0) {		/* check_section() saw it first */
		load_err(l, -EINVAL, l->lineno,
			 "unknown section [%s] (known: " SECTIONS_KNOWN ")",
			 section);
		return 1;
	}
	k = find_key(sec, name);
	if (k < 0) {
		unknown_key(sec, why, sizeof(why));
		load_err(l, -EINVAL, l->lineno, "[%s] %s: %s", section, name,
			 why);
		return 1;
	}
	if (l->key_line[k]) {
		load_err(l, -EINVAL, l->lineno,
			 "[%s] %s: set twice (first on line %u)", section, name,
			 l->key_line[k]);
		return 1;
	}
	l->key_line[k] = l->lineno;
	if (set_key(l->c, k, value, why, sizeof(why)))
		load_err(l, -EINVAL, l->lineno, "[%s] %s: '%s' %s", section,
			 name, value, why);
	return 1;
}

static int load(struct load *l)
{
	int ret;

	ret = ini_parse_stream(reader, l, handler, l);
	if (ret == -2)
		load_err(l, -ENOMEM, 0, "%s", strerror(ENOMEM));
	else if (ret > 0 && (!l->err || (unsigned int)ret < l->err_line)) {
		l->err = 0;
		load_err(l, -EINVAL, ret,
			 "syntax error (expected \"[section]\" or \"key = value\")");
	}
	free(l->buf);
	if (l->err)
		return l->err;
	if (l->msglen)
		l->msg[0] = '\0';
	return 0;
}

int rd_conf_load(struct rd_conf *c, const char *path, char *err,
		 size_t errlen)
{
	struct load l = { .name = path, .msg = err, .msglen = errlen, .c = c };
	int ret;

	l.f = fopen(path, "re");
	if (!l.f) {
		ret = -errno;
		load_err(&l, ret, 0, "cannot open: %s", strerror(-ret));
		return ret;
	}
	ret = load(&l);
	fclose(l.f);
	return ret;
}

int rd_conf_load_string(struct rd_conf *c, const char *name, const char *text,
			char *err, size_t errlen)
{
	struct load l = { .name = name, .s = text, .msg = err,
			  .msglen = errlen, .c = c };

	return load(&l);
}

/* A time as rd_parse_ms() reads it back: "2s" or "250ms". */
static const char *time_str(uint64_t ms, char *buf, size_t n)
{
	if (ms % 1000)
		snprintf(buf, n, "%llums", (unsigned long long)ms);
	else
		snprintf(buf, n, "%llus", (unsigned long long)(ms / 1000));
	return buf;
}

int rd_conf_check(const struct rd_conf *c, const char *name, char *err,
		  size_t errlen)
{
	char a[32], b[32];

	if (c->module_attach && c->dp_engine >= 0 &&
	    c->dp_engine != RD_ENGINE_MODULE && c->dp_engine != RD_ENGINE_AUTO) {
		msg(err, errlen, name, 0,
		    "[datapath] engine: %s, but [module] attach = yes asks for rocecc.ko (set one of them)",
		    rd_engine_name(c->dp_engine));
		return -EINVAL;
	}
	if (c->group_by == RD_GROUP_RANKMAP && !c->rankmap_file[0]) {
		msg(err, errlen, name, 0,
		    "[straggler] group_by: rankmap needs a rank map ([rankmap] file)");
		return -EINVAL;
	}
	if (c->local_host[0] && !c->rankmap_file[0]) {
		msg(err, errlen, name, 0,
		    "[rankmap] host: '%s' is set, but there is no rank map ([rankmap] file)",
		    c->local_host);
		return -EINVAL;
	}
	if (c->pfc_size_auto && (!c->pfc_prio_set || !c->pfc_en)) {
		msg(err, errlen, name, 0,
		    "[pfc] buffer_size: auto sizes the buffers of the PFC priorities, but [pfc] priorities %s",
		    c->pfc_prio_set ? "is none" : "is not set");
		return -EINVAL;
	}
	if (c->pfc_tune != RD_PFCTUNE_OFF && (!c->pfc_prio_set || !c->pfc_en)) {
		msg(err, errlen, name, 0,
		    "[pfc] tune: the tuner sizes the buffers of the PFC priorities, but [pfc] priorities %s",
		    c->pfc_prio_set ? "is none" : "is not set");
		return -EINVAL;
	}
	if (c->pfc_tune != RD_PFCTUNE_OFF && c->pfc_tune_ivl_ms < c->interval_ms) {
		msg(err, errlen, name, 0,
		    "[pfc] tune_interval: %s is shorter than the interval ([daemon] interval = %s)",
		    time_str(c->pfc_tune_ivl_ms, a, sizeof(a)),
		    time_str(c->interval_ms, b, sizeof(b)));
		return -EINVAL;
	}
	if (c->window_ms < 2 * c->interval_ms) {
		msg(err, errlen, name, 0,
		    "[straggler] window: %s is shorter than twice the interval ([daemon] interval = %s)",
		    time_str(c->window_ms, a, sizeof(a)),
		    time_str(c->interval_ms, b, sizeof(b)));
		return -EINVAL;
	}
	if (errlen)
		err[0] = '\0';
	return 0;
}

/* @d in as few digits as read back exactly. */
static const char *double_str(double d, char *buf, size_t n)
{
	snprintf(buf, n, "%g", d);
	if (strtod(buf, NULL) != d)
		snprintf(buf, n, "%.17g", d);
	return buf;
}

void rd_conf_print(FILE *f, const struct rd_conf *c)
{
	const struct rocecc_param_info *pi;
	unsigned int id;
	char buf[64];

	fprintf(f, "[daemon]\n");
	fprintf(f, "listen = %s\n", c->listen);
	fprintf(f, "port = %u\n", c->port);
	fprintf(f, "interval = %s\n", time_str(c->interval_ms, buf, sizeof(buf)));
	fprintf(f, "linger = %s\n", time_str(c->linger_ms, buf, sizeof(buf)));
	fprintf(f, "buckets_per_octave = %u\n", c->per_octave);
	if ((unsigned int)c->log_level < ARRAY_SIZE(log_level_names))
		fprintf(f, "log_level = %s\n", log_level_names[c->log_level]);
	else
		fprintf(f, "#log_level = %d ; invalid\n", c->log_level);
	fprintf(f, "pin_dir = %s\n", c->pin_dir[0] ? c->pin_dir : "none");

	fprintf(f, "\n[datapath]\n");
	if (rd_engine_name(c->dp_engine))
		fprintf(f, "engine = %s\n", rd_engine_name(c->dp_engine));
	else
		fprintf(f, "#engine = none ; not set: [module] attach decides (yes: module)\n");

	fprintf(f, "\n[module]\n");
	fprintf(f, "attach = %s\n", c->module_attach ? "yes" : "no");
	fprintf(f, "devices = %s\n",
		c->module_devices[0] ? c->module_devices : "all");
	fprintf(f, "fq = %s\n", c->module_fq ? "yes" : "no");
	if (c->profile >= 0 && c->profile < __ROCECC_PROFILE_MAX)
		fprintf(f, "profile = %s\n", profile_names[c->profile]);
	else
		fprintf(f, "#profile = mlx5 ; not set: the module's parameters are left as they are\n");
	for (id = 1; id <= ROCECC_PARAM_MAX; id++) {
		pi = rocecc_param_info(id);
		if (c->param_set[id])
			fprintf(f, "%s = %u\n", pi->name, c->param[id]);
		else
			fprintf(f, "#%s = %u ; not set (%u..%u %s; mlx5 default shown)\n",
				pi->name, pi->def[ROCECC_PROFILE_MLX5],
				pi->min, pi->max, pi->unit);
	}

	fprintf(f, "\n[straggler]\n");
	fprintf(f, "factor = %s\n", double_str(c->factor, buf, sizeof(buf)));
	fprintf(f, "min_messages = %llu\n",
		(unsigned long long)c->min_messages);
	fprintf(f, "min_flows = %u\n", c->min_flows);
	fprintf(f, "window = %s\n", time_str(c->window_ms, buf, sizeof(buf)));
	if (rd_group_by_name(c->group_by))
		fprintf(f, "group_by = %s\n", rd_group_by_name(c->group_by));
	else
		fprintf(f, "#group_by = %d ; invalid\n", c->group_by);

	fprintf(f, "\n[rankmap]\n");
	fprintf(f, "file = %s\n",
		c->rankmap_file[0] ? c->rankmap_file : "none");
	if (c->local_host[0])
		fprintf(f, "host = %s\n", c->local_host);
	else
		fprintf(f, "#host = NAME ; not set: found from this host's addresses\n");

	fprintf(f, "\n[pfc]\n");
	fprintf(f, "devices = %s\n", c->pfc_devices[0] ? c->pfc_devices : "all");
	if (c->pfc_prio_set)
		fprintf(f, "priorities = %s\n",
			dcbnl_prio_str(c->pfc_en, buf, sizeof(buf)));
	else
		fprintf(f, "#priorities = 3 ; not set: left as the device has them\n");
	if (c->pfc_delay >= 0)
		fprintf(f, "delay = %d\n", c->pfc_delay);
	else
		fprintf(f, "#delay = 0 ; not set\n");
	if (c->pfc_mbc >= 0)
		fprintf(f, "mbc = %s\n", c->pfc_mbc ? "yes" : "no");
	else
		fprintf(f, "#mbc = no ; not set\n");
	if (c->pfc_p2b_mask) {
		bool first = true;

		fprintf(f, "prio2buffer = ");
		for (id = 0; id < DCBNL_PRIOS; id++)
			if (c->pfc_p2b_mask & 1u << id) {
				fprintf(f, "%s%u:%u", first ? "" : ",", id,
					c->pfc_p2b[id]);
				first = false;
			}
		fputc('\n', f);
	} else {
		fprintf(f, "#prio2buffer = 0:0 ; not set\n");
	}
	if (c->pfc_size_auto) {
		fprintf(f, "buffer_size = auto\n");
	} else if (c->pfc_size_mask) {
		bool first = true;

		fprintf(f, "buffer_size = ");
		for (id = 0; id < DCBNL_BUFFERS; id++)
			if (c->pfc_size_mask & 1u << id) {
				fprintf(f, "%s%u:%s", first ? "" : ",", id,
					dcbnl_size_str(c->pfc_size[id], buf,
						       sizeof(buf)));
				first = false;
			}
		fputc('\n', f);
	} else {
		fprintf(f, "#buffer_size = auto ; not set\n");
	}
	fprintf(f, "cable_length = %s\n", double_str(c->pfc_cable_m, buf, sizeof(buf)));
	if (c->pfc_speed_mbps)
		fprintf(f, "speed = %u\n", c->pfc_speed_mbps);
	else
		fprintf(f, "speed = auto\n");
	if (c->pfc_mtu)
		fprintf(f, "mtu = %u\n", c->pfc_mtu);
	else
		fprintf(f, "mtu = auto\n");
	fprintf(f, "watchdog = %s\n", c->pfc_wd < 0 ? "auto" :
		c->pfc_wd ? "on" : "off");
	fprintf(f, "detection_time = %s\n",
		time_str(c->pfc_wd_detect_ms, buf, sizeof(buf)));
	fprintf(f, "restoration_time = %s\n",
		time_str(c->pfc_wd_restore_ms, buf, sizeof(buf)));
	fprintf(f, "action = %s\n",
		c->pfc_wd_action == RD_PFCWD_DISABLE ? "disable" : "alert");
	fprintf(f, "tune = %s\n", c->pfc_tune == RD_PFCTUNE_ON ? "on" :
		c->pfc_tune == RD_PFCTUNE_DRY_RUN ? "dry-run" : "off");
	fprintf(f, "target_latency = %s\n",
		latency_str(c->pfc_tune_lat_us, buf, sizeof(buf)));
	fprintf(f, "tune_interval = %s\n",
		time_str(c->pfc_tune_ivl_ms, buf, sizeof(buf)));
	fprintf(f, "tune_min_size = %u\n", c->pfc_tune_min_size);
	fprintf(f, "tune_max_step = %u\n", c->pfc_tune_max_step);
	fprintf(f, "tune_up_pct = %u\n", c->pfc_tune_up_pct);
	fprintf(f, "tune_down_pct = %u\n", c->pfc_tune_down_pct);
	fprintf(f, "tune_hold_up = %u\n", c->pfc_tune_hold_up);
	fprintf(f, "tune_hold_down = %u\n", c->pfc_tune_hold_down);
	fprintf(f, "tune_min_change = %s\n",
		time_str(c->pfc_tune_min_change_ms, buf, sizeof(buf)));
	fprintf(f, "tune_pause_hi = %llu\n",
		(unsigned long long)c->pfc_tune_pause_hi);
	fprintf(f, "tune_ecn_lo = %llu\n",
		(unsigned long long)c->pfc_tune_ecn_lo);

	fprintf(f, "\n[hw]\n");
	fprintf(f, "apply = %s\n", c->hw_apply ? "yes" : "no");
	fprintf(f, "devices = %s\n", c->hw_devices[0] ? c->hw_devices : "all");
}

bool rd_conf_pfc_wanted(const struct rd_conf *c)
{
	return c->pfc_prio_set || c->pfc_delay >= 0 || c->pfc_mbc >= 0 ||
	       c->pfc_p2b_mask || c->pfc_size_auto || c->pfc_size_mask;
}

bool rd_conf_dev_selected(const char *devices, const char *name)
{
	const char *p = devices;
	size_t n = strlen(name);

	if (!p[0] || !strcmp(p, "all"))
		return true;
	while (*p) {
		size_t w = strcspn(p, " ");

		if (w == n && !strncmp(p, name, n))
			return true;
		p += w;
		p += strspn(p, " ");
	}
	return false;
}

int rd_pfc_target(const struct rd_conf *c, unsigned int speed_mbps,
		  unsigned int netdev_mtu, struct ieee_pfc *pfc, bool have_pfc,
		  struct dcbnl_buffer *buf, bool have_buf, char *why, size_t n)
{
	struct ieee_pfc p;
	struct dcbnl_buffer b;
	uint8_t en;
	int ret = 0, i, j;

	if (n)
		why[0] = '\0';
	if ((c->pfc_prio_set || c->pfc_delay >= 0 || c->pfc_mbc >= 0) &&
	    !have_pfc) {
		snprintf(why, n, "the device reports no IEEE PFC, but [pfc] sets %s",
			 c->pfc_prio_set ? "priorities" :
			 c->pfc_delay >= 0 ? "delay" : "mbc");
		return -EINVAL;
	}
	if ((c->pfc_p2b_mask || c->pfc_size_mask || c->pfc_size_auto) &&
	    !have_buf) {
		snprintf(why, n, "the device has no DCB buffers, but [pfc] sets %s",
			 c->pfc_p2b_mask ? "prio2buffer" : "buffer_size");
		return -EINVAL;
	}
	if (have_pfc) {
		p = *pfc;
		if (c->pfc_prio_set)
			p.pfc_en = c->pfc_en;
		if (c->pfc_delay >= 0)
			p.delay = (uint16_t)c->pfc_delay;
		if (c->pfc_mbc >= 0)
			p.mbc = (uint8_t)c->pfc_mbc;
		if (p.pfc_en != pfc->pfc_en || p.delay != pfc->delay ||
		    p.mbc != pfc->mbc)
			ret |= RD_PFC_CHANGE_PFC;
		*pfc = p;
	}
	if (!have_buf)
		return ret;
	b = *buf;
	for (i = 0; i < DCBNL_PRIOS; i++)
		if (c->pfc_p2b_mask & 1u << i)
			b.prio2buffer[i] = c->pfc_p2b[i];
	for (i = 0; i < DCBNL_BUFFERS; i++)
		if (c->pfc_size_mask & 1u << i)
			b.buffer_size[i] = c->pfc_size[i];
	en = have_pfc ? pfc->pfc_en : 0;
	if (c->pfc_size_auto) {
		struct headroom_params hp = { 0 };
		struct headroom_result r = { 0 };
		uint8_t lossless = 0, lossy = 0;
		uint64_t need;
		int err, nl, ny;

		for (j = 0; j < DCBNL_PRIOS; j++) {
			if (b.prio2buffer[j] >= DCBNL_BUFFERS)
				continue;
			if (en & 1u << j)
				lossless |= 1u << b.prio2buffer[j];
			else
				lossy |= 1u << b.prio2buffer[j];
		}
		lossy &= ~lossless;
		nl = __builtin_popcount(lossless);
		ny = __builtin_popcount(lossy);
		if (lossless) {
			hp.speed_mbps = c->pfc_speed_mbps ? c->pfc_speed_mbps :
							    speed_mbps;
			hp.mtu = c->pfc_mtu ? c->pfc_mtu : netdev_mtu + 22;
			if (hp.mtu < HEADROOM_MTU_MIN)
				hp.mtu = HEADROOM_MTU_MIN;
			if (hp.mtu > HEADROOM_MTU_MAX)
				hp.mtu = HEADROOM_MTU_MAX;
			hp.cable_m = c->pfc_cable_m;
			if (!hp.speed_mbps) {
				snprintf(why, n, "buffer_size = auto: the link speed is unknown (set [pfc] speed)");
				return -EINVAL;
			}
			err = headroom_calc(&hp, &r);
			if (err) {
				snprintf(why, n, "buffer_size = auto: no headroom for %u Mb/s, mtu %u (%s)",
					 hp.speed_mbps, hp.mtu, err == -ENODATA ?
					 "no 802.3 delays for this speed; set [pfc] speed to 10G, 25G, 40G, 50G, 100G, 200G or 400G, or size the buffers" :
					 strerror(-err));
				return -EINVAL;
			}
		}
		need = (uint64_t)nl * r.size;
		if (need > UINT32_MAX ||
		    (b.total_size && need > b.total_size)) {
			snprintf(why, n, "buffer_size = auto: %d lossless buffer%s of %llu bytes need more than the device's total_size %u",
				 nl, nl == 1 ? "" : "s", (unsigned long long)r.size,
				 b.total_size);
			return -EINVAL;
		}
		for (i = 0; i < DCBNL_BUFFERS; i++) {
			if (lossless & 1u << i)
				b.buffer_size[i] = (uint32_t)r.size;
			else if (!b.total_size)
				continue;	/* the rest is unknown: left */
			else if (lossy & 1u << i)
				b.buffer_size[i] = (uint32_t)((b.total_size - need) / (uint64_t)ny);
			else
				b.buffer_size[i] = 0;
		}
	}
	if (memcmp(b.prio2buffer, buf->prio2buffer, sizeof(b.prio2buffer)) ||
	    memcmp(b.buffer_size, buf->buffer_size, sizeof(b.buffer_size)))
		ret |= RD_PFC_CHANGE_BUF;
	*buf = b;
	return ret;
}
