# SPDX-License-Identifier: GPL-2.0
#
# rocecc top-level build.
#
#   make               build everything: module, userspace, BPF, tests
#   make demo          the main job: the incast demo in the VM testbed
#   make bench         benchmarks: build/bench/results.json, summary.md
#   make check         run every test suite (unit, BPF, VM); non-zero on failure
#   make check-unit    host-side unit suites only (seconds, no VM, no root)
#   make check-vm      the VM suite only (QEMU + soft-RoCE)
#   make check-style   checkpatch --strict and sparse on the kernel code
#   make fuzz          run the parser fuzzer for FUZZ_SECONDS (default 60)
#   make module KDIR=/path/to/kernel/build   build rocecc.ko for another kernel
#   make install       roceccd, rocecc, the systemd unit, the example config,
#                      the man pages (DESTDIR, PREFIX=/usr); the module:
#                      make dkms-install
#
# The module is built against the kernel the VM testbed boots (Debian's
# linux-image-amd64 with linux-headers-amd64), not the host's running kernel.

TOP		:= $(CURDIR)
BUILD		:= $(TOP)/build
VERSION		:= $(shell cat $(TOP)/VERSION)
export TOP BUILD

KVER		?= $(shell $(TOP)/scripts/guest-kver 2>/dev/null)
KDIR		?= /lib/modules/$(KVER)/build
FUZZ_SECONDS	?= 60

# Kernel code we own, for the style checks.
KSRC		:= $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h)) \
		   $(wildcard include/rocecc/*.h) include/uapi/linux/rocecc.h

SUBDIRS_USER	:= bpf daemon selftests/unit selftests/tools selftests/bpf selftests/fuzz bench
SUBDIRS_USER	:= $(foreach d,$(SUBDIRS_USER),$(if $(wildcard $(d)/Makefile),$(d)))

all: deps
	$(MAKE) module
	$(foreach d,$(SUBDIRS_USER),$(MAKE) -C $(d) all &&) true

deps:
	@$(TOP)/scripts/deps.sh

module:
	@test -d "$(KDIR)" || { echo "no kernel build dir '$(KDIR)': run scripts/deps.sh or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules

module-clean:
	$(MAKE) -C $(KDIR) M=$(TOP) clean

check: all
	$(MAKE) check-unit
	$(MAKE) check-style
	$(MAKE) check-vm

check-unit: deps
	$(foreach d,$(SUBDIRS_USER),$(MAKE) -C $(d) check &&) true

check-vm: deps
	$(MAKE) module
	$(foreach d,$(SUBDIRS_USER),$(MAKE) -C $(d) all &&) true
	$(TOP)/selftests/vm/run

# checkpatch.pl ships in Debian's linux-source-6.1 tarball; extract just it.
CHECKPATCH	:= $(BUILD)/checkpatch/scripts/checkpatch.pl
$(CHECKPATCH):
	@$(TOP)/scripts/deps.sh
	mkdir -p $(BUILD)/checkpatch
	tar -xf $$(ls /usr/src/linux-source-6.1.tar.xz | tail -n 1) -C $(BUILD)/checkpatch \
		--strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
	touch $@

# CAMELCASE: without the kernel tree checkpatch cannot know the kernel's own
# names (struct Qdisc, Qdisc_ops), which it seeds from include/ in-tree.
checkpatch: $(CHECKPATCH)
	$(CHECKPATCH) --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,CAMELCASE -f $(KSRC)

# W=1 with warnings as errors, then sparse over every file (C=2).
check-style: deps checkpatch
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 KCFLAGS=-Werror C=2 \
		CHECK="sparse -Wsparse-error" modules

demo:
	$(TOP)/scripts/demo

# Benchmarks (not part of check): bench/README.md. BENCH_VM=0 skips the VM.
bench: all
	$(MAKE) -C bench bench

fuzz: deps
	$(MAKE) -C selftests/fuzz fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

# DKMS: copy the module sources to /usr/src/rocecc-$(VERSION) and register.
DKMS_FILES	:= Kbuild VERSION dkms.conf kmod/Kbuild $(wildcard kmod/*.[ch]) \
		   $(wildcard include/rocecc/*.h) include/uapi/linux/rocecc.h
DKMS_FILES	:= $(filter-out %.mod.c,$(DKMS_FILES))
dkms-install: deps
	@grep -q '^PACKAGE_VERSION="$(VERSION)"$$' dkms.conf || \
		{ echo "dkms.conf: PACKAGE_VERSION differs from VERSION ($(VERSION))" >&2; exit 1; }
	rm -rf /usr/src/rocecc-$(VERSION)
	mkdir -p /usr/src/rocecc-$(VERSION)
	cp --parents $(DKMS_FILES) /usr/src/rocecc-$(VERSION)/
	dkms add rocecc/$(VERSION)
	dkms build rocecc/$(VERSION) -k $(KVER)
	dkms install rocecc/$(VERSION) -k $(KVER)

dkms-remove:
	-dkms remove rocecc/$(VERSION) --all
	rm -rf /usr/src/rocecc-$(VERSION)

# Userspace install. The config is installed only where there is none: an
# upgrade never overwrites an operator's file.
PREFIX		?= /usr
SBINDIR		?= $(PREFIX)/sbin
UNITDIR		?= /lib/systemd/system
SYSCONFDIR	?= /etc
MANDIR		?= $(PREFIX)/share/man
MAN8		:= daemon/rocecc/rocecc.8 daemon/roceccd/roceccd.8
MAN5		:= daemon/roceccd/roceccd.conf.5
install: all
	install -D -m 0755 $(BUILD)/daemon/roceccd $(DESTDIR)$(SBINDIR)/roceccd
	install -D -m 0755 $(BUILD)/daemon/rocecc $(DESTDIR)$(SBINDIR)/rocecc
	sed 's|/usr/sbin/|$(SBINDIR)/|g' daemon/roceccd/roceccd.service >$(BUILD)/roceccd.service
	install -D -m 0644 $(BUILD)/roceccd.service $(DESTDIR)$(UNITDIR)/roceccd.service
	test -e $(DESTDIR)$(SYSCONFDIR)/rocecc/roceccd.conf || \
		install -D -m 0644 daemon/roceccd/roceccd.conf $(DESTDIR)$(SYSCONFDIR)/rocecc/roceccd.conf
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/rocecc/README.md
	install -d $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5
	install -m 0644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	@echo "installed; then: systemctl daemon-reload && systemctl enable --now roceccd"

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/roceccd $(DESTDIR)$(SBINDIR)/rocecc \
		$(DESTDIR)$(UNITDIR)/roceccd.service
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/rocecc
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	@echo "kept /etc/rocecc (your configuration) and /sys/fs/bpf/rocecc (the pinned flow table)"

clean: module-clean
	rm -rf $(BUILD)

.PHONY: all deps module module-clean check check-unit check-vm checkpatch \
	check-style demo bench fuzz dkms-install dkms-remove install uninstall clean
