// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd's configuration file: parsing, cross-key checks and printing
 * (format in config.h). One table, keys[], says what each key is: its
 * section, name, value type, range, the words of its messages, its default
 * and the command-line flag that sets it; loading, rd_conf_set(), the
 * flags, rd_conf_defaults(), rd_conf_print() and rd_conf_equal() all go by
 * it.
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

#include "config.h"
#include "lib/inifile.h"
#include "lib/parse.h"
#include "policy/headroom.h"
#include "policy/rankmap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define IFNAME_MAX	15	/* IFNAMSIZ - 1 */

static const char *const sections[] = {
	"daemon", "datapath", "module", "straggler", "rankmap", "pfc", "hw",
};
#define S_NR		ARRAY_SIZE(sections)
#define SECTIONS_KNOWN	"daemon, datapath, module, straggler, rankmap, pfc, hw"

struct key;

/* What a value type does; @id is the module parameter (T_PARAM), else 0. */
struct key_type {
	/* @s into @c: 0, or -EINVAL with what is wrong in @why */
	int (*parse)(struct rd_conf *c, const struct key *k, unsigned int id,
		     const char *s, char *why, size_t n);
	/*
	 * The value as the file writes it into @buf; false if it is not set
	 * (printed commented out: @buf, or the key's unset text if @buf is
	 * left empty).
	 */
	bool (*format)(const struct rd_conf *c, const struct key *k,
		       unsigned int id, char *buf, size_t n);
	/* -1 in an integer field for "not set" (rd_conf_defaults()) */
	bool clear_minus_one;
	/* string types: the word for "" ("none"); NULL: "" is not set */
	const char *empty;
};

/* A name and its value, for the word types (T_WORD). */
struct word {
	const char *name;
	int value;
};

struct key {
	const char *section;
	const char *name;		/* NULL: the module parameters */
	const struct key_type *type;
	size_t off, size;		/* the field in struct rd_conf */
	uint64_t lo, hi;		/* T_UINT: the range */
	const char *what;		/* the message: "is not WHAT" */
	const char *unit;		/* T_UINT: after the range */
	const struct word *words;	/* T_WORD: the names, NULL-terminated */
	bool bools;			/* T_WORD: yes, no, true, ... too */
	bool icase;			/* T_WORD: any case */
	const char *def;		/* the default as written, NULL: not
					 * set */
	const char *unset;		/* printed for "not set" */
	const char *flag;		/* the command-line flag, or NULL */
	char letter;			/* and its short form, or 0 */
};

#define FIELD(c, k)	((char *)(c) + (k)->off)
#define CFIELD(c, k)	((const char *)(c) + (k)->off)

static void why_is_not(const struct key *k, char *why, size_t n)
{
	snprintf(why, n, "is not %s", k->what);
}

/* ---- values ----------------------------------------------------------------- */

/* An integer field of 1 (bool), 2, 4 or 8 bytes; 4 is signed (-1: not set). */
static int64_t get_int(const struct rd_conf *c, const struct key *k)
{
	const char *p = CFIELD(c, k);
	uint16_t u16;
	uint64_t u64;
	int32_t i32;

	switch (k->size) {
	case 1:
		return *(const bool *)p;
	case 2:
		memcpy(&u16, p, sizeof(u16));
		return u16;
	case 4:
		memcpy(&i32, p, sizeof(i32));
		return i32;
	default:
		memcpy(&u64, p, sizeof(u64));
		return (int64_t)u64;
	}
}

static void set_int(struct rd_conf *c, const struct key *k, int64_t v)
{
	char *p = FIELD(c, k);
	uint16_t u16 = (uint16_t)v;
	uint64_t u64 = (uint64_t)v;
	int32_t i32 = (int32_t)v;

	switch (k->size) {
	case 1:
		*(bool *)p = v != 0;
		break;
	case 2:
		memcpy(p, &u16, sizeof(u16));
		break;
	case 4:
		memcpy(p, &i32, sizeof(i32));
		break;
	default:
		memcpy(p, &u64, sizeof(u64));
	}
}

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

/* @d in as few digits as read back exactly. */
static const char *double_str(double d, char *buf, size_t n)
{
	snprintf(buf, n, "%g", d);
	if (strtod(buf, NULL) != d)
		snprintf(buf, n, "%.17g", d);
	return buf;
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

/*
 * T_UINT: an integer lo..hi ("auto" for 0 where the key's default is
 * "auto"); "is not an integer from LO to HI (UNIT)", or with the key's
 * words instead of "an integer".
 */
static bool uint_auto(const struct key *k)
{
	return k->def && !strcmp(k->def, "auto");
}

static int uint_parse(struct rd_conf *c, const struct key *k, unsigned int id,
		      const char *s, char *why, size_t n)
{
	uint64_t v;

	(void)id;
	if (uint_auto(k) && !strcmp(s, "auto")) {
		set_int(c, k, 0);
		return 0;
	}
	if (parse_u64(s, k->hi, &v) || v < k->lo) {
		snprintf(why, n, "is not %s from %llu to %llu%s%s",
			 k->what ? k->what : "an integer",
			 (unsigned long long)k->lo, (unsigned long long)k->hi,
			 k->unit ? " " : "", k->unit ? k->unit : "");
		return -EINVAL;
	}
	set_int(c, k, (int64_t)v);
	return 0;
}

static bool uint_format(const struct rd_conf *c, const struct key *k,
			unsigned int id, char *buf, size_t n)
{
	int64_t v = get_int(c, k);

	(void)id;
	if (k->type->clear_minus_one && v < 0)
		return false;
	if (uint_auto(k) && !v)
		snprintf(buf, n, "auto");
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
	return true;
}

static const struct key_type T_UINT = {
	.parse = uint_parse,
	.format = uint_format,
};
/* the same, -1 for not set */
static const struct key_type T_UINT_OPT = {
	.parse = uint_parse,
	.format = uint_format,
	.clear_minus_one = true,
};

/* T_WORD: one of the key's words (or a boolean, with k->bools). */
static int word_parse(struct rd_conf *c, const struct key *k, unsigned int id,
		      const char *s, char *why, size_t n)
{
	const struct word *w;
	bool b;

	(void)id;
	for (w = k->words; w->name; w++)
		if (k->icase ? !strcasecmp(s, w->name) : !strcmp(s, w->name)) {
			set_int(c, k, w->value);
			return 0;
		}
	if (k->bools && !parse_bool(s, &b)) {
		set_int(c, k, b);
		return 0;
	}
	why_is_not(k, why, n);
	return -EINVAL;
}

static bool word_format(const struct rd_conf *c, const struct key *k,
			unsigned int id, char *buf, size_t n)
{
	int64_t v = get_int(c, k);
	const struct word *w;

	(void)id;
	if (k->type->clear_minus_one && v == -1)
		return false;
	for (w = k->words; w->name; w++)
		if (w->value == v) {
			snprintf(buf, n, "%s", w->name);
			return true;
		}
	snprintf(buf, n, "%lld ; invalid", (long long)v);
	return false;
}

static const struct key_type T_WORD = {
	.parse = word_parse,
	.format = word_format,
};
/* the same, -1 for not set */
static const struct key_type T_WORD_OPT = {
	.parse = word_parse,
	.format = word_format,
	.clear_minus_one = true,
};

static const struct word W_BOOL[] = {
	{ "yes", 1 }, { "no", 0 }, { NULL, 0 },
};
#define BOOL_WHAT	"yes, no, true, false, on, off, 1 or 0"

/* T_TIME: rd_parse_ms() into milliseconds (uint64_t). */
static int time_parse(struct rd_conf *c, const struct key *k, unsigned int id,
		      const char *s, char *why, size_t n)
{
	uint64_t ms;
	int err = rd_parse_ms(s, &ms);

	(void)id;
	if (err == -ERANGE)
		snprintf(why, n, "is out of range (1ms to 1 day)");
	else if (err)
		snprintf(why, n,
			 "is not a time (seconds, or with a unit: 250ms, 2s)");
	else
		memcpy(FIELD(c, k), &ms, sizeof(ms));
	return err ? -EINVAL : 0;
}

static bool time_format(const struct rd_conf *c, const struct key *k,
			unsigned int id, char *buf, size_t n)
{
	uint64_t ms;

	(void)id;
	memcpy(&ms, CFIELD(c, k), sizeof(ms));
	time_str(ms, buf, n);
	return true;
}

static const struct key_type T_TIME = {
	.parse = time_parse,
	.format = time_format,
};

/* The string types: the field; "" is the type's word for it, or not set. */
static bool text_format(const struct rd_conf *c, const struct key *k,
			unsigned int id, char *buf, size_t n)
{
	const char *s = CFIELD(c, k);

	(void)id;
	snprintf(buf, n, "%s", *s || !k->type->empty ? s : k->type->empty);
	return *buf;
}

/* T_PATH: "none" (""), or an absolute path that fits the field. */
static int path_parse(struct rd_conf *c, const struct key *k, unsigned int id,
		      const char *s, char *why, size_t n)
{
	(void)id;
	if (!strcmp(s, "none")) {
		FIELD(c, k)[0] = '\0';
		return 0;
	}
	if (s[0] != '/') {
		snprintf(why, n, "is not an absolute path (or none)");
		return -EINVAL;
	}
	if (strlen(s) >= k->size) {
		snprintf(why, n, "is longer than %zu characters", k->size - 1);
		return -EINVAL;
	}
	strcpy(FIELD(c, k), s);
	return 0;
}

static const struct key_type T_PATH = {
	.parse = path_parse,
	.format = text_format,
	.empty = "none",
};

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

/* Is the name of @w characters at @p in the normalised list @out? */
static bool listed(const char *out, const char *p, size_t w)
{
	size_t wq;

	for (; *out; out += wq, out += *out == ' ') {
		wq = strcspn(out, " ");
		if (wq == w && !strncmp(out, p, w))
			return true;
	}
	return false;
}

/*
 * T_DEVICES: "all" (""), or netdev names separated by DEV_SEP, normalised
 * to names separated by one blank.
 */
static int devices_parse(struct rd_conf *c, const struct key *k,
			 unsigned int id, const char *s, char *why, size_t n)
{
	char out[sizeof(c->module_devices)];
	const char *p;
	size_t len = 0, w;

	(void)id;
	out[0] = '\0';
	if (strcmp(s, "all"))
		for (p = s + strspn(s, DEV_SEP); *p;
		     p += w, p += strspn(p, DEV_SEP)) {
			w = strcspn(p, DEV_SEP);
			if (w == 3 && !strncmp(p, "all", 3)) {
				snprintf(why, n, "lists 'all' with netdev names (all, or names)");
				return -EINVAL;
			}
			if (!valid_ifname(p, w)) {
				snprintf(why, n, "has '%.*s', not a netdev name (1 to %d characters, no '/' or ':')",
					 (int)w, p, IFNAME_MAX);
				return -EINVAL;
			}
			if (listed(out, p, w)) {
				snprintf(why, n, "lists '%.*s' twice", (int)w, p);
				return -EINVAL;
			}
			if (len + !!len + w >= k->size) {
				snprintf(why, n, "is longer than %zu characters",
					 k->size - 1);
				return -EINVAL;
			}
			if (len)
				out[len++] = ' ';
			memcpy(out + len, p, w);
			len += w;
			out[len] = '\0';
		}
	if (!len && strcmp(s, "all")) {
		snprintf(why, n, "lists no netdev (all, or names)");
		return -EINVAL;
	}
	strcpy(FIELD(c, k), out);
	return 0;
}

static const struct key_type T_DEVICES = {
	.parse = devices_parse,
	.format = text_format,
	.empty = "all",
};

/* T_LISTEN: an IPv4 or IPv6 address literal. */
static int listen_parse(struct rd_conf *c, const struct key *k,
			unsigned int id, const char *s, char *why, size_t n)
{
	unsigned char addr[16];

	(void)id;
	if (strlen(s) >= k->size || (inet_pton(AF_INET, s, addr) != 1 &&
				     inet_pton(AF_INET6, s, addr) != 1)) {
		why_is_not(k, why, n);
		return -EINVAL;
	}
	strcpy(FIELD(c, k), s);
	return 0;
}

static const struct key_type T_LISTEN = {
	.parse = listen_parse,
	.format = text_format,
};

/* T_HOST: a host name of policy/rankmap.h. */
static int host_parse(struct rd_conf *c, const struct key *k, unsigned int id,
		      const char *s, char *why, size_t n)
{
	(void)id;
	if (!rankmap_valid_host(s)) {
		why_is_not(k, why, n);
		return -EINVAL;
	}
	strcpy(FIELD(c, k), s);
	return 0;
}

static const struct key_type T_HOST = {
	.parse = host_parse,
	.format = text_format,
};

/* T_PORT: rd_parse_port(). */
static int port_parse(struct rd_conf *c, const struct key *k, unsigned int id,
		      const char *s, char *why, size_t n)
{
	(void)id;
	if (rd_parse_port(s, &c->port)) {
		why_is_not(k, why, n);
		return -EINVAL;
	}
	return 0;
}

static const struct key_type T_PORT = {
	.parse = port_parse,
	.format = uint_format,
};

/* T_OCTAVE: buckets per power of two, rd_valid_per_octave(). */
static int octave_parse(struct rd_conf *c, const struct key *k,
			unsigned int id, const char *s, char *why, size_t n)
{
	uint64_t v;

	(void)id;
	if (parse_u64(s, 16, &v) || !rd_valid_per_octave(v)) {
		why_is_not(k, why, n);
		return -EINVAL;
	}
	c->per_octave = v;
	return 0;
}

static const struct key_type T_OCTAVE = {
	.parse = octave_parse,
	.format = uint_format,
};

/* T_FACTOR: a number above 1, at most 1000. */
static int factor_parse(struct rd_conf *c, const struct key *k,
			unsigned int id, const char *s, char *why, size_t n)
{
	double d;

	(void)k;
	(void)id;
	if (parse_double(s, &d)) {
		snprintf(why, n, "is not a number");
		return -EINVAL;
	}
	if (!(d > 1.0 && d <= 1000.0)) {
		snprintf(why, n, "is out of range (above 1, at most 1000)");
		return -EINVAL;
	}
	c->factor = d;
	return 0;
}

/* T_FACTOR, T_LENGTH: a double. */
static bool double_format(const struct rd_conf *c, const struct key *k,
			  unsigned int id, char *buf, size_t n)
{
	double d;

	(void)id;
	memcpy(&d, CFIELD(c, k), sizeof(d));
	double_str(d, buf, n);
	return true;
}

static const struct key_type T_FACTOR = {
	.parse = factor_parse,
	.format = double_format,
};

/* T_LENGTH: a cable length, dcbnl_parse_length(). */
static int length_parse(struct rd_conf *c, const struct key *k,
			unsigned int id, const char *s, char *why, size_t n)
{
	double d;

	(void)id;
	if (dcbnl_parse_length(s, &d)) {
		why_is_not(k, why, n);
		return -EINVAL;
	}
	memcpy(FIELD(c, k), &d, sizeof(d));
	return 0;
}

static const struct key_type T_LENGTH = {
	.parse = length_parse,
	.format = double_format,
};

/* T_SPEED: "auto" (0), or dcbnl_parse_speed() in Mb/s. */
static int speed_parse(struct rd_conf *c, const struct key *k,
		       unsigned int id, const char *s, char *why, size_t n)
{
	unsigned int mbps = 0;

	(void)id;
	if (strcmp(s, "auto") && dcbnl_parse_speed(s, &mbps)) {
		why_is_not(k, why, n);
		return -EINVAL;
	}
	c->pfc_speed_mbps = mbps;
	return 0;
}

static const struct key_type T_SPEED = {
	.parse = speed_parse,
	.format = uint_format,
};

/* T_SIZE: bytes, dcbnl_parse_size(), into a uint32_t. */
static int size_parse(struct rd_conf *c, const struct key *k, unsigned int id,
		      const char *s, char *why, size_t n)
{
	uint32_t sz;

	(void)id;
	if (dcbnl_parse_size(s, &sz)) {
		snprintf(why, n, "is not a size in bytes, or with K or M (1024-based)%s",
			 k->unit ? k->unit : "");
		return -EINVAL;
	}
	memcpy(FIELD(c, k), &sz, sizeof(sz));
	return 0;
}

static bool u32_format(const struct rd_conf *c, const struct key *k,
		       unsigned int id, char *buf, size_t n)
{
	uint32_t v;

	(void)id;
	memcpy(&v, CFIELD(c, k), sizeof(v));
	snprintf(buf, n, "%u", v);
	return true;
}

static const struct key_type T_SIZE = {
	.parse = size_parse,
	.format = u32_format,
};

/*
 * T_LATENCY: an integer with a unit, "500us", "2ms", "1s", 1 us to 60 s,
 * into microseconds; or "none" (0).
 */
static int latency_parse(struct rd_conf *c, const struct key *k,
			 unsigned int id, const char *s, char *why, size_t n)
{
	static const struct {
		const char *unit;
		uint64_t mult;
	} units[] = { { "us", 1 }, { "ms", 1000 }, { "s", 1000000 } };
	size_t d = strspn(s, "0123456789");
	char num[24];
	uint64_t v;
	unsigned int i;

	(void)id;
	if (!strcmp(s, "none")) {
		c->pfc_tune_lat_us = 0;
		return 0;
	}
	if (d && d < sizeof(num)) {
		memcpy(num, s, d);
		num[d] = '\0';
		for (i = 0; i < ARRAY_SIZE(units); i++)
			if (!parse_u64(num, 60000000, &v) &&
			    !strcmp(s + d, units[i].unit) && v &&
			    v <= 60000000 / units[i].mult) {
				c->pfc_tune_lat_us = v * units[i].mult;
				return 0;
			}
	}
	why_is_not(k, why, n);
	return -EINVAL;
}

/* A latency as latency_parse() reads it back. */
static bool latency_format(const struct rd_conf *c, const struct key *k,
			   unsigned int id, char *buf, size_t n)
{
	uint64_t us = c->pfc_tune_lat_us;

	(void)k;
	(void)id;
	if (!us)
		snprintf(buf, n, "none");
	else if (!(us % 1000000))
		snprintf(buf, n, "%llus", (unsigned long long)(us / 1000000));
	else if (!(us % 1000))
		snprintf(buf, n, "%llums", (unsigned long long)(us / 1000));
	else
		snprintf(buf, n, "%lluus", (unsigned long long)us);
	return true;
}

static const struct key_type T_LATENCY = {
	.parse = latency_parse,
	.format = latency_format,
};

/* T_PRIOS: [pfc] priorities, a list like 3,4, or none. */
static int prios_parse(struct rd_conf *c, const struct key *k,
		       unsigned int id, const char *s, char *why, size_t n)
{
	struct dcbnl_perr pe;
	uint8_t m;

	(void)id;
	if (dcbnl_parse_prio_list(s, &m, &pe)) {
		snprintf(why, n, "has '%s': %s (%s)", pe.item, pe.why, k->what);
		return -EINVAL;
	}
	c->pfc_prio_set = true;
	c->pfc_en = m;
	return 0;
}

static bool prios_format(const struct rd_conf *c, const struct key *k,
			 unsigned int id, char *buf, size_t n)
{
	(void)k;
	(void)id;
	if (!c->pfc_prio_set)
		return false;
	dcbnl_prio_str(c->pfc_en, buf, n);
	return true;
}

static const struct key_type T_PRIOS = {
	.parse = prios_parse,
	.format = prios_format,
};

/* T_P2B: [pfc] prio2buffer, PRIO:BUFFER pairs. */
static int p2b_parse(struct rd_conf *c, const struct key *k, unsigned int id,
		     const char *s, char *why, size_t n)
{
	uint8_t p2b[DCBNL_PRIOS], m;
	struct dcbnl_perr pe;
	int i;

	(void)id;
	memcpy(p2b, c->pfc_p2b, sizeof(p2b));
	if (dcbnl_parse_prio2buffer(s, p2b, &m, &pe)) {
		snprintf(why, n, "has '%s': %s (%s)", pe.item, pe.why, k->what);
		return -EINVAL;
	}
	memset(c->pfc_p2b, 0, sizeof(c->pfc_p2b));
	for (i = 0; i < DCBNL_PRIOS; i++)
		if (m & 1u << i)
			c->pfc_p2b[i] = p2b[i];
	c->pfc_p2b_mask = m;
	return 0;
}

static bool p2b_format(const struct rd_conf *c, const struct key *k,
		       unsigned int id, char *buf, size_t n)
{
	size_t len = 0;
	int i;

	(void)k;
	(void)id;
	for (i = 0; i < DCBNL_PRIOS && len < n; i++)
		if (c->pfc_p2b_mask & 1u << i)
			len += snprintf(buf + len, n - len, "%s%d:%u",
					len ? "," : "", i, c->pfc_p2b[i]);
	return c->pfc_p2b_mask;
}

static const struct key_type T_P2B = {
	.parse = p2b_parse,
	.format = p2b_format,
};

/* T_BUFSIZE: [pfc] buffer_size, auto or BUFFER:SIZE pairs. */
static int bufsize_parse(struct rd_conf *c, const struct key *k,
			 unsigned int id, const char *s, char *why, size_t n)
{
	uint32_t sz[DCBNL_BUFFERS] = { 0 };
	struct dcbnl_perr pe;
	uint8_t m = 0;
	bool is_auto = !strcmp(s, "auto");

	(void)id;
	if (!is_auto && dcbnl_parse_buffer_sizes(s, sz, &m, &pe)) {
		snprintf(why, n, "has '%s': %s (%s)", pe.item, pe.why, k->what);
		return -EINVAL;
	}
	c->pfc_size_auto = is_auto;
	c->pfc_size_mask = m;
	memcpy(c->pfc_size, sz, sizeof(sz));
	return 0;
}

static bool bufsize_format(const struct rd_conf *c, const struct key *k,
			   unsigned int id, char *buf, size_t n)
{
	char one[32];
	size_t len = 0;
	int i;

	(void)k;
	(void)id;
	if (c->pfc_size_auto) {
		snprintf(buf, n, "auto");
		return true;
	}
	for (i = 0; i < DCBNL_BUFFERS && len < n; i++)
		if (c->pfc_size_mask & 1u << i)
			len += snprintf(buf + len, n - len, "%s%d:%s",
					len ? "," : "", i,
					dcbnl_size_str(c->pfc_size[i], one,
						       sizeof(one)));
	return c->pfc_size_mask;
}

static const struct key_type T_BUFSIZE = {
	.parse = bufsize_parse,
	.format = bufsize_format,
};

/* T_PARAM: module parameter @id, decimal or 0x hex, in its range. */
static int param_parse(struct rd_conf *c, const struct key *k,
		       unsigned int id, const char *s, char *why, size_t n)
{
	const struct rocecc_param_info *pi = rocecc_param_info(id);
	uint32_t v;
	int err;

	(void)k;
	/* "-1" is no number here, not one out of range */
	err = s[0] == '-' ? -EINVAL : cli_parse_u32(s, &v);
	if (err == -EINVAL) {
		snprintf(why, n, "is not a number (decimal, or hex with 0x)");
		return -EINVAL;
	}
	if (err || rocecc_param_validate(id, v)) {
		snprintf(why, n, "is out of range: %u..%u (%s)", pi->min,
			 pi->max, pi->unit);
		return -EINVAL;
	}
	c->param_set[id] = true;
	c->param[id] = v;
	return 0;
}

static bool param_format(const struct rd_conf *c, const struct key *k,
			 unsigned int id, char *buf, size_t n)
{
	const struct rocecc_param_info *pi = rocecc_param_info(id);

	(void)k;
	if (c->param_set[id]) {
		snprintf(buf, n, "%u", c->param[id]);
		return true;
	}
	snprintf(buf, n, "%u ; not set (%u..%u %s; mlx5 default shown)",
		 pi->def[ROCECC_PROFILE_MLX5], pi->min, pi->max, pi->unit);
	return false;
}

static const struct key_type T_PARAM = {
	.parse = param_parse,
	.format = param_format,
};

/* ---- the keys ---------------------------------------------------------------- */

static const struct word W_LOG_LEVEL[] = {
	{ "error", 0 }, { "warn", 1 }, { "info", 2 }, { "debug", 3 },
	{ NULL, 0 },
};

static const struct word W_ENGINE[] = {
	{ "none", RD_ENGINE_NONE }, { "module", RD_ENGINE_MODULE },
	{ "bpf", RD_ENGINE_BPF }, { "auto", RD_ENGINE_AUTO }, { NULL, 0 },
};

static const struct word W_PROFILE[] = {
	{ "mlx5", ROCECC_PROFILE_MLX5 }, { "paper", ROCECC_PROFILE_PAPER },
	{ NULL, 0 },
};

static const struct word W_GROUP_BY[] = {
	{ "auto", RD_GROUP_AUTO }, { "process", RD_GROUP_PROCESS },
	{ "peer", RD_GROUP_PEER }, { "rankmap", RD_GROUP_RANKMAP },
	{ "host", RD_GROUP_HOST }, { NULL, 0 },
};

static const struct word W_WATCHDOG[] = {
	{ "on", 1 }, { "off", 0 }, { "auto", -1 }, { NULL, 0 },
};

static const struct word W_ACTION[] = {
	{ "alert", RD_PFCWD_ALERT }, { "disable", RD_PFCWD_DISABLE },
	{ NULL, 0 },
};

static const struct word W_TUNE[] = {
	{ "on", RD_PFCTUNE_ON }, { "dry-run", RD_PFCTUNE_DRY_RUN },
	{ "off", RD_PFCTUNE_OFF }, { NULL, 0 },
};

#define AT(f)	.off = offsetof(struct rd_conf, f), \
		.size = sizeof(((struct rd_conf *)0)->f)
#define BOOL_KEY(sec, nm, f, d)						\
	{ sec, nm, &T_WORD, AT(f), .what = BOOL_WHAT, .words = W_BOOL,	\
	  .bools = true, .def = d }
#define UINT_KEY(sec, nm, f, l, h, u, d)				\
	{ sec, nm, &T_UINT, AT(f), .lo = l, .hi = h, .unit = u, .def = d }
#define TIME_KEY(sec, nm, f, d)	{ sec, nm, &T_TIME, AT(f), .def = d }

/*
 * In the order rd_conf_print() writes them. A key without a default is not
 * set by default and printed commented out with its unset text.
 */
static const struct key keys[] = {
	/* [daemon] */
	{ "daemon", "listen", &T_LISTEN, AT(listen),
	  .what = "an IPv4 or IPv6 address", .def = "127.0.0.1",
	  .flag = "listen", .letter = 'l' },
	{ "daemon", "port", &T_PORT, AT(port),
	  .what = "a TCP port (1..65535)", .def = "9468",
	  .flag = "port", .letter = 'p' },
	{ "daemon", "interval", &T_TIME, AT(interval_ms), .def = "1s",
	  .flag = "interval", .letter = 'i' },
	{ "daemon", "linger", &T_TIME, AT(linger_ms), .def = "15s",
	  .flag = "linger" },
	{ "daemon", "buckets_per_octave", &T_OCTAVE, AT(per_octave),
	  .what = "1, 2, 4, 8 or 16", .def = "4",
	  .flag = "buckets-per-octave" },
	{ "daemon", "log_level", &T_WORD, AT(log_level),
	  .what = "a log level (error, warn, info, debug)",
	  .words = W_LOG_LEVEL, .icase = true, .def = "info",
	  .flag = "log-level", .letter = 'L' },
	{ "daemon", "pin_dir", &T_PATH, AT(pin_dir),
	  .def = "/sys/fs/bpf/rocecc", .flag = "pin-dir" },
	/* [datapath] */
	{ "datapath", "engine", &T_WORD_OPT, AT(dp_engine),
	  .what = "none, module, bpf or auto", .words = W_ENGINE,
	  .unset = "none ; not set: [module] attach decides (yes: module)",
	  .flag = "datapath" },
	/* [module] */
	BOOL_KEY("module", "attach", module_attach, "no"),
	{ "module", "devices", &T_DEVICES, AT(module_devices), .def = "all" },
	BOOL_KEY("module", "fq", module_fq, "yes"),
	{ "module", "profile", &T_WORD_OPT, AT(profile),
	  .what = "a profile (mlx5, paper)", .words = W_PROFILE,
	  .unset = "mlx5 ; not set: the module's parameters are left as they are" },
	{ "module", NULL, &T_PARAM, .def = NULL },	/* every parameter */
	/* [straggler] */
	{ "straggler", "factor", &T_FACTOR, AT(factor), .def = "2" },
	UINT_KEY("straggler", "min_messages", min_messages, 1, UINT64_MAX,
		 NULL, "100"),
	UINT_KEY("straggler", "min_flows", min_flows, 2, 100000, NULL, "3"),
	TIME_KEY("straggler", "window", window_ms, "10s"),
	{ "straggler", "group_by", &T_WORD, AT(group_by),
	  .what = "auto, process, peer, rankmap or host",
	  .words = W_GROUP_BY, .def = "auto" },
	/* [rankmap] */
	{ "rankmap", "file", &T_PATH, AT(rankmap_file), .def = "none" },
	{ "rankmap", "host", &T_HOST, AT(local_host),
	  .what = "a host name (1 to 255 of [A-Za-z0-9._:-])",
	  .unset = "NAME ; not set: found from this host's addresses" },
	/* [pfc] */
	{ "pfc", "devices", &T_DEVICES, AT(pfc_devices), .def = "all" },
	{ "pfc", "priorities", &T_PRIOS, .what = "a list like 3,4, or none",
	  .unset = "3 ; not set: left as the device has them" },
	{ "pfc", "delay", &T_UINT_OPT, AT(pfc_delay), .lo = 0, .hi = 65535,
	  .unit = "(bits)", .unset = "0 ; not set" },
	{ "pfc", "mbc", &T_WORD_OPT, AT(pfc_mbc), .what = BOOL_WHAT,
	  .words = W_BOOL, .bools = true, .unset = "no ; not set" },
	{ "pfc", "prio2buffer", &T_P2B,
	  .what = "PRIO:BUFFER pairs like 0:0,3:1", .unset = "0:0 ; not set" },
	{ "pfc", "buffer_size", &T_BUFSIZE,
	  .what = "auto, or BUFFER:SIZE pairs like 0:256K,1:128K",
	  .unset = "auto ; not set" },
	{ "pfc", "cable_length", &T_LENGTH, AT(pfc_cable_m),
	  .what = "a length in metres from 0 to 10000 (5, 5m, 2.5m)",
	  .def = "7" },
	{ "pfc", "speed", &T_SPEED, AT(pfc_speed_mbps),
	  .what = "a link speed (auto, 25G, 100G, or Mb/s up to 1600000)",
	  .def = "auto" },
	{ "pfc", "mtu", &T_UINT, AT(pfc_mtu), .lo = HEADROOM_MTU_MIN,
	  .hi = HEADROOM_MTU_MAX, .what = "auto or a frame size",
	  .unit = "bytes", .def = "auto" },
	{ "pfc", "watchdog", &T_WORD, AT(pfc_wd),
	  .what = "on, off or auto (on when priorities are set)",
	  .words = W_WATCHDOG, .bools = true, .def = "auto" },
	TIME_KEY("pfc", "detection_time", pfc_wd_detect_ms, "200ms"),
	TIME_KEY("pfc", "restoration_time", pfc_wd_restore_ms, "400ms"),
	{ "pfc", "action", &T_WORD, AT(pfc_wd_action),
	  .what = "alert or disable", .words = W_ACTION, .def = "alert" },
	{ "pfc", "tune", &T_WORD, AT(pfc_tune), .what = "off, on or dry-run",
	  .words = W_TUNE, .bools = true, .def = "off" },
	{ "pfc", "target_latency", &T_LATENCY,
	  .what = "a latency from 1us to 60s with a unit (500us, 2ms, 1s), or none",
	  .def = "1ms" },
	TIME_KEY("pfc", "tune_interval", pfc_tune_ivl_ms, "2s"),
	{ "pfc", "tune_min_size", &T_SIZE, AT(pfc_tune_min_size), .def = "0" },
	{ "pfc", "tune_max_step", &T_SIZE, AT(pfc_tune_max_step),
	  .unit = "; 0: unbounded", .def = "0" },
	UINT_KEY("pfc", "tune_up_pct", pfc_tune_up_pct, 1, 1000, "(%)", "25"),
	UINT_KEY("pfc", "tune_down_pct", pfc_tune_down_pct, 1, 99, "(%)",
		 "10"),
	UINT_KEY("pfc", "tune_hold_up", pfc_tune_hold_up, 1, 1000,
		 "(tune intervals)", "3"),
	UINT_KEY("pfc", "tune_hold_down", pfc_tune_hold_down, 1, 1000,
		 "(tune intervals)", "10"),
	TIME_KEY("pfc", "tune_min_change", pfc_tune_min_change_ms, "30s"),
	{ "pfc", "tune_pause_hi", &T_UINT, AT(pfc_tune_pause_hi), .lo = 0,
	  .hi = 100000000, .what = "a rate per second", .def = "50" },
	{ "pfc", "tune_ecn_lo", &T_UINT, AT(pfc_tune_ecn_lo), .lo = 0,
	  .hi = 100000000, .what = "a rate per second", .def = "100" },
	/* [hw] */
	BOOL_KEY("hw", "apply", hw_apply, "no"),
	{ "hw", "devices", &T_DEVICES, AT(hw_devices), .def = "all" },
};

#define NKEYS		ARRAY_SIZE(keys)
/* Key numbers for duplicates: a keys[] index, or NKEYS - 1 + a parameter. */
#define KEY_NUMBERS	(NKEYS + ROCECC_PARAM_MAX)

const char *rd_engine_name(int e)
{
	return e >= 0 && e < RD_ENGINE_NR ? W_ENGINE[e].name : NULL;
}

int rd_engine_parse(const char *s)
{
	const struct word *w;

	for (w = W_ENGINE; w->name; w++)
		if (!strcmp(s, w->name))
			return w->value;
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
	return (unsigned int)g < RD_GROUP_NR ? W_GROUP_BY[g].name : NULL;
}

int rd_group_by_parse(const char *s)
{
	const struct word *w;

	for (w = W_GROUP_BY; w->name; w++)
		if (!strcmp(s, w->name))
			return w->value;
	return -1;
}

static int find_section(const char *s)
{
	unsigned int i;

	for (i = 0; i < S_NR; i++)
		if (!strcmp(s, sections[i]))
			return i;
	return -1;
}

/*
 * The key @name of section @sec: its keys[] entry and its number (for
 * duplicates) in *@num, *@id the module parameter or 0. NULL if unknown.
 */
static const struct key *find_key(const char *sec, const char *name,
				  unsigned int *num, unsigned int *id)
{
	unsigned int k, p;

	for (k = 0; k < NKEYS; k++) {
		if (strcmp(sec, keys[k].section))
			continue;
		*num = k;
		*id = 0;
		if (keys[k].name && !strcmp(name, keys[k].name))
			return &keys[k];
		if (!keys[k].name) {
			p = rocecc_param_by_name(name);
			if (p != ROCECC_PARAM_UNSPEC) {
				*num = NKEYS - 1 + p;
				*id = p;
				return &keys[k];
			}
		}
	}
	return NULL;
}

/* "unknown key (...)" for section @sec into @buf. */
static void unknown_key(const char *sec, char *buf, size_t n)
{
	bool params = false;
	size_t len, k, i = 0;

	for (k = 0; k < NKEYS; k++)
		params |= !strcmp(keys[k].section, sec) && !keys[k].name;
	len = snprintf(buf, n, params ? "unknown key: neither" :
			       "unknown key (known:");
	for (k = 0; k < NKEYS && len < n; k++) {
		if (strcmp(keys[k].section, sec) || !keys[k].name)
			continue;
		len += snprintf(buf + len, n - len, "%s %s",
				i++ ? "," : "", keys[k].name);
	}
	if (len < n)
		snprintf(buf + len, n - len, "%s", params ?
			 " nor a rocecc parameter (rocecc param show lists them)" :
			 ")");
}

/* "NAME: " (@name NULL: nothing) and the message into @buf. */
static void msg(char *buf, size_t n, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void msg(char *buf, size_t n, const char *name, const char *fmt, ...)
{
	int len = 0;
	va_list ap;

	if (!n)
		return;
	if (name)
		len = snprintf(buf, n, "%s: ", name);
	if (len < 0 || (size_t)len >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

/*
 * @k (module parameter @id) := @s onto @c. The parsers write @c only when
 * they succeed: on failure it is untouched.
 */
static int set_key(struct rd_conf *c, const struct key *k, unsigned int id,
		   const char *s, char *why, size_t n)
{
	why[0] = '\0';
	return k->type->parse(c, k, id, s, why, n);
}

void rd_conf_defaults(struct rd_conf *c)
{
	char why[256];
	size_t k;

	memset(c, 0, sizeof(*c));
	for (k = 0; k < NKEYS; k++) {
		if (keys[k].def)
			keys[k].type->parse(c, &keys[k], 0, keys[k].def, why,
					    sizeof(why));
		else if (keys[k].type->clear_minus_one)
			set_int(c, &keys[k], -1);
	}
}

int rd_conf_set(struct rd_conf *c, const char *name, const char *section,
		const char *key, const char *value, char *err, size_t errlen)
{
	const struct key *k;
	unsigned int num, id;
	char why[448];

	if (find_section(section) < 0) {
		msg(err, errlen, name,
		    "unknown section [%s] (known: " SECTIONS_KNOWN ")",
		    section);
		return -EINVAL;
	}
	k = find_key(section, key, &num, &id);
	if (!k) {
		unknown_key(section, why, sizeof(why));
		msg(err, errlen, name, "[%s] %s: %s", section, key, why);
		return -EINVAL;
	}
	if (set_key(c, k, id, value, why, sizeof(why))) {
		msg(err, errlen, name, "[%s] %s: '%s' %s", section, key,
		    value, why);
		return -EINVAL;
	}
	if (errlen)
		err[0] = '\0';
	return 0;
}

/* The @i-th key that has a command-line flag, or NULL. */
static const struct key *flag_key(unsigned int i)
{
	size_t k;

	for (k = 0; k < NKEYS; k++)
		if (keys[k].flag && !i--)
			return &keys[k];
	return NULL;
}

const char *rd_conf_flag(unsigned int i, int *letter)
{
	const struct key *k = flag_key(i);

	if (!k)
		return NULL;
	*letter = k->letter;
	return k->flag;
}

int rd_conf_set_flag(struct rd_conf *c, unsigned int i, const char *value,
		     char *err, size_t errlen)
{
	const struct key *k = flag_key(i);
	char why[448];

	if (!k)
		return -EINVAL;
	if (set_key(c, k, 0, value, why, sizeof(why))) {
		msg(err, errlen, NULL, "--%s: '%s' %s", k->flag, value, why);
		return -EINVAL;
	}
	if (errlen)
		err[0] = '\0';
	return 0;
}

/* One key (module parameter @id) as a line of the file. */
static void print_key(FILE *f, const struct rd_conf *c, const struct key *k,
		      unsigned int id)
{
	const char *name = k->name ? k->name : rocecc_param_info(id)->name;
	char buf[640] = "";

	if (k->type->format(c, k, id, buf, sizeof(buf)))
		fprintf(f, "%s = %s\n", name, buf);
	else
		fprintf(f, "#%s = %s\n", name, *buf ? buf :
			k->unset ? k->unset : "");
}

void rd_conf_print(FILE *f, const struct rd_conf *c)
{
	const char *sec = NULL;
	unsigned int id;
	size_t k;

	for (k = 0; k < NKEYS; k++) {
		if (!sec || strcmp(sec, keys[k].section))
			fprintf(f, "%s[%s]\n", sec ? "\n" : "", keys[k].section);
		sec = keys[k].section;
		if (keys[k].name)
			print_key(f, c, &keys[k], 0);
		else
			for (id = 1; id <= ROCECC_PARAM_MAX; id++)
				print_key(f, c, &keys[k], id);
	}
}

bool rd_conf_equal(const struct rd_conf *a, const struct rd_conf *b)
{
	char *ta = NULL, *tb = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&ta, &la), *fb = open_memstream(&tb, &lb);
	bool same = false;

	if (fa && fb) {
		rd_conf_print(fa, a);
		rd_conf_print(fb, b);
	}
	if (fa && !fclose(fa) && fb && !fclose(fb))
		same = la == lb && !memcmp(ta, tb, la);
	else if (fb)
		fclose(fb);
	free(ta);
	free(tb);
	return same;
}

bool rd_conf_pfcwd_on(const struct rd_conf *c)
{
	return c->pfc_wd > 0 ||
	       (c->pfc_wd < 0 && c->pfc_prio_set && c->pfc_en);
}

/* Loading. */

struct load {
	struct ini_text t;
	struct rd_conf *c;
	unsigned int key_line[KEY_NUMBERS];	/* where each key was set */
};

/* An unknown section is reported at its line, even if no key follows. */
static void load_section(struct ini_text *t, const char *name)
{
	if (find_section(name) < 0)
		ini_text_err(t, -EINVAL, t->lineno, NULL, NULL,
			     "unknown section [%s] (known: " SECTIONS_KNOWN ")",
			     name);
}

static void load_key(struct ini_text *t, const char *section,
		     const char *name, const char *value)
{
	struct load *l = t->user;
	const struct key *k;
	unsigned int num, id;
	char why[448];

	if (find_section(section) < 0) {	/* load_section() saw it */
		load_section(t, section);
		return;
	}
	k = find_key(section, name, &num, &id);
	if (!k) {
		unknown_key(section, why, sizeof(why));
		ini_text_err(t, -EINVAL, t->lineno, section, name, "%s", why);
		return;
	}
	if (l->key_line[num]) {
		ini_text_err(t, -EINVAL, t->lineno, section, name,
			     "set twice (first on line %u)", l->key_line[num]);
		return;
	}
	l->key_line[num] = t->lineno;
	if (set_key(l->c, k, id, value, why, sizeof(why)))
		ini_text_err(t, -EINVAL, t->lineno, section, name, "'%s' %s",
			     value, why);
}

static int load_text(struct rd_conf *c, const char *name, const char *text,
		     size_t len, char *err, size_t errlen)
{
	struct load l = {
		.t = {
			.name = name, .s = text, .left = len,
			.sections = "(known: " SECTIONS_KNOWN ")",
			.key = load_key, .section = load_section,
			.msg = err, .msglen = errlen,
		},
		.c = c,
	};

	l.t.user = &l;
	return ini_text_parse(&l.t);
}

int rd_conf_load(struct rd_conf *c, const char *path, char *err,
		 size_t errlen)
{
	size_t len;
	char *text;
	int ret;

	ret = ini_read_file(path, &text, &len, err, errlen);
	if (ret)
		return ret;
	ret = load_text(c, path, text, len, err, errlen);
	free(text);
	return ret;
}

int rd_conf_load_string(struct rd_conf *c, const char *name, const char *text,
			char *err, size_t errlen)
{
	return load_text(c, name, text, strlen(text), err, errlen);
}

int rd_conf_check(const struct rd_conf *c, const char *name, char *err,
		  size_t errlen)
{
	char a[32], b[32];

	if (c->module_attach && c->dp_engine >= 0 &&
	    c->dp_engine != RD_ENGINE_MODULE && c->dp_engine != RD_ENGINE_AUTO) {
		msg(err, errlen, name,
		    "[datapath] engine: %s, but [module] attach = yes asks for rocecc.ko (set one of them)",
		    rd_engine_name(c->dp_engine));
		return -EINVAL;
	}
	if (c->group_by == RD_GROUP_RANKMAP && !c->rankmap_file[0]) {
		msg(err, errlen, name,
		    "[straggler] group_by: rankmap needs a rank map ([rankmap] file)");
		return -EINVAL;
	}
	if (c->local_host[0] && !c->rankmap_file[0]) {
		msg(err, errlen, name,
		    "[rankmap] host: '%s' is set, but there is no rank map ([rankmap] file)",
		    c->local_host);
		return -EINVAL;
	}
	if (c->pfc_size_auto && (!c->pfc_prio_set || !c->pfc_en)) {
		msg(err, errlen, name,
		    "[pfc] buffer_size: auto sizes the buffers of the PFC priorities, but [pfc] priorities %s",
		    c->pfc_prio_set ? "is none" : "is not set");
		return -EINVAL;
	}
	if (c->pfc_tune != RD_PFCTUNE_OFF && (!c->pfc_prio_set || !c->pfc_en)) {
		msg(err, errlen, name,
		    "[pfc] tune: the tuner sizes the buffers of the PFC priorities, but [pfc] priorities %s",
		    c->pfc_prio_set ? "is none" : "is not set");
		return -EINVAL;
	}
	if (c->pfc_tune != RD_PFCTUNE_OFF && c->pfc_tune_ivl_ms < c->interval_ms) {
		msg(err, errlen, name,
		    "[pfc] tune_interval: %s is shorter than the interval ([daemon] interval = %s)",
		    time_str(c->pfc_tune_ivl_ms, a, sizeof(a)),
		    time_str(c->interval_ms, b, sizeof(b)));
		return -EINVAL;
	}
	if (c->window_ms < 2 * c->interval_ms) {
		msg(err, errlen, name,
		    "[straggler] window: %s is shorter than twice the interval ([daemon] interval = %s)",
		    time_str(c->window_ms, a, sizeof(a)),
		    time_str(c->interval_ms, b, sizeof(b)));
		return -EINVAL;
	}
	if (errlen)
		err[0] = '\0';
	return 0;
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

/*
 * buffer_size = auto on @b: every buffer that holds a PFC priority (of
 * @en, after prio2buffer) gets headroom_calc()'s size, the lossy ones the
 * rest of total_size. 0, or -EINVAL with @why.
 */
static int pfc_auto_sizes(const struct rd_conf *c, unsigned int speed_mbps,
			  unsigned int netdev_mtu, uint8_t en,
			  struct dcbnl_buffer *b, char *why, size_t n)
{
	struct headroom_params hp = { 0 };
	struct headroom_result r = { 0 };
	uint8_t lossless = 0, lossy = 0;
	uint64_t need;
	int err, nl, ny, i;

	for (i = 0; i < DCBNL_PRIOS; i++) {
		if (b->prio2buffer[i] >= DCBNL_BUFFERS)
			continue;
		if (en & 1u << i)
			lossless |= 1u << b->prio2buffer[i];
		else
			lossy |= 1u << b->prio2buffer[i];
	}
	lossy &= ~lossless;
	nl = __builtin_popcount(lossless);
	ny = __builtin_popcount(lossy);
	if (lossless) {
		hp.speed_mbps = c->pfc_speed_mbps ? c->pfc_speed_mbps : speed_mbps;
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
	if (need > UINT32_MAX || (b->total_size && need > b->total_size)) {
		snprintf(why, n, "buffer_size = auto: %d lossless buffer%s of %llu bytes need more than the device's total_size %u",
			 nl, nl == 1 ? "" : "s", (unsigned long long)r.size,
			 b->total_size);
		return -EINVAL;
	}
	for (i = 0; i < DCBNL_BUFFERS; i++) {
		if (lossless & 1u << i)
			b->buffer_size[i] = (uint32_t)r.size;
		else if (!b->total_size)
			continue;	/* the rest is unknown: left */
		else if (lossy & 1u << i)
			b->buffer_size[i] = (uint32_t)((b->total_size - need) / (uint64_t)ny);
		else
			b->buffer_size[i] = 0;
	}
	return 0;
}

/* [pfc] priorities, delay and mbc onto @pfc: true if that changes it. */
static bool pfc_target_pfc(const struct rd_conf *c, struct ieee_pfc *pfc)
{
	struct ieee_pfc p = *pfc;

	if (c->pfc_prio_set)
		p.pfc_en = c->pfc_en;
	if (c->pfc_delay >= 0)
		p.delay = (uint16_t)c->pfc_delay;
	if (c->pfc_mbc >= 0)
		p.mbc = (uint8_t)c->pfc_mbc;
	if (p.pfc_en == pfc->pfc_en && p.delay == pfc->delay &&
	    p.mbc == pfc->mbc)
		return false;
	*pfc = p;
	return true;
}

int rd_pfc_target(const struct rd_conf *c, unsigned int speed_mbps,
		  unsigned int netdev_mtu, struct ieee_pfc *pfc, bool have_pfc,
		  struct dcbnl_buffer *buf, bool have_buf, char *why, size_t n)
{
	struct dcbnl_buffer b;
	int ret = 0, i;

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
	if (have_pfc && pfc_target_pfc(c, pfc))
		ret |= RD_PFC_CHANGE_PFC;
	if (!have_buf)
		return ret;
	b = *buf;
	for (i = 0; i < DCBNL_PRIOS; i++)
		if (c->pfc_p2b_mask & 1u << i)
			b.prio2buffer[i] = c->pfc_p2b[i];
	for (i = 0; i < DCBNL_BUFFERS; i++)
		if (c->pfc_size_mask & 1u << i)
			b.buffer_size[i] = c->pfc_size[i];
	if (c->pfc_size_auto &&
	    pfc_auto_sizes(c, speed_mbps, netdev_mtu,
			   have_pfc ? pfc->pfc_en : 0, &b, why, n))
		return -EINVAL;
	if (memcmp(b.prio2buffer, buf->prio2buffer, sizeof(b.prio2buffer)) ||
	    memcmp(b.buffer_size, buf->buffer_size, sizeof(b.buffer_size)))
		ret |= RD_PFC_CHANGE_BUF;
	*buf = b;
	return ret;
}
