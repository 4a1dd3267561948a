// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the rank map (daemon/policy/rankmap.c): Megatron's group
 * arithmetic, the file format and its errors, and tagging flows between hosts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/rankmap.h"
#include "roceccd/rankmap_file.h"
#include "tap.h"

/* The example of issue 5 (and of Megatron's initialize_model_parallel()). */
static const char *const example[RANKMAP_KINDS] = {
	[RANKMAP_TP] = "[0,1],[4,5],[8,9],[12,13],[2,3],[6,7],[10,11],[14,15]",
	[RANKMAP_PP] = "[0,4,8,12],[1,5,9,13],[2,6,10,14],[3,7,11,15]",
	[RANKMAP_DP] = "[0,2],[1,3],[4,6],[5,7],[8,10],[9,11],[12,14],[13,15]",
	[RANKMAP_MP] = "[0,1,4,5,8,9,12,13],[2,3,6,7,10,11,14,15]",
};

static const char example_file[] =
	"# 16 GPUs on 2 nodes of 8, TP=2, PP=4, DP=2\n"
	"[layout]\n"
	"world_size = 16\n"
	"tp = 2\n"
	"pp = 4\n"
	"dp = 2\n"
	"order = tp-dp-pp   ; Megatron-Core's default order\n"
	"\n"
	"[hosts]\n"
	"gpus_per_host = 8\n"
	"host = node0\n"
	"host = node1\n";

/* The groups of @kind by id, as "[0,1],[4,5],...". */
static char *render(const struct rankmap *m, enum rankmap_kind kind)
{
	unsigned int n = rankmap_ngroups(m, kind), size, g, j, *mem;
	size_t len = 0, cap = 16 * m->world_size + 16;
	char *s = malloc(cap);

	size = rankmap_group_size(m, kind);
	mem = malloc(size * sizeof(*mem));
	s[0] = '\0';
	for (g = 0; g < n; g++) {
		rankmap_group_members(m, kind, g, mem);
		len += snprintf(s + len, cap - len, "%s[", g ? "," : "");
		for (j = 0; j < size; j++)
			len += snprintf(s + len, cap - len, "%s%u", j ? "," : "",
					mem[j]);
		len += snprintf(s + len, cap - len, "]");
	}
	free(mem);
	return s;
}

/* A set of sets of ranks: each set sorted, the sets sorted. */
struct sets {
	unsigned int n, len[64], v[64][64];
};

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

static int cmp_set(const void *a, const void *b, void *arg)
{
	const struct sets *s = arg;
	unsigned int i = *(const unsigned int *)a, j = *(const unsigned int *)b;
	unsigned int k;

	for (k = 0; k < s->len[i] && k < s->len[j]; k++)
		if (s->v[i][k] != s->v[j][k])
			return s->v[i][k] < s->v[j][k] ? -1 : 1;
	return s->len[i] < s->len[j] ? -1 : s->len[i] > s->len[j];
}

/* "[0,1],[4,5]" to a canonical string of the set of sets ("" if bad). */
static void canonical(const char *in, char *out, size_t outlen)
{
	static struct sets s;
	unsigned int idx[64], i, k;
	size_t len = 0;
	char *end;

	memset(&s, 0, sizeof(s));
	out[0] = '\0';
	while (*in) {
		if (*in == ',')
			in++;
		if (*in++ != '[' || s.n == 64)
			return;
		for (;;) {
			if (s.len[s.n] == 64)
				return;
			s.v[s.n][s.len[s.n]++] = strtoul(in, &end, 10);
			if (end == in)
				return;
			in = end;
			if (*in == ']')
				break;
			if (*in++ != ',')
				return;
		}
		in++;
		qsort(s.v[s.n], s.len[s.n], sizeof(unsigned int), cmp_uint);
		idx[s.n] = s.n;
		s.n++;
	}
	qsort_r(idx, s.n, sizeof(idx[0]), cmp_set, &s);
	for (i = 0; i < s.n; i++) {
		len += snprintf(out + len, outlen - len, "{");
		for (k = 0; k < s.len[idx[i]]; k++)
			len += snprintf(out + len, outlen - len, "%s%u",
					k ? "," : "", s.v[idx[i]][k]);
		len += snprintf(out + len, outlen - len, "}");
	}
}

static bool same_sets(const char *a, const char *b)
{
	char ca[4096], cb[4096];

	canonical(a, ca, sizeof(ca));
	canonical(b, cb, sizeof(cb));
	return ca[0] && !strcmp(ca, cb);
}

/* Groups of a flow between hosts @a and @b, as "pp0 pp1 mp0". */
static void flow_str(const struct rankmap *m, const char *a, const char *b,
		     char *out, size_t outlen)
{
	struct rankmap_group g[256];
	size_t n, i, len = 0;

	out[0] = '\0';
	n = rankmap_flow_groups(m, rankmap_host_index(m, a),
				rankmap_host_index(m, b), g, 256);
	for (i = 0; i < n && i < 256; i++)
		len += snprintf(out + len, outlen - len, "%s%s%u",
				i ? " " : "", rankmap_kind_name(g[i].kind),
				g[i].id);
}

static bool load_ok(struct rankmap *m, const char *text, const char *what)
{
	char err[256];
	int ret = rankmap_load_string(m, "t.map", text, err, sizeof(err));

	if (!tap_ok(!ret, "%s loads", what)) {
		tap_diag("%d: %s", ret, err);
		return false;
	}
	return true;
}

static void check_groups(const struct rankmap *m, enum rankmap_kind kind,
			 const char *want, const char *what)
{
	char *got = render(m, kind);

	tap_is_str(got, want, "%s: %s groups by id, exactly", what,
		   rankmap_kind_name(kind));
	free(got);
}

/* Every rank is a member of the group rankmap_group_of() names, once. */
static void check_consistent(const struct rankmap *m, const char *what)
{
	unsigned int k, r, g, j, n, size, *mem, *seen;
	bool ok = true;

	seen = calloc(m->world_size, sizeof(*seen));
	mem = malloc(m->world_size * sizeof(*mem));
	for (k = 0; k < RANKMAP_KINDS; k++) {
		size = rankmap_group_size(m, k);
		n = rankmap_ngroups(m, k);
		ok &= n * size == m->world_size;
		memset(seen, 0, m->world_size * sizeof(*seen));
		for (g = 0; g < n; g++) {
			rankmap_group_members(m, k, g, mem);
			for (j = 0; j < size; j++) {
				ok &= mem[j] < m->world_size;
				if (mem[j] >= m->world_size)
					continue;
				ok &= !j || mem[j] > mem[j - 1];
				ok &= rankmap_group_of(m, k, mem[j]) == g;
				seen[mem[j]]++;
			}
		}
		for (r = 0; r < m->world_size; r++)
			ok &= seen[r] == 1;
	}
	tap_ok(ok, "%s: each rank in exactly the group of its id, members ascending",
	       what);
	free(seen);
	free(mem);
}

static void test_example(void)
{
	char flows[512];
	struct rankmap m;
	unsigned int k, r;
	bool ok = true;

	if (!load_ok(&m, example_file, "example (tp-dp-pp, 2 nodes of 8)"))
		return;
	tap_eq(m.world_size, 16, "world_size");
	tap_ok(m.order[0] == RANKMAP_DIM_TP && m.order[1] == RANKMAP_DIM_DP &&
	       m.order[2] == RANKMAP_DIM_PP, "order tp-dp-pp");
	tap_eq(rankmap_ngroups(&m, RANKMAP_TP), 8, "8 TP groups");
	tap_eq(rankmap_ngroups(&m, RANKMAP_PP), 4, "4 PP groups");
	tap_eq(rankmap_ngroups(&m, RANKMAP_DP), 8, "8 DP groups");
	tap_eq(rankmap_ngroups(&m, RANKMAP_MP), 2, "2 MP groups");
	tap_eq(rankmap_group_size(&m, RANKMAP_MP), 8, "MP groups of 8");
	for (k = 0; k < RANKMAP_KINDS; k++) {
		char *got = render(&m, k);

		if (!tap_ok(same_sets(got, example[k]),
			    "example: %s groups as a set of sets",
			    rankmap_kind_name(k)))
			tap_diag("got %s, want %s", got, example[k]);
		free(got);
	}
	for (k = 0; k < RANKMAP_KINDS; k++)
		check_groups(&m, k, example[k], "example");
	check_consistent(&m, "example");
	for (r = 0; r < 16; r++)
		ok &= rankmap_coord(&m, r, RANKMAP_DIM_TP) == r % 2 &&
		      rankmap_coord(&m, r, RANKMAP_DIM_DP) == r / 2 % 2 &&
		      rankmap_coord(&m, r, RANKMAP_DIM_PP) == r / 4 &&
		      rankmap_rank_host(&m, r) == r / 8;
	tap_ok(ok, "coordinates: rank = tp + 2 dp + 4 pp; host = rank / 8");
	tap_eq(rankmap_group_of(&m, RANKMAP_TP, 6), 5,
	       "rank 6 (pp 1, dp 1) is in TP group 1 + 4 * 1");
	tap_eq(rankmap_group_of(&m, RANKMAP_PP, 6), 2,
	       "rank 6 (tp 0, dp 1) is in PP group 0 + 2 * 1");
	tap_eq(rankmap_group_of(&m, RANKMAP_DP, 6), 2,
	       "rank 6 (tp 0, pp 1) is in DP group 0 + 2 * 1");
	tap_eq(rankmap_group_of(&m, RANKMAP_MP, 6), 1,
	       "rank 6 (dp 1) is in MP group 1");

	tap_eq(m.nhosts, 2, "two hosts");
	tap_ok(rankmap_host_index(&m, "node0") == 0 &&
	       rankmap_host_index(&m, "node1") == 1 &&
	       rankmap_host_index(&m, "node2") == -1 &&
	       rankmap_host_index(&m, "node") == -1, "host lookup by name");

	flow_str(&m, "node0", "node1", flows, sizeof(flows));
	tap_is_str(flows, "pp0 pp1 pp2 pp3 mp0 mp1",
		   "node0 - node1 serves every PP and MP group, no TP or DP group");
	flow_str(&m, "node1", "node0", flows, sizeof(flows));
	tap_is_str(flows, "pp0 pp1 pp2 pp3 mp0 mp1", "node1 - node0: the same");
	flow_str(&m, "node0", "node0", flows, sizeof(flows));
	tap_is_str(flows,
		   "tp0 tp1 tp4 tp5 pp0 pp1 pp2 pp3 dp0 dp1 dp2 dp3 mp0 mp1",
		   "within node0: its TP groups [0,1],[4,5],[2,3],[6,7], all PP, its DP, all MP");
	{
		struct rankmap_group g[2] = { { RANKMAP_KINDS, 99 },
					      { RANKMAP_KINDS, 99 } };

		tap_eq(rankmap_flow_groups(&m, 0, 1, g, 1), 6,
		       "flow groups counts beyond max");
		tap_ok(g[0].kind == RANKMAP_PP && g[0].id == 0 &&
		       g[1].kind == RANKMAP_KINDS, "and writes at most max");
	}
	rankmap_free(&m);
}

/* Only one order reproduces the example. */
static void test_which_order(void)
{
	static const char *const orders[] = {
		"tp-pp-dp", "tp-dp-pp", "pp-tp-dp", "pp-dp-tp", "dp-tp-pp",
		"dp-pp-tp",
	};
	unsigned int size[RANKMAP_DIMS] = { 2, 4, 2 }, i, k;
	enum rankmap_dim order[RANKMAP_DIMS];
	struct rankmap m = { 0 };
	char matches[64] = "";
	bool all;

	for (i = 0; i < 6; i++) {
		if (rankmap_parse_order(orders[i], order) ||
		    rankmap_set_layout(&m, 16, size, order))
			break;
		all = true;
		for (k = 0; k < RANKMAP_KINDS; k++) {
			char *got = render(&m, k);

			all &= same_sets(got, example[k]);
			free(got);
		}
		if (all)
			strcat(matches, orders[i]);
	}
	tap_ok(i == 6 && !strcmp(matches, "tp-dp-pp"),
	       "of the 6 orders only tp-dp-pp gives the example's groups (got '%s')",
	       matches);
}

static void test_other_order(void)
{
	static const char text[] =
		"[layout]\n"
		"world_size = 16\n"
		"order = tp-pp-dp\n"
		"dp = 2\n"
		"pp = 4\n"
		"tp = 2\n"
		"[ranks]\n"
		"0-7 = 10.0.0.1\n"
		"8-15 = 10.0.0.2\n";
	char flows[512];
	struct rankmap m;

	if (!load_ok(&m, text, "tp-pp-dp with [ranks] ranges"))
		return;
	check_groups(&m, RANKMAP_TP,
		     "[0,1],[2,3],[4,5],[6,7],[8,9],[10,11],[12,13],[14,15]",
		     "tp-pp-dp");
	check_groups(&m, RANKMAP_PP,
		     "[0,2,4,6],[1,3,5,7],[8,10,12,14],[9,11,13,15]",
		     "tp-pp-dp");
	check_groups(&m, RANKMAP_DP,
		     "[0,8],[1,9],[2,10],[3,11],[4,12],[5,13],[6,14],[7,15]",
		     "tp-pp-dp");
	check_groups(&m, RANKMAP_MP,
		     "[0,1,2,3,4,5,6,7],[8,9,10,11,12,13,14,15]", "tp-pp-dp");
	check_consistent(&m, "tp-pp-dp");
	flow_str(&m, "10.0.0.1", "10.0.0.2", flows, sizeof(flows));
	tap_is_str(flows, "dp0 dp1 dp2 dp3 dp4 dp5 dp6 dp7",
		   "tp-pp-dp: the hosts exchange DP traffic only");
	rankmap_free(&m);

	/* pp fastest: consecutive ranks are pipeline stages. */
	{
		unsigned int size[RANKMAP_DIMS] = { 2, 3, 2 };
		enum rankmap_dim order[RANKMAP_DIMS];
		struct rankmap m2 = { 0 };

		tap_ok(!rankmap_parse_order("pp-tp-dp", order) &&
		       !rankmap_set_layout(&m2, 12, size, order),
		       "layout pp-tp-dp, tp 2 pp 3 dp 2");
		check_groups(&m2, RANKMAP_TP,
			     "[0,3],[1,4],[2,5],[6,9],[7,10],[8,11]", "pp-tp-dp");
		check_groups(&m2, RANKMAP_PP, "[0,1,2],[3,4,5],[6,7,8],[9,10,11]",
			     "pp-tp-dp");
		check_groups(&m2, RANKMAP_DP,
			     "[0,6],[3,9],[1,7],[4,10],[2,8],[5,11]", "pp-tp-dp");
		check_groups(&m2, RANKMAP_MP, "[0,1,2,3,4,5],[6,7,8,9,10,11]",
			     "pp-tp-dp");
	}
}

static void test_tp1(void)
{
	static const char text[] =
		"[layout]\n"
		"world_size = 8\n"
		"tp = 1\n"
		"pp = 2\n"
		"dp = 4\n"
		"order = tp-dp-pp\n"
		"[hosts]\n"
		"gpus_per_host = 2\n"
		"host = a\n"
		"host = b\n"
		"host = c\n"
		"host = d\n";
	char flows[512];
	struct rankmap m;

	if (!load_ok(&m, text, "TP=1, 4 hosts of 2"))
		return;
	tap_eq(rankmap_ngroups(&m, RANKMAP_TP), 8, "TP=1: 8 TP groups");
	check_groups(&m, RANKMAP_TP, "[0],[4],[1],[5],[2],[6],[3],[7]", "TP=1");
	check_groups(&m, RANKMAP_PP, "[0,4],[1,5],[2,6],[3,7]", "TP=1");
	check_groups(&m, RANKMAP_DP, "[0,1,2,3],[4,5,6,7]", "TP=1");
	check_groups(&m, RANKMAP_MP, "[0,4],[1,5],[2,6],[3,7]", "TP=1");
	check_consistent(&m, "TP=1");
	/* a: 0,1  b: 2,3  c: 4,5  d: 6,7 */
	flow_str(&m, "a", "b", flows, sizeof(flows));
	tap_is_str(flows, "dp0", "TP=1: a - b is DP group 0");
	flow_str(&m, "a", "c", flows, sizeof(flows));
	tap_is_str(flows, "pp0 pp1 mp0 mp1",
		   "TP=1: a - c is PP (and MP) groups 0 and 1");
	flow_str(&m, "a", "a", flows, sizeof(flows));
	tap_is_str(flows, "dp0",
		   "TP=1: within a: DP 0 only, single-rank TP groups serve no flow");
	rankmap_free(&m);
}

static void test_mixed(void)
{
	static const char text[] =
		"; [hosts] and [ranks] together, comments, CRLF\r\n"
		"[hosts]\r\n"
		"gpus_per_host = 2\r\n"
		"host = fe80::1\r\n"
		"[layout]\r\n"
		"order = dp-pp-tp\r\n"
		"world_size = 4\r\n"
		"dp = 4\r\n"
		"[ranks]\r\n"
		"3 = gpu-b.example\r\n"
		"# rank 2 last\r\n"
		"2-2 = gpu-b.example ; inline comment\r\n";
	struct rankmap m;

	if (!load_ok(&m, text, "[hosts] and [ranks] mixed, layout last, CRLF"))
		return;
	tap_ok(m.nhosts == 2 && rankmap_rank_host(&m, 0) == 0 &&
	       rankmap_rank_host(&m, 1) == 0 && rankmap_rank_host(&m, 2) == 1 &&
	       rankmap_rank_host(&m, 3) == 1 &&
	       !strcmp(m.hosts[1], "gpu-b.example") &&
	       !strcmp(m.hosts[0], "fe80::1"), "mixed: ranks on their hosts");
	check_groups(&m, RANKMAP_DP, "[0,1,2,3]", "pure DP");
	check_groups(&m, RANKMAP_TP, "[0],[1],[2],[3]", "pure DP");
	rankmap_free(&m);
}

static void test_order_parse(void)
{
	static const struct {
		const char *s;
		int ok;
	} cases[] = {
		{ "tp-dp-pp", 1 }, { "dp-pp-tp", 1 }, { "tp-pp", 0 },
		{ "tp-tp-dp", 0 }, { "tp-pp-dp-cp", 0 }, { "tp-pp-dp-", 0 },
		{ "tp_pp_dp", 0 }, { "TP-PP-DP", 0 }, { "", 0 },
		{ "tp-pp-d", 0 }, { "tp-cp-dp", 0 },
	};
	enum rankmap_dim order[RANKMAP_DIMS];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok((rankmap_parse_order(cases[i].s, order) == 0) == cases[i].ok,
		       "order '%s' %s", cases[i].s,
		       cases[i].ok ? "accepted" : "rejected");
	tap_ok(!rankmap_parse_order("pp-dp-tp", order) &&
	       order[0] == RANKMAP_DIM_PP && order[1] == RANKMAP_DIM_DP &&
	       order[2] == RANKMAP_DIM_TP, "order pp-dp-tp parsed");
	tap_ok(!strcmp(rankmap_kind_name(RANKMAP_MP), "mp") &&
	       !rankmap_kind_name(RANKMAP_KINDS), "kind names");
}

#define LAYOUT "[layout]\nworld_size = 16\ntp = 2\npp = 4\ndp = 2\n" \
	       "order = tp-dp-pp\n"		/* lines 1-6 */
#define HOSTS  "[hosts]\ngpus_per_host = 8\nhost = node0\nhost = node1\n"

static void test_errors(void)
{
	static const struct {
		const char *what, *text, *msg;
	} cases[] = {
		{ "sizes do not multiply to world_size",
		  "[layout]\nworld_size = 16\ntp = 2\npp = 4\norder = tp-dp-pp\n"
		  HOSTS,
		  "t.map:2: [layout] world_size: 16 is not tp * pp * dp = 2 * 4 * 1 = 8" },
		{ "missing world_size",
		  "[layout]\ntp = 1\norder = tp-dp-pp\n",
		  "t.map: [layout] world_size: missing" },
		{ "missing order",
		  "[layout]\nworld_size = 1\n[ranks]\n0 = a\n",
		  "t.map: [layout] order: missing" },
		{ "order with two dimensions",
		  "[layout]\norder = tp-pp\n",
		  "t.map:2: [layout] order: invalid order 'tp-pp' (tp, pp and dp once each, joined by '-', e.g. tp-dp-pp)" },
		{ "order twice",
		  LAYOUT "order = tp-pp-dp\n",
		  "t.map:7: [layout] order: duplicate key (first at line 6)" },
		{ "order with a dimension twice",
		  "[layout]\norder = tp-tp-dp\n",
		  "t.map:2: [layout] order: invalid order 'tp-tp-dp' (tp, pp and dp once each, joined by '-', e.g. tp-dp-pp)" },
		{ "size not a number",
		  "[layout]\nworld_size = 16\ntp = two\n",
		  "t.map:3: [layout] tp: 'two' is not an integer from 1 to 1048576" },
		{ "size 0",
		  "[layout]\npp = 0\n",
		  "t.map:2: [layout] pp: '0' is not an integer from 1 to 1048576" },
		{ "negative size",
		  "[layout]\ndp = -2\n",
		  "t.map:2: [layout] dp: '-2' is not an integer from 1 to 1048576" },
		{ "world_size too large",
		  "[layout]\nworld_size = 99999999999\n",
		  "t.map:2: [layout] world_size: '99999999999' is not an integer from 1 to 1048576" },
		{ "empty value",
		  "[layout]\nworld_size =\n",
		  "t.map:2: [layout] world_size: '' is not an integer from 1 to 1048576" },
		{ "duplicate key",
		  "[layout]\ntp = 2\n\ntp = 2\n",
		  "t.map:4: [layout] tp: duplicate key (first at line 2)" },
		{ "unknown key",
		  "[layout]\nworld_size = 16\ntp_size = 2\n",
		  "t.map:3: [layout] tp_size: unknown key" },
		{ "unknown section",
		  LAYOUT "[host]\nhost = a\n",
		  "t.map:8: [host] unknown section (not [layout], [hosts] or [ranks])" },
		{ "key outside a section",
		  "world_size = 16\n",
		  "t.map:1: key 'world_size' outside of a section ([layout], [hosts] or [ranks])" },
		{ "syntax error",
		  LAYOUT "[ranks]\n0 node0\n",
		  "t.map:8: syntax error (expected \"[section]\" or \"key = value\")" },
		{ "unterminated section",
		  "[layout\n",
		  "t.map:1: syntax error (expected \"[section]\" or \"key = value\")" },
		{ "indented line",
		  "[layout]\nworld_size = 16\n  tp = 2\n",
		  "t.map:3: indented line (inih would read it as a continuation of the previous value)" },
		{ "indented section line",
		  " [layout]\nworld_size = 16\n",
		  "t.map:1: indented line (inih would read it as a continuation of the previous value)" },
		{ "rank beyond world_size",
		  LAYOUT "[ranks]\n0-15 = a\n16 = b\n",
		  "t.map:9: [ranks] 16: rank 16 is beyond world_size 16 (ranks are 0 to 15)" },
		{ "range beyond world_size",
		  LAYOUT "[ranks]\n8-16 = b\n0-7 = a\n",
		  "t.map:8: [ranks] 8-16: rank 16 is beyond world_size 16 (ranks are 0 to 15)" },
		{ "rank mapped twice",
		  LAYOUT HOSTS "[ranks]\n9 = node0\n",
		  "t.map:12: [ranks] 9: rank 9 is already mapped to 'node1' at line 10" },
		{ "overlapping ranges",
		  LAYOUT "[ranks]\n0-9 = a\n8-15 = b\n",
		  "t.map:9: [ranks] 8-15: rank 8 is already mapped to 'a' at line 8" },
		{ "rank not mapped",
		  LAYOUT "[ranks]\n0-7 = a\n8-14 = b\n",
		  "t.map: rank 15 is not mapped to a host ([hosts] or [ranks]); 1 unmapped in all" },
		{ "ranks not mapped",
		  LAYOUT "[ranks]\n0-3 = a\n6-7 = a\n12 = b\n",
		  "t.map: ranks 4-5 are not mapped to a host ([hosts] or [ranks]); 9 unmapped in all" },
		{ "no hosts at all",
		  LAYOUT,
		  "t.map: ranks 0-15 are not mapped to a host ([hosts] or [ranks]); 16 unmapped in all" },
		{ "host beyond world_size",
		  LAYOUT HOSTS "host = node2\n",
		  "t.map:11: [hosts] host: host 'node2' would hold ranks 16-23, beyond world_size 16" },
		{ "host listed twice",
		  LAYOUT "[hosts]\ngpus_per_host = 4\nhost = a\nhost = b\nhost = a\n",
		  "t.map:11: [hosts] host: host 'a' is already listed at line 9" },
		{ "host lines without gpus_per_host",
		  LAYOUT "[hosts]\nhost = a\nhost = b\n",
		  "t.map:8: [hosts] host: gpus_per_host is not set" },
		{ "[hosts] and [ranks] overlap",
		  LAYOUT HOSTS "[ranks]\n15 = node1\n",
		  "t.map:12: [ranks] 15: rank 15 is already mapped to 'node1' at line 10" },
		{ "host name with a blank",
		  LAYOUT "[ranks]\n0-15 = node 0\n",
		  "t.map:8: [ranks] 0-15: invalid host name 'node 0' (1 to 255 of [A-Za-z0-9._:-])" },
		{ "empty host name",
		  LAYOUT "[hosts]\ngpus_per_host = 16\nhost =\n",
		  "t.map:9: [hosts] host: invalid host name '' (1 to 255 of [A-Za-z0-9._:-])" },
		{ "descending range",
		  LAYOUT "[ranks]\n7-3 = a\n",
		  "t.map:8: [ranks] 7-3: not a rank or an ascending range of ranks (\"N\" or \"N-M\")" },
		{ "rank not a number",
		  LAYOUT "[ranks]\nr0 = a\n",
		  "t.map:8: [ranks] r0: not a rank or an ascending range of ranks (\"N\" or \"N-M\")" },
		{ "open range",
		  LAYOUT "[ranks]\n1- = a\n",
		  "t.map:8: [ranks] 1-: not a rank or an ascending range of ranks (\"N\" or \"N-M\")" },
		{ "gpus_per_host 0",
		  LAYOUT "[hosts]\ngpus_per_host = 0\n",
		  "t.map:8: [hosts] gpus_per_host: '0' is not an integer from 1 to 1048576" },
	};
	char err[256];
	struct rankmap m;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(err, 0, sizeof(err));
		ret = rankmap_load_string(&m, "t.map", cases[i].text, err,
					  sizeof(err));
		if (!tap_ok(ret == -EINVAL && !strcmp(err, cases[i].msg),
			    "rejected: %s", cases[i].what))
			tap_diag("got %d '%s', want '%s'", ret, err,
				 cases[i].msg);
		if (!ret)
			rankmap_free(&m);
	}
}

static void test_long_line(void)
{
	char text[512], err[256], want[128];
	int ret;

	snprintf(text, sizeof(text), "[ranks]\n0 = %0300d\n", 1);
	ret = rankmap_load_string(&((struct rankmap){ 0 }), "t.map", text, err,
				  sizeof(err));
	snprintf(want, sizeof(want), "t.map:2: line longer than 197 characters");
	if (!tap_ok(ret == -EINVAL && !strcmp(err, want), "rejected: long line"))
		tap_diag("got %d '%s'", ret, err);
}

static void test_nul(void)
{
	static const char text[] = "[layout]\nworld_size = 1\0\norder = tp-pp-dp\n";
	char err[256];
	int ret;

	ret = rankmap_parse(&((struct rankmap){ 0 }), "t.map", text,
			    sizeof(text) - 1, err, sizeof(err));
	if (!tap_ok(ret == -EINVAL && !strcmp(err, "t.map:2: NUL character in line"),
		    "rejected: a NUL character"))
		tap_diag("got %d '%s'", ret, err);
}

static void test_file(void)
{
	char path[] = "/tmp/test_rankmap.XXXXXX", err[256], want[128];
	struct rankmap m;
	FILE *f;
	int fd, ret;

	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!tap_ok(f != NULL, "temporary file"))
		return;
	fputs(example_file, f);
	fclose(f);
	ret = rd_rankmap_load(&m, path, err, sizeof(err));
	tap_ok(!ret && m.world_size == 16 && m.nhosts == 2 && !err[0],
	       "rd_rankmap_load() of a file");
	if (!ret)
		rankmap_free(&m);

	f = fopen(path, "a");
	fputs("host = node2\n", f);
	fclose(f);
	ret = rd_rankmap_load(&m, path, err, sizeof(err));
	snprintf(want, sizeof(want),
		 "%s:13: [hosts] host: host 'node2' would hold ranks 16-23, beyond world_size 16",
		 path);
	if (!tap_ok(ret == -EINVAL && !strcmp(err, want),
		    "a file's error names the file, line and key"))
		tap_diag("got %d '%s'", ret, err);
	unlink(path);

	ret = rd_rankmap_load(&m, path, err, sizeof(err));
	snprintf(want, sizeof(want), "%s: cannot open: %s", path,
		 strerror(ENOENT));
	tap_ok(ret == -ENOENT && !strcmp(err, want), "missing file: %s", err);
}

int main(void)
{
	test_example();
	test_which_order();
	test_other_order();
	test_tp1();
	test_mixed();
	test_order_parse();
	test_errors();
	test_long_line();
	test_nul();
	test_file();
	return tap_done();
}
