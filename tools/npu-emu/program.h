/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * program.h - the device's program interpreter (the PE's "silicon").
 *
 * Validates and executes one program (Documentation/npu/program.rst) over the
 * buffer slots of a command. The caller (the PE model in npu-emu) supplies
 * the slots as host pointers it has already checked against device DRAM, and
 * hooks that see each operator's cost, so that it can model DMA and compute
 * time and write trace records.
 */
#ifndef NPU_EMU_PROGRAM_H
#define NPU_EMU_PROGRAM_H

#include <stdint.h>

#include "npu/npu_program.h"
#include "npu/npu_hw.h"

/** struct emu_prog_slot - one buffer slot, resolved to host memory */
struct emu_prog_slot {
	uint8_t *base;
	uint32_t size;
};

/** struct emu_op_cost - what one operator costs (program.rst, "Cost model") */
struct emu_op_cost {
	uint64_t macs;
	uint64_t in_bytes;
	uint64_t w_bytes;
	uint64_t out_bytes;
};

/**
 * struct emu_prog_hooks - callbacks around each operator; any may be NULL
 * @arg: passed to every hook
 * @op_begin: before operator @index runs; returning nonzero aborts the
 *	program, which then returns NPU_HW_STATUS_ABORTED
 * @op_end: after operator @index ran
 */
struct emu_prog_hooks {
	void *arg;
	int (*op_begin)(void *arg, uint32_t index, const struct npu_prog_op *op,
			const struct emu_op_cost *cost);
	void (*op_end)(void *arg, uint32_t index, const struct npu_prog_op *op,
		       const struct emu_op_cost *cost);
};

/**
 * emu_prog_run() - validate, then execute a program
 * @slots: the command's buffer slots
 * @nslots: entries in @slots, 1..NPU_HW_MAX_BUFS
 * @prog_slot: slot holding the program
 * @prog_offset: byte offset of the program in that slot
 * @prog_size: bytes of program
 * @hooks: per-operator callbacks, or NULL
 * @op_index: out: failing operator, 0xffff for program-level errors
 *
 * The program header and tables are copied before validation, so a host
 * changing them concurrently cannot make the device misbehave. Nothing
 * outside @slots is read or written. Every check of program.rst is made
 * before the first operator runs, so a failed program writes nothing.
 *
 * Return: NPU_HW_STATUS_OK or another NPU_HW_STATUS_* value.
 */
int emu_prog_run(const struct emu_prog_slot *slots, uint32_t nslots,
		 uint32_t prog_slot, uint32_t prog_offset, uint32_t prog_size,
		 const struct emu_prog_hooks *hooks, uint16_t *op_index);

#endif /* NPU_EMU_PROGRAM_H */
