// SPDX-License-Identifier: GPL-2.0
/*
 * Rank map: parallel-group arithmetic of a training job and the parsing of
 * the file that describes it (format and arithmetic in rankmap.h). No I/O:
 * roceccd/rankmap_file.c reads the file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/inifile.h"
#include "rankmap.h"

static const char *const dim_names[RANKMAP_DIMS] = {
	[RANKMAP_DIM_TP] = "tp",
	[RANKMAP_DIM_PP] = "pp",
	[RANKMAP_DIM_DP] = "dp",
};

static const char *const kind_names[RANKMAP_KINDS] = {
	[RANKMAP_TP] = "tp",
	[RANKMAP_PP] = "pp",
	[RANKMAP_DP] = "dp",
	[RANKMAP_MP] = "mp",
};

const char *rankmap_kind_name(enum rankmap_kind kind)
{
	return (unsigned int)kind < RANKMAP_KINDS ? kind_names[kind] : NULL;
}

int rankmap_parse_order(const char *s, enum rankmap_dim order[RANKMAP_DIMS])
{
	unsigned int seen = 0, i, d;

	for (i = 0; i < RANKMAP_DIMS; i++) {
		for (d = 0; d < RANKMAP_DIMS; d++)
			if (!strncmp(s, dim_names[d], 2))
				break;
		if (d == RANKMAP_DIMS || seen & (1U << d))
			return -EINVAL;
		seen |= 1U << d;
		order[i] = d;
		s += 2;
		if (i < RANKMAP_DIMS - 1 && *s++ != '-')
			return -EINVAL;
	}
	return *s ? -EINVAL : 0;
}

int rankmap_set_layout(struct rankmap *m, unsigned int world_size,
		       const unsigned int size[RANKMAP_DIMS],
		       const enum rankmap_dim order[RANKMAP_DIMS])
{
	unsigned long long prod = 1;
	unsigned int seen = 0, i, stride = 1;

	for (i = 0; i < RANKMAP_DIMS; i++) {
		if (!size[i])
			return -EINVAL;
		prod *= size[i];
		if (prod > RANKMAP_MAX_WORLD)
			return -EINVAL;
		if ((unsigned int)order[i] >= RANKMAP_DIMS ||
		    seen & (1U << order[i]))
			return -EINVAL;
		seen |= 1U << order[i];
	}
	if (prod != world_size)
		return -EINVAL;
	m->world_size = world_size;
	for (i = 0; i < RANKMAP_DIMS; i++) {
		m->size[i] = size[i];
		m->order[i] = order[i];
	}
	for (i = 0; i < RANKMAP_DIMS; i++) {
		m->stride[order[i]] = stride;
		stride *= size[order[i]];
	}
	return 0;
}

unsigned int rankmap_coord(const struct rankmap *m, unsigned int rank,
			   enum rankmap_dim dim)
{
	return rank / m->stride[dim] % m->size[dim];
}

/* The dimensions along which the members of a group of @kind differ. */
static unsigned int varying(enum rankmap_kind kind)
{
	switch (kind) {
	case RANKMAP_TP:
		return 1U << RANKMAP_DIM_TP;
	case RANKMAP_PP:
		return 1U << RANKMAP_DIM_PP;
	case RANKMAP_DP:
		return 1U << RANKMAP_DIM_DP;
	default:
		return 1U << RANKMAP_DIM_TP | 1U << RANKMAP_DIM_PP;
	}
}

unsigned int rankmap_group_size(const struct rankmap *m,
				enum rankmap_kind kind)
{
	unsigned int mask = varying(kind), n = 1, d;

	for (d = 0; d < RANKMAP_DIMS; d++)
		if (mask & (1U << d))
			n *= m->size[d];
	return n;
}

unsigned int rankmap_ngroups(const struct rankmap *m, enum rankmap_kind kind)
{
	return m->world_size / rankmap_group_size(m, kind);
}

/*
 * Group ids number the fixed coordinates, tp fastest, then pp, then dp (the
 * enum's order).
 */
unsigned int rankmap_group_of(const struct rankmap *m, enum rankmap_kind kind,
			      unsigned int rank)
{
	unsigned int mask = varying(kind), id = 0, mul = 1, d;

	for (d = 0; d < RANKMAP_DIMS; d++) {
		if (mask & (1U << d))
			continue;
		id += rankmap_coord(m, rank, d) * mul;
		mul *= m->size[d];
	}
	return id;
}

/*
 * Member @j of group @id: @j numbers the varying coordinates in the layout
 * order (fastest first), so that members ascend with @j.
 */
static unsigned int member(const struct rankmap *m, unsigned int mask,
			   unsigned int id, unsigned int j)
{
	unsigned int rank = 0, i, d;

	for (d = 0; d < RANKMAP_DIMS; d++) {
		if (mask & (1U << d))
			continue;
		rank += id % m->size[d] * m->stride[d];
		id /= m->size[d];
	}
	for (i = 0; i < RANKMAP_DIMS; i++) {
		d = m->order[i];
		if (!(mask & (1U << d)))
			continue;
		rank += j % m->size[d] * m->stride[d];
		j /= m->size[d];
	}
	return rank;
}

void rankmap_group_members(const struct rankmap *m, enum rankmap_kind kind,
			   unsigned int id, unsigned int *out)
{
	unsigned int n = rankmap_group_size(m, kind), mask = varying(kind), j;

	for (j = 0; j < n; j++)
		out[j] = member(m, mask, id, j);
}

unsigned int rankmap_rank_host(const struct rankmap *m, unsigned int rank)
{
	return m->rank_host[rank];
}

size_t rankmap_flow_groups(const struct rankmap *m, unsigned int a,
			   unsigned int b, struct rankmap_group *out,
			   size_t max)
{
	unsigned int k, g, j, n, size, mask, na, nb, h;
	size_t found = 0;

	for (k = 0; k < RANKMAP_KINDS; k++) {
		n = rankmap_ngroups(m, k);
		size = rankmap_group_size(m, k);
		mask = varying(k);
		for (g = 0; g < n; g++) {
			na = nb = 0;
			for (j = 0; j < size; j++) {
				h = m->rank_host[member(m, mask, g, j)];
				na += h == a;
				nb += h == b;
			}
			if (a == b ? na < 2 : !na || !nb)
				continue;
			if (found < max) {
				out[found].kind = k;
				out[found].id = g;
			}
			found++;
		}
	}
	return found;
}

/* Host names: a table in file order plus an open-addressing hash on it. */

static unsigned int hash_str(const char *s)
{
	unsigned int h = 2166136261U;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619U;
	return h;
}

/* The hash slot of @name: holding its index + 1, or 0 if it is absent. */
static unsigned int *host_slot(const struct rankmap *m, const char *name)
{
	unsigned int i = hash_str(name) & (m->hash_size - 1), *slot;

	for (;; i = (i + 1) & (m->hash_size - 1)) {
		slot = &m->host_hash[i];
		if (!*slot || !strcmp(m->hosts[*slot - 1], name))
			return slot;
	}
}

int rankmap_host_index(const struct rankmap *m, const char *name)
{
	unsigned int *slot;

	if (!m->hash_size)
		return -1;
	slot = host_slot(m, name);
	return *slot ? (int)*slot - 1 : -1;
}

/* Index of @name, added if new; -ENOMEM. */
static int host_add(struct rankmap *m, const char *name)
{
	unsigned int *slot, i, old_size = m->hash_size, *old = m->host_hash;
	char **hosts;

	if (m->nhosts + 1 > m->hash_size / 2) {
		m->hash_size = old_size ? old_size * 2 : 64;
		m->host_hash = calloc(m->hash_size, sizeof(*m->host_hash));
		if (!m->host_hash) {
			m->hash_size = old_size;
			m->host_hash = old;
			return -ENOMEM;
		}
		for (i = 0; i < m->nhosts; i++)
			*host_slot(m, m->hosts[i]) = i + 1;
		free(old);
	}
	slot = host_slot(m, name);
	if (*slot)
		return *slot - 1;
	hosts = array_grow(m->hosts, &m->hosts_cap, (size_t)m->nhosts + 1,
			   sizeof(*hosts));
	if (!hosts)
		return -ENOMEM;
	m->hosts = hosts;
	hosts[m->nhosts] = strdup(name);
	if (!hosts[m->nhosts])
		return -ENOMEM;
	*slot = ++m->nhosts;
	return m->nhosts - 1;
}

void rankmap_free(struct rankmap *m)
{
	unsigned int i;

	for (i = 0; i < m->nhosts; i++)
		free(m->hosts[i]);
	free(m->hosts);
	free(m->host_hash);
	free(m->rank_host);
	memset(m, 0, sizeof(*m));
}

/* Loading. */

enum { K_WORLD, K_TP, K_PP, K_DP, K_ORDER, K_GPH, K_NKEYS };

static const struct {
	const char *section, *name;
} keys[K_NKEYS] = {
	[K_WORLD] = { "layout", "world_size" },
	[K_TP] = { "layout", "tp" },
	[K_PP] = { "layout", "pp" },
	[K_DP] = { "layout", "dp" },
	[K_ORDER] = { "layout", "order" },
	[K_GPH] = { "hosts", "gpus_per_host" },
};

/* Ranks lo..hi go to host; seq >= 0 for the seq-th [hosts] "host" line. */
struct assign {
	unsigned int lo, hi, host, line;
	int seq;
};

struct load {
	struct ini_text t;		/* the text, the first error */
	/* content */
	unsigned int val[K_NKEYS], key_line[K_NKEYS];
	enum rankmap_dim order[RANKMAP_DIMS];
	struct rankmap m;		/* hosts only until the end */
	unsigned int *seq_line;		/* per host: its [hosts] line or 0 */
	struct assign *as;
	size_t nas, cap;
	int nseq;
};

/* The first error: "NAME:LINE: [SECTION] KEY: ..." (lib/inifile.h) */
#define load_err(l, ...)	ini_text_err(&(l)->t, __VA_ARGS__)

/* Decimal, no sign, no blanks, at most UINT_MAX. */
static int parse_uint(const char *s, unsigned int *out)
{
	unsigned long long v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (*s - '0');
		if (v > UINT_MAX)
			return -ERANGE;
	}
	*out = v;
	return 0;
}

bool rankmap_valid_host(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' ||
		      *s == ':' || *s == '-'))
			return false;
	return n && n <= RANKMAP_HOST_MAX;
}

static int add_assign(struct load *l, unsigned int lo, unsigned int hi,
		      unsigned int host, int seq)
{
	struct assign *as;

	as = array_grow(l->as, &l->cap, l->nas + 1, sizeof(*as));
	if (!as)
		return -ENOMEM;
	l->as = as;
	l->as[l->nas++] = (struct assign){ lo, hi, host, l->t.lineno, seq };
	return 0;
}

/* Host index of @value for the current line, or -1 after an error. */
static int host_of(struct load *l, const char *section, const char *name,
		   const char *value)
{
	unsigned int *lines;
	int h;

	if (!rankmap_valid_host(value)) {
		load_err(l, -EINVAL, l->t.lineno, section, name,
			 "invalid host name '%s' (1 to %d of [A-Za-z0-9._:-])",
			 value, RANKMAP_HOST_MAX);
		return -1;
	}
	h = host_add(&l->m, value);
	if (h >= 0 && (unsigned int)h + 1 == l->m.nhosts) {
		lines = realloc(l->seq_line, l->m.nhosts * sizeof(*lines));
		if (!lines)
			h = -ENOMEM;
		else {
			l->seq_line = lines;
			lines[h] = 0;
		}
	}
	if (h < 0)
		load_err(l, h, l->t.lineno, NULL, NULL, "%s", strerror(-h));
	return h < 0 ? -1 : h;
}

static void handle_ranks(struct load *l, const char *name, const char *value)
{
	unsigned int lo, hi;
	const char *dash = strchr(name, '-');
	char first[16];
	int h;

	if (dash) {
		if ((size_t)(dash - name) >= sizeof(first))
			goto bad;
		memcpy(first, name, dash - name);
		first[dash - name] = '\0';
		if (parse_uint(first, &lo) || parse_uint(dash + 1, &hi) ||
		    hi < lo)
			goto bad;
	} else {
		if (parse_uint(name, &lo))
			goto bad;
		hi = lo;
	}
	h = host_of(l, "ranks", name, value);
	if (h >= 0 && add_assign(l, lo, hi, h, -1))
		load_err(l, -ENOMEM, l->t.lineno, NULL, NULL, "%s",
			 strerror(ENOMEM));
	return;
bad:
	load_err(l, -EINVAL, l->t.lineno, "ranks", name,
		 "not a rank or an ascending range of ranks (\"N\" or \"N-M\")");
}

static void handle_host(struct load *l, const char *value)
{
	int h = host_of(l, "hosts", "host", value);

	if (h < 0)
		return;
	if (l->seq_line[h]) {
		load_err(l, -EINVAL, l->t.lineno, "hosts", "host",
			 "host '%s' is already listed at line %u", value,
			 l->seq_line[h]);
		return;
	}
	l->seq_line[h] = l->t.lineno;
	if (add_assign(l, 0, 0, h, l->nseq++))
		load_err(l, -ENOMEM, l->t.lineno, NULL, NULL, "%s",
			 strerror(ENOMEM));
}

static void handle_key(struct load *l, int k, const char *value)
{
	const char *sec = keys[k].section, *name = keys[k].name;
	unsigned int v;
	int err;

	if (l->key_line[k]) {
		load_err(l, -EINVAL, l->t.lineno, sec, name,
			 "duplicate key (first at line %u)", l->key_line[k]);
		return;
	}
	l->key_line[k] = l->t.lineno;
	if (k == K_ORDER) {
		if (rankmap_parse_order(value, l->order))
			load_err(l, -EINVAL, l->t.lineno, sec, name,
				 "invalid order '%s' (tp, pp and dp once each, joined by '-', e.g. tp-dp-pp)",
				 value);
		return;
	}
	err = parse_uint(value, &v);
	if (err || !v || v > RANKMAP_MAX_WORLD) {
		load_err(l, -EINVAL, l->t.lineno, sec, name,
			 "'%s' is not an integer from 1 to %u", value,
			 RANKMAP_MAX_WORLD);
		return;
	}
	l->val[k] = v;
}

static void load_key(struct ini_text *t, const char *section,
		     const char *name, const char *value)
{
	struct load *l = t->user;
	int k;

	if (!strcmp(section, "ranks")) {
		handle_ranks(l, name, value);
		return;
	}
	if (!strcmp(section, "hosts") && !strcmp(name, "host")) {
		handle_host(l, value);
		return;
	}
	for (k = 0; k < K_NKEYS; k++)
		if (!strcmp(section, keys[k].section) &&
		    !strcmp(name, keys[k].name)) {
			handle_key(l, k, value);
			return;
		}
	if (strcmp(section, "layout") && strcmp(section, "hosts"))
		load_err(l, -EINVAL, l->t.lineno, section, NULL,
			 "unknown section (not [layout], [hosts] or [ranks])");
	else
		load_err(l, -EINVAL, l->t.lineno, section, name, "unknown key");
}

/* The [layout] keys into the layout of l->m; false after an error. */
static bool finish_layout(struct load *l)
{
	unsigned int size[RANKMAP_DIMS];
	unsigned long long prod;
	int k;

	for (k = 0; k < K_NKEYS; k++)
		if (!l->key_line[k] && (k == K_WORLD || k == K_ORDER)) {
			load_err(l, -EINVAL, 0, keys[k].section, keys[k].name,
				 "missing");
			return false;
		}
	if (l->nseq && !l->key_line[K_GPH]) {
		load_err(l, -EINVAL, l->as[0].line, "hosts", "host",
			 "gpus_per_host is not set");
		return false;
	}
	size[RANKMAP_DIM_TP] = l->key_line[K_TP] ? l->val[K_TP] : 1;
	size[RANKMAP_DIM_PP] = l->key_line[K_PP] ? l->val[K_PP] : 1;
	size[RANKMAP_DIM_DP] = l->key_line[K_DP] ? l->val[K_DP] : 1;
	prod = (unsigned long long)size[0] * size[1] * size[2];
	if (prod != l->val[K_WORLD]) {
		load_err(l, -EINVAL, l->key_line[K_WORLD], "layout",
			 "world_size",
			 "%u is not tp * pp * dp = %u * %u * %u = %llu",
			 l->val[K_WORLD], size[RANKMAP_DIM_TP],
			 size[RANKMAP_DIM_PP], size[RANKMAP_DIM_DP], prod);
		return false;
	}
	if (rankmap_set_layout(&l->m, l->val[K_WORLD], size, l->order)) {
		load_err(l, -EINVAL, l->key_line[K_WORLD], "layout",
			 "world_size", "invalid layout");
		return false;
	}
	return true;
}

/*
 * Assignment @a into l->m (@line_of: the line that mapped each rank, 0 if
 * none yet); a [hosts] line gets its ranks here. False after an error.
 */
static bool finish_assign(struct load *l, struct assign *a,
			  unsigned int *line_of)
{
	struct rankmap *m = &l->m;
	unsigned int gph = l->val[K_GPH], r;
	unsigned long long first;
	char key[32];

	if (a->seq >= 0)
		snprintf(key, sizeof(key), "host");
	else if (a->lo == a->hi)
		snprintf(key, sizeof(key), "%u", a->lo);
	else
		snprintf(key, sizeof(key), "%u-%u", a->lo, a->hi);
	if (a->seq >= 0) {
		first = (unsigned long long)a->seq * gph;
		if (first + gph > m->world_size) {
			load_err(l, -EINVAL, a->line, "hosts", "host",
				 "host '%s' would hold ranks %llu-%llu, beyond world_size %u",
				 m->hosts[a->host], first, first + gph - 1,
				 m->world_size);
			return false;
		}
		a->lo = first;
		a->hi = first + gph - 1;
	} else if (a->hi >= m->world_size) {
		load_err(l, -EINVAL, a->line, "ranks", key,
			 "rank %u is beyond world_size %u (ranks are 0 to %u)",
			 a->hi, m->world_size, m->world_size - 1);
		return false;
	}
	for (r = a->lo; r <= a->hi; r++) {
		if (line_of[r]) {
			load_err(l, -EINVAL, a->line,
				 a->seq >= 0 ? "hosts" : "ranks", key,
				 "rank %u is already mapped to '%s' at line %u",
				 r, m->hosts[m->rank_host[r]], line_of[r]);
			return false;
		}
		line_of[r] = a->line;
		m->rank_host[r] = a->host;
	}
	return true;
}

/* Every rank mapped (@line_of), or an error naming the first ones not. */
static void finish_unmapped(struct load *l, const unsigned int *line_of)
{
	unsigned int world = l->m.world_size, r, first = UINT_MAX, n = 0;

	for (r = 0; r < world; r++)
		if (!line_of[r]) {
			if (first == UINT_MAX)
				first = r;
			n++;
		}
	if (!n)
		return;
	for (r = first; r + 1 < world && !line_of[r + 1]; r++)
		;
	if (r == first)
		load_err(l, -EINVAL, 0, NULL, NULL,
			 "rank %u is not mapped to a host ([hosts] or [ranks]); %u unmapped in all",
			 first, n);
	else
		load_err(l, -EINVAL, 0, NULL, NULL,
			 "ranks %u-%u are not mapped to a host ([hosts] or [ranks]); %u unmapped in all",
			 first, r, n);
}

/* After parsing: the layout, then each assignment in file order. */
static void finish(struct load *l)
{
	struct rankmap *m = &l->m;
	unsigned int *line_of;
	size_t i;

	if (!finish_layout(l))
		return;
	m->rank_host = malloc(m->world_size * sizeof(*m->rank_host));
	line_of = calloc(m->world_size, sizeof(*line_of));
	if (!m->rank_host || !line_of) {
		load_err(l, -ENOMEM, 0, NULL, NULL, "%s", strerror(ENOMEM));
		free(line_of);
		return;
	}
	for (i = 0; i < l->nas; i++)
		if (!finish_assign(l, &l->as[i], line_of))
			break;
	if (i == l->nas)
		finish_unmapped(l, line_of);
	free(line_of);
}

int rankmap_parse(struct rankmap *m, const char *name, const char *text,
		  size_t len, char *err, size_t errlen)
{
	struct load l = {
		.t = {
			.name = name, .s = text, .left = len,
			.sections = "([layout], [hosts] or [ranks])",
			.key = load_key, .msg = err, .msglen = errlen,
		},
	};

	l.t.user = &l;
	if (!ini_text_parse(&l.t))
		finish(&l);
	free(l.as);
	free(l.seq_line);
	if (l.t.err) {
		rankmap_free(&l.m);
		return l.t.err;
	}
	*m = l.m;
	return 0;
}

int rankmap_load_string(struct rankmap *m, const char *name, const char *text,
			char *err, size_t errlen)
{
	return rankmap_parse(m, name, text, strlen(text), err, errlen);
}
