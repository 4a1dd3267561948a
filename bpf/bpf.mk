# SPDX-License-Identifier: GPL-2.0
# How rocecc builds BPF objects and their libbpf skeletons, included by
# bpf/Makefile (the programs) and selftests/bpf/Makefile (test programs).
# The includer sets TOP and OUT and gives the pattern rule's sources.
#
# clang -target bpf, no vmlinux.h: the programs use the uapi headers of
# the build host (linux-libc-dev) and CO-RE is not needed. The objects keep
# their BTF (maps, bpf_spin_lock, line info for verifier messages) and lose
# the DWARF, which only fattens the skeletons.

CC		?= cc
CLANG		?= clang
LLVM_STRIP	?= llvm-strip
BPFTOOL		?= bpftool

BPF_MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null)
BPF_CFLAGS	:= -target bpf -O2 -g -Wall -Wextra -Werror \
		   -I$(TOP)/include -I$(TOP)/bpf \
		   $(if $(BPF_MULTIARCH),-I/usr/include/$(BPF_MULTIARCH))
BPF_HDRS	:= $(wildcard $(TOP)/include/rocecc/*.h) $(wildcard $(TOP)/bpf/*.h)

# $(call bpf_compile,<source>,<object>)
define bpf_compile
	$(CLANG) $(BPF_CFLAGS) -c $(1) -o $(2).tmp
	$(LLVM_STRIP) -g $(2).tmp
	mv $(2).tmp $(2)
endef

# $(call bpf_skeleton,<object>,<header>,<name>)
define bpf_skeleton
	$(BPFTOOL) gen skeleton $(1) name $(3) > $(2).tmp
	mv $(2).tmp $(2)
endef
