#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian 12 packages rocecc's build, tests and VM testbed need.
# Idempotent: installs only what is missing, runs apt-get update at most once.
#
#   scripts/deps.sh            install what is missing (root; or via sudo)
#   scripts/deps.sh --check    list what is missing, exit 1 if anything is
set -euo pipefail

PKGS=(
	# build: module against the guest kernels, userspace, BPF. The module is
	# built and tested for Debian 12's 6.1 (linux-*-amd64) and 6.12
	# (linux-*-6.12-amd64, from the security suite); 6.12 writes the
	# module's BTF with pahole (scripts/guest-kver, README "Kernels")
	build-essential make gcc clang llvm pkg-config
	linux-headers-amd64 linux-headers-6.12-amd64 pahole
	linux-source-6.1 sparse dkms
	libbpf-dev bpftool libelf-dev zlib1g-dev
	libibverbs-dev librdmacm-dev libmnl-dev libnl-3-dev libnl-genl-3-dev
	libjson-c-dev libpcap-dev libinih-dev libmicrohttpd-dev
	libcurl4-openssl-dev libsystemd-dev
	# make bench: instruction counts of the hot path
	valgrind
	# tests
	perl jq python3 python3-scapy util-linux
	# the man pages' test: mandoc -T lint, man --warnings (groff)
	mandoc man-db groff-base
	# make demo's plots
	gnuplot-nox
	# roceccd's /metrics in the VM test: fetched with curl, checked with
	# promtool (Debian ships it in prometheus); the fleet rules' and
	# dashboard's tests read YAML
	curl prometheus python3-yaml
	# VM testbed: the guest boots Debian's kernel with the host's root
	linux-image-amd64 linux-image-6.12-amd64
	qemu-system-x86 busybox-static kmod cpio xz-utils zstd file
	rdma-core ibverbs-utils ibverbs-providers perftest iproute2 tshark tcpdump
)

missing=()
for p in "${PKGS[@]}"; do
	[[ $p == \#* ]] && continue
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ $st == ii* ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
	exit 0
fi
if [[ ${1:-} == --check ]]; then
	echo "missing packages: ${missing[*]}"
	exit 1
fi

echo "deps: installing ${missing[*]}" >&2
SUDO=
if [[ $(id -u) -ne 0 ]]; then
	command -v sudo >/dev/null || {
		echo "deps: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
		exit 1
	}
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; the answer does not matter here.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	$SUDO debconf-set-selections
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
# We want only promtool from the prometheus package: a server that its
# installation started on a systemd host is stopped and disabled again.
if [[ " ${missing[*]} " == *" prometheus "* ]] && [[ -d /run/systemd/system ]]; then
	echo "deps: prometheus was installed for promtool only; stopping and disabling its service" >&2
	$SUDO systemctl disable --now prometheus.service >/dev/null 2>&1 || true
fi
