/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every BPF test here needs around loading its programs.
 *
 * bpf_load_denied(): whether this process may load BPF programs at all,
 * asked with a trivial one. A test skips only when that fails: a refused real program is a
 * failure to report, and the verifier refuses with EACCES too, the same
 * errno as a missing capability.
 */
#ifndef _ROCECC_BPF_SKIP_H
#define _ROCECC_BPF_SKIP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/filter.h>

/*
 * libbpf's messages (the verifier's log among them), kept for printing
 * when a load fails: libbpf_set_print(bpf_test_log), then
 * bpf_test_log_buf.
 */
static char bpf_test_log_buf[1 << 16];
static size_t bpf_test_log_len;

static inline int bpf_test_log(enum libbpf_print_level level,
			       const char *fmt, va_list ap)
{
	int n;

	if (level == LIBBPF_DEBUG)
		return 0;
	n = vsnprintf(bpf_test_log_buf + bpf_test_log_len,
		      sizeof(bpf_test_log_buf) - bpf_test_log_len, fmt, ap);
	if (n > 0 && bpf_test_log_len + n < sizeof(bpf_test_log_buf))
		bpf_test_log_len += n;
	return 0;
}

/* 0 if allowed, else the errno of loading "r0 = 0; exit" as a TC program */
static inline int bpf_load_denied(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SCHED_CLS, "probe", "GPL", insns,
			       2, NULL);

	if (fd < 0)
		return errno ? errno : EPERM;
	close(fd);
	return 0;
}

#endif /* _ROCECC_BPF_SKIP_H */
