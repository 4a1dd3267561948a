#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rocecc.ko's flow table at scale, inside the VM testbed (make bench runs it
# through scripts/vm): for 1k, 16k and 64k flows on one attached netdev, with
# the default flow_hash_bits (10) and with 16,
#   - memory: the kernel's Slab + vmalloc growth while the flows exist,
#     per flow (the module's own estimate is in its load line);
#   - lookup: the mean and median time of rocecc_flow_get() over one more
#     packet to every flow, from the function_graph tracer (TCG emulates
#     the CPU and the tracer adds its own cost: the absolute figures are
#     many times a real CPU's; compare them with each other);
#   - the genetlink dump of the whole table: wall time of
#     "rocecc -j flow show" and its size.
# Flows are made by RC SEND ONLY packets sent out of veth1 through the
# local stack (a raw socket bound to it, so they cross the POST_ROUTING
# hook as rxe's do), one destination QPN per flow.
# Prints "scale KEY=VALUE ..." lines, one per (flows, hash bits).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/selftests/vm/lib/topo.sh"
. "$top/selftests/vm/lib/dp.sh"
trap 'topo_teardown >/dev/null 2>&1; rmmod rocecc 2>/dev/null' EXIT
T=/sys/kernel/tracing

inject() {	# inject COUNT: one packet to each of COUNT QPNs
	python3 - "$1" <<'PY'
import socket, struct, sys
n = int(sys.argv[1])
sk = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
sk.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b"veth1")
src, dst = socket.inet_aton("10.0.0.1"), socket.inet_aton("10.0.0.2")
payload = 256
udp_len = 8 + 12 + payload + 4
tot = 20 + udp_len
def csum(h):
    s = sum(struct.unpack("!10H", h))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff
for q in range(1, n + 1):
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 2, tot, 0, 0, 64, 17, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    udp = struct.pack("!HHHH", 49152, 4791, udp_len, 0)
    bth = struct.pack("!BBHI I", 0x04, 0, 0xffff, q & 0xffffff, 0x80000064)
    sk.sendto(ip + udp + bth + b"\xab" * payload + b"\0\0\0\0", ("10.0.0.2", 0))
PY
}
mem_kb() { awk '/^(Slab|VmallocUsed):/ { s += $2 } END { print s }' /proc/meminfo; }
nflows() { "$DP_CLI" -j -s dev show veth1 | jq '.[0].stats.flows // .[0].flows // 0'; }

modprobe -a ib_core rdma_rxe || exit 1
topo_setup 2 >/dev/null || exit 1
tc qdisc replace dev veth1 root fq flow_limit 1000 || exit 1
for bits in 10 16; do
	for n in 1000 16000 64000; do
		insmod "$DP_KO" flow_max=70000 flow_idle_ms=600000 flow_hash_bits=$bits || exit 1
		"$DP_CLI" dev attach veth1 || exit 1
		sync; echo 3 >/proc/sys/vm/drop_caches
		m0=$(mem_kb)
		t0=$EPOCHREALTIME
		inject "$n"
		t1=$EPOCHREALTIME
		sleep 1
		got=$(nflows)
		m1=$(mem_kb)
		# one more packet per flow, rocecc_flow_get() traced
		echo 0 >$T/tracing_on
		echo rocecc_flow_get >$T/set_ftrace_filter
		echo function_graph >$T/current_tracer
		echo 16384 >$T/buffer_size_kb
		echo >$T/trace
		echo 1 >$T/tracing_on
		inject "$n"
		echo 0 >$T/tracing_on
		# "CPU) [+!#*] DURATION us | rocecc_flow_get [rocecc]();"
		look=$(awk '/rocecc_flow_get/ {
				for (i = 1; i < NF; i++) if ($(i + 1) == "us") { print $i; break }
			}' $T/trace | sort -n | awk '{ v[NR] = $1; s += $1 }
			END { if (NR) printf "%.0f %.0f %d", s * 1000 / NR, v[int((NR + 1) / 2)] * 1000, NR; else print "0 0 0" }')
		echo nop >$T/current_tracer
		echo >$T/set_ftrace_filter
		d0=$EPOCHREALTIME
		"$DP_CLI" -j flow show dev veth1 >/tmp/scale_dump.json
		d1=$EPOCHREALTIME
		dumped=$(jq length /tmp/scale_dump.json)
		bytes=$(stat -c %s /tmp/scale_dump.json)
		awk -v n="$n" -v bits="$bits" -v got="$got" -v m0="$m0" -v m1="$m1" \
		    -v look="$look" -v i0="$t0" -v i1="$t1" -v d0="$d0" -v d1="$d1" \
		    -v dumped="$dumped" -v bytes="$bytes" 'BEGIN {
			split(look, l, " ")
			printf "scale flows=%d hash_bits=%d tracked=%d mem_kb=%d bytes_per_flow=%.0f flow_get_mean_ns=%d flow_get_p50_ns=%d flow_get_calls=%d chain=%.2f create_s=%.2f dump_s=%.2f dumped=%d dump_bytes=%d\n",
				n, bits, got, m1 - m0, (m1 - m0) * 1024 / (got ? got : 1), l[1], l[2], l[3],
				got / 2 ^ bits, i1 - i0, d1 - d0, dumped, bytes
		}'
		"$DP_CLI" dev detach veth1
		rmmod rocecc || exit 1
	done
done
