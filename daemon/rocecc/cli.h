/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the rocecc CLI share: the command line's state, error
 * messages, JSON output, the attributes of rocecc.ko's replies and the
 * objects' entry points. rocecc.c parses the options and dispatches to an
 * object: dev.c, param.c, flow.c, monitor.c (rocecc.ko over generic
 * netlink), latency.c and top.c (roceccd over HTTP), pfc.c (DCB netlink),
 * hw.c (an mlx5 port's firmware parameters, lib/hwcc.h).
 */
#ifndef _ROCECC_CLI_CLI_H
#define _ROCECC_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>

#include <uapi/linux/rocecc.h>

#include "lib/parse.h"
#include "lib/rocecc_nl.h"

struct cli {
	struct rnl nl;
	bool json;
	bool pretty;
	bool stats;
	json_object *out;	/* -j: the array printed at the end */
	unsigned int rows;	/* table rows printed so far */
	const char *filter;	/* param show NAME */
	unsigned int filter_id;
};

/* "rocecc", the prefix of every message. */
extern const char cli_prog[];

/* "rocecc: MESSAGE (try 'rocecc help')"; returns CLI_EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "rocecc: WHAT: KERNEL MESSAGE (strerror)"; returns CLI_EXIT_FAIL. */
int nl_error(struct cli *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* -j: add @o to the array printed at the end; print that array. */
void out_json(struct cli *c, json_object *o);
void flush_json(struct cli *c);

/* A parameter scope's name ("default" or the device), and as attribute. */
const char *scope_name(const struct cli_scope *sc);
void put_scope(struct nlmsghdr *nlh, const struct cli_scope *sc);

/* The top-level attributes of a rocecc.ko message, validated. */
struct attrs {
	const struct nlattr *tb[ROCECC_A_MAX + 1];
};
int parse_attrs(const struct nlmsghdr *nlh, struct attrs *at);
/* The device's name ("default" without one) and ifindex (0 without). */
const char *attr_name(const struct attrs *at);
uint32_t attr_ifindex(const struct attrs *at);
/* Parameters of a nest into @v, and which are present into @have. */
void parse_params(const struct nlattr *nest, uint32_t v[ROCECC_PARAM_MAX + 1],
		  bool have[ROCECC_PARAM_MAX + 1]);

/*
 * The objects over rocecc.ko: @argc/@argv start after the object's name.
 * Each returns a CLI_EXIT_* code.
 */
int do_dev(struct cli *c, int argc, char **argv);
int do_param(struct cli *c, int argc, char **argv);
int do_monitor(struct cli *c, int argc, char **argv);

/*
 * One NAME VALUE pair of param set (param.c): 0 with its enum rocecc_param
 * and value, or CLI_EXIT_USAGE after a message naming it.
 */
int param_pair(const char *name, const char *val, unsigned int *id,
	       uint32_t *v);

/*
 * param show | set | profile with 'dev DEV' naming an mlx5 port (hw.c):
 * the firmware's parameters, under @root (NULL: "/"; tests only). A
 * CLI_EXIT_* code, or -1 if DEV is not an mlx5 port (rocecc.ko's then).
 */
int cli_hw_param(struct cli *c, const char *root, int argc, char **argv);

#endif /* _ROCECC_CLI_CLI_H */
