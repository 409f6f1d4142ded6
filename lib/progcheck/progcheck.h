/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * progcheck.h - the checks of Documentation/npu/program.rst, "Validation
 * order", for userspace: one implementation that libnpu (the model loader)
 * and libnpuref (the host reference) both compile in. The device model
 * (tools/npu-emu) keeps its own: it plays the hardware, and the two are
 * checked against each other.
 *
 * Not a library of its own and not installed: each library compiles
 * progcheck.c into itself with hidden visibility, so neither library
 * depends on the other, and the symbols never reach either's ABI.
 *
 * Stateless; what it reads (the header, the tables, the slots) must not
 * change during a call, so callers check private copies. Nothing is
 * allocated. Thread-safe as long as two calls do not share a message buffer.
 */
#ifndef PROGCHECK_H
#define PROGCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npu/npu_program.h"

/**
 * struct progcheck_slot - one buffer slot of the job, as the check sees it
 * @data: the slot's bytes, or NULL when they are not known yet; the values
 *	of requantization tables in such a slot are not checked
 * @size: bytes of the slot
 */
struct progcheck_slot {
	const void *data;
	uint64_t size;
};

/**
 * struct progcheck - one check of a program's tables
 * @hdr: the header, already accepted by progcheck_header()
 * @t: the tensor table, @hdr->n_tensors entries
 * @ops: the operator table, @hdr->n_ops entries
 * @slots: the job's buffer slots
 * @nslots: entries in @slots
 * @tensor_hook: NULL, or called for tensor @i once it passed the device's
 *	checks (program.rst 3a-3c), to add rules of the caller's own
 * @op_hook: NULL, or called for operator @i once its opcode, reserved
 *	fields and operand references passed (4a, 4b), before its shapes
 * @arg: passed to the hooks
 * @msg: NULL, or where a failure is described (no "program: " prefix)
 * @msglen: bytes at @msg
 * @op_index: out: the failing operator, NPU_PROG_NO_OP_INDEX for a
 *	program- or tensor-level failure and on success
 *
 * A hook returns 0 to go on, or a value other than an NPU_PROG_* status
 * (a negative errno value) that progcheck_tables() then returns; it may
 * describe the failure in @msg.
 */
struct progcheck {
	const struct npu_prog_hdr *hdr;
	const struct npu_prog_tensor *t;
	const struct npu_prog_op *ops;
	const struct progcheck_slot *slots;
	unsigned int nslots;
	int (*tensor_hook)(const struct progcheck *c, uint32_t i);
	int (*op_hook)(const struct progcheck *c, uint32_t i);
	void *arg;
	char *msg;
	size_t msglen;
	uint16_t op_index;
};

/**
 * progcheck_header() - check 2 of program.rst: the header
 * @prog: first byte of the program
 * @prog_size: bytes of program the job gives it
 * @hdr: out: a copy of the header, the one to go on with
 * @msg: NULL, or where a failure is described
 * @msglen: bytes at @msg
 *
 * Return: NPU_PROG_OK, or NPU_PROG_BAD_PROGRAM.
 */
int progcheck_header(const void *prog, size_t prog_size,
		     struct npu_prog_hdr *hdr, char *msg, size_t msglen);

/**
 * progcheck_tensor_fields() - check 3a of program.rst: a tensor on its own
 * @t: the tensor
 * @i: its index, for the message
 * @msg: NULL, or where a failure is described
 * @msglen: bytes at @msg
 *
 * dtype, ndim, layout, dims, zero point range and the reserved field.
 *
 * Return: NPU_PROG_OK, or NPU_PROG_BAD_PROGRAM.
 */
int progcheck_tensor_fields(const struct npu_prog_tensor *t, uint32_t i,
			    char *msg, size_t msglen);

/**
 * progcheck_tables() - checks 3 and 4 of program.rst: tensors, operators
 * @c: what to check; @c->op_index is set
 *
 * Every tensor in table order, then every operator in table order; the
 * first failure decides the result, as on the device.
 *
 * Return: NPU_PROG_OK, another NPU_PROG_* status, or what a hook returned.
 */
int progcheck_tables(struct progcheck *c);

/**
 * progcheck_uses_rq() - does an operator read its rq table?
 * @opcode: a known opcode
 *
 * Return: false for the operators that ignore @rq (program.rst, "Operands").
 */
bool progcheck_uses_rq(unsigned int opcode);

/**
 * progcheck_fail() - describe a failure in @c->msg
 * @c: the check
 * @ret: returned as is
 * @fmt: printf format
 *
 * For hooks. Return: @ret.
 */
__attribute__((format(printf, 3, 4)))
int progcheck_fail(const struct progcheck *c, int ret, const char *fmt, ...);

#endif /* PROGCHECK_H */
