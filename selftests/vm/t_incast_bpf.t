#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# t_incast.t with the BPF datapath engine: bpf/dcqcn.bpf.c loaded, attached
# and detached by roceccd, no rocecc.ko (lib/dp.sh). One script for both
# engines: this file only chooses the engine.
# Run: scripts/vm --test selftests/vm/t_incast_bpf.t
ROCECC_ENGINE=bpf exec "$(dirname "$0")/t_incast.t"
