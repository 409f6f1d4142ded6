# SPDX-License-Identifier: GPL-2.0-only
# Sources of the npu-emu library, shared by tools/npu-emu/Makefile and
# selftests/host/emu/Makefile. NPU_EMU_DIR is the absolute path of
# tools/npu-emu. The program interpreter (program.c, ops*.c) belongs to the
# operator engineer; until program.c and its ops*.c exist, program_stub.c
# stands in.
NPU_EMU_LIB_SRCS := opts.c clock.c model.c ivshmem.c device.c pe.c trace.c emu.c
NPU_EMU_OPS_SRCS := $(notdir $(wildcard $(NPU_EMU_DIR)/ops*.c))
ifneq ($(wildcard $(NPU_EMU_DIR)/program.c),)
ifneq ($(NPU_EMU_OPS_SRCS),)
NPU_EMU_REAL_PROG := 1
endif
endif
# NPU_EMU_USE_STUB=1 forces the stub (to test the device model alone)
ifeq ($(NPU_EMU_USE_STUB),1)
NPU_EMU_REAL_PROG :=
endif
ifeq ($(NPU_EMU_REAL_PROG),1)
NPU_EMU_PROG_SRCS := program.c $(NPU_EMU_OPS_SRCS)
else
NPU_EMU_PROG_SRCS := program_stub.c
endif
NPU_EMU_SRCS := $(NPU_EMU_LIB_SRCS) $(NPU_EMU_PROG_SRCS)
