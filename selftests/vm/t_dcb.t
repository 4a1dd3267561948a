#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Software DCB and PFC (kmod/dcb.c, pfc_rx.c, pfc_gen.c) on veths, which
# have no DCB ops, with iproute2's own dcb tool:
#  - attach installs DCB ops: "dcb pfc show", "dcb pfc set", "dcb buffer
#    show/set" work and read back; bad buffer sizes are refused and the
#    kernel log names the device; detach removes the ops again;
#  - PFC frames sent from the switch port (AF_PACKET, the 802.1Qbb layout of
#    include/rocecc/pfc.h) count indications[p] for every priority they
#    name, but only priorities with PFC enabled are paused (pfc_unenforced
#    without the rocecc qdisc, with one warning); an
#    802.3x PAUSE counts pause_frames_rx and nothing else;
#  - RoCE traffic (rocegen, DSCP 26 = priority 3) into a host whose buffer
#    for priority 3 is tiny makes that host send PFC frames: captured on the
#    switch port, XOFF (class-enable bit 3, 65535 quanta) and XON (bit 3, 0
#    quanta), counted in requests[3] (dcb -s) and matching the capture;
#    occupancy is back to 0 when the traffic stops;
#  - rmmod and device removal while PFC frames and RoCE traffic flow: no
#    warning in the kernel log (the harness also fails on one);
#  - rxe gone and a user's UDP socket on port 4791: RoCE packets it
#    receives (which it frees without an skb destructor) are not counted
#    in the occupancy (not_rxe), no XOFF, and rmmod finishes.
# Run: scripts/vm --test selftests/vm/t_dcb.t

lib=$(dirname "$0")/lib
. "$lib/tap.sh"
. "$lib/topo.sh"
. "$lib/dp.sh"
tap_require_vm

work=$(mktemp -d /tmp/t_dcb.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; topo_teardown; rmmod rocecc 2>/dev/null; rm -rf "$work"' EXIT
R=$DP_CLI
S="ip netns exec $TOPO_NS"
PY=$DP_PY

# --- helpers (python: AF_PACKET frames, a pcap reader, the genl PFC nest) --------

cat >"$work/pfc_send.py" <<'EOF'
# pfc_send.py IFACE OPCODE ENABLE QUANTA [COUNT [INTERVAL_S]]: MAC control
# frames (opcode 0x0101 PFC: ENABLE vector, QUANTA for enabled prios;
# 0x0001 PAUSE: QUANTA) out of IFACE.
import socket, struct, sys, time
ifc, op, en, q = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3], 0), int(sys.argv[4], 0)
n = int(sys.argv[5]) if len(sys.argv) > 5 else 1
gap = float(sys.argv[6]) if len(sys.argv) > 6 else 0
import errno
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifc, 0))
smac = bytes.fromhex(open('/sys/class/net/%s/address' % ifc).read().strip().replace(':', ''))
f = bytes.fromhex('0180c2000001') + smac + struct.pack('!HH', 0x8808, op)
if op == 0x0101:
    f += struct.pack('!H', en) + b''.join(struct.pack('!H', q if en & (1 << p) else 0) for p in range(8))
else:
    f += struct.pack('!H', q)
f += bytes(60 - len(f))
for _ in range(n):
    try:
        s.send(f)
    except OSError as e:	# a flood may fill the queue; the port may go away
        if e.errno != errno.ENOBUFS:
            sys.exit(0)
    if gap:
        time.sleep(gap)
EOF

cat >"$work/pfc_pcap.py" <<'EOF'
# pfc_pcap.py FILE: PFC frames of a capture, as "k=v" words:
# frames xoff3 xon3 other_prios quanta_max bad_dmac
import struct, sys
d = open(sys.argv[1], 'rb').read()
c = dict(frames=0, xoff3=0, xon3=0, other_prios=0, quanta_max=0, bad_dmac=0)
off = 24
while off + 16 <= len(d):
    _, _, incl, _ = struct.unpack('<IIII', d[off:off + 16])
    fr = d[off + 16:off + 16 + incl]
    off += 16 + incl
    if len(fr) < 34 or fr[12:14] != b'\x88\x08' or fr[14:16] != b'\x01\x01':
        continue
    c['frames'] += 1
    if fr[0:6] != bytes.fromhex('0180c2000001'):
        c['bad_dmac'] += 1
    en = fr[17]
    if en & ~0x08:
        c['other_prios'] += 1
    q = [struct.unpack('!H', fr[18 + 2 * p:20 + 2 * p])[0] for p in range(8)]
    if en & 0x08:
        if q[3]:
            c['xoff3'] += 1
            c['quanta_max'] = max(c['quanta_max'], q[3])
        else:
            c['xon3'] += 1
print(' '.join('%s=%d' % kv for kv in c.items()))
EOF

cat >"$work/pfc_nl.py" <<'EOF'
# pfc_nl.py DEV: ROCECC_CMD_DEV_GET of DEV, the software DCB attributes
# (include/uapi/linux/rocecc.h) as "k=v" words: sw_dcb unenforced pause_rx
# speed tx_errors untracked rx_ignored not_rxe occ_expired, and
# pP.{en,buffer,ind,req,occ,occ_max,xoff,xon,paused}
import os, socket, struct, sys
NLM_F_REQUEST = 1
def attrs(b):
    out = []
    while len(b) >= 4:
        ln, ty = struct.unpack('=HH', b[:4])
        if ln < 4:
            break
        out.append((ty & 0x3fff, b[4:ln]))
        b = b[(ln + 3) & ~3:]
    return out
def attr(ty, data):
    return struct.pack('=HH', 4 + len(data), ty) + data + bytes((4 - len(data) % 4) % 4)
def req(s, fam, cmd, payload):
    msg = struct.pack('=BBH', cmd, 1, 0) + payload
    s.send(struct.pack('=IHHII', 16 + len(msg), fam, NLM_F_REQUEST, 1, os.getpid()) + msg)
    r = s.recv(65536)
    ln, ty = struct.unpack('=IH', r[:6])
    if ty == 2:
        sys.exit('netlink error %d' % struct.unpack('=i', r[16:20])[0])
    return attrs(r[20:ln])
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 16)
fam = [v for t, v in req(s, 0x10, 3, attr(2, b'rocecc\0')) if t == 1][0]
fam = struct.unpack('=H', fam)[0]
u = lambda v: int.from_bytes(v, 'little')
out = {}
for t, v in req(s, fam, 3, attr(2, sys.argv[1].encode() + b'\0')):
    if t == 7:
        out['sw_dcb'] = u(v)
    if t == 8:
        names = {2: 'unenforced', 3: 'pause_rx', 4: 'speed', 5: 'tx_errors', 6: 'untracked',
                 8: 'rx_ignored', 9: 'not_rxe', 10: 'occ_expired'}
        for pt, pv in attrs(v):
            if pt in names:
                out[names[pt]] = u(pv)
            if pt == 7:
                pa = dict(attrs(pv))
                p = u(pa[2])
                for k, n in ((3, 'en'), (4, 'buffer'), (5, 'ind'), (6, 'req'), (7, 'occ'),
                             (8, 'occ_max'), (9, 'xoff'), (10, 'xon'), (11, 'paused')):
                    out['p%d.%s' % (p, n)] = u(pa[k])
print(' '.join('%s=%s' % kv for kv in out.items()))
EOF

cat >"$work/dcb_setbuf.py" <<'EOF'
# dcb_setbuf.py DEV P2B SIZES: one RTM_SETDCB DCB_CMD_IEEE_SET with a
# DCB_ATTR_DCB_BUFFER (P2B, SIZES: 8 comma-separated values each); prints
# the status the kernel returns in DCB_ATTR_IEEE (0, or -errno). What the
# dcb tool of iproute2 6.1 should print, but it may read the ACK of its
# own preceding GET (same sequence number) as the answer and report
# success.
import os, socket, struct, sys
def attr(ty, data):
    return struct.pack('=HH', 4 + len(data), ty) + data + bytes((4 - len(data) % 4) % 4)
p2b = [int(x) for x in sys.argv[2].split(',')]
sizes = [int(x) for x in sys.argv[3].split(',')]
buf = struct.pack('=8B8II', *p2b, *sizes, 0)
body = struct.pack('=BBH', 0, 20, 0) + attr(1, sys.argv[1].encode() + b'\0') + \
    attr(13 | 0x8000, attr(10, buf))
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
s.send(struct.pack('=IHHII', 16 + len(body), 79, 1, 7, 0) + body)
r = s.recv(65536)
ln, ty = struct.unpack('=IH', r[:6])
if ty == 2:
    print(struct.unpack('=i', r[16:20])[0])
    sys.exit(0)
b = r[20:ln]
while len(b) >= 4:
    l, t = struct.unpack('=HH', b[:4])
    if t & 0x3fff == 13:
        print(struct.unpack('=b', b[4:5])[0])
        sys.exit(0)
    b = b[(l + 3) & ~3:]
sys.exit('no DCB_ATTR_IEEE in the answer')
EOF

pfc_send() { $S "$PY" "$work/pfc_send.py" "$@"; }
# nlkv DEV KEY...: those values of pfc_nl.py's line, space-separated (one
# python start for all: each costs ~2 s under TCG)
nlkv() {
	local kv k out=
	kv=$("$PY" "$work/pfc_nl.py" "$1")
	shift
	for k in "$@"; do out+="${out:+ }$(dp_kv "$kv" "$k")"; done
	echo "$out"
}
# dcb_json DEV OBJ ARGS...: one field of "dcb -j [-s] pfc/buffer show"
dcbj() { dcb -j "$@"; }

# --- setup -------------------------------------------------------------------------

tap_run "ib_core, rdma_rxe and rocecc.ko load" dp_load || tap_bail "no module"
tap_run "2-host topology comes up" topo_setup 2 || tap_bail "no topology"
tap_run "fq on veth1, veth2" dp_fq 1 2

! dcb pfc show dev veth1 >/dev/null 2>&1
tap_ok $? "before attach: veth has no DCB ('dcb pfc show' fails)"
tap_run "attach veth1, veth2" dp_attach 1 2 || tap_bail "no attach"
read -r swdcb speed < <(nlkv veth1 sw_dcb speed)
tap_is "$swdcb" 1 "veth1: ROCECC_A_DEV_SW_DCB is 1"
tap_is "$speed" 10000 "veth1: PFC link speed 10000 Mb/s (from ethtool)"

# --- DCB netlink with the real dcb tool ---------------------------------------------

tap_run "dcb pfc show dev veth1" dcb pfc show dev veth1
tap_diag "$(dcb pfc show dev veth1 2>&1)"
j=$(dcbj pfc show dev veth1)
tap_is "$(jq -c '[.pfc_cap, (.prio_pfc | map(select(.)) | length), .delay]' <<<"$j")" "[8,0,0]" \
	"defaults: pfc-cap 8, PFC off on every priority, delay 0"
tap_run "dcb pfc set dev veth1 prio-pfc 3:on delay 4096" dcb pfc set dev veth1 prio-pfc 3:on delay 4096
j=$(dcbj pfc show dev veth1)
tap_is "$(jq -c '[[.prio_pfc | to_entries[] | select(.value) | .key], .delay]' <<<"$j")" "[[3],4096]" \
	"dcb pfc reads back: PFC on priority 3 only, delay 4096"
tap_diag "$(dcb buffer show dev veth1 2>&1)"
j=$(dcbj buffer show dev veth1)
tap_is "$(jq -c '[.buffer_size[0], .total_size]' <<<"$j")" "[262144,262144]" \
	"buffer defaults: buffer 0 holds the whole 256 KiB total"
tap_run "dcb buffer set dev veth1 prio-buffer 3:1 buffer-size all:0 0:200K 1:32K" \
	dcb buffer set dev veth1 prio-buffer 3:1 buffer-size all:0 0:200K 1:32K
j=$(dcbj buffer show dev veth1)
tap_is "$(jq -c '[.prio_buffer[3], .prio_buffer[0], .buffer_size[0], .buffer_size[1]]' <<<"$j")" "[1,0,204800,32768]" \
	"dcb buffer reads back: priority 3 in buffer 1 of 32K, buffer 0 200K"
# thresholds (include/rocecc/pfc.h): headroom = 4096/8 + 2 * (1500 + 14) = 3540
tap_is "$(nlkv veth1 p3.xoff p3.xon)" "$((32768 - 3540)) $((32768 - 3540 - 1514))" \
	"priority 3's xoff/xon follow buffer 1's size, the delay and the MTU"
dmesg -c >/dev/null
# iproute2 6.1's dcb reports the refusal only when it reads the right
# answer (see dcb_setbuf.py): its exit status is a diagnostic, the kernel's
# answer and the unchanged configuration are the assertions.
dcb buffer set dev veth1 buffer-size 0:200K 1:100K 2>"$work/bad.err"
tap_diag "dcb buffer set ... 0:200K 1:100K: exit status $?, said: $(cat "$work/bad.err")"
dmesg | grep -q "rocecc: veth1: dcb buffer: buffer sizes add up to 307200"
tap_ok $? "buffer sizes beyond the total are refused: the kernel log names the device and the value" ||
	tap_diag "$(dmesg | tail -n 5)"
tap_is "$(dcbj buffer show dev veth1 | jq -c '.buffer_size[1]')" 32768 "... and the configuration is unchanged"
tap_is "$("$PY" "$work/dcb_setbuf.py" veth1 0,0,0,1,0,0,0,0 204800,102400,0,0,0,0,0,0)" -22 \
	"DCB netlink answers the same request with EINVAL (DCB_ATTR_IEEE status)"
tap_is "$("$PY" "$work/dcb_setbuf.py" veth1 0,0,0,1,0,0,0,0 204800,32768,0,0,0,0,0,0)" 0 \
	"... and a valid one with 0"
! dcb buffer set dev veth1 prio-buffer 3:8 >/dev/null 2>&1
tap_ok $? "prio-buffer 3:8 is refused (8 buffers)"
tap_is "$("$PY" "$work/dcb_setbuf.py" veth1 0,0,0,8,0,0,0,0 204800,32768,0,0,0,0,0,0)" -22 \
	"... also when sent to the kernel directly"

# --- received PFC frames -----------------------------------------------------------

tap_run "dcb pfc set dev veth1 prio-pfc all:off" dcb pfc set dev veth1 prio-pfc all:off
dmesg -c >/dev/null
pfc_send swp1 0x0101 0x08 1000
_topo_sleep 0.5
tap_is "$(dcbj -s pfc show dev veth1 | jq -c '.indications[3]')" 1 \
	"a PFC frame for priority 3 without PFC on 3: counted, indications[3] 1"
tap_is "$(nlkv veth1 unenforced)" 0 "... but not acted on: pfc_unenforced stays 0"
dcb pfc set dev veth1 prio-pfc 3:on
pfc_send swp1 0x0101 0x0c 1000 3
pfc_send swp1 0x0101 0x08 0
_topo_sleep 0.5
tap_diag "$(dcb -s pfc show dev veth1 2>&1)"
j=$(dcbj -s pfc show dev veth1)
tap_is "$(jq -c '[.indications[3], .indications[2]]' <<<"$j")" "[5,3]" \
	"PFC on 3: 3 XOFF + 1 XON, indications[3] = 1 + 4 ('dcb -s pfc show'); priority 2 (bit set, PFC off) counts its 3 too"
tap_is "$(nlkv veth1 unenforced)" 4 "pfc_unenforced 4: the root qdisc is fq, not rocecc"
tap_cmp "$(dmesg | grep -c 'rocecc: veth1: PFC frame received but the root qdisc is not rocecc: transmission not paused')" -eq 1 \
	"one warning names the device"
pfc_send swp1 0x0001 0 100 2
_topo_sleep 0.5
tap_is "$(nlkv veth1 pause_rx) $(dcbj -s pfc show dev veth1 | jq -c '.indications[3]')" "2 5" \
	"802.3x PAUSE: pause_frames_rx 2, not obeyed (indications unchanged)"
tap_is "$(dcbj -s pfc show dev veth2 | jq -c '.indications | add')" 0 "veth2 saw none of veth1's frames"

# --- PFC generation from host occupancy ----------------------------------------------

# Host 2 receives; DSCP 26 (tclass 104) is priority 3 (DSCP >> 3). Buffer 1
# of 4K with delay 0: headroom 3028, xoff 1068, xon 0: one full RoCE packet
# held by rxe is an XOFF, all released an XON.
dcb pfc set dev veth2 prio-pfc 3:on delay 0 &&
	dcb buffer set dev veth2 prio-buffer 3:1 buffer-size all:0 0:200K 1:4K
tap_ok $? "veth2: PFC on 3, priority 3 in a 4K buffer"
tap_is "$(nlkv veth2 p3.xoff p3.xon)" "1068 0" "veth2: xoff 1068, xon 0"
req0=$(dcbj -s pfc show dev veth2 | jq '.requests[3]')
$S tcpdump -i swp2 -w "$work/gen.pcap" -nn -U 'ether proto 0x8808' >/dev/null 2>"$work/td" &
td=$!
for _ in $(seq 100); do grep -qs "listening on" "$work/td" && break; _topo_sleep 0.1; done
port=18900
dp_rg_server rxe2 "$port" 1 --tclass 104 || tap_bail "server"
srv=$DP_SRV_PID
# ACK timeout 16 (268 ms), not the default 14: the PFC frames this test
# sends and obeys hold the priority's packets in the qdisc for whole pause
# times, which rxe's timer counts (it runs from the hand-over to IP).
dp_rg_client 1 "$port" "$work/c.json" --size 16K --duration 3s --depth 4 --timeout 16 \
	--tclass 104 >"$work/c.out" 2>&1
wait "$srv"
_topo_sleep 1
kill -INT "$td"
wait "$td"
sum=$("$PY" "$work/pfc_pcap.py" "$work/gen.pcap")
kv=$("$PY" "$work/pfc_nl.py" veth2)
tap_diag "capture on swp2: $sum"
tap_diag "veth2: $kv"
tap_diag "rocegen: $(jq -c '{messages: .total.messages, errors: .total.errors}' "$work/c.json" 2>/dev/null)"
tap_diag "$(dcb -s pfc show dev veth2 2>&1)"
req=$(( $(dcbj -s pfc show dev veth2 | jq '.requests[3]') - req0 ))
tap_cmp "$(dp_kv "$sum" xoff3)" -gt 0 "host 2 sent PFC XOFF for priority 3"
tap_cmp "$(dp_kv "$sum" xon3)" -gt 0 "host 2 sent PFC XON for priority 3"
tap_is "$(dp_kv "$sum" quanta_max)" 65535 "XOFF carries 65535 quanta"
tap_is "$(dp_kv "$sum" other_prios) $(dp_kv "$sum" bad_dmac)" "0 0" \
	"only priority 3 in the class-enable vector; to 01:80:c2:00:00:01"
tap_cmp "$req" -eq "$(dp_kv "$sum" frames)" "requests[3] ($req) = PFC frames on the wire"
tap_cmp "$(dp_kv "$kv" p3.occ_max)" -ge 1068 "occupancy of 3 reached xoff ($(dp_kv "$kv" p3.occ_max) bytes)"
tap_is "$(dp_kv "$kv" p3.occ) $(dp_kv "$kv" p3.paused) $(dp_kv "$kv" p0.occ_max)" "0 0 0" \
	"after the traffic: occupancy 0, not paused; priority 0 (PFC off) never measured"
tap_is "$(dp_kv "$kv" tx_errors)" 0 "no PFC frame failed to send"
tap_is "$(dcbj -s pfc show dev veth1 | jq -c '.requests | add')" 0 "host 1 (buffer 32K) sent none"

# --- detach removes the ops ------------------------------------------------------------

tap_run "detach veth1" "$R" dev detach veth1
dcb pfc show dev veth1 >/dev/null 2>"$work/det.err"
st=$?
tap_ok "$([ $st -ne 0 ] && grep -qi "not supported" "$work/det.err"; echo $?)" \
	"after detach: 'dcb pfc show dev veth1' fails ($(cat "$work/det.err"))"
tap_run "re-attach veth1" "$R" dev attach veth1
tap_is "$(dcbj pfc show dev veth1 | jq -c '(.prio_pfc | map(select(.)) | length)')" 0 \
	"nothing survives a detach: PFC off again"

# --- rmmod and device removal under PFC frames and RoCE traffic --------------------

traffic() {
	port=$((port + 1))
	dp_rg_server rxe2 "$port" 1 --tclass 104 || return 1
	SRV=$DP_SRV_PID
	dp_rg_client 1 "$port" "$work/c2.json" --size 16K --duration "$1" --depth 4 \
		--timeout 16 --tclass 104 >"$work/c2.out" 2>&1 &
	CLI=$!
}
tap_diag "[${SECONDS} s] rmmod while PFC frames and RoCE traffic flow"
dcb pfc set dev veth1 prio-pfc 3:on
traffic 6s || tap_bail "rocegen did not start"
pfc_send swp1 0x0101 0x08 100 100000 0.001 &
pfc_send swp2 0x0101 0x08 100 100000 0.001 &
_topo_sleep 2
tap_diag "veth2: $("$PY" "$work/pfc_nl.py" veth2)"
tap_run "rmmod rocecc while PFC frames and RoCE traffic flow" dp_unload
tap_diag "$(dmesg | grep -E 'rocecc: (datapath|unload)' | tail -n 2)"
wait "$CLI" "$SRV"

tap_diag "[${SECONDS} s] ip link del veth2 while PFC frames and RoCE traffic flow"
tap_run "reload rocecc.ko" insmod "$DP_KO"
tap_run "attach veth1, veth2" dp_attach 1 2
dcb pfc set dev veth2 prio-pfc 3:on && dcb buffer set dev veth2 prio-buffer 3:1 buffer-size all:0 0:200K 1:4K
traffic 6s || tap_bail "rocegen did not start"
_topo_sleep 2
tap_diag "veth2: $("$PY" "$work/pfc_nl.py" veth2)"
# rxe holds veth2 until its QPs are destroyed (t_safety.t): stop rocegen.
timeout 60 ip link del veth2 &
del=$!
_topo_sleep 1
kill -INT "$CLI" "$SRV" 2>/dev/null
wait "$CLI" "$SRV"
wait "$del"
tap_ok $? "ip link del veth2 while PFC frames and RoCE traffic flow"
! "$R" dev show | grep -qw veth2
tap_ok $? "veth2 is detached"
tap_run "rmmod rocecc; allocations balance" dp_unload
kill $(jobs -p) 2>/dev/null
wait 2>/dev/null

# --- RoCE packets that no rxe receives: a user's socket on port 4791 -------------------

# With rxe gone (its devices deleted, rdma_rxe unloaded: its socket on
# port 4791 closed), any user may bind 0.0.0.0:4791. RoCEv2 packets of a
# PFC priority then pass the LOCAL_IN hook and go to that socket, which
# frees them without running an skb destructor: they must not count in
# the occupancy (not_rxe counts them), host 1 must not pause its peer,
# and rmmod must finish.
tap_diag "[${SECONDS} s] RoCE packets for a user's socket on port 4791, rxe gone"
tap_run "reload rocecc.ko, attach veth1" sh -c "insmod $DP_KO && $R dev attach veth1"
dcb pfc set dev veth1 prio-pfc 3:on delay 0 &&
	dcb buffer set dev veth1 prio-buffer 3:1 buffer-size all:0 0:200K 1:4K
tap_ok $? "veth1: PFC on 3, priority 3 in a 4K buffer (xoff 1068)"
for l in $(rdma link show 2>/dev/null | awk '$1 == "link" { sub(/\/.*/, "", $2); print $2 }'); do
	rdma link delete "$l"
done
tap_run "rxe gone: its links deleted, rdma_rxe unloaded" rmmod rdma_rxe
setpriv --reuid=65534 --regid=65534 --clear-groups "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 4791))
print("bound", flush=True)
while True:
    s.recv(4096)
    print("got", flush=True)' >"$work/usr.out" 2>&1 &
usr=$!
for _ in $(seq 50); do grep -qs bound "$work/usr.out" && break; _topo_sleep 0.1; done
tap_run "user nobody binds 0.0.0.0:4791" grep -qs bound "$work/usr.out"
# 20 RC SEND ONLY packets of 122 bytes on the wire, DSCP 26 (priority 3)
ip netns exec "$TOPO_NS" "$PY" "$DP_LIB/roce_inject.py" link swp1 \
	"$(ip netns exec "$TOPO_NS" cat /sys/class/net/swp1/address)" \
	"$(cat /sys/class/net/veth1/address)" 10.0.0.2 10.0.0.1 ce 20
_topo_sleep 1
kv=$("$PY" "$work/pfc_nl.py" veth1)
tap_diag "veth1: $kv"
tap_is "$(grep -c got "$work/usr.out")" 20 "the user's socket received the 20 packets"
tap_is "$(dp_kv "$kv" not_rxe) $(dp_kv "$kv" p3.occ) $(dp_kv "$kv" p3.paused)" "20 0 0" \
	"not counted in the occupancy (not_rxe 20, occupancy 0): host 1 does not pause its peer"
kill "$usr"
wait "$usr" 2>/dev/null
rmmod rocecc 2>"$work/rmmod.err" &
rm_pid=$!
for _ in $(seq 100); do [ -d /sys/module/rocecc ] || break; _topo_sleep 0.2; done
! [ -d /sys/module/rocecc ]
tap_ok $? "rmmod rocecc finishes (waited up to 20 s)" ||
	tap_diag "$(cat "$work/rmmod.err"; dmesg | grep 'unload waits' | tail -n 2)"
wait "$rm_pid" 2>/dev/null
dmesg | grep -E "WARNING|BUG|Oops|Call Trace|refcount|unregister_netdevice: waiting" >"$work/dmesg"
[ ! -s "$work/dmesg" ]
tap_ok $? "the kernel log has no warnings" || tap_diag "$(cat "$work/dmesg")"
tap_done
