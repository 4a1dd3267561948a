#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make install" into a scratch tree: every file lands (the man pages
# too), the systemd unit passes systemd-analyze verify and runs the
# installed binaries, the installed example configuration is valid,
# installing again keeps an operator's edited configuration, and
# "make uninstall" removes every installed file. TAP; run by
# "make -C selftests/unit/daemon check".
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
root=$(mktemp -d /tmp/rocecc_install.XXXXXX)
trap 'rm -rf "$root"' EXIT
n=0 failed=0
ok() {	# ok STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}
inst() {
	make -s -C "$top" install PREFIX="$root/usr" UNITDIR="$root/unit" \
		SYSCONFDIR="$root/etc" >"$root/make.log" 2>&1
}

inst
ok $? "make install into $root" || cat "$root/make.log" | sed 's/^/# /'
for f in usr/sbin/roceccd usr/sbin/rocecc unit/roceccd.service \
	 etc/rocecc/roceccd.conf usr/share/doc/rocecc/README.md \
	 usr/share/man/man8/rocecc.8 usr/share/man/man8/roceccd.8 \
	 usr/share/man/man5/roceccd.conf.5; do
	[ -s "$root/$f" ]
	ok $? "installed $f"
done
grep -q "^ExecStart=$root/usr/sbin/roceccd --foreground$" "$root/unit/roceccd.service"
ok $? "the unit runs the installed roceccd in the foreground (Type=notify)"
grep -q '^Type=notify$' "$root/unit/roceccd.service"
ok $? "the unit is Type=notify"
grep -qx 'CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_NET_ADMIN' "$root/unit/roceccd.service"
ok $? "the unit's capabilities are CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN (roceccd(8))"
if command -v systemd-analyze >/dev/null; then
	# it also runs man for the unit's Documentation= pages: the installed ones
	out=$(MANPATH="$root/usr/share/man" systemd-analyze verify "$root/unit/roceccd.service" 2>&1)
	ok $? "systemd-analyze verify roceccd.service"
	[ -n "$out" ] && echo "$out" | sed 's/^/# /'
	# the sandbox (roceccd(8) SANDBOX): 7.1 before it, 2.0 with it
	out=$(systemd-analyze security --offline=yes "$root/unit/roceccd.service" 2>&1)
	score=$(sed -n 's/.*Overall exposure level for roceccd.service: \([0-9.]*\).*/\1/p' <<<"$out")
	awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 <= 2.0) }'
	ok $? "systemd-analyze security: exposure ${score:-?} of 10, at most 2.0" ||
		echo "$out" | grep '✗' | sed 's/^/# /'
else
	echo "ok $((n += 1)) # SKIP systemd-analyze not installed"
fi
out=$("$root/usr/sbin/roceccd" --check-config -c "$root/etc/rocecc/roceccd.conf" 2>&1)
ok $? "the installed example configuration is valid"
echo "$out" | grep -q '^attach = no$'
ok $? "... and attaches nothing by default"
MANPATH="$root/usr/share/man" man -w roceccd.conf >/dev/null 2>&1
ok $? "man finds the installed roceccd.conf(5)"
echo "# operator's edit" >>"$root/etc/rocecc/roceccd.conf"
inst
ok $? "make install again"
tail -n 1 "$root/etc/rocecc/roceccd.conf" | grep -q "operator's edit"
ok $? "installing again keeps the edited configuration"
make -s -C "$top" uninstall PREFIX="$root/usr" UNITDIR="$root/unit" \
	SYSCONFDIR="$root/etc" >"$root/make.log" 2>&1
ok $? "make uninstall"
left=$(cd "$root" && find usr unit -type f | sort | tr '\n' ' ')
[ -z "$left" ]
ok $? "make uninstall leaves no installed file behind${left:+ (left: $left)}"
echo "1..$n"
exit $failed
