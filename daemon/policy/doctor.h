/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rocecc doctor, the decisions: each check is a pure function of the facts
 * the CLI gathered about the host and one RoCE port (daemon/rocecc/
 * doctor.c reads them: RDMA netlink, rocecc.ko's generic netlink, DCB and
 * route netlink, sysfs, configfs, roceccd's configuration and HTTP
 * endpoint). No I/O here. Unit-tested, check by check with the fix
 * command's text, by selftests/unit/daemon/test_doctor.c.
 *
 * A check gives PASS, WARN or FAIL, or SKIP where it does not apply (no
 * engine paces, so no pacing budget to compare), with the value found,
 * the value expected and the command that fixes it (several commands are
 * joined by " && ", so that "sh -c" runs them in order). "rocecc" and
 * "roceccd" in a fix are the installed binaries.
 *
 * Terms the checks share:
 *  engine     what runs DCQCN for the port: rocecc.ko (its DEV_GET answers
 *             for the netdev), the BPF engine (its TC filters sit on it),
 *             the NIC's firmware (mlx5), or none.
 *  lossless   the priorities that should have PFC: roceccd's [pfc]
 *             priorities when its configuration selects the netdev, else
 *             those the device has PFC on.
 *  RoCE prio  the lowest lossless priority (RoCE's DSCP 26 is priority 3
 *             on the default map); without lossless priorities RoCE runs
 *             lossy.
 *  CNP prio   the engine's np_cnp_prio; its DSCP np_cnp_dscp goes through
 *             the device's DSCP -> priority map (DCB APP DSCP entries, else
 *             DSCP >> 3: rocecc_dscp_map()).
 */
#ifndef _ROCECC_POLICY_DOCTOR_H
#define _ROCECC_POLICY_DOCTOR_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/dcbnl.h"
#include "lib/qdisc.h"
#include "roceccd/config.h"

/* Worst wins; SKIP counts as PASS for the exit status. */
enum doc_status {
	DOC_PASS,
	DOC_SKIP,
	DOC_WARN,
	DOC_FAIL,
};

enum doc_engine {
	DOC_ENGINE_NONE,
	DOC_ENGINE_MODULE,
	DOC_ENGINE_BPF,
	DOC_ENGINE_HW,
};

/*
 * What rxe subtracts from the netdev MTU for RoCEv2 headers before it picks
 * the port's active MTU (RXE_MAX_HDR_LENGTH, rxe_param.h): IPv6, UDP, BTH,
 * the largest extension headers, ICRC. A RoCE MTU M fits a netdev MTU N
 * when M + 80 <= N.
 */
#define DOC_ROCE_HDR_MAX	80
/* The largest IB MTU (IB_MTU_4096) */
#define DOC_IB_MTU_MAX		4096

#define DOC_GIDS_MAX	32
#define DOC_QPS_MAX	64
#define DOC_TEXT	256
#define DOC_FIX		1024

/* One GID of the port whose netdev is the port's */
struct doc_gid {
	unsigned int index;
	bool v2;			/* type "RoCE v2" */
	char addr[48];			/* as sysfs prints it */
};

/* A local QP whose ACK timeout the engine knows (from its flows) */
struct doc_qp {
	uint32_t lqpn;
	uint8_t timeout;		/* exponent, 4.096 us * 2^t; 0: no timer */
};

/* rdma_cm's default RoCE mode of the port (configfs) */
enum doc_cm_mode {
	DOC_CM_DEFAULT,			/* no configfs entry: the kernel's
					 * default, RoCE v2 where supported */
	DOC_CM_V1,
	DOC_CM_V2,
};

/* Facts about the host */
struct doc_host {
	char release[65];		/* uname -r */
	bool btf;			/* /sys/kernel/btf/vmlinux exists */
	unsigned int hz;		/* CONFIG_HZ; 0: unknown (100 assumed) */
	bool module_loaded;		/* rocecc.ko's genl family exists */
	/* roceccd's configuration */
	char conf_path[256];
	bool have_conf;			/* read without error */
	char conf_err[DOC_TEXT];	/* why not, "" if there is no file */
	struct rd_conf conf;		/* valid if have_conf */
	/* roceccd */
	long rd_pid;			/* its pid; 0: not running */
	char pidfile[256];		/* "" if none was given or found */
	bool pidfile_stale;		/* names no running roceccd */
	bool systemd;			/* booted with systemd */
	char url[128];			/* http://ADDR:PORT/metrics */
	long http_status;		/* 0: no answer */
	char http_err[DOC_TEXT];
};

/* Facts about one RoCE port and its netdev */
struct doc_dev {
	char ibdev[64];
	uint32_t port;
	char netdev[IF_NAMESIZE];
	uint32_t ifindex;
	/* engines */
	bool module;			/* rocecc.ko has the netdev attached */
	bool bpf;			/* the BPF engine's filters are on it */
	bool hw;			/* mlx5: the firmware runs DCQCN */
	bool sw_dcb;			/* rocecc.ko gives it a software DCB
					 * (its PFC frames are obeyed only
					 * through the rocecc root qdisc) */
	/* qdiscs: qdisc_err, or the dump and the number of tx queues */
	int qdisc_err;
	const struct qdisc_info *qd;
	size_t nqd;
	unsigned int ntxq;
	/*
	 * The engine's pacing knobs, if have_pacing: rocecc.ko's module
	 * parameters, or the BPF engine's dp_devs entry (the same names)
	 */
	bool have_pacing;
	uint32_t budget_pct;		/* pacing_budget_pct */
	uint32_t default_budget_us;	/* pacing_default_budget_us */
	uint32_t max_delay_us;		/* pacing_max_delay_us */
	/* the engine's CNP parameters, if have_cnp */
	bool have_cnp;
	uint32_t cnp_dscp, cnp_prio;
	/* the engine's ECT(0) marks so far, if have_ect */
	bool have_ect;
	uint64_t ect_marked;
	/* DCB: dcb_err 0 and dcb, or -EOPNOTSUPP (no DCB), or -errno */
	int dcb_err;
	struct dcbnl_ieee dcb;
	unsigned int speed_mbps;	/* 0: unknown */
	unsigned int mtu;		/* netdev MTU */
	/* the RDMA port, bytes; 0: unknown */
	unsigned int active_mtu, max_mtu;
	/* GIDs of the netdev */
	int gid_err;			/* -errno if they could not be read */
	unsigned int ngid;
	struct doc_gid gid[DOC_GIDS_MAX];
	enum doc_cm_mode cm_mode;
	/* QPs with known timeouts */
	unsigned int nqp;
	struct doc_qp qp[DOC_QPS_MAX];
	/* roceccd's /metrics lists the netdev (rocecc_netdev_info) */
	bool rd_watches;
};

struct doc_result {
	const char *check;		/* the check's name */
	enum doc_status status;
	char found[DOC_TEXT];
	char expected[DOC_TEXT];	/* "" for PASS and SKIP */
	char fix[DOC_FIX];		/* "" if none */
};

/* One check: per port (@dev set) or for the host (@dev NULL) */
struct doc_check {
	const char *name;
	bool host;			/* runs once, @dev is NULL */
	void (*fn)(const struct doc_host *h, const struct doc_dev *d,
		   struct doc_result *r);
	const char *what;		/* one line for the man page / help */
};

/* The checks in the order they are shown; NULL past the last. */
const struct doc_check *doc_check(unsigned int i);

/* Run check @c into @r (r->check set, the texts cleared first). */
void doc_run(const struct doc_check *c, const struct doc_host *h,
	     const struct doc_dev *d, struct doc_result *r);

/* "PASS", "SKIP", "WARN", "FAIL" */
const char *doc_status_name(enum doc_status s);

/* The exit status of a run whose worst result is @worst: 0, 1 or 2. */
int doc_exit_status(enum doc_status worst);

/* The engine that drives @d (the first of module, BPF, hardware). */
enum doc_engine doc_engine_of(const struct doc_dev *d);
const char *doc_engine_name(enum doc_engine e);

/*
 * Is @release a kernel of the tested set (ROCECC_TESTED_KERNELS, the
 * pattern DKMS builds the module for)?
 */
bool doc_kernel_tested(const char *release);

/* The lossless priorities of @d (see the header comment) and their source. */
uint8_t doc_lossless(const struct doc_host *h, const struct doc_dev *d,
		     bool *from_conf);

#endif /* _ROCECC_POLICY_DOCTOR_H */
