// SPDX-License-Identifier: GPL-2.0
/*
 * The shared RoCEv2 parser in BPF: loads parse_check.bpf.c (TC, next to it), runs
 * packets through it with BPF_PROG_TEST_RUN and checks, field by field,
 * that the BPF parse equals the userspace parse of the same bytes, and that
 * the program returns TC_ACT_OK for every input.
 *
 * Inputs: the Ethernet frames of selftests/unit/core/data/scapy-ipv{4,6}.pcap
 * (IPv4, IPv6, with and without VLAN), the raw IP packets of the other
 * *.pcap files there behind an Ethernet header, every truncation of each
 * (the kernel refuses inputs shorter than an Ethernet header), and
 * randomly corrupted copies.
 *
 * Needs root (or CAP_BPF + CAP_NET_ADMIN); skips otherwise.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_cls.h>

#include <rocecc/roce.h>

#include "bpf_skip.h"
#include "tap.h"

/* Must match parse_check.bpf.c; the skeleton checks the size. */
struct parse_check_out {
	__s32 rc;
	__u32 runs;
	__u32 copied;
	__u32 pkt_len;
	struct rocecc_pkt pkt;
};

#include "parse_check.skel.h"

#define MAX_FRAMES	64
#define MAX_FRAME	2048
#define RANDOM_RUNS	3000
/* Ethernet + VLAN + IPv6 header: shorter inputs may be refused */
#define REFUSE_MAX	(14 + 4 + 40)

struct frame {
	char name[96];
	uint32_t len;
	uint8_t data[MAX_FRAME];
};

static struct frame frames[MAX_FRAMES];
static unsigned int nframes;
static struct parse_check *skel;
static int prog_fd;

static void add_frame(const char *name, const uint8_t *l2, uint32_t l2len,
		      const uint8_t *d, uint32_t len)
{
	struct frame *f;

	if (nframes >= MAX_FRAMES || l2len + len > MAX_FRAME)
		return;
	f = &frames[nframes++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	memcpy(f->data, l2, l2len);
	memcpy(f->data + l2len, d, len);
	f->len = l2len + len;
}

static uint32_t rd32(const uint8_t *p, int swap)
{
	return swap ? (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3] :
		      (uint32_t)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
}

/*
 * Classic pcap files only (not pcapng), Ethernet or raw IP: a few lines
 * here instead of libpcap, whose pcap/bpf.h clashes with linux/bpf.h.
 */
static void load_pcap(const char *file)
{
	static const uint8_t eth4[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2,
					  0x08, 0x00 };
	static const uint8_t eth6[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2,
					  0x86, 0xdd };
	char path[4096], name[96];
	uint8_t gh[24], rh[16], d[MAX_FRAME];
	uint32_t magic, link, caplen, len;
	unsigned int i = 0;
	int swap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ROCECC_TEST_DATA, file);
	f = fopen(path, "rb");
	if (!f)
		return;
	if (fread(gh, sizeof(gh), 1, f) != 1)
		goto out;
	magic = rd32(gh, 0);
	if (magic == 0xa1b2c3d4 || magic == 0xa1b23c4d) {
		swap = 0;
	} else if (magic == 0xd4c3b2a1 || magic == 0x4d3cb2a1) {
		swap = 1;
	} else {
		tap_diag("%s: not a classic pcap file, skipped", file);
		goto out;
	}
	link = rd32(gh + 20, swap) & 0xffff;
	while (fread(rh, sizeof(rh), 1, f) == 1) {
		caplen = rd32(rh + 8, swap);
		len = rd32(rh + 12, swap);
		if (caplen > sizeof(d) || fread(d, caplen, 1, f) != 1)
			break;
		snprintf(name, sizeof(name), "%s #%u", file, ++i);
		if (caplen != len || !caplen)
			continue;
		if (link == 1)				/* Ethernet */
			add_frame(name, NULL, 0, d, caplen);
		else if ((link == 101 || link == 229) && d[0] >> 4 == 6)
			add_frame(name, eth6, 14, d, caplen);
		else if (link == 101 || link == 228)	/* raw IP */
			add_frame(name, eth4, 14, d, caplen);
	}
out:
	fclose(f);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_frames(void)
{
	char *names[64];
	unsigned int n = 0, i;
	struct dirent *de;
	DIR *dir = opendir(ROCECC_TEST_DATA);

	if (!dir)
		return;
	while ((de = readdir(dir)) && n < 64)
		if (!fnmatch("*.pcap", de->d_name, 0))
			names[n++] = strdup(de->d_name);
	closedir(dir);
	qsort(names, n, sizeof(names[0]), cmpstr);
	for (i = 0; i < n; i++) {
		load_pcap(names[i]);
		free(names[i]);
	}
}

/* Compare every field; describe the first difference in @why. */
static int same_pkt(const struct rocecc_pkt *a, const struct rocecc_pkt *b,
		    char *why, size_t whylen)
{
#define F(f) do {							\
		if (a->f != b->f) {					\
			snprintf(why, whylen, #f ": bpf %llu, user %llu", \
				 (unsigned long long)a->f,		\
				 (unsigned long long)b->f);		\
			return 0;					\
		}							\
	} while (0)
	if (memcmp(a->saddr, b->saddr, 16)) {
		snprintf(why, whylen, "saddr");
		return 0;
	}
	if (memcmp(a->daddr, b->daddr, 16)) {
		snprintf(why, whylen, "daddr");
		return 0;
	}
	F(l3_off); F(l4_off); F(bth_off); F(payload_off); F(icrc_off);
	F(payload_len); F(flow_label); F(vlan_tci); F(sport); F(dport);
	F(udp_len); F(family); F(vlan_present); F(dscp); F(ecn); F(ttl);
	F(has_aeth); F(bth.opcode); F(bth.se); F(bth.mig); F(bth.pad_cnt);
	F(bth.tver); F(bth.fecn); F(bth.becn); F(bth.ack_req); F(bth.pkey);
	F(bth.dest_qp); F(bth.psn); F(aeth.syndrome); F(aeth.msn);
#undef F
	return 1;
}

struct run_result {
	int refused;		/* the kernel refused the input (EINVAL) */
	int ran;		/* the program ran */
	int tc_ok;		/* returned TC_ACT_OK */
	int same;		/* BPF parse == userspace parse */
	int rc;			/* the parse result */
	char why[128];
};

static void run_one(const uint8_t *data, uint32_t len, struct run_result *r)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	struct rocecc_pkt up;
	uint8_t *copy;
	uint32_t runs;
	int err, urc;

	memset(r, 0, sizeof(*r));
	runs = skel->bss->parse_check_out.runs;
	copy = malloc(len ? len : 1);
	memcpy(copy, data, len);
	opts.data_in = copy;
	opts.data_size_in = len;
	opts.repeat = 1;
	err = bpf_prog_test_run_opts(prog_fd, &opts);
	if (err) {
		r->refused = errno == EINVAL;
		snprintf(r->why, sizeof(r->why), "test run: %s",
			 strerror(errno));
		free(copy);
		return;
	}
	r->ran = skel->bss->parse_check_out.runs == runs + 1;
	r->tc_ok = opts.retval == TC_ACT_OK;

	/* userspace: the whole frame readable, as the contract allows */
	urc = rocecc_parse_eth(copy, len, len, &up);
	free(copy);
	r->rc = urc;
	if (skel->bss->parse_check_out.rc != urc) {
		snprintf(r->why, sizeof(r->why), "result: bpf %d, user %d",
			 skel->bss->parse_check_out.rc, urc);
		return;
	}
	if (skel->bss->parse_check_out.pkt_len != len) {
		snprintf(r->why, sizeof(r->why), "skb->len %u, sent %u",
			 skel->bss->parse_check_out.pkt_len, len);
		return;
	}
	/* fields are defined for ROCE; compare them for every result */
	r->same = same_pkt(&skel->bss->parse_check_out.pkt, &up, r->why,
			   sizeof(r->why));
}

static void test_frames(void)
{
	unsigned int i, roce = 0;

	for (i = 0; i < nframes; i++) {
		struct frame *f = &frames[i];
		struct run_result r;
		unsigned int n, bad = 0, refused = 0, ran = 0;
		char why[160] = "";

		run_one(f->data, f->len, &r);
		roce += r.rc == ROCECC_ROCE;
		if (!tap_ok(r.ran && r.tc_ok && r.same && r.rc == ROCECC_ROCE,
			    "%s (%u bytes): BPF parse == userspace, ROCE, TC_ACT_OK",
			    f->name, f->len))
			tap_diag("ran %d, TC_ACT_OK %d, rc %d: %s", r.ran,
				 r.tc_ok, r.rc, r.why);

		for (n = 0; n < f->len; n++) {
			run_one(f->data, n, &r);
			if (!r.ran) {
				/*
				 * The kernel refuses frames without an
				 * Ethernet header, and recent kernels IPv4/
				 * IPv6 frames without a whole IP header.
				 */
				if (r.refused && n < REFUSE_MAX) {
					refused++;
					continue;
				}
				bad++;
				if (!why[0])
					snprintf(why, sizeof(why),
						 "length %u: %s", n, r.why);
				continue;
			}
			ran++;
			if (!r.tc_ok || !r.same || r.rc != ROCECC_TRUNCATED) {
				bad++;
				if (!why[0])
					snprintf(why, sizeof(why),
						 "length %u: rc %d, %s", n,
						 r.rc, r.why);
			}
		}
		if (!tap_ok(!bad && ran && ran + refused == f->len,
			    "%s: %u truncations TRUNCATED in both, TC_ACT_OK (%u refused by the kernel)",
			    f->name, ran, refused))
			tap_diag("%u bad, %s", bad, why);
	}
	tap_ok(roce >= 10, "%u RoCE frames, IPv4 and IPv6, VLAN or not",
	       roce);
}

static uint32_t xs = 0x12345678;

static uint32_t rnd(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 17;
	xs ^= xs << 5;
	return xs;
}

/* Corrupted frames: bytes flipped in the headers, lengths cut */
static void test_random(void)
{
	unsigned int i, bad = 0, notok = 0, refused = 0, counts[4] = { 0 };
	char why[160] = "";
	uint8_t buf[MAX_FRAME];

	for (i = 0; i < RANDOM_RUNS && nframes; i++) {
		struct frame *f = &frames[rnd() % nframes];
		struct run_result r;
		uint32_t len = f->len, k, flips = 1 + rnd() % 4;

		memcpy(buf, f->data, len);
		for (k = 0; k < flips; k++) {
			uint32_t at = rnd() % (len < 110 ? len : 110);

			if (rnd() & 1)
				buf[at] ^= 1 << rnd() % 8;
			else
				buf[at] = rnd();
		}
		if (rnd() % 4 == 0)
			len = 14 + rnd() % (len - 13);
		run_one(buf, len, &r);
		if (r.refused) {
			refused++;
			continue;
		}
		if (!r.ran || !r.same) {
			bad++;
			if (!why[0])
				snprintf(why, sizeof(why), "run %u: %s", i,
					 r.why);
		}
		notok += !r.tc_ok;
		if (r.rc >= 0 && r.rc < 4)
			counts[r.rc]++;
	}
	tap_diag("random: ROCE %u, NOT_ROCE %u, TRUNCATED %u, MALFORMED %u, refused by the kernel %u",
		 counts[0], counts[1], counts[2], counts[3], refused);
	if (!tap_eq(bad, 0, "%u corrupted frames: BPF parse == userspace",
		    RANDOM_RUNS))
		tap_diag("%s", why);
	tap_eq(notok, 0, "%u corrupted frames: always TC_ACT_OK", RANDOM_RUNS);
	tap_ok(counts[0] && counts[1] && counts[2] && counts[3],
	       "random inputs reached all four results");
}

/* A few frames that are not RoCE at all */
static void test_foreign(void)
{
	static const uint8_t arp[42] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					 2, 0, 0, 0, 0, 1, 0x08, 0x06,
					 0, 1, 0x08, 0, 6, 4, 0, 1 };
	uint8_t tcp[74] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x08, 0x00,
			    0x45, 0, 0, 60, 0, 0, 0x40, 0, 64, 6 };
	struct run_result r;

	tcp[14 + 20 + 2] = 4791 >> 8;
	tcp[14 + 20 + 3] = 4791 & 0xff;
	run_one(arp, sizeof(arp), &r);
	tap_ok(r.ran && r.tc_ok && r.same && r.rc == ROCECC_NOT_ROCE,
	       "ARP: NOT_ROCE in both, TC_ACT_OK");
	run_one(tcp, sizeof(tcp), &r);
	tap_ok(r.ran && r.tc_ok && r.same && r.rc == ROCECC_NOT_ROCE,
	       "TCP to port 4791: NOT_ROCE in both, TC_ACT_OK");
}

int main(void)
{
	int err;

	err = bpf_load_denied();
	if (err)
		return tap_skip_all("cannot load BPF programs: %s",
				    strerror(err));
	libbpf_set_print(bpf_test_log);
	skel = parse_check__open_and_load();
	if (!skel) {
		err = errno;
		tap_ok(0, "parse_check.bpf.o loads: %s", strerror(err));
		fputs(bpf_test_log_buf, stdout);
		return tap_done();
	}
	tap_ok(1, "parse_check.bpf.o loads (verifier accepts the parser)");
	prog_fd = bpf_program__fd(skel->progs.parse_check);

	load_frames();
	tap_ok(nframes >= 10, "%u test frames from %s", nframes,
	       ROCECC_TEST_DATA);
	test_frames();
	test_foreign();
	test_random();
	parse_check__destroy(skel);
	return tap_done();
}
