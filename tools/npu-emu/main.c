// SPDX-License-Identifier: GPL-2.0-only
/*
 * main.c - npu-emu, the emulated NPU. See emu.h and Documentation/npu/hw.rst.
 */
#include "emu.h"

int main(int argc, char **argv)
{
	return npu_emu_main(argc, argv);
}
