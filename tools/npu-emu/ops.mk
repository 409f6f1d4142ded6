# SPDX-License-Identifier: GPL-2.0-only
# ops.mk - targets of the operator code, for tools/npu-emu/Makefile to
# "-include" after its own rules. Uses its NPU_EMU_DIR, OBJDIR, BINDIR, LIB,
# CC, CPPFLAGS, CFLAGS, LDFLAGS and LDLIBS.
#
#   bench-ops: micro-benchmark of the operators ($(BINDIR)/bench-ops)
ifeq ($(NPU_EMU_REAL_PROG),1)
all: $(BINDIR)/bench-ops

# the program builder (tools/include/npu_progbuild.h) sizes its slots by the
# uapi's job buffer limit; the device model itself does not see the uapi
$(OBJDIR)/bench-ops.o: CPPFLAGS += -I$(TOP)/uapi

$(BINDIR)/bench-ops: $(OBJDIR)/bench-ops.o $(LIB) | $(BINDIR)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(OBJDIR)/bench-ops.d
endif
