# SPDX-License-Identifier: GPL-2.0-only
# Sources of the npu-emu library, shared by tools/npu-emu/Makefile and
# selftests/host/common.mk (the host tests compile them once more, with the
# sanitizers). NPU_EMU_DIR is the absolute path of tools/npu-emu. The program interpreter (program.c, ops*.c) belongs to the
# operator engineer.
NPU_EMU_LIB_SRCS := opts.c log.c clock.c timing.c dram.c ivshmem.c device.c pe.c trace.c emu.c
NPU_EMU_PROG_SRCS := program.c $(notdir $(wildcard $(NPU_EMU_DIR)/ops*.c))
NPU_EMU_SRCS := $(NPU_EMU_LIB_SRCS) $(NPU_EMU_PROG_SRCS)
# The emulator's own headers: an includer makes its objects depend on them
# too, so that they follow a header change even without their .d files
NPU_EMU_HDRS := $(wildcard $(NPU_EMU_DIR)/*.h)
# ops.mk tests this to add its targets
NPU_EMU_REAL_PROG := 1
