# SPDX-License-Identifier: GPL-2.0-only
#
# common.mk - the part every host test Makefile (selftests/host/*/Makefile)
# shares. A test Makefile sets TEST_OBJ (its object directory below
# $(BUILD)/obj) and includes this file first; it then sets BINS (the test
# binaries `check` runs, in order) and adds its own rules. It may add to
# CPPFLAGS, CFLAGS and LDLIBS.
#
# Provides:
#   TOP, BUILD, OBJDIR, TESTDIR, KSFT    directories
#   CC, CPPFLAGS, CFLAGS, LDLIBS         flags of sanitized test code
#   SAN, TEST_CFLAGS                     the sanitizer flags, the rest
#   HARNESS                              order-only prerequisite of every
#                                        object that includes the harness
#   EMU_DIR, EMU_PROG_OBJS, EMU_LIB_OBJS tools/npu-emu compiled once with
#                                        the sanitizers, shared by all
#                                        test directories
#   EMU_CPPFLAGS                         what code including the emulator's
#                                        headers adds to CPPFLAGS (the
#                                        device's side, include/npu/npu_hw.h)
#   $(BUILD)/lib/libnpu.a, libnpuref.a   made by their own Makefiles
#   FUZZ_CC, FUZZ_CFLAGS                 libFuzzer targets (clang, with
#                                        ASan and UBSan); a directory adds
#                                        its -I and -D
#   INSTALL_SCRIPT                       recipe: the script $< as $@, its
#                                        @BUILD@ and @SRC@ replaced by
#                                        BUILD and TOP, executable
#   all, check, clean
#
# The libFuzzer targets of a directory run with fuzz-runner.sh (beside
# this file), which the directory's run-fuzz.sh sources.
#
# Every component builds from an empty build directory: the libraries come
# from their Makefiles, and the kselftest harness is extracted by
# scripts/deps.sh --no-install, which fails with a clear message when a
# package is missing.

HOST_TESTS := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TOP := $(abspath $(HOST_TESTS)/../..)
BUILD ?= $(TOP)/build
override BUILD := $(abspath $(BUILD))

OBJDIR := $(BUILD)/obj/$(TEST_OBJ)
TESTDIR := $(BUILD)/tests
KSFT := $(BUILD)/linux-src/tools/testing/selftests
HARNESS := $(KSFT)/kselftest_harness.h
EMU_DIR := $(TOP)/tools/npu-emu
EMU_CPPFLAGS := -I$(EMU_DIR)

CC ?= cc
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
TEST_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -g -pthread
# the harness's own macros trip these
TEST_CFLAGS += -Wno-sign-compare -Wno-unused-parameter \
	-Wno-misleading-indentation
CFLAGS := $(TEST_CFLAGS) $(SAN)
# the uapi, the program format (include/npu) and the test helpers; not the
# driver's headers, which only the device's side needs (EMU_CPPFLAGS)
CPPFLAGS := -D_GNU_SOURCE -I$(TOP)/uapi -I$(TOP)/include -I$(TOP)/tools/include \
	-I$(KSFT)
LDLIBS := -pthread -lm

FUZZ_CC ?= clang
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -pthread

INSTALL_SCRIPT = sed -e 's|@BUILD@|$(BUILD)|g' -e 's|@SRC@|$(TOP)|g' $< >$@.tmp && \
	chmod 0755 $@.tmp && mv $@.tmp $@

all:

.PHONY: all check clean FORCE
.SECONDARY:
.DELETE_ON_ERROR:

$(OBJDIR) $(TESTDIR):
	mkdir -p $@

$(HARNESS):
	@echo "$@ is missing; extracting it with scripts/deps.sh --no-install" >&2
	BUILD=$(BUILD) $(TOP)/scripts/deps.sh --no-install
	@test -f $@ || { echo "$@: still missing after scripts/deps.sh" >&2; exit 1; }

# tools/npu-emu with the sanitizers, once for every test directory: the
# interpreter (program.c, ops*.c) and the rest of the device model
NPU_EMU_DIR := $(EMU_DIR)
include $(EMU_DIR)/sources.mk
EMU_OBJDIR := $(BUILD)/obj/emu-san
EMU_PROG_OBJS := $(addprefix $(EMU_OBJDIR)/,$(NPU_EMU_PROG_SRCS:.c=.o))
EMU_LIB_OBJS := $(addprefix $(EMU_OBJDIR)/,$(NPU_EMU_LIB_SRCS:.c=.o))
# every object follows the emulator's own headers even without its .d file
# (struct npu_emu's layout must agree across them), as tools/npu-emu's do
$(EMU_PROG_OBJS) $(EMU_LIB_OBJS): $(NPU_EMU_HDRS)

$(EMU_OBJDIR):
	mkdir -p $@

$(EMU_OBJDIR)/%.o: $(EMU_DIR)/%.c | $(EMU_OBJDIR)
	$(CC) -D_GNU_SOURCE $(EMU_CPPFLAGS) -I$(TOP)/include \
		-I$(TOP)/tools/include $(CFLAGS) -MMD -MP -c -o $@ $<

# the libraries, from their own Makefiles (which know when to do nothing)
$(BUILD)/lib/libnpu.a: FORCE
	$(MAKE) -C $(TOP)/lib/npu BUILD=$(BUILD) all

$(BUILD)/lib/libnpuref.a: FORCE
	$(MAKE) -C $(TOP)/lib/npuref BUILD=$(BUILD) all

FORCE:

# every binary runs even when an earlier one failed
check: all
	@fail=0; for t in $(BINS); do \
		echo "# running $$t"; \
		$$t || fail=1; \
	done; exit $$fail

clean:
	rm -rf $(OBJDIR) $(BINS) $(CLEAN)

-include $(wildcard $(OBJDIR)/*.d $(EMU_OBJDIR)/*.d)
