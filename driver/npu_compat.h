/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_compat.h - the one place where kernel version differences live.
 *
 * The driver builds against Debian's 6.1 and 6.12 kernels. Any
 * LINUX_VERSION_CODE check belongs here and nowhere else; write them as
 * "KERNEL_VERSION(x, y, z) <= LINUX_VERSION_CODE". A feature test is
 * preferred where the kernel offers one (a macro or a Kconfig symbol).
 */
#ifndef _NPU_COMPAT_H
#define _NPU_COMPAT_H

#include <linux/io.h>
#include <linux/pci.h>
#include <linux/version.h>

/**
 * npu_compat_iomap_bar() - request and map one BAR, device-managed
 * @pdev: PCI device, enabled with pcim_enable_device()
 * @bar: BAR index
 * @name: owner name for the resource request
 *
 * pcim_iomap_regions() exists in 6.1 and 6.12 (6.11 added
 * pcim_iomap_region(), which 6.1 lacks), so no version check is needed yet.
 *
 * Return: the mapping, or an ERR_PTR().
 */
static inline void __iomem *npu_compat_iomap_bar(struct pci_dev *pdev,
						 int bar, const char *name)
{
	int ret = pcim_iomap_regions(pdev, BIT(bar), name);

	if (ret)
		return IOMEM_ERR_PTR(ret);
	return pcim_iomap_table(pdev)[bar];
}

/**
 * npu_compat_vm_flags_clear() - clear flags on a VMA being mapped
 * @vma: the VMA, in its ->mmap() call
 * @flags: VM_* flags to clear
 *
 * Used by npu_tring_fops.c to make the ring's data pages read-only for good.
 */
static inline void npu_compat_vm_flags_clear(struct vm_area_struct *vma,
					     unsigned long flags)
{
/*
 * The one justified LINUX_VERSION_CODE test of the driver (checkpatch
 * warns about it): 6.3 made vma->vm_flags const and added vm_flags_clear(),
 * a static inline function that no macro announces, so the version is the
 * only thing to test; 6.1 has neither the function nor the const.
 */
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * io_uring commands (npu_uring.c). 6.5 moved struct io_uring_cmd to
 * <linux/io_uring/cmd.h> and replaced its ->cmd (the SQE's payload) with
 * ->sqe; 6.7 added cancelable commands (IORING_URING_CMD_CANCELABLE,
 * io_uring_cmd_mark_cancelable(), IO_URING_F_CANCEL); io_uring_cmd_done()'s
 * res2 became a u64. 6.1 has none of these; the header and the macro are
 * the feature tests.
 */
#if __has_include("linux/io_uring/cmd.h")
#include <linux/io_uring/cmd.h>

/**
 * npu_compat_uring_cmd_payload() - the command's payload (the SQE's cmd area)
 * @cmd: the command, in its ->uring_cmd() issue call
 *
 * Return: 16 bytes, or 80 with IORING_SETUP_SQE128; may be the shared
 * SQE: copy it once before checking it.
 */
static inline const void *npu_compat_uring_cmd_payload(struct io_uring_cmd *cmd)
{
	return io_uring_sqe_cmd(cmd->sqe);
}

/**
 * npu_compat_uring_cmd_task() - the task that submitted a command
 * @cmd: the command
 *
 * Return: the submitter, also when io_uring's worker issues the command.
 */
static inline struct task_struct *npu_compat_uring_cmd_task(struct io_uring_cmd *cmd)
{
	return io_uring_cmd_get_task(cmd);
}
#else
#include <linux/io_uring.h>
#include <linux/io_uring_types.h>

static inline const void *npu_compat_uring_cmd_payload(struct io_uring_cmd *cmd)
{
	return cmd->cmd;
}

/* io_uring_cmd_get_task() came with 6.5; its body is this. */
static inline struct task_struct *npu_compat_uring_cmd_task(struct io_uring_cmd *cmd)
{
	return cmd_to_io_kiocb(cmd)->task;
}
#endif

#ifdef IORING_URING_CMD_CANCELABLE
/**
 * npu_compat_uring_cmd_cancelable() - let io_uring cancel a queued command
 * @cmd: the command, in its issue call
 * @issue_flags: the issue call's flags
 *
 * On a kernel that can cancel commands, io_uring calls ->uring_cmd() again
 * with IO_URING_F_CANCEL when the ring or its task exits; 6.1 cannot, and
 * waits for the completion instead.
 */
static inline void npu_compat_uring_cmd_cancelable(struct io_uring_cmd *cmd,
						   unsigned int issue_flags)
{
	io_uring_cmd_mark_cancelable(cmd, issue_flags);
}

/**
 * npu_compat_uring_cmd_cancel() - is this ->uring_cmd() call a cancellation?
 * @issue_flags: the call's flags
 *
 * Return: true for io_uring's IO_URING_F_CANCEL call (never on 6.1).
 */
static inline bool npu_compat_uring_cmd_cancel(unsigned int issue_flags)
{
	return issue_flags & IO_URING_F_CANCEL;
}
#else
static inline void npu_compat_uring_cmd_cancelable(struct io_uring_cmd *cmd,
						   unsigned int issue_flags)
{
}

static inline bool npu_compat_uring_cmd_cancel(unsigned int issue_flags)
{
	return false;
}
#endif

/**
 * npu_compat_uring_cmd_done() - post a command's CQE
 * @cmd: the command
 * @res: cqe->res
 * @res2: big_cqe[0] on an IORING_SETUP_CQE32 ring
 * @issue_flags: the flags io_uring passed to the caller (issue, cancel or
 *	task work), never made up
 */
static inline void npu_compat_uring_cmd_done(struct io_uring_cmd *cmd, int res,
					     u64 res2, unsigned int issue_flags)
{
	/* 6.1's res2 is an ssize_t: the same 64 bits in the CQE. */
	io_uring_cmd_done(cmd, res, res2, issue_flags);
}

#endif /* _NPU_COMPAT_H */
