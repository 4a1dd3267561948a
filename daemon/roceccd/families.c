// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the metric families' table (families.h), their HELP and TYPE
 * lines, and the listing of `roceccd --list-metrics`.
 */
#include <linux/types.h>
#include <uapi/linux/rocecc.h>

#include "dcqcn_bpf.h"
#include "families.h"
#include "flowmon.h"
#include "lib/format.h"

const struct rd_family_desc rd_families[RDF_COUNT] = {
#define RD_FAMILY_DESC(id, n, t, h) [RDF_##id] = { .name = n, .help = h, .type = RDF_##t },
	RD_FAMILIES(RD_FAMILY_DESC)
#undef RD_FAMILY_DESC
};

/* The datapath's per-device counters (ROCECC_STAT_*, DCQCN_STAT_*) */
static const enum rd_family rd_stat_family[__DCQCN_STAT_MAX] = {
	[ROCECC_STAT_NP_CNP_SENT] = RDF_DP_NP_CNP_SENT,
	[ROCECC_STAT_NP_ECN_MARKED_ROCE_PACKETS] = RDF_DP_NP_ECN_MARKED_ROCE_PACKETS,
	[ROCECC_STAT_RP_CNP_HANDLED] = RDF_DP_RP_CNP_HANDLED,
	[ROCECC_STAT_RP_CNP_IGNORED] = RDF_DP_RP_CNP_IGNORED,
	[ROCECC_STAT_FLOWS] = RDF_DP_FLOWS,
	[ROCECC_STAT_FLOW_TABLE_FULL] = RDF_DP_FLOW_TABLE_FULL,
	[ROCECC_STAT_PACING_DELAYED] = RDF_DP_PACING_DELAYED,
	[ROCECC_STAT_RESOLVER_MISS] = RDF_DP_RESOLVER_MISS,
	[ROCECC_STAT_MALFORMED] = RDF_DP_MALFORMED,
	[ROCECC_STAT_PACING_CAPPED] = RDF_DP_PACING_CAPPED,
	[ROCECC_STAT_ECT_MARKED] = RDF_DP_ECT_MARKED,
	[ROCECC_STAT_RP_CNP_SPOOFED] = RDF_DP_RP_CNP_SPOOFED,
	[ROCECC_STAT_QP_CACHE_FULL] = RDF_DP_QP_CACHE_FULL,
	[ROCECC_STAT_PACING_ACKREQ] = RDF_DP_PACING_ACKREQ,
	[DCQCN_STAT_CE_ANSWERED] = RDF_DP_CE_ANSWERED,
	[DCQCN_STAT_CE_UNANSWERED] = RDF_DP_CE_UNANSWERED,
	[DCQCN_STAT_CNP_TX_ERRORS] = RDF_DP_CNP_TX_ERRORS,
	[DCQCN_STAT_CNP_DEFERRED] = RDF_DP_CNP_DEFERRED,
	[DCQCN_STAT_RP_CONTENDED] = RDF_DP_RP_CONTENDED,
	[DCQCN_STAT_TX_NOT_RXE] = RDF_DP_TX_NOT_RXE,
};

enum rd_family rd_family_of_stat(unsigned int stat)
{
	return stat < __DCQCN_STAT_MAX ? rd_stat_family[stat] : RDF_NONE;
}

static const char *const rd_family_types[] = {
	[RDF_COUNTER] = "counter",
	[RDF_GAUGE] = "gauge",
	[RDF_HISTOGRAM] = "histogram",
};

void rd_prom_family(FILE *f, enum rd_family id)
{
	const struct rd_family_desc *d = &rd_families[id];

	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", d->name, d->help, d->name,
		rd_family_types[d->type]);
}

void rd_family_list(FILE *f, unsigned int per_octave)
{
	static const __u64 none[FLOWMON_HIST_BUCKETS];
	unsigned int id;

	for (id = RDF_NONE + 1; id < RDF_COUNT; id++) {
		rd_prom_family(f, id);
		if (rd_families[id].type == RDF_HISTOGRAM)
			rd_prom_hist(f, rd_families[id].name, "", none, 0,
				     per_octave);
	}
}
