/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocecc doctor: every check of policy/doctor.h on every RoCE port (or the
 * one named) and the host, PASS / SKIP / WARN / FAIL with what was found,
 * what was expected and the command that fixes it; exit status 0 (all
 * pass), 1 (worst is a warning) or 2 (a failure).
 *
 *   rocecc [-j [-p]] doctor [dev NAME] [config FILE] [pidfile FILE]
 *
 * A port of an mlx5 NIC (lib/hwcc.h) is driven by its firmware: its CNP
 * parameters are the firmware's. With --hw-root (tests) sysfs and debugfs
 * are read under that directory (the fake mlx5 driver's tree).
 *
 * doctor.c is the object (arguments, running the checks, output);
 * doctor_facts.c gathers the facts the checks decide on.
 */
#ifndef _ROCECC_CLI_DOCTOR_H
#define _ROCECC_CLI_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/hwcc.h"
#include "lib/rocecc_nl.h"
#include "policy/doctor.h"

struct cli_doctor_opts {
	bool json;		/* -j */
	bool pretty;		/* -p */
	const char *hw_root;	/* --hw-root (tests): sysfs and debugfs there */
};

/* After "doctor": its arguments. The exit status. */
int cli_doctor(const struct cli_doctor_opts *o, int argc, char **argv);

/* What doctor_facts.c needs to know of the command line */
struct doc_args {
	const char *dev;	/* netdev or RDMA device; NULL: all */
	const char *config;	/* roceccd's configuration; NULL: default */
	const char *pidfile;	/* roceccd's pid file; NULL: none */
	const char *hw_root;	/* NULL: / */
};

/* Gathered facts, and what holds them */
struct doc_facts {
	struct doc_host host;
	struct doc_dev *dev;		/* ndev ports */
	size_t ndev, dev_cap;
	struct hwcc_io io;		/* sysfs and debugfs (--hw-root) */
	struct rnl nl;			/* rocecc.ko's genl, if loaded */
	bool nl_open;
	char *metrics;			/* roceccd's /metrics, or NULL */
};

/*
 * Read everything: the host, then every RoCE port (whose netdev or RDMA
 * device is @a->dev, if set). 0, or -errno with @err saying why nothing
 * could be checked (no RDMA netlink, no such device).
 */
int doc_gather(const struct doc_args *a, struct doc_facts *f, char *err,
	       size_t errlen);
void doc_facts_free(struct doc_facts *f);

#endif /* _ROCECC_CLI_DOCTOR_H */
