/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rank map: the parallel layout of a training job (Megatron-style tensor,
 * pipeline and data parallelism) and where its ranks run, so that roceccd can
 * tag a flow between two hosts with the parallel groups it serves.
 * Unit-tested by selftests/unit/daemon/test_rankmap.c.
 *
 * File format (read with inih, Debian's libinih-dev; '#' or ';' start a
 * comment line, " ;" an inline comment; lines are at most 197 characters and
 * must not be indented, since inih would take an indented line as the
 * continuation of the previous value):
 *
 *	[layout]
 *	world_size = 16		; required, 1 .. RANKMAP_MAX_WORLD
 *	tp = 2			; tensor-parallel size, default 1
 *	pp = 4			; pipeline-parallel size, default 1
 *	dp = 2			; data-parallel size, default 1
 *	order = tp-dp-pp	; required, see below
 *
 *	[hosts]			; hosts with gpus_per_host ranks each:
 *	gpus_per_host = 8	; the n-th "host" line (from 0) holds ranks
 *	host = node0		; n * gpus_per_host ..
 *	host = node1		; (n + 1) * gpus_per_host - 1
 *
 * or, instead of [hosts] or for ranks it leaves out, explicit ranks and
 * inclusive ranges of ranks:
 *
 *	[ranks]
 *	0-7 = node0
 *	8 = node1
 *	9-15 = node1
 *
 * tp * pp * dp must equal world_size, and every rank 0 .. world_size - 1 must
 * be mapped to exactly one host, by [hosts] or [ranks] (both may be used in
 * one file). Host names are 1 to RANKMAP_HOST_MAX characters of
 * [A-Za-z0-9._:-] (host names, IPv4 or IPv6 addresses). Each [layout] key
 * and gpus_per_host may appear once; unknown sections and keys are errors
 * (names are case-sensitive).
 * Errors read "FILE:LINE: [SECTION] KEY: what is wrong"; without ":LINE"
 * for a missing key, without "[SECTION] KEY: " for a syntax error, an
 * indented or too long line, and for unmapped ranks ("FILE: ranks 8-15 are
 * not mapped to a host ...").
 *
 * Order: the three dimensions joined by '-', the first varying fastest over
 * consecutive ranks, as Megatron-Core's RankGenerator order (its default
 * "tp-cp-ep-dp-pp" is "tp-dp-pp" here). With coordinates c_tp < tp,
 * c_pp < pp, c_dp < dp and order "a-b-c":
 *
 *	rank = c_a + size_a * (c_b + size_b * c_c)
 *
 * Megatron's initialize_model_parallel() example (16 GPUs on 2 nodes of 8,
 * TP=2, PP=4, DP=2: TP groups [0,1],[4,5],..., PP groups [0,4,8,12],...,
 * DP groups [0,2],[1,3],..., model-parallel groups [0,1,4,5,8,9,12,13] and
 * [2,3,6,7,10,11,14,15]) is order "tp-dp-pp": rank = c_tp + 2 c_dp + 4 c_pp.
 *
 * Groups: a TP group is the ranks that differ only in c_tp, a PP group only
 * in c_pp, a DP group only in c_dp, a model-parallel (MP) group only in
 * (c_tp, c_pp), i.e. one model replica (tp * pp ranks, one per DP rank).
 * Group ids do not depend on the order: they number the remaining
 * coordinates with c_tp varying fastest, then c_pp, then c_dp:
 *
 *	TP group = c_pp + pp * c_dp	(pp * dp groups of tp ranks)
 *	PP group = c_tp + tp * c_dp	(tp * dp groups of pp ranks)
 *	DP group = c_tp + tp * c_pp	(tp * pp groups of dp ranks)
 *	MP group = c_dp			(dp groups of tp * pp ranks)
 *
 * Listed by id, the example's groups come out in exactly the order above
 * (TP: [0,1],[4,5],[8,9],[12,13],[2,3],...). Members are listed ascending.
 */
#ifndef _ROCECC_RANKMAP_H
#define _ROCECC_RANKMAP_H

#include <stdbool.h>
#include <stddef.h>

#define RANKMAP_MAX_WORLD	(1U << 20)
#define RANKMAP_HOST_MAX	255

/* Parallel dimensions. */
enum rankmap_dim {
	RANKMAP_DIM_TP,
	RANKMAP_DIM_PP,
	RANKMAP_DIM_DP,
	RANKMAP_DIMS,
};

/* Kinds of groups. */
enum rankmap_kind {
	RANKMAP_TP,
	RANKMAP_PP,
	RANKMAP_DP,
	RANKMAP_MP,		/* model parallel: TP x PP */
	RANKMAP_KINDS,
};

struct rankmap {
	unsigned int world_size;
	unsigned int size[RANKMAP_DIMS];	/* by enum rankmap_dim */
	enum rankmap_dim order[RANKMAP_DIMS];	/* order[0] varies fastest */
	unsigned int stride[RANKMAP_DIMS];	/* by enum rankmap_dim */
	unsigned int nhosts;
	char **hosts;				/* nhosts names, file order */
	size_t hosts_cap;			/* room in hosts */
	unsigned int *rank_host;		/* world_size host indices */
	unsigned int *host_hash;		/* name -> index + 1, or 0 */
	unsigned int hash_size;			/* a power of 2 */
};

/* One group a flow serves. */
struct rankmap_group {
	enum rankmap_kind kind;
	unsigned int id;
};

/* "tp", "pp", "dp", "mp"; NULL out of range. */
const char *rankmap_kind_name(enum rankmap_kind kind);

/*
 * Parse an order such as "tp-dp-pp" (each of tp, pp, dp once, joined by
 * '-'). 0 or -EINVAL.
 */
int rankmap_parse_order(const char *s, enum rankmap_dim order[RANKMAP_DIMS]);

/*
 * Set the layout of @m (no hosts): sizes in enum rankmap_dim order. 0, or
 * -EINVAL if a size is 0, their product is not @world_size, @world_size is
 * above RANKMAP_MAX_WORLD, or @order is not a permutation.
 */
int rankmap_set_layout(struct rankmap *m, unsigned int world_size,
		       const unsigned int size[RANKMAP_DIMS],
		       const enum rankmap_dim order[RANKMAP_DIMS]);

/*
 * Parse the @len bytes of a rank map file's @text into @m (which need not
 * be initialised; free it with rankmap_free() after success; on failure
 * there is nothing to free). @name stands for the file in messages. 0, or
 * a negative errno with a message naming @name, line and key in @err:
 * -EINVAL for bad content (a NUL byte too), -ENOMEM. Reading the file is
 * the caller's (roceccd/rankmap_file.c).
 */
int rankmap_parse(struct rankmap *m, const char *name, const char *text,
		  size_t len, char *err, size_t errlen);

/* The same from a NUL-terminated string. */
int rankmap_load_string(struct rankmap *m, const char *name, const char *text,
			char *err, size_t errlen);

void rankmap_free(struct rankmap *m);

/* Coordinate of @rank along @dim. */
unsigned int rankmap_coord(const struct rankmap *m, unsigned int rank,
			   enum rankmap_dim dim);

/* Number of groups of @kind, and ranks per group. */
unsigned int rankmap_ngroups(const struct rankmap *m, enum rankmap_kind kind);
unsigned int rankmap_group_size(const struct rankmap *m,
				enum rankmap_kind kind);

/* Id of the group of @kind that @rank belongs to. */
unsigned int rankmap_group_of(const struct rankmap *m, enum rankmap_kind kind,
			      unsigned int rank);

/* The rankmap_group_size() members of group @id, ascending, into @out. */
void rankmap_group_members(const struct rankmap *m, enum rankmap_kind kind,
			   unsigned int id, unsigned int *out);

/* Index of host @name, or -1. */
int rankmap_host_index(const struct rankmap *m, const char *name);

/* A host name: 1 to RANKMAP_HOST_MAX of [A-Za-z0-9._:-]. */
bool rankmap_valid_host(const char *s);

/* Host index of @rank. */
unsigned int rankmap_rank_host(const struct rankmap *m, unsigned int rank);

/*
 * The groups a flow between hosts @a and @b (indices) serves: every group
 * that has a rank on @a and another rank on @b (for @a == @b, two ranks on
 * @a). Written to @out (at most @max, by kind then id ascending); returns
 * how many there are in all (which may exceed @max).
 */
size_t rankmap_flow_groups(const struct rankmap *m, unsigned int a,
			   unsigned int b, struct rankmap_group *out,
			   size_t max);

#endif /* _ROCECC_RANKMAP_H */
