# SPDX-License-Identifier: GPL-2.0-only
#
# vm.mk - what the Makefiles of the VM kselftests share (the suites whose
# binaries run in the npu-vm guest: selftests/npuprof, npuprof-op, bpf,
# npu-dram).
# A Makefile sets HERE, includes this file, then sets BINS (what it builds
# into OUT) and adds "all: $(BINS)" and its rules. It may add to CFLAGS.
#
# Provides:
#   TOP, BUILD, OUT ($(BUILD)/vmtests), KSFT, HARNESS   directories, the
#                                     kselftest harness (extracted by
#                                     scripts/deps.sh --no-install)
#   CC, CFLAGS, LDFLAGS               static binaries (the guest has no
#                                     library path) built with the harness,
#                                     the uapi and include/
#   LIBNPU, LIBNPUPROF, LIBANALYSIS   the static libraries, made by their
#                                     own Makefiles
#   $(OUT)/NAME.npu-vm                the npu-vm options VM_OPTS_NAME of
#                                     test NAME, for a guest of its own
#                                     (scripts/check.sh)
#   all, check, clean                 check only builds: scripts/check.sh
#                                     runs $(OUT) in the VM

VM_MK := $(abspath $(lastword $(MAKEFILE_LIST)))
TOP := $(abspath $(dir $(VM_MK))/..)
BUILD ?= $(TOP)/build
override BUILD := $(abspath $(BUILD))
OUT := $(BUILD)/vmtests
KSFT := $(BUILD)/linux-src/tools/testing/selftests
HARNESS := $(KSFT)/kselftest_harness.h

CC ?= cc
CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread -D_GNU_SOURCE \
	  -I$(KSFT) -I$(TOP)/uapi -I$(TOP)/include
# The harness's macros trip these under -Wextra.
CFLAGS += -Wno-sign-compare -Wno-unused-parameter
LDFLAGS := -static -pthread

LIBNPU := $(BUILD)/lib/libnpu.a
LIBNPUPROF := $(BUILD)/lib/libnpuprof.a
LIBANALYSIS := $(BUILD)/lib/libnpuprof-analysis.a

all:

check: all

# libnpu's Makefile makes libnpuprof first
$(LIBNPU): FORCE
	$(MAKE) -C $(TOP)/lib/npu BUILD=$(BUILD) all

$(LIBNPUPROF): $(LIBNPU)

$(LIBANALYSIS): FORCE
	$(MAKE) -C $(TOP)/lib/analysis BUILD=$(BUILD) all

$(OUT)/%.npu-vm: $(HERE)/Makefile | $(OUT)
	printf '%s\n' '$(VM_OPTS_$*)' >$@

$(OUT):
	mkdir -p $@

$(HARNESS):
	@echo "$@ is missing; extracting it with scripts/deps.sh --no-install" >&2
	BUILD=$(BUILD) $(TOP)/scripts/deps.sh --no-install
	@test -f $@ || { echo "$@: still missing after scripts/deps.sh" >&2; exit 1; }

clean:
	rm -f $(BINS)

FORCE:

.PHONY: all check clean FORCE
