// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc.ko's DEV_GET reply. See rocecc_dev.h.
 */
#include <errno.h>
#include <string.h>

#include "parse.h"
#include "rocecc_dev.h"
#include "rocecc_nl.h"

/* An unsigned attribute of width 1, 4 or 8 into @v; its width, or 0. */
static uint8_t attr_uint(const struct nlattr *a, uint64_t *v)
{
	switch (mnl_attr_get_payload_len(a)) {
	case 1:
		*v = mnl_attr_get_u8(a);
		return 1;
	case 4:
		*v = mnl_attr_get_u32(a);
		return 4;
	case 8:
		*v = mnl_attr_get_u64(a);
		return 8;
	}
	return 0;
}

/* The values of a nest with types up to @max into @v and @len. */
static void uints(const struct nlattr *nest, unsigned int max, uint64_t *v,
		  uint8_t *len)
{
	const struct nlattr *a;
	unsigned int t;

	mnl_attr_for_each_nested(a, nest) {
		t = mnl_attr_get_type(a);
		if (t <= max)
			len[t] = attr_uint(a, &v[t]);
	}
}

static void parse_stats(const struct nlattr *nest, struct rocecc_dev_info *d)
{
	const struct nlattr *a;
	unsigned int t;

	mnl_attr_for_each_nested(a, nest) {
		t = mnl_attr_get_type(a);
		/* a newer kernel's counters are skipped, not fatal */
		if (t > ROCECC_STAT_MAX || !cli_stat_name(t) ||
		    mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			continue;
		d->stat[t] = mnl_attr_get_u64(a);
		d->have_stat[t] = true;
	}
}

static void parse_pfc(const struct nlattr *nest, struct rocecc_dev_info *d)
{
	struct rocecc_dev_prio p;
	const struct nlattr *a;
	unsigned int prio;

	d->have_pfc = true;
	uints(nest, ROCECC_PFC_A_MAX, d->pfc, d->pfc_len);
	d->pfc_len[ROCECC_PFC_A_PRIO] = 0;	/* a nest, not a value */
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) != ROCECC_PFC_A_PRIO)
			continue;
		memset(&p, 0, sizeof(p));
		uints(a, ROCECC_PFC_PRIO_A_MAX, p.v, p.len);
		prio = p.v[ROCECC_PFC_PRIO_A_PRIO];
		if (p.len[ROCECC_PFC_PRIO_A_PRIO] != 1 || prio >= ROCECC_DEV_PRIOS)
			continue;
		d->prio[prio] = p;
		d->have_prio[prio] = true;
	}
}

int rocecc_dev_parse(const struct nlmsghdr *nlh, struct rocecc_dev_info *d)
{
	const struct nlattr *tb[ROCECC_A_MAX + 1];

	memset(d, 0, sizeof(*d));
	d->sw_dcb = -1;
	if (rnl_parse(nlh, tb, &d->bad_attr))
		return -EBADMSG;
	if (tb[ROCECC_A_DEV_IFINDEX])
		d->ifindex = mnl_attr_get_u32(tb[ROCECC_A_DEV_IFINDEX]);
	if (tb[ROCECC_A_DEV_NAME])
		d->name = mnl_attr_get_str(tb[ROCECC_A_DEV_NAME]);
	if (tb[ROCECC_A_DEV_SW_DCB])
		d->sw_dcb = !!mnl_attr_get_u8(tb[ROCECC_A_DEV_SW_DCB]);
	if (tb[ROCECC_A_STATS])
		parse_stats(tb[ROCECC_A_STATS], d);
	if (tb[ROCECC_A_PFC])
		parse_pfc(tb[ROCECC_A_PFC], d);
	return 0;
}
