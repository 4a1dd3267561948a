// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc pfc show | set over DCB netlink, and rocecc pfc headroom. See
 * dcb.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "dcb.h"
#include "lib/dcbnl.h"
#include "lib/format.h"
#include "lib/parse.h"
#include "policy/headroom.h"

/* ---- pfc show -------------------------------------------------------------- */

static void pfc_print(const struct cli_pfc_opts *o, const char *dev,
		      const struct ieee_pfc *p)
{
	char prios[32];
	int i;

	if (o->json) {
		json_object *obj = json_object_new_object();
		json_object *en = json_object_new_array();
		json_object *pr = json_object_new_array();

		json_object_object_add(obj, "ifname", rd_json_str(dev));
		json_object_object_add(obj, "pfc_cap", json_object_new_int(p->pfc_cap));
		for (i = 0; i < DCBNL_PRIOS; i++)
			if (p->pfc_en & 1u << i)
				json_object_array_add(en, json_object_new_int(i));
		json_object_object_add(obj, "pfc_en", en);
		json_object_object_add(obj, "mbc", json_object_new_boolean(p->mbc));
		json_object_object_add(obj, "delay", json_object_new_int(p->delay));
		for (i = 0; i < DCBNL_PRIOS; i++) {
			json_object *e = json_object_new_object();

			json_object_object_add(e, "prio", json_object_new_int(i));
			json_object_object_add(e, "pfc",
					       json_object_new_boolean(p->pfc_en & 1u << i));
			json_object_object_add(e, "requests",
					       json_object_new_uint64(p->requests[i]));
			json_object_object_add(e, "indications",
					       json_object_new_uint64(p->indications[i]));
			json_object_array_add(pr, e);
		}
		json_object_object_add(obj, "prios", pr);
		dcb_json_print(o, obj);
		return;
	}
	printf("%s: pfc_cap %u enabled %s mbc %s delay %u\n", dev, p->pfc_cap,
	       dcbnl_prio_str(p->pfc_en, prios, sizeof(prios)),
	       p->mbc ? "on" : "off", p->delay);
	printf("  %-4s %-3s %20s %20s\n", "PRIO", "PFC", "REQUESTS", "INDICATIONS");
	for (i = 0; i < DCBNL_PRIOS; i++)
		printf("  %-4d %-3s %20" PRIu64 " %20" PRIu64 "\n", i,
		       p->pfc_en & 1u << i ? "on" : "off",
		       (uint64_t)p->requests[i], (uint64_t)p->indications[i]);
}

static int pfc_show(const struct cli_pfc_opts *o, int argc, char **argv)
{
	struct ieee_pfc p;
	struct dcbnl *h;
	const char *dev;
	int ret, err;

	ret = dcb_want_dev("pfc show", argc, argv, &dev);
	if (ret)
		return ret;
	if (argc > 2)
		return dcb_usage_err("pfc show", "unexpected '%s'", argv[2]);
	ret = dcb_open("pfc show", &h);
	if (ret)
		return ret;
	err = dcbnl_get_pfc(h, dev, &p);
	if (err)
		ret = dcb_err("pfc show", dev, h, err);
	else
		pfc_print(o, dev, &p);
	dcbnl_close(h);
	return ret;
}

/* ---- pfc set --------------------------------------------------------------- */

static const char *const pfc_words[] = { "prio-pfc", "delay", "mbc", NULL };

/* What "pfc set" changes. */
struct pfc_change {
	uint8_t en, mask;		/* prio-pfc: PFC of the priorities in mask */
	uint32_t delay;
	bool mbc;
	bool have_en, have_delay, have_mbc;
};

/* The words after "pfc set DEV" into @pc; 0 or CLI_EXIT_USAGE. */
static int pfc_set_args(const char *cmd, int argc, char **argv,
			struct pfc_change *pc)
{
	struct dcbnl_perr pe;
	const char *v;
	char val[256];
	int i;

	for (i = 2; i < argc; i++) {
		const char *kw = argv[i];

		if (!strcmp(kw, "prio-pfc")) {
			v = dcb_take(argc, argv, &i, true, pfc_words, val, sizeof(val));
			if (!v)
				return dcb_usage_err(cmd, "'prio-pfc' needs PRIO:on|off[,...]");
			if (dcbnl_parse_prio_onoff(v, &pc->en, &pc->mask, &pe))
				return dcb_usage_err(cmd, "'prio-pfc %s': %s", pe.item, pe.why);
			pc->have_en = true;
		} else if (!strcmp(kw, "delay")) {
			v = dcb_take(argc, argv, &i, false, pfc_words, val, sizeof(val));
			if (!v)
				return dcb_usage_err(cmd, "'delay' needs a number of bits");
			if (cli_parse_u32(v, &pc->delay) || pc->delay > 65535)
				return dcb_usage_err(cmd, "'delay %s': must be 0..65535 (bits; mlx5 reads it as cable metres)",
						     v);
			pc->have_delay = true;
		} else if (!strcmp(kw, "mbc")) {
			v = dcb_take(argc, argv, &i, false, pfc_words, val, sizeof(val));
			if (!v)
				return dcb_usage_err(cmd, "'mbc' needs on or off");
			if (strcmp(v, "on") && strcmp(v, "off"))
				return dcb_usage_err(cmd, "'mbc %s': expected on or off", v);
			pc->mbc = !strcmp(v, "on");
			pc->have_mbc = true;
		} else {
			return dcb_usage_err(cmd, "unknown '%s' (prio-pfc, delay or mbc)", kw);
		}
	}
	if (!pc->have_en && !pc->have_delay && !pc->have_mbc)
		return dcb_usage_err(cmd, "nothing to set (prio-pfc, delay or mbc)");
	return 0;
}

/* @pc onto @dev's PFC, then read back; a CLI_EXIT_* code. */
static int pfc_set_apply(const char *cmd, struct dcbnl *h, const char *dev,
			 const struct pfc_change *pc)
{
	struct ieee_pfc p, back;
	char a[32], b[32];
	int err;

	err = dcbnl_get_pfc(h, dev, &p);
	if (err)
		return dcb_err(cmd, dev, h, err);
	if (pc->have_en)
		p.pfc_en = (uint8_t)((p.pfc_en & ~pc->mask) | (pc->en & pc->mask));
	if (pc->have_delay)
		p.delay = (uint16_t)pc->delay;
	if (pc->have_mbc)
		p.mbc = pc->mbc;
	err = dcbnl_set_pfc(h, dev, &p);
	if (err)
		return dcb_err(cmd, dev, h, err);
	err = dcbnl_get_pfc(h, dev, &back);
	if (err)
		return dcb_err("pfc set: reading back", dev, h, err);
	if (back.pfc_en == p.pfc_en && back.delay == p.delay &&
	    back.mbc == p.mbc)
		return CLI_EXIT_OK;
	fprintf(stderr, "rocecc: pfc set: %s: set but reads back enabled %s mbc %s delay %u (asked enabled %s mbc %s delay %u)\n",
		dev, dcbnl_prio_str(back.pfc_en, a, sizeof(a)),
		back.mbc ? "on" : "off", back.delay,
		dcbnl_prio_str(p.pfc_en, b, sizeof(b)),
		p.mbc ? "on" : "off", p.delay);
	return CLI_EXIT_FAIL;
}

static int pfc_set(int argc, char **argv)
{
	static const char cmd[] = "pfc set";
	struct pfc_change pc = { 0 };
	const char *dev;
	struct dcbnl *h;
	int ret;

	ret = dcb_want_dev(cmd, argc, argv, &dev);
	if (!ret)
		ret = pfc_set_args(cmd, argc, argv, &pc);
	if (!ret)
		ret = dcb_open(cmd, &h);
	if (ret)
		return ret;
	ret = pfc_set_apply(cmd, h, dev, &pc);
	dcbnl_close(h);
	return ret;
}

/* ---- pfc headroom ----------------------------------------------------------- */

static const char *const hr_words[] = {
	"speed", "mtu", "cable", "peer-response", "prios", "cell", NULL,
};

/* The words of "pfc headroom" into @p and @prios; 0 or CLI_EXIT_USAGE. */
static int hr_args(const char *cmd, int argc, char **argv,
		   struct headroom_params *p, uint32_t *prios)
{
	bool have_speed = false, have_mtu = false, have_cable = false;
	uint32_t u, peer_ns = 0;
	struct dcbnl_perr pe;
	char val[256];
	const char *v;
	uint8_t mk;
	int a;

	for (a = 0; a < argc; a++) {
		const char *kw = argv[a];

		if (!dcb_is_word(kw, hr_words))
			return dcb_usage_err(cmd, "unknown '%s' (speed, mtu, cable, peer-response, prios, cell)",
					     kw);
		v = dcb_take(argc, argv, &a, false, hr_words, val, sizeof(val));
		if (!v)
			return dcb_usage_err(cmd, "'%s' needs a value", kw);
		if (!strcmp(kw, "speed")) {
			if (dcbnl_parse_speed(v, &p->speed_mbps))
				return dcb_usage_err(cmd, "'speed %s': expected e.g. 25G, 100G, 400G or Mb/s (1..1600000)",
						     v);
			have_speed = true;
		} else if (!strcmp(kw, "mtu")) {
			if (cli_parse_u32(v, &u) || u < HEADROOM_MTU_MIN ||
			    u > HEADROOM_MTU_MAX)
				return dcb_usage_err(cmd, "'mtu %s': must be %u..%u bytes (the largest lossless frame)",
						     v, HEADROOM_MTU_MIN, HEADROOM_MTU_MAX);
			p->mtu = u;
			have_mtu = true;
		} else if (!strcmp(kw, "cable")) {
			if (dcbnl_parse_length(v, &p->cable_m))
				return dcb_usage_err(cmd, "'cable %s': expected metres 0..10000, e.g. 5m or 2.5",
						     v);
			have_cable = true;
		} else if (!strcmp(kw, "peer-response")) {
			if (cli_parse_u32(v, &peer_ns) || !peer_ns || peer_ns > 1000000)
				return dcb_usage_err(cmd, "'peer-response %s': must be 1..1000000 ns", v);
		} else if (!strcmp(kw, "prios")) {
			if (dcbnl_parse_prio_list(v, &mk, &pe))
				return dcb_usage_err(cmd, "'prios %s': %s", pe.item, pe.why);
			*prios = mk;
		} else if (!strcmp(kw, "cell")) {
			if (cli_parse_u32(v, &u) || !u || u > HEADROOM_CELL_MAX)
				return dcb_usage_err(cmd, "'cell %s': must be 1..%u bytes", v,
						     HEADROOM_CELL_MAX);
			p->cell = u;
		}
	}
	if (!have_speed || !have_mtu || !have_cable)
		return dcb_usage_err(cmd, "needs speed, mtu and cable (e.g. speed 100G mtu 4096 cable 5m)");
	if (peer_ns)	/* ns -> bit times, rounded up */
		p->peer_resp_bits = (unsigned int)(((uint64_t)peer_ns * p->speed_mbps + 999) / 1000);
	return 0;
}

/* The buffer of one priority, in JSON. */
static json_object *hr_json_prio(unsigned int prio,
				 const struct headroom_result *r)
{
	json_object *e = json_object_new_object();

	json_object_object_add(e, "prio", json_object_new_int((int)prio));
	json_object_object_add(e, "size", json_object_new_uint64(r->size));
	json_object_object_add(e, "xoff", json_object_new_uint64(r->xoff));
	json_object_object_add(e, "xoff_thresh", json_object_new_uint64(r->xoff_thresh));
	json_object_object_add(e, "xon_thresh", json_object_new_uint64(r->xon_thresh));
	return e;
}

/* -j: the result (@m when the mlx5 formula answered). */
static void hr_json(const struct cli_pfc_opts *o,
		    const struct headroom_params *p,
		    const struct headroom_result *r,
		    const struct headroom_mlx5 *m, uint32_t prios)
{
	json_object *obj = json_object_new_object();
	json_object *t = json_object_new_object();
	json_object *pp = json_object_new_array();
	unsigned int i;

	json_object_object_add(obj, "speed_mbps", json_object_new_int64(p->speed_mbps));
	json_object_object_add(obj, "mtu", json_object_new_int64(p->mtu));
	json_object_object_add(obj, "cable_m", json_object_new_double(p->cable_m));
	for (i = 0; i < HEADROOM_NTERMS; i++)
		json_object_object_add(t, headroom_term_name(i),
				       json_object_new_uint64(headroom_term_bits(r, i)));
	json_object_object_add(obj, "delay_bits", t);
	json_object_object_add(obj, "total_bits", json_object_new_uint64(r->total_bits));
	json_object_object_add(obj, "cell", json_object_new_int64(r->cell));
	json_object_object_add(obj, "xoff", json_object_new_uint64(r->xoff));
	json_object_object_add(obj, "xon_gap", json_object_new_uint64(r->xon_gap));
	json_object_object_add(obj, "reserve", json_object_new_uint64(r->reserve));
	json_object_object_add(obj, "size", json_object_new_uint64(r->size));
	json_object_object_add(obj, "xoff_thresh", json_object_new_uint64(r->xoff_thresh));
	json_object_object_add(obj, "xon_thresh", json_object_new_uint64(r->xon_thresh));
	if (m)
		json_object_object_add(obj, "mlx5_xoff", json_object_new_uint64(m->xoff));
	for (i = 0; i < DCBNL_PRIOS; i++)
		if (prios & 1u << i)
			json_object_array_add(pp, hr_json_prio(i, r));
	json_object_object_add(obj, "prios", pp);
	dcb_json_print(o, obj);
}

/* The result as text (@m when the mlx5 formula answered). */
static void hr_text(const struct headroom_params *p,
		    const struct headroom_result *r,
		    const struct headroom_mlx5 *m, uint32_t prios)
{
	unsigned int i, n;
	char list[32];

	printf("PFC headroom, 802.1Qbb delay model (daemon/headroom.h): %u Mb/s, lossless frames up to %u B, cable %g m\n",
	       p->speed_mbps, p->mtu, p->cable_m);
	for (i = 0; i < HEADROOM_NTERMS; i++)
		printf("  %-12s %10" PRIu64 " bits\n", headroom_term_name(i),
		       headroom_term_bits(r, i));
	printf("  %-12s %10" PRIu64 " bits = %" PRIu64 " bytes\n", "total",
	       r->total_bits, r->total_bytes);
	printf("One buffer per lossless priority (bytes, cell %u):\n", r->cell);
	printf("  %-6s %10s %10s %12s %12s\n", "PRIO", "SIZE", "XOFF", "XOFF_THRESH",
	       "XON_THRESH");
	for (i = 0, n = 0; i < DCBNL_PRIOS; i++) {
		if (prios && !(prios & 1u << i))
			continue;
		if (!prios && n++)
			break;
		snprintf(list, sizeof(list), "%u", i);
		printf("  %-6s %10" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n",
		       prios ? list : "each", r->size, r->xoff, r->xoff_thresh,
		       r->xon_thresh);
	}
	if (prios)
		printf("  %-6s %10" PRIu64 "\n", "total",
		       (uint64_t)__builtin_popcount(prios) * r->size);
	if (m)
		printf("(mlx5's formula gives xoff %" PRIu64 " B at %u Mb/s)\n",
		       m->xoff, m->speed_mbps);
}

static int pfc_headroom(const struct cli_pfc_opts *o, int argc, char **argv)
{
	static const char cmd[] = "pfc headroom";
	struct headroom_params p = { 0 };
	struct headroom_result r;
	struct headroom_mlx5 m;
	unsigned int cable;
	uint32_t prios = 0;
	int err;

	err = hr_args(cmd, argc, argv, &p, &prios);
	if (err)
		return err;
	err = headroom_calc(&p, &r);
	if (err == -ENODATA)
		return dcb_usage_err(cmd, "no 802.3 defaults for %u Mb/s (10G, 25G, 40G, 50G, 100G, 200G, 400G): give peer-response",
				     p.speed_mbps);
	if (err)
		return dcb_usage_err(cmd, "the calculator refused these values (%s)", strerror(-err));
	cable = (unsigned int)ceil(p.cable_m);
	if (cable >= HEADROOM_MLX5_MAX_CABLE)
		cable = HEADROOM_MLX5_MAX_CABLE - 1;
	err = headroom_mlx5(p.speed_mbps, cable, p.mtu, 0, p.cell, &m);
	if (o->json)
		hr_json(o, &p, &r, err ? NULL : &m, prios);
	else
		hr_text(&p, &r, err ? NULL : &m, prios);
	return CLI_EXIT_OK;
}

int cli_pfc(const struct cli_pfc_opts *o, int argc, char **argv)
{
	if (argc < 1)
		return dcb_usage_err("pfc", "expected show, set or headroom");
	if (cli_matches(argv[0], "show"))
		return pfc_show(o, argc - 1, argv + 1);
	if (cli_matches(argv[0], "set"))
		return pfc_set(argc - 1, argv + 1);
	if (cli_matches(argv[0], "headroom"))
		return pfc_headroom(o, argc - 1, argv + 1);
	return dcb_usage_err("pfc", "unknown command '%s' (show, set, headroom)", argv[0]);
}
