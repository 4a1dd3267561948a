# SPDX-License-Identifier: GPL-2.0
#
# rocecc top-level build.
#
#   make               build everything: module, userspace, BPF, tests
#   make demo          the main job: the incast demo in the VM testbed
#   make bench         benchmarks: build/bench/results.json, summary.md
#   make check         run every test suite (unit, BPF, style, the VM suite
#                      on 6.1 and its CI subset on 6.12); non-zero on failure
#   make check-unit    host-side unit suites only (seconds, no VM, no root)
#   make check-vm      the VM suite only (QEMU + soft-RoCE), on the guest
#                      kernel ROCECC_GUEST (6.1, default, or 6.12); VM_TESTS=
#                      names a list of tests instead of all
#   make check-vm-ci   check-vm on 6.1 and the CI subset on 6.12
#   make check-vm-all  the whole VM suite on every supported kernel
#   make check-style   checkpatch --strict, W=1 and sparse on the kernel code,
#                      for every supported kernel installed (or KVERS=...)
#   make fuzz          run the parser fuzzer for FUZZ_SECONDS (default 60)
#   make fuzz-http     roceccd's HTTP fuzz, 10,000 requests a run (VM)
#   make fuzz-genl     rocecc.ko's generic netlink fuzz, 1,000,000 messages (VM)
#   make module        rocecc.ko for the guest kernel ROCECC_GUEST, or KVER=
#                      <release> (KDIR=/path/to/kernel/build for any other)
#   make modules       rocecc.ko for every supported kernel installed
#   make install       roceccd, rocecc, the systemd unit, the example config,
#                      the man pages (DESTDIR, PREFIX=/usr); the module:
#                      make dkms-install
#
# The module is built against the kernels the VM testbed boots (Debian 12's
# 6.1, linux-image-amd64, and 6.12, linux-image-6.12-amd64, with their
# headers; scripts/guest-kver), never the host's running kernel. Each
# kernel's objects live apart, in build/kmod/<release>/ (kmod/rocecc.ko
# there), so that a guest loads the module built for it.

TOP		:= $(CURDIR)
BUILD		:= $(TOP)/build
VERSION		:= $(shell cat $(TOP)/VERSION)
export TOP BUILD

# The guest kernel: a series (6.1, 6.12) or, through KVER, a release.
ROCECC_GUEST	?= 6.1
export ROCECC_GUEST
KVER		?= $(shell $(TOP)/scripts/guest-kver $(ROCECC_GUEST) 2>/dev/null)
KDIR		?= /lib/modules/$(KVER)/build
# Every supported kernel that is installed (make modules, check-style).
KVERS		?= $(shell $(TOP)/scripts/guest-kver --all 2>/dev/null)
# Where a kernel's objects go: build/kmod/<release> (for a KDIR given
# alone, the name of its directory).
kobj		= $(BUILD)/kmod/$(notdir $(patsubst %/build,%,$(1)))
FUZZ_SECONDS	?= 60

# Kernel code we own, for the style checks.
KSRC		:= $(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h)) \
		   $(wildcard include/rocecc/*.h) include/uapi/linux/rocecc.h

SUBDIRS_USER	:= bpf daemon selftests/unit selftests/tools selftests/bpf selftests/fuzz bench
SUBDIRS_USER	:= $(foreach d,$(SUBDIRS_USER),$(if $(wildcard $(d)/Makefile),$(d)))

all: deps
	$(MAKE) modules
	$(foreach d,$(SUBDIRS_USER),$(MAKE) -C $(d) all &&) true

deps:
	@$(TOP)/scripts/deps.sh

# A kernel's build tree: links to the sources (Kbuild writes its objects
# next to the files it compiles, and 6.1's Kbuild has no separate output
# directory for external modules), remade on every build so that added
# and removed files follow.
KMOD_SRC	= Kbuild VERSION include $(filter-out %.mod.c,$(wildcard kmod/*.[ch])) kmod/Kbuild
kmod_tree	= mkdir -p $(1)/kmod && find $(1) -maxdepth 2 -type l -delete && \
		  for f in $(KMOD_SRC); do ln -s $(TOP)/$$f $(1)/$$f || exit 1; done

module:
	@test -d "$(KDIR)" || { echo "no kernel build dir '$(KDIR)': run scripts/deps.sh, or set ROCECC_GUEST, KVER or KDIR" >&2; exit 1; }
	@$(call kmod_tree,$(call kobj,$(KDIR)))
	$(MAKE) -C $(KDIR) M=$(call kobj,$(KDIR)) W=1 modules

modules:
	@test -n "$(KVERS)" || { echo "no supported kernel installed: run scripts/deps.sh" >&2; exit 1; }
	$(foreach k,$(KVERS),$(MAKE) module KVER=$(k) KDIR=/lib/modules/$(k)/build &&) true

module-clean:
	rm -rf $(BUILD)/kmod

check: all
	$(MAKE) check-unit
	$(MAKE) check-style
	$(MAKE) check-vm-ci

check-unit: deps
	$(foreach d,$(SUBDIRS_USER),$(MAKE) -C $(d) check &&) true

check-vm: deps
	$(MAKE) module
	$(foreach d,$(SUBDIRS_USER),$(MAKE) -C $(d) all &&) true
	$(TOP)/selftests/vm/run $(VM_TESTS)

# What CI runs: the whole suite on 6.1, the subset selftests/vm/ci-6.12 on
# 6.12 (both runs always; the target fails if either did).
check-vm-ci: deps
	rc=0; \
	$(MAKE) check-vm ROCECC_GUEST=6.1 || rc=1; \
	$(MAKE) check-vm ROCECC_GUEST=6.12 \
		VM_TESTS="$$($(TOP)/selftests/vm/run --list selftests/vm/ci-6.12 | tr '\n' ' ')" || rc=1; \
	for f in $(BUILD)/vm-logs/failures-6.1.txt $(BUILD)/vm-logs/failures-6.12.txt; do \
		[ ! -s $$f ] || { echo "# $$f:"; sed 's/^/# /' $$f; }; \
	done; \
	exit $$rc

# The whole suite on every supported kernel.
check-vm-all: deps
	rc=0; \
	$(foreach s,$(shell $(TOP)/scripts/guest-kver --series),$(MAKE) check-vm ROCECC_GUEST=$(s) || rc=1;) \
	exit $$rc

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
# kmod/kcompat.h is where the kernel version is tested (and only there:
# the grep fails the check if LINUX_VERSION_CODE appears in another file).
KCOMPAT		:= kmod/kcompat.h
checkpatch: $(CHECKPATCH)
	$(CHECKPATCH) --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,CAMELCASE -f $(filter-out $(KCOMPAT),$(KSRC))
	$(CHECKPATCH) --strict --no-tree --terse --show-types \
		--ignore FILE_PATH_CHANGES,CAMELCASE,LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f $(KCOMPAT)
	@! grep -n 'LINUX_VERSION_CODE\|ROCECC_KERNEL_SINCE' $(filter-out $(KCOMPAT),$(KSRC)) || \
		{ echo "kernel version tests belong in $(KCOMPAT)" >&2; false; }

# W=1 with warnings as errors, then sparse over every file (C=2), for
# every supported kernel installed (KVERS="..." picks).
check-style: deps checkpatch
	@test -n "$(KVERS)" || { echo "no supported kernel installed: run scripts/deps.sh" >&2; exit 1; }
	$(foreach k,$(KVERS),$(call kmod_tree,$(call kobj,/lib/modules/$(k)/build)) && \
		$(MAKE) -C /lib/modules/$(k)/build M=$(call kobj,/lib/modules/$(k)/build) \
		W=1 KCFLAGS=-Werror C=2 CHECK="sparse -Wsparse-error" modules &&) true

demo:
	$(TOP)/scripts/demo

# Benchmarks (not part of check): bench/README.md. BENCH_VM=0 skips the VM.
bench: all
	$(MAKE) -C bench bench

fuzz: deps
	$(MAKE) -C selftests/fuzz fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

# roceccd's HTTP fuzz at length: 10,000 requests a run in the VM (the VM
# suite runs 2,000); ROCECC_HTTP_FUZZ_SEED=S replays a run
FUZZ_HTTP_N	?= 10000
fuzz-http: all
	ROCECC_HTTP_FUZZ_N=$(FUZZ_HTTP_N) ROCECC_HTTP_FUZZ_DEADLINE=1500 \
		ROCECC_VM_TIMEOUT=3600 \
		$(TOP)/selftests/vm/run selftests/vm/t_roceccd_http.t

# rocecc.ko's generic netlink fuzz at length: 1,000,000 messages in the VM
# under traffic (the VM suite runs 100,000); ROCECC_GENL_FUZZ_SEED=S replays
FUZZ_GENL_N	?= 1000000
fuzz-genl: all
	ROCECC_GENL_FUZZ_N=$(FUZZ_GENL_N) ROCECC_VM_TIMEOUT=3600 \
		$(TOP)/selftests/vm/run selftests/vm/t_genl_fuzz.t

# DKMS: copy the module sources to /usr/src/rocecc-$(VERSION), register
# them and build and install the module for every supported kernel
# installed (KVERS="..." picks; dkms.conf refuses any other kernel).
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
	$(foreach k,$(KVERS),dkms build rocecc/$(VERSION) -k $(k) && \
		dkms install rocecc/$(VERSION) -k $(k) &&) true

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

.PHONY: all deps module modules module-clean check check-unit check-vm \
	check-vm-ci check-vm-all checkpatch \
	check-style demo bench fuzz fuzz-http fuzz-genl dkms-install dkms-remove install uninstall clean
