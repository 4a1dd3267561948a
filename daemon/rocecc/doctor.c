// SPDX-License-Identifier: GPL-2.0
/*
 * rocecc doctor: the object (see doctor.h). The checks and what they
 * decide are policy/doctor.c's; the facts come from doctor_facts.c.
 *
 * Text: one block per RoCE port, then the host's checks, one line per
 * check ("  PASS  qdisc        fq (flow_limit 1000, ...)"), and for a
 * WARN or FAIL what was expected and the fix on lines of their own; the
 * last line counts the results. -j: one JSON array, an object per check
 * with dev, port and netdev (null for the host's checks), check, status,
 * found, expected and fix ("" where there is none).
 */
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/parse.h"
#include "doctor.h"
#include "cli.h"

/* One result as a JSON object; @d NULL for a host check */
static json_object *result_json(const struct doc_dev *d,
				const struct doc_result *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "dev", d ? rd_json_str(d->ibdev) : NULL);
	json_object_object_add(o, "port", d ?
			       json_object_new_int64(d->port) : NULL);
	json_object_object_add(o, "netdev", d ? rd_json_str(d->netdev) : NULL);
	json_object_object_add(o, "check", json_object_new_string(r->check));
	json_object_object_add(o, "status",
			       json_object_new_string(doc_status_name(r->status)));
	json_object_object_add(o, "found", rd_json_str(r->found));
	json_object_object_add(o, "expected", rd_json_str(r->expected));
	json_object_object_add(o, "fix", rd_json_str(r->fix));
	return o;
}

/* found, expected and fix hold device names and roceccd's /metrics */
static void result_text(const struct doc_result *r)
{
	char esc[RD_TEXT_MAX(sizeof(r->fix))];

	printf("  %-4s  %-12s %s\n", doc_status_name(r->status), r->check,
	       rd_text_line(r->found, esc, sizeof(esc)));
	if (r->expected[0])
		printf("  %-4s  %-12s expected: %s\n", "", "",
		       rd_text_line(r->expected, esc, sizeof(esc)));
	if (r->fix[0])
		printf("  %-4s  %-12s fix: %s\n", "", "",
		       rd_text_line(r->fix, esc, sizeof(esc)));
}

struct tally {
	unsigned int n[DOC_FAIL + 1];
	enum doc_status worst;
	json_object *arr;		/* -j */
};

/* Every check of one kind (@host or per port) for @d */
static void run_checks(const struct doc_facts *f, const struct doc_dev *d,
		       struct tally *t)
{
	const struct doc_check *c;
	struct doc_result r;
	unsigned int i;

	for (i = 0; (c = doc_check(i)); i++) {
		if (c->host != !d)
			continue;
		doc_run(c, &f->host, d, &r);
		t->n[r.status]++;
		if (r.status > t->worst)
			t->worst = r.status;
		if (t->arr)
			json_object_array_add(t->arr, result_json(d, &r));
		else
			result_text(&r);
	}
}

static int doctor_args(int argc, char **argv, struct doc_args *a)
{
	int i;

	for (i = 0; i < argc; i += 2) {
		if (i + 1 >= argc)
			return usage_error("doctor: '%s' needs a value", argv[i]);
		if (!strcmp(argv[i], "dev"))
			a->dev = argv[i + 1];
		else if (!strcmp(argv[i], "config"))
			a->config = argv[i + 1];
		else if (!strcmp(argv[i], "pidfile"))
			a->pidfile = argv[i + 1];
		else
			return usage_error("doctor: unknown argument '%s'",
					   argv[i]);
	}
	return 0;
}

int cli_doctor(const struct cli_doctor_opts *o, int argc, char **argv)
{
	struct doc_args a = { 0 };
	struct tally t = { .worst = DOC_PASS };
	struct doc_facts f;
	char err[256];
	char e1[RD_TEXT_MAX(sizeof(f.dev->ibdev))];
	char e2[RD_TEXT_MAX(sizeof(f.dev->netdev))];
	size_t i;
	int ret;

	ret = doctor_args(argc, argv, &a);
	if (ret)
		return ret;
	a.hw_root = o->hw_root;
	if (doc_gather(&a, &f, err, sizeof(err))) {
		fprintf(stderr, "%s: doctor: %s\n", cli_prog, err);
		doc_facts_free(&f);
		return doc_exit_status(DOC_FAIL);
	}
	if (o->json)
		t.arr = json_object_new_array();
	for (i = 0; i < f.ndev; i++) {
		if (!t.arr)
			printf("%s port %u (%s):\n",
			       rd_text_line(f.dev[i].ibdev, e1, sizeof(e1)),
			       f.dev[i].port,
			       rd_text_line(f.dev[i].netdev, e2, sizeof(e2)));
		run_checks(&f, &f.dev[i], &t);
	}
	if (!t.arr)
		printf("host:\n");
	run_checks(&f, NULL, &t);
	if (t.arr) {
		printf("%s\n", json_object_to_json_string_ext(t.arr,
			o->pretty ? JSON_C_TO_STRING_PRETTY :
				    JSON_C_TO_STRING_PLAIN));
		json_object_put(t.arr);
	} else {
		printf("%u PASS, %u SKIP, %u WARN, %u FAIL\n", t.n[DOC_PASS],
		       t.n[DOC_SKIP], t.n[DOC_WARN], t.n[DOC_FAIL]);
	}
	doc_facts_free(&f);
	return doc_exit_status(t.worst);
}
