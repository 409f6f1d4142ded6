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

#endif /* _NPU_COMPAT_H */
