// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_drv.c - PCI probe/remove, the /dev/npuN character device and ioctl
 * dispatch.
 *
 * Lifetime: struct npu_dev is reference counted. The bound PCI device
 * holds one reference (dropped by devres after remove()) and every open
 * file holds one. remove() marks the device unplugged, wakes every sleeper
 * and waits (SRCU) until no file operation touches the hardware any more;
 * afterwards every file operation fails with -ENODEV and only close works.
 */

#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <linux/npu.h>

#include "npu_bo.h"
#include "npu_compat.h"
#include "npu_drv.h"
#include "npu_hwif.h"
#include "npu_job.h"
#include "npu_netlink.h"
#include "npu_sysfs.h"
#include "npu_trace.h"
#include "npu_uring.h"

static DEFINE_IDA(npu_ida);

static void npu_dev_release(struct kref *ref)
{
	struct npu_dev *ndev = container_of(ref, struct npu_dev, ref);

	npu_bo_pool_fini(ndev);
	cleanup_srcu_struct(&ndev->srcu);
	mutex_destroy(&ndev->jobs_lock);
	mutex_destroy(&ndev->mbox_lock);
	mutex_destroy(&ndev->files_lock);
	pci_dev_put(ndev->pdev);
	kfree(ndev);
}

/**
 * npu_dev_get() - take a reference on a device
 * @ndev: the device; the caller already holds a reference or is inside
 *	npu_dev_enter() of a file holding one
 */
void npu_dev_get(struct npu_dev *ndev)
{
	kref_get(&ndev->ref);
}

/**
 * npu_dev_put() - drop a reference on a device
 * @ndev: the device
 *
 * The last reference frees it, which may be long after remove(): the
 * allocator and the SRCU state live until then. May sleep.
 */
void npu_dev_put(struct npu_dev *ndev)
{
	kref_put(&ndev->ref, npu_dev_release);
}

/* ------------------------------------------------------------------------
 * ioctls
 */

/* NPU_IOCTL_GET_INFO */
static int npu_get_info_ioctl(struct npu_file *nf, void __user *uarg)
{
	struct npu_dev *ndev = nf->ndev;
	struct npu_hw_desc *hw = &ndev->hw;
	struct npu_info info;
	int ret;

	ret = npu_copy_args(&info, uarg);
	if (ret)
		return ret;
	if (info.flags)
		return -EINVAL;

	memset(&info, 0, sizeof(info));
	info.version = NPU_INFO_VERSION;
	info.hw_version = hw->version;
	info.pe_count = hw->pe_count;
	info.clock_hz = hw->clock_hz;
	info.dram_size = hw->dram_size;
	info.sram_size = hw->sram_size;
	info.dma_bw = hw->dma_bw;
	info.macs_per_cycle = hw->macs_per_cycle;
	info.trace_levels = hw->trace_levels;
	info.caps = hw->caps & NPU_INFO_CAPS;
	info.minor = ndev->id;

	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/* NPU_IOCTL_PING */
static int npu_ping_ioctl(struct npu_file *nf, void __user *uarg)
{
	struct npu_dev *ndev = nf->ndev;
	struct npu_mbox_result res;
	struct npu_ping ping;
	u64 rt;
	u32 i;
	int ret;

	ret = npu_copy_args(&ping, uarg);
	if (ret)
		return ret;
	if (ping.flags || !ping.count || ping.count > NPU_PING_MAX_COUNT)
		return -EINVAL;

	ping.min_ns = U64_MAX;
	ping.max_ns = 0;
	ping.total_ns = 0;
	for (i = 0; i < ping.count; i++) {
		u32 arg = 0x50000000 | i;

		if (fatal_signal_pending(current))
			return -EINTR;
		ret = npu_mbox_call(ndev, NPU_MBOX_PING, arg, &res);
		if (ret)
			return ret;
		if (res.result != NPU_MBOX_OK || res.data != arg) {
			ndev_err(ndev, "ping: result %u data %#llx, expected 0 and %#x\n",
				 res.result, res.data, arg);
			return -EIO;
		}
		rt = res.t_done_ns > res.t_post_ns ?
		     res.t_done_ns - res.t_post_ns : 0;
		ping.min_ns = min(ping.min_ns, rt);
		ping.max_ns = max(ping.max_ns, rt);
		ping.total_ns += rt;
	}

	if (copy_to_user(uarg, &ping, sizeof(ping)))
		return -EFAULT;
	return 0;
}

/*
 * The ioctls of /dev/npuN. Every handler has one signature, checks its
 * argument through npu_copy_args() (reserved fields) and its own flags,
 * and runs inside npu_dev_enter().
 */
static const struct {
	unsigned int cmd;
	int (*fn)(struct npu_file *nf, void __user *uarg);
} npu_ioctls[] = {
	{ NPU_IOCTL_GET_INFO, npu_get_info_ioctl },
	{ NPU_IOCTL_PING, npu_ping_ioctl },
	{ NPU_IOCTL_BO_CREATE, npu_bo_create_ioctl },
	{ NPU_IOCTL_BO_FREE, npu_bo_free_ioctl },
	{ NPU_IOCTL_SUBMIT, npu_job_submit_ioctl },
	{ NPU_IOCTL_WAIT, npu_job_wait_ioctl },
	{ NPU_IOCTL_TRACE_OPEN, npu_trace_open_ioctl },
	{ NPU_IOCTL_CLOCK_SAMPLE, npu_clock_sample_ioctl },
};

static long npu_fop_ioctl(struct file *filp, unsigned int cmd,
			  unsigned long arg)
{
	struct npu_file *nf = filp->private_data;
	struct npu_dev *ndev = nf->ndev;
	long ret = -ENOTTY;
	unsigned int i;
	int idx;

	if (!npu_dev_enter(ndev, &idx))
		return -ENODEV;
	for (i = 0; i < ARRAY_SIZE(npu_ioctls); i++) {
		if (npu_ioctls[i].cmd == cmd) {
			ret = npu_ioctls[i].fn(nf, (void __user *)arg);
			break;
		}
	}
	npu_dev_exit(ndev, idx);
	return ret;
}

/* ------------------------------------------------------------------------
 * file operations
 */

static int npu_fop_open(struct inode *inode, struct file *filp)
{
	/* misc_open() holds misc_mtx: remove() cannot free the device now. */
	struct miscdevice *misc = filp->private_data;
	struct npu_dev *ndev = container_of(misc, struct npu_dev, misc);
	struct npu_file *nf;
	int ret;

	if (npu_dev_unplugged(ndev))
		return -ENODEV;

	nf = kzalloc(sizeof(*nf), GFP_KERNEL);
	if (!nf)
		return -ENOMEM;
	ret = npu_bo_file_init(nf);
	if (ret) {
		kfree(nf);
		return ret;
	}
	npu_dev_get(ndev);
	nf->ndev = ndev;
	nf->filp = filp;
	npu_job_file_init(nf);

	mutex_lock(&ndev->files_lock);
	list_add_tail(&nf->node, &ndev->files);
	mutex_unlock(&ndev->files_lock);

	filp->private_data = nf;
	return 0;
}

static int npu_fop_release(struct inode *inode, struct file *filp)
{
	struct npu_file *nf = filp->private_data;
	struct npu_dev *ndev = nf->ndev;

	mutex_lock(&ndev->files_lock);
	list_del(&nf->node);
	mutex_unlock(&ndev->files_lock);

	/* Jobs in flight keep their buffers; their results are dropped. */
	npu_job_file_fini(nf);
	npu_bo_file_fini(nf);
	kfree(nf);
	npu_dev_put(ndev);
	return 0;
}

/* close(): cancel the io_uring commands this process submitted on the file */
static int npu_fop_flush(struct file *filp, fl_owner_t id)
{
	npu_job_uring_cancel(filp->private_data, id);
	return 0;
}

static __poll_t npu_fop_poll(struct file *filp, poll_table *wait)
{
	struct npu_file *nf = filp->private_data;

	return npu_job_poll(nf, filp, wait);
}

static int npu_fop_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct npu_file *nf = filp->private_data;
	int idx, ret;

	if (!npu_dev_enter(nf->ndev, &idx))
		return -ENODEV;
	ret = npu_bo_mmap(nf, vma);
	npu_dev_exit(nf->ndev, idx);
	return ret;
}

static const struct file_operations npu_fops = {
	.owner = THIS_MODULE,
	.open = npu_fop_open,
	.release = npu_fop_release,
	.flush = npu_fop_flush,
	.unlocked_ioctl = npu_fop_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.uring_cmd = npu_uring_cmd,
	.poll = npu_fop_poll,
	.mmap = npu_fop_mmap,
	.llseek = noop_llseek,
};

/* ------------------------------------------------------------------------
 * PCI driver
 */

static void npu_devm_put(void *data)
{
	struct npu_dev *ndev = data;

	ida_free(&npu_ida, ndev->id);
	npu_dev_put(ndev);
}

static struct npu_dev *npu_dev_alloc(struct pci_dev *pdev)
{
	struct npu_dev *ndev;
	int ret;

	ndev = kzalloc(sizeof(*ndev), GFP_KERNEL);
	if (!ndev)
		return ERR_PTR(-ENOMEM);
	ret = init_srcu_struct(&ndev->srcu);
	if (ret) {
		kfree(ndev);
		return ERR_PTR(ret);
	}
	ret = ida_alloc(&npu_ida, GFP_KERNEL);
	if (ret < 0) {
		cleanup_srcu_struct(&ndev->srcu);
		kfree(ndev);
		return ERR_PTR(ret);
	}
	ndev->id = ret;
	snprintf(ndev->name, sizeof(ndev->name), "npu%d", ndev->id);
	kref_init(&ndev->ref);
	ndev->pdev = pci_dev_get(pdev);
	mutex_init(&ndev->files_lock);
	INIT_LIST_HEAD(&ndev->files);
	mutex_init(&ndev->mbox_lock);
	init_waitqueue_head(&ndev->mbox_wq);
	spin_lock_init(&ndev->mbox_irq_lock);
	spin_lock_init(&ndev->intr_lock);
	INIT_WORK(&ndev->cpl_work, npu_job_cpl_work);
	INIT_WORK(&ndev->trace_work, npu_trace_work);
	return ndev;
}

static irqreturn_t npu_error_irq(int irq, void *arg)
{
	struct npu_dev *ndev = arg;
	u32 status, err;
	int idx;

	if (!npu_dev_enter(ndev, &idx))
		return IRQ_HANDLED;
	npu_hw_ack_intr(ndev, NPU_INTR_ERROR);
	status = npu_rd32(ndev, NPU_REG_STATUS);
	err = npu_rd32(ndev, NPU_REG_ERROR);
	if (err != NPU_ERR_NONE || (status & NPU_STATUS_FAULT)) {
		ndev_err(ndev, "device error %u (status %#x)\n", err, status);
		if (status & NPU_STATUS_FAULT)
			npu_job_device_error(ndev);
	}
	npu_dev_exit(ndev, idx);
	return IRQ_HANDLED;
}

/*
 * The completion and trace vectors queue work on system_unbound_wq instead
 * of running a threaded handler. Their work (draining the trace area into
 * the rings, completing jobs) grows with the device's record rate, and a
 * threaded handler runs at SCHED_FIFO: under a level-2 flood in the VM it
 * held its CPU for up to 30 ms at a time, and a task the scheduler woke on
 * that CPU (the ring's own reader, or any thread of the application) did
 * not run meanwhile, since CFS does not see real-time load when it places
 * a wakeup. A kworker is a CFS task like them: the scheduler shares its
 * CPU and balances it. Documentation/npu/driver.rst, "Interrupts".
 */
static irqreturn_t npu_cpl_irq(int irq, void *arg)
{
	struct npu_dev *ndev = arg;

	queue_work(system_unbound_wq, &ndev->cpl_work);
	return IRQ_HANDLED;
}

static irqreturn_t npu_trace_raise_irq(int irq, void *arg)
{
	struct npu_dev *ndev = arg;

	queue_work(system_unbound_wq, &ndev->trace_work);
	return IRQ_HANDLED;
}

/* devres: once the interrupts are freed, nothing queues the work again */
static void npu_cancel_irq_work(void *arg)
{
	struct npu_dev *ndev = arg;

	cancel_work_sync(&ndev->cpl_work);
	cancel_work_sync(&ndev->trace_work);
}

static int npu_request_irqs(struct npu_dev *ndev)
{
	static const struct {
		unsigned int vector;
		irq_handler_t handler;
		irq_handler_t thread;
	} irqs[] = {
		{ NPU_MSIX_CPL, npu_cpl_irq, NULL },
		{ NPU_MSIX_MBOX, npu_hw_mbox_irq, NULL },
		{ NPU_MSIX_TRACE, npu_trace_raise_irq, NULL },
		{ NPU_MSIX_ERROR, NULL, npu_error_irq },
	};
	struct pci_dev *pdev = ndev->pdev;
	unsigned int i;
	int ret;

	/* Released after the interrupts (devres runs in reverse). */
	ret = devm_add_action_or_reset(&pdev->dev, npu_cancel_irq_work, ndev);
	if (ret)
		return ret;

	ret = pci_alloc_irq_vectors(pdev, NPU_MSIX_COUNT, NPU_MSIX_COUNT,
				    PCI_IRQ_MSIX);
	if (ret < 0) {
		ndev_err(ndev, "cannot allocate %u MSI-X vectors: %d\n",
			 NPU_MSIX_COUNT, ret);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(irqs); i++) {
		ret = devm_request_threaded_irq(&pdev->dev,
						pci_irq_vector(pdev, irqs[i].vector),
						irqs[i].handler, irqs[i].thread,
						irqs[i].handler ? 0 : IRQF_ONESHOT,
						ndev->name, ndev);
		if (ret) {
			ndev_err(ndev, "cannot request MSI-X vector %u: %d\n",
				 irqs[i].vector, ret);
			return ret;
		}
	}
	return 0;
}

static int npu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct npu_mbox_result res;
	struct npu_dev *ndev;
	int ret;

	ndev = npu_dev_alloc(pdev);
	if (IS_ERR(ndev))
		return PTR_ERR(ndev);
	/*
	 * Registered first, so released last: after the interrupts and the
	 * mappings are gone.
	 */
	ret = devm_add_action_or_reset(&pdev->dev, npu_devm_put, ndev);
	if (ret)
		return ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ndev->db = npu_compat_iomap_bar(pdev, NPU_HW_BAR_DOORBELL, NPU_DRV_NAME);
	if (IS_ERR(ndev->db))
		return dev_err_probe(&pdev->dev, PTR_ERR(ndev->db),
				     "cannot map BAR%d\n", NPU_HW_BAR_DOORBELL);
	ndev->mem = npu_compat_iomap_bar(pdev, NPU_HW_BAR_MEM, NPU_DRV_NAME);
	if (IS_ERR(ndev->mem))
		return dev_err_probe(&pdev->dev, PTR_ERR(ndev->mem),
				     "cannot map BAR%d\n", NPU_HW_BAR_MEM);
	ndev->mem_phys = pci_resource_start(pdev, NPU_HW_BAR_MEM);
	ndev->mem_len = pci_resource_len(pdev, NPU_HW_BAR_MEM);
	pci_set_master(pdev);

	ret = npu_hw_init(ndev);
	if (ret)
		return ret;
	ret = npu_bo_pool_init(ndev);
	if (ret)
		return ret;
	/*
	 * Everything the interrupt handlers use exists before they are
	 * requested: a device left running by a previous driver instance may
	 * raise any vector at once. The trace state is also released by
	 * devres after the interrupts are freed.
	 */
	npu_job_dev_init(ndev);
	ret = npu_trace_init(ndev);
	if (ret)
		return ret;
	ret = npu_request_irqs(ndev);
	if (ret)
		return ret;

	/*
	 * Start from a clean device, whatever a previous driver left. Polled:
	 * interrupts may still be masked by the previous driver instance.
	 */
	ret = npu_mbox_call(ndev, NPU_MBOX_RESET | NPU_MBOX_F_NOIRQ, 0, &res);
	if (!ret && res.result != NPU_MBOX_OK)
		ret = -EIO;
	if (ret) {
		ndev_err(ndev, "device reset failed: %d\n", ret);
		return ret;
	}
	npu_job_dev_start(ndev);
	ret = npu_hw_enable(ndev);
	if (ret)
		return ret;

	ndev->misc.minor = MISC_DYNAMIC_MINOR;
	ndev->misc.name = ndev->name;
	/*
	 * crw-rw---- root root: a udev rule (GROUP=) grants the NPU to a
	 * group; everyone else is refused at open (Documentation/npu/uapi.rst).
	 */
	ndev->misc.mode = 0660;
	ndev->misc.fops = &npu_fops;
	ndev->misc.parent = &pdev->dev;
	ndev->misc.groups = npu_sysfs_groups;
	pci_set_drvdata(pdev, ndev);
	ret = misc_register(&ndev->misc);
	if (ret) {
		npu_hw_disable(ndev);
		return ret;
	}

	ndev_info(ndev, "%s: NPU v%u.%u, %u PEs at %u Hz, %u MiB DRAM\n",
		  ndev->name, NPU_HW_VERSION_GET_MAJOR(ndev->hw.version),
		 NPU_HW_VERSION_GET_MINOR(ndev->hw.version), ndev->hw.pe_count,
		 ndev->hw.clock_hz, ndev->hw.dram_size >> 20);
	npu_nl_dev_add(ndev);
	return 0;
}

/*
 * Take every user mapping of BAR2 off the device: the next access faults
 * in a page of RAM instead (npu_bo.c, npu_bo_vm_fault()).
 */
static void npu_zap_mappings(struct npu_dev *ndev)
{
	struct npu_file *nf;

	mutex_lock(&ndev->files_lock);
	list_for_each_entry(nf, &ndev->files, node)
		unmap_mapping_range(nf->filp->f_mapping, 0, 0, 1);
	mutex_unlock(&ndev->files_lock);
}

static void npu_remove(struct pci_dev *pdev)
{
	struct npu_dev *ndev = pci_get_drvdata(pdev);
	struct npu_mbox_result res;

	/* First: no netlink request sees the device once remove starts. */
	npu_nl_dev_del(ndev);
	misc_deregister(&ndev->misc);

	WRITE_ONCE(ndev->unplugged, true);
	wake_up_all(&ndev->mbox_wq);
	wake_up_all(&ndev->done_wq);
	wake_up_all(&ndev->space_wq);
	synchronize_srcu(&ndev->srcu);
	/* No file operation touches the hardware from here on. */

	npu_job_dev_unplug(ndev);

	npu_zap_mappings(ndev);
	npu_trace_fini(ndev);
	npu_mbox_call(ndev, NPU_MBOX_RESET | NPU_MBOX_F_NOIRQ, 0, &res);
	npu_hw_disable(ndev);
	ndev_info(ndev, "%s removed\n", ndev->name);
	/* devres frees the interrupts, unmaps the BARs and drops our ref. */
}

static const struct pci_device_id npu_pci_ids[] = {
	{ PCI_DEVICE(NPU_HW_PCI_VENDOR_ID, NPU_HW_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, npu_pci_ids);

static struct pci_driver npu_pci_driver = {
	.name = NPU_DRV_NAME,
	.id_table = npu_pci_ids,
	.probe = npu_probe,
	.remove = npu_remove,
};

static int __init npu_init(void)
{
	int ret;

	/* The family first: probe lists devices in it. */
	ret = npu_nl_init();
	if (ret)
		return ret;
	ret = pci_register_driver(&npu_pci_driver);
	if (ret)
		npu_nl_exit();
	return ret;
}

static void __exit npu_exit(void)
{
	pci_unregister_driver(&npu_pci_driver);
	npu_nl_exit();
}

module_init(npu_init);
module_exit(npu_exit);

MODULE_DESCRIPTION("NPU accelerator driver: jobs, device memory and hardware trace rings");
MODULE_AUTHOR("The npu project maintainers");
MODULE_LICENSE("GPL");
#ifdef NPU_DRV_VERSION
/* The stack's release (packaging/version.mk), as DKMS installs it. */
MODULE_VERSION(NPU_DRV_VERSION);
#endif
