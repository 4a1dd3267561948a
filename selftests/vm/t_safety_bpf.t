#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# t_safety.t with the BPF datapath engine: bpf/dcqcn.bpf.c loaded, attached
# and detached by roceccd --datapath bpf, no rocecc.ko (lib/dp.sh). One
# script for both engines: this file only chooses the engine.
# Run: scripts/vm --test selftests/vm/t_safety_bpf.t
ROCECC_ENGINE=bpf exec "$(dirname "$0")/t_safety.t"
