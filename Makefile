# SPDX-License-Identifier: GPL-2.0-only
#
# Top-level Makefile of the NPU stack. See README.md and
# Documentation/npu/user-guide.rst.
#
#   make [all]        userspace components and npu.ko for every tested kernel
#   make modules      npu.ko per kernel, in build/kmod/VERSION/npu.ko, with
#                     module BTF (build/kbtf/VERSION: see kbtf/% below)
#   make check        all, then host and VM test suites; last line
#                     "N passed, N failed"
#   make check-host   host suites only (build/tests/*)
#   make check-vm     VM suites only (build/vmtests/* in npu-vm, per kernel)
#   make check-debug  VM suites on the debug kernel only (KASAN, lockdep,
#                     kmemleak, fail-nth; see Documentation/npu/testing.rst)
#   make debug-kernel build the debug kernel into its cache (long: see there)
#   make checkpatch   checkpatch.pl --strict on the driver
#   make demo         profile MobileNet-v1 in the VM; the summary, breakdown,
#                     Chrome trace and SQLite database on the host
#   make bench        run tools/*/bench scripts
#   make clean        remove build outputs (keeps build/linux-src)
#   make man          man pages, from the tools' --help and the headers
#   make install      libraries, headers, pkg-config files, tools, man pages,
#                     udev rule and the driver's source for DKMS
#   make uninstall    remove what make install installed
#
# Variables: BUILD (output directory, default ./build), KERNELS (versions or
# series to build and test, default: scripts/kernels.sh; npu.ko is also
# built for the debug kernel when scripts/debug-kernel.sh has built it);
# check and check-vm run the VM suites on the debug kernel too when it is
# cached (CHECK_DEBUG=0 leaves it out; make check-debug runs them there
# alone: Documentation/npu/testing.rst); for install and
# uninstall PREFIX (default /usr/local), DESTDIR (see packaging/Makefile).
# Dependencies are not installed by make: run scripts/deps.sh first.

SHELL := /bin/bash
ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD ?= $(ROOT)/build
override BUILD := $(abspath $(BUILD))
export BUILD

# Userspace components, libraries first. A directory without a Makefile is
# skipped, so the tree builds while components are being written. Other
# directories with a Makefile are found and built after these.
ORDER := lib/npuprof lib/analysis lib/npuref lib/npu tools/npu-emu tools/npu-model \
	tools/npu-info tools/npu-classify tools/npuprof tools/bpf
FOUND := $(patsubst $(ROOT)/%/Makefile,%,$(wildcard $(ROOT)/lib/*/Makefile \
	$(ROOT)/tools/*/Makefile $(ROOT)/selftests/*/Makefile \
	$(ROOT)/selftests/host/*/Makefile))
COMPONENTS := $(ORDER) $(sort $(filter-out $(ORDER),$(FOUND)))

# Kernels, resolved when a target needs them.
KERNELS ?=
KVERS = $(shell $(ROOT)/scripts/kernels.sh $(KERNELS))
# The debug kernel, when it is built and KERNELS is not given: npu.ko is
# built for it and the VM suites of make check run on it too.
DEBUG_KVER = $(if $(KERNELS),,$(shell $(ROOT)/scripts/kernels.sh --debug))

CHECK_DEBUG ?= 1

CHECKPATCH := $(BUILD)/linux-src/scripts/checkpatch.pl

.PHONY: all userspace modules check check-host check-vm check-debug \
	debug-kernel checkpatch demo \
	bench clean help man install uninstall FORCE

all: userspace modules man

help:
	@sed -n '3,/^$$/p' $(ROOT)/Makefile | sed -n 's/^# \{0,1\}//p'

# A failing component does not stop the others; the target fails at the end.
userspace:
	@failed=; for d in $(COMPONENTS); do \
		if [ -f "$(ROOT)/$$d/Makefile" ]; then \
			echo "=== $$d"; \
			$(MAKE) -C "$(ROOT)/$$d" BUILD="$(BUILD)" all || failed="$$failed $$d"; \
		fi; \
	done; \
	if [ -n "$$failed" ]; then echo "=== build failed in:$$failed" >&2; exit 1; fi

# npu.ko per kernel: build/kmod/VERSION is a tree of real directories holding
# symlinks to Kbuild, the files of driver/ and uapi/ and the hardware
# contract include/npu/npu_hw.h, so kbuild writes its
# objects there and never into the source tree.
modules:
	@if [ ! -f "$(ROOT)/Kbuild" ]; then \
		echo "warning: no Kbuild yet: npu.ko not built" >&2; \
	else \
		vers="$(KVERS) $(DEBUG_KVER)"; \
		[ -n "$${vers// }" ] || { echo "no kernel to build for (run scripts/deps.sh)" >&2; exit 1; }; \
		$(MAKE) -f $(ROOT)/Makefile $$(for v in $$vers; do echo "kmod/$$v"; done); \
	fi

kmod/%: FORCE
	@echo "=== npu.ko for $*"
	@set -e; \
	root=$$($(ROOT)/scripts/kernels.sh --root $* 2>/dev/null) || root=; \
	kdir=$$root/lib/modules/$*/build; \
	[ -d "$$kdir" ] || { echo "$$kdir missing (run scripts/deps.sh)" >&2; exit 1; }; \
	out="$(BUILD)/kmod/$*"; \
	mkdir -p "$$out"; \
	ln -sfn "$(ROOT)/Kbuild" "$$out/Kbuild"; \
	cd "$(ROOT)"; \
	for d in driver uapi include/npu/npu_hw.h; do \
		mkdir -p "$$out/$$(dirname $$d)"; \
		find "$$d" -type d -exec mkdir -p "$$out/{}" \; ; \
		find "$$d" -type f \( -name '*.[ch]' -o -name Kbuild -o -name '*.S' \) \
			-exec ln -sfn "$(ROOT)/{}" "$$out/{}" \; ; \
	done; \
	find "$$out" -xtype l -delete; \
	btf=; \
	if [ -z "$$root" ] && [ ! -e "$$kdir/vmlinux" ]; then \
		$(MAKE) -f $(ROOT)/Makefile --no-print-directory kbtf/$*; \
		kdir=$(BUILD)/kbtf/$*/kbuild; \
		[ -x "$$kdir/tools/bpf/resolve_btfids/resolve_btfids" ] || btf=RESOLVE_BTFIDS=true; \
	fi; \
	$(MAKE) -C "$$kdir" M="$$out" $$btf modules

# Module BTF (tp_btf and fentry programs on npu.ko) needs the kernel's
# vmlinux in the kbuild tree; Debian's 6.1 headers have none. kbtf/VERSION
# is a tree of symlinks to /lib/modules/VERSION/build plus the vmlinux that
# the kernel's scripts/extract-vmlinux takes out of /boot/vmlinuz-VERSION
# (shared with tools/bpf, whose vmlinux.h comes from it). pahole is from
# dwarves; Debian's kbuild lacks resolve_btfids, which the BTF of a module
# does not need: RESOLVE_BTFIDS=true then (without it the build deletes
# the .ko). See Documentation/npu/bpf.rst.
kbtf/%: FORCE
	@set -e; \
	kdir=/lib/modules/$*/build; tree=$(BUILD)/kbtf/$*; \
	x=$(BUILD)/linux-src/scripts/extract-vmlinux; \
	[ -x "$$x" ] || BUILD=$(BUILD) $(ROOT)/scripts/deps.sh --no-install; \
	mkdir -p "$$tree/kbuild"; \
	if [ ! -s "$$tree/vmlinux" ] || [ /boot/vmlinuz-$* -nt "$$tree/vmlinux" ]; then \
		echo "  EXTRACT $$tree/vmlinux"; \
		"$$x" /boot/vmlinuz-$* > "$$tree/vmlinux.tmp"; \
		mv "$$tree/vmlinux.tmp" "$$tree/vmlinux"; \
	fi; \
	for f in "$$kdir"/* "$$kdir"/.config "$$kdir"/.kernelvariables; do \
		ln -sfn "$$f" "$$tree/kbuild/$${f##*/}"; \
	done; \
	ln -sfn ../vmlinux "$$tree/kbuild/vmlinux"

# packaging/Makefile: man pages, install, uninstall. It builds what it
# installs itself; `make man` waits for the components of `make all`.
man: userspace
	@$(MAKE) --no-print-directory -C $(ROOT)/packaging BUILD="$(BUILD)" man

install uninstall:
	@$(MAKE) --no-print-directory -C $(ROOT)/packaging BUILD="$(BUILD)" $@

# The check targets build first; a build failure counts as one failed test
# and whatever was built is still tested, so the last line is always
# "N passed, N failed".
check check-vm:
	@$(MAKE) --no-print-directory -f $(ROOT)/Makefile all; \
	NPU_BUILD_STATUS=$$? \
	NPU_KERNELS="$(KVERS) $(if $(filter 1,$(CHECK_DEBUG)),$(DEBUG_KVER))" \
		$(ROOT)/scripts/check.sh $(if $(filter check,$@),all,vm)

# The debug kernel must be built (make debug-kernel); only its npu.ko and
# the userspace are built here.
check-debug:
	@kver=$$($(ROOT)/scripts/kernels.sh debug) || exit 1; \
	$(MAKE) --no-print-directory -f $(ROOT)/Makefile userspace kmod/$$kver; \
	NPU_BUILD_STATUS=$$? NPU_KERNELS="$$kver" $(ROOT)/scripts/check.sh vm

debug-kernel:
	@$(ROOT)/scripts/debug-kernel.sh

check-host:
	@$(MAKE) --no-print-directory -f $(ROOT)/Makefile userspace; \
	NPU_BUILD_STATUS=$$? $(ROOT)/scripts/check.sh host

# Per-file exceptions, each inherent to the file's role:
# npu_compat.h is where kernel version tests belong. npu_hw.h, what the
# driver and the device exchange, needs none.
CHECKPATCH_IGNORE_npu_compat.h := LINUX_VERSION_CODE,CONSTANT_COMPARISON
CHECKPATCH_IGNORE_npu_hw.h :=

checkpatch:
	@[ -x "$(CHECKPATCH)" ] || { echo "$(CHECKPATCH) missing (run scripts/deps.sh)" >&2; exit 1; }
	@cd $(ROOT) && rc=0 && n=0 && \
	for f in driver/*.c driver/*.h include/npu/npu_hw.h; do \
		[ -f "$$f" ] || continue; \
		n=$$((n + 1)); \
		case "$${f##*/}" in \
		npu_compat.h) ign="$(CHECKPATCH_IGNORE_npu_compat.h)" ;; \
		npu_hw.h) ign="$(CHECKPATCH_IGNORE_npu_hw.h)" ;; \
		*) ign= ;; \
		esac; \
		$(CHECKPATCH) --no-tree --strict --terse --show-types --no-summary \
			$${ign:+--ignore $$ign} -f "$$f" || rc=1; \
	done; \
	if [ $$rc -eq 0 ]; then echo "checkpatch: $$n files clean"; \
	else echo "checkpatch: problems found" >&2; fi; \
	exit $$rc

demo: all
	@$(ROOT)/scripts/demo.sh

bench: all
	@$(ROOT)/scripts/bench.sh

clean:
	@if [ -d "$(BUILD)" ]; then \
		find "$(BUILD)" -mindepth 1 -maxdepth 1 ! -name linux-src \
			-exec rm -rf {} +; \
	fi

FORCE:
