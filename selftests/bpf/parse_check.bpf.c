// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * parse_check: proof that the shared RoCEv2 parser (include/rocecc/roce.h)
 * runs in BPF. A TC (clsact) program that copies the first bytes of the
 * frame into a per-CPU scratch buffer with bpf_skb_load_bytes(), parses
 * them and publishes the result in the global parse_check_out, which
 * selftests/bpf/test_parse_bpf.c compares with the userspace parse of the
 * same bytes. It never changes or drops a packet: always TC_ACT_OK.
 *
 * The scratch buffer lives in a map value rather than on the stack: every
 * parser read is then a bounded-offset map value access, which the
 * verifier of older kernels (6.1 in the test VM) accepts, and the stack
 * stays small.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include <rocecc/roce.h>

/* At least ROCECC_PARSE_HDR_MAX: every header the parser reads fits */
#define PC_BUF_LEN	128

struct pc_scratch {
	__u8 buf[PC_BUF_LEN];
	struct rocecc_pkt pkt;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pc_scratch);
} pc_scratch SEC(".maps");

struct parse_check_out {
	__s32 rc;		/* enum rocecc_parse_result, -1: not run */
	__u32 runs;		/* program invocations */
	__u32 copied;		/* bytes copied into the buffer */
	__u32 pkt_len;		/* skb->len */
	struct rocecc_pkt pkt;
};

struct parse_check_out parse_check_out;

SEC("tc")
int parse_check(struct __sk_buff *skb)
{
	struct pc_scratch *s;
	__u32 key = 0, len;

	parse_check_out.runs++;
	parse_check_out.rc = -1;
	s = bpf_map_lookup_elem(&pc_scratch, &key);
	if (!s)
		return TC_ACT_OK;

	len = skb->len;
	parse_check_out.pkt_len = len;
	if (len > PC_BUF_LEN)
		len = PC_BUF_LEN;
	/*
	 * Frames shorter than an Ethernet header (which the test run
	 * refuses anyway) are parsed from nothing. Not "len == 0": the 6.1
	 * verifier learns the lower bound bpf_skb_load_bytes() needs from
	 * "<" but not from "!=".
	 */
	if (len < ROCECC_ETH_HLEN || bpf_skb_load_bytes(skb, 0, s->buf, len))
		len = 0;
	parse_check_out.copied = len;

	parse_check_out.rc = rocecc_parse_eth(s->buf, len, skb->len, &s->pkt);
	__builtin_memcpy(&parse_check_out.pkt, &s->pkt, sizeof(s->pkt));
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
