// SPDX-License-Identifier: GPL-2.0
/*
 * roceccd: the flow table read from the BPF maps (a consistent, named
 * snapshot of every flow), and /flows and /flows.json made from it.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "flowmon.skel.h"
#include "lib/format.h"
#include "lib/array.h"
#include "roceccd.h"

/* Name flow @key/@val from the QP table (under rd->lock). */
static void rd_view(struct rd *rd, const struct flowmon_key *key,
		    const struct flowmon_flow *val, struct rd_flow_view *v)
{
	const struct rd_qp *e = rd_qp_of_flow(rd, key, val);
	struct rd_netdev *nd = rd_netdev_find(rd, key->ifindex);

	if (e && !val->lqpn && e->have_peer && memcmp(e->peer, key->peer, 16))
		e = NULL;	/* another peer's QP of that number */
	memset(v, 0, sizeof(*v));
	v->key = *key;
	v->lqpn = e ? e->lqpn : val->lqpn;
	rd_peer_str(key->peer, v->peer, sizeof(v->peer));
	if (e) {
		snprintf(v->comm, sizeof(v->comm), "%s", e->comm);
		snprintf(v->dev, sizeof(v->dev), "%s", e->dev);
		snprintf(v->netdev, sizeof(v->netdev), "%s", e->netdev);
		v->pid = e->pid;
	} else {
		snprintf(v->comm, sizeof(v->comm), "?");
		if (nd) {
			snprintf(v->dev, sizeof(v->dev), "%s", nd->dev);
			snprintf(v->netdev, sizeof(v->netdev), "%s", nd->name);
		} else if (!if_indextoname(key->ifindex, v->netdev)) {
			snprintf(v->netdev, sizeof(v->netdev), "%" PRIu32,
				 key->ifindex);
		}
	}
	rd_flow_name(v->name, sizeof(v->name), v->comm, v->pid, v->lqpn,
		     v->peer, key->rqpn);
}

void rd_snap_free(struct rd_snap *s)
{
	free(s->v);
	free(s->f);
	memset(s, 0, sizeof(*s));
}

int rd_snap_take(struct rd *rd, struct rd_snap *s)
{
	int fd = bpf_map__fd(rd->skel->maps.flows);
	struct flowmon_key key, next, *prev = NULL;
	size_t cap = 0;

	memset(s, 0, sizeof(*s));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (s->n == cap) {
			size_t cv = cap, cf = cap;
			void *pv, *pf;

			if (s->n >= 4 * FLOWMON_MAX_FLOWS)
				break;
			pv = array_grow(s->v, &cv, s->n + 1, sizeof(*s->v));
			if (pv)
				s->v = pv;
			pf = array_grow(s->f, &cf, s->n + 1, sizeof(*s->f));
			if (pf)
				s->f = pf;
			if (!pv || !pf) {
				rd_snap_free(s);
				return -ENOMEM;
			}
			cap = cv;
		}
		if (bpf_map_lookup_elem_flags(fd, &key, &s->f[s->n], BPF_F_LOCK))
			continue;
		rd_view(rd, &key, &s->f[s->n], &s->v[s->n]);
		s->n++;
	}
	return 0;
}

unsigned int rd_snap_each(struct rd *rd, const struct rd_snap *s,
			  rd_flow_fn fn, void *arg)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		fn(rd, &s->v[i], &s->f[i], arg);
	return (unsigned int)s->n;
}

/* ---- /flows and /flows.json ------------------------------------------- */

static const uint32_t rd_ppm[] = { 500000, 990000, 999000 };
static const char *const rd_ppm_name[] = { "p50", "p99", "p999" };

static json_object *rd_json_hist(const struct flowmon_hist *h)
{
	json_object *o = json_object_new_object();
	uint64_t n = rd_hist_count(h->bucket), ns;
	unsigned int i;

	json_object_object_add(o, "samples", json_object_new_int64((int64_t)n));
	for (i = 0; i < 3; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%s_us", rd_ppm_name[i]);
		if (rd_hist_percentile(h->bucket, rd_ppm[i], &ns))
			json_object_object_add(o, key,
				json_object_new_double((double)ns / 1e3));
		else
			json_object_object_add(o, key, NULL);
	}
	json_object_object_add(o, "mean_us", n ?
		json_object_new_double((double)h->sum_ns / 1e3 / (double)n) : NULL);
	return o;
}

void rd_json_flow(struct rd *rd, const struct rd_flow_view *v,
		  const struct flowmon_flow *f, void *arg)
{
	json_object *arr = arg, *o = json_object_new_object(), *cnt, *ga, *w;
	const struct rd_fstate *st = rd_fstate_find(rd, &v->key);
	unsigned int i;

	json_object_object_add(o, "flow", rd_json_str(v->name));
	json_object_object_add(o, "comm", rd_json_str(v->comm));
	json_object_object_add(o, "pid", json_object_new_int64(v->pid));
	json_object_object_add(o, "lqpn", json_object_new_int64(v->lqpn));
	json_object_object_add(o, "rqpn", json_object_new_int64(v->key.rqpn));
	json_object_object_add(o, "peer", rd_json_str(v->peer));
	json_object_object_add(o, "dev", rd_json_str(v->dev));
	json_object_object_add(o, "netdev", rd_json_str(v->netdev));
	json_object_object_add(o, "message_completion", rd_json_hist(&f->mct));
	json_object_object_add(o, "rtt", rd_json_hist(&f->rtt));
	cnt = json_object_new_object();
	for (i = 0; i < rd_ncounters; i++) {
		uint64_t val;

		memcpy(&val, (const char *)f + rd_counters[i].off, sizeof(val));
		json_object_object_add(cnt, rd_counters[i].name,
				       json_object_new_int64((int64_t)val));
	}
	json_object_object_add(o, "counters", cnt);
	ga = json_object_new_array();
	if (st && st->groups[0]) {
		char g[sizeof(st->groups)], *tok, *save = NULL;

		snprintf(g, sizeof(g), "%s", st->groups);
		for (tok = strtok_r(g, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			json_object_array_add(ga, rd_json_str(tok));
	}
	json_object_object_add(o, "groups", ga);
	w = json_object_new_object();
	json_object_object_add(w, "seconds", json_object_new_double(
		(double)rd->conf.window_ms / 1e3));
	json_object_object_add(w, "samples", json_object_new_int64(
		st ? (int64_t)st->win_samples : 0));
	json_object_object_add(w, "p99_us", st && st->win_samples ?
		json_object_new_double((double)st->win_p99_ns / 1e3) : NULL);
	json_object_object_add(o, "window", w);
	json_object_object_add(o, "straggler",
			       json_object_new_boolean(st && st->straggler));
	if (st && st->straggler) {
		char g[64];

		rd_group_label(st->sgroup, v, g, sizeof(g));
		json_object_object_add(o, "straggler_group", rd_json_str(g));
		json_object_object_add(o, "group_median_us", json_object_new_double(
			(double)st->smedian_ns / 1e3));
		json_object_object_add(o, "ratio", json_object_new_double(st->ratio));
	}
	json_object_array_add(arr, o);
}

static void rd_us(FILE *f, const struct flowmon_hist *h, uint32_t ppm)
{
	uint64_t ns;

	if (rd_hist_percentile(h->bucket, ppm, &ns))
		fprintf(f, " %9.1f", (double)ns / 1e3);
	else
		fprintf(f, " %9s", "-");
}

void rd_text_flow(struct rd *rd, const struct rd_flow_view *v,
		  const struct flowmon_flow *f, void *arg)
{
	const struct rd_fstate *st = rd_fstate_find(rd, &v->key);
	char name[RD_TEXT_MAX(sizeof(v->name))], dev[RD_TEXT_MAX(sizeof(v->dev))];
	FILE *out = arg;
	unsigned int i;

	fprintf(out, "%c %-40s %-8s %9" PRIu64, st && st->straggler ? '!' : ' ',
		rd_text_line(v->name, name, sizeof(name)),
		rd_text_line(v->dev, dev, sizeof(dev)),
		rd_hist_count(f->mct.bucket));
	for (i = 0; i < 3; i++)
		rd_us(out, &f->mct, rd_ppm[i]);
	for (i = 0; i < 3; i++)
		rd_us(out, &f->rtt, rd_ppm[i]);
	fputc('\n', out);
}
