/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the rocecc CLI share: the command line's state, error
 * messages, JSON output, the attributes of rocecc.ko's replies and the
 * objects' entry points. rocecc.c parses the options and dispatches to an
 * object: dev.c, param.c, flow.c, monitor.c (rocecc.ko over generic
 * netlink), latency.c and top.c (roceccd over HTTP), pfc.c (DCB netlink),
 * hw.c (an mlx5 port's firmware parameters, lib/hwcc.h), bpf.c (the BPF
 * datapath's pinned maps, lib/bpf_dp.h).
 *
 * A command about one device goes to the engine that drives it: the NIC's
 * firmware (hw.c) for an mlx5 port, the BPF datapath (bpf.c) for a netdev
 * it drives, else rocecc.ko; dev show, param show and flow show without a
 * device list rocecc.ko's, then the BPF datapath's. Both engines' replies
 * go through the same printers, which name the engine ("engine").
 */
#ifndef _ROCECC_CLI_CLI_H
#define _ROCECC_CLI_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>
#include <libmnl/libmnl.h>

#include <uapi/linux/rocecc.h>

#include "lib/format.h"
#include "lib/parse.h"
#include "lib/rocecc_nl.h"

struct bpf_dp;

struct cli {
	struct rnl nl;
	bool have_mod;		/* rocecc.ko's family is open in nl */
	struct bpf_dp *bdp;	/* the BPF datapath's pinned maps, or NULL */
	char bdp_err[256];	/* why they could not be opened, "" if absent */
	const char *engine;	/* the printers' "engine": NULL = "module" */
	const uint64_t *extra;	/* dev show: the BPF engine's counters, by
				 * enum dcqcn_stat, or NULL */
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
 * The objects over the datapath: @argc/@argv start after the object's
 * name. Each returns a CLI_EXIT_* code.
 */
int do_dev(struct cli *c, int argc, char **argv);
int do_param(struct cli *c, int argc, char **argv);
int do_flow(struct cli *c, int argc, char **argv);
int do_monitor(struct cli *c, int argc, char **argv);

/* rocecc.ko's family is open, else a message saying so and CLI_EXIT_FAIL */
int need_module(struct cli *c);

/* The printers of PARAM_GET and DEV_GET replies (mnl callbacks, @data @c) */
int param_show_cb(const struct nlmsghdr *nlh, void *data);
int dev_show_cb(const struct nlmsghdr *nlh, void *data);

/*
 * bpf.c: the BPF datapath's netdevs. cli_bpf_open() opens the maps pinned
 * in @pin_dir, if any (c->bdp; why not, if they are there, in
 * c->bdp_err). cli_bpf_drives(): is @dev one of its netdevs? The others
 * print or change what rocecc.ko's commands do; @dev NULL: all netdevs.
 */
void cli_bpf_open(struct cli *c, const char *pin_dir);
void cli_bpf_close(struct cli *c);
bool cli_bpf_drives(struct cli *c, const char *dev);
int cli_bpf_param_show(struct cli *c, const char *dev);
int cli_bpf_param_set(struct cli *c, const char *dev, int argc, char **argv);
int cli_bpf_profile(struct cli *c, const char *dev, int profile);
int cli_bpf_dev_show(struct cli *c, const char *dev);
/* Each flow as a FLOW_GET message to @cb(@nlh, @data); 0 or -errno */
int cli_bpf_flows(struct cli *c, const char *dev, mnl_cb_t cb, void *data);

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
