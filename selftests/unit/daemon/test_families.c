// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the metric families' table (daemon/roceccd/families.c): names and types
 * follow Prometheus' conventions, every datapath counter the CLI knows (the
 * module's and the BPF engine's own) has its family under the CLI's name, and --list-metrics lists each family
 * once, histograms with their le bounds.
 */
#include <stdlib.h>
#include <string.h>
#include <uapi/linux/rocecc.h>

#include "dcqcn_bpf.h"
#include "lib/parse.h"
#include "roceccd/families.h"
#include "tap.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static bool valid_name(const char *s)
{
	if (strncmp(s, "rocecc_", 7))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

static void test_table(void)
{
	unsigned int id, j, bad_name = 0, bad_suffix = 0, dup = 0, no_help = 0;

	for (id = RDF_NONE + 1; id < RDF_COUNT; id++) {
		const struct rd_family_desc *d = &rd_families[id];
		bool total = ends_with(d->name, "_total");

		if (!valid_name(d->name)) {
			bad_name++;
			tap_diag("bad name '%s'", d->name);
		}
		if (total != (d->type == RDF_COUNTER)) {
			bad_suffix++;
			tap_diag("%s: _total on a counter, and only there", d->name);
		}
		if (!d->help || !*d->help)
			no_help++;
		for (j = RDF_NONE + 1; j < id; j++)
			if (!strcmp(rd_families[j].name, d->name)) {
				dup++;
				tap_diag("%s twice", d->name);
			}
	}
	tap_ok(RDF_COUNT > 80, "the table has the daemon's families (%u)",
	       RDF_COUNT - 1);
	tap_eq(bad_name, 0, "every name is rocecc_[a-z0-9_]+");
	tap_eq(bad_suffix, 0, "counters end in _total, gauges and histograms do not");
	tap_eq(no_help, 0, "every family has a help text");
	tap_eq(dup, 0, "no name twice");
}

/* rocecc dev show -s's counter names are the datapath families' names. */
static void test_module_stats(void)
{
	unsigned int t, n = 0, bad = 0;
	char want[128];

	for (t = 0; t < __DCQCN_STAT_MAX; t++) {
		const char *stat = t < __ROCECC_STAT_MAX ? cli_stat_name(t) :
				   dcqcn_stat_name(t);
		enum rd_family fam = rd_family_of_stat(t);

		if (!stat) {
			bad += fam != RDF_NONE;
			continue;
		}
		n++;
		snprintf(want, sizeof(want), "rocecc_dp_%s%s", stat,
			 t == ROCECC_STAT_FLOWS ? "" : "_total");
		if (fam == RDF_NONE || strcmp(rd_fam(fam), want)) {
			bad++;
			tap_diag("ROCECC_STAT %u (%s): family %s, want %s", t,
				 stat, fam ? rd_fam(fam) : "none", want);
		}
	}
	tap_ok(n >= 17, "the CLI names %u datapath counters", n);
	tap_eq(bad, 0, "each has the family rocecc_dp_<name>[_total]");
	tap_ok(rd_families[RDF_DP_FLOWS].type == RDF_GAUGE,
	       "the datapath's flows is a gauge");
	tap_eq(rd_family_of_stat(__DCQCN_STAT_MAX), RDF_NONE,
	       "an unknown counter has no family");
}

/* --list-metrics: the lines of one family in the listing. */
static unsigned int count_lines(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;
	unsigned int c = 0;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		c += !strncmp(p, prefix, n);
	return c;
}

static void test_list(void)
{
	unsigned int id, once = 0, buckets4, buckets1;
	char *text = NULL, line[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		exit(1);
	rd_family_list(f, 4);
	fclose(f);
	for (id = RDF_NONE + 1; id < RDF_COUNT; id++) {
		snprintf(line, sizeof(line), "# TYPE %s ", rd_fam(id));
		once += count_lines(text, line) == 1;
	}
	tap_eq(once, RDF_COUNT - 1, "every family's TYPE line listed once");
	tap_eq(count_lines(text, "# HELP "), RDF_COUNT - 1, "as many HELP lines");
	snprintf(line, sizeof(line), "%s_bucket{le=", rd_fam(RDF_GROUP_MCT));
	buckets4 = count_lines(text, line);
	tap_eq(buckets4, 98, "a histogram: 4 le per octave, 1 us .. 17 s, +Inf");
	snprintf(line, sizeof(line), "%s_bucket{le=\"0.001048575\"} 0\n",
		 rd_fam(RDF_GROUP_MCT));
	tap_ok(strstr(text, line) != NULL, "le of 2^20 ns, as /metrics writes it");
	snprintf(line, sizeof(line), "%s_count 0\n", rd_fam(RDF_FLOW_RTT));
	tap_ok(strstr(text, line) != NULL, "histograms listed with no samples");
	free(text);

	text = NULL;
	f = open_memstream(&text, &len);
	if (!f)
		exit(1);
	rd_family_list(f, 1);
	fclose(f);
	snprintf(line, sizeof(line), "%s_bucket{le=", rd_fam(RDF_GROUP_MCT));
	buckets1 = count_lines(text, line);
	tap_eq(buckets1, 26, "1 le per octave: 25 bounds and +Inf");
	free(text);
}

int main(void)
{
	test_table();
	test_module_stats();
	test_list();
	return tap_done();
}
