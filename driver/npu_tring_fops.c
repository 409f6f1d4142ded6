// SPDX-License-Identifier: GPL-2.0-only
/*
 * npu_tring_fops.c - the trace fd: NPU_IOCTL_TRACE_OPEN creates a trace
 * ring and its anonymous file; the file's operations are its ioctls
 * (ENABLE, DISABLE, STATUS), poll(), mmap() of the header and data pages,
 * fdinfo and release.
 *
 * Locking: the ring's state is read and written under npu_trace_dev.lock
 * (a spinlock, IRQs off: the producers run in threaded handlers and work
 * items); enable and disable go through npu_trace_ctl.c under ctl_lock.
 * Every ioctl runs inside npu_dev_enter() and fails with -ENODEV once the
 * device is gone; poll(), mmap() and release keep working then.
 *
 * Lifetime: the file owns the ring (file->private_data). The ring holds
 * a reference on the device (struct npu_dev) and on its trace state, on
 * the opener's struct pid and PID namespace, and, through its memory, on
 * the opener's user. A mapping holds the file, so the pages are freed at
 * release, after the last munmap().
 */

#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include <linux/npu.h>

#include "npu_compat.h"
#include "npu_drv.h"
#include "npu_trace.h"
#include "npu_trace_int.h"

static unsigned int trace_paranoid = 1;
module_param(trace_paranoid, uint, 0644);
MODULE_PARM_DESC(trace_paranoid,
		 "Who may open a trace fd with NPU_TRACE_ALL_PROCESSES: 0 anyone, 1 CAP_PERFMON or CAP_SYS_ADMIN (default 1)");

static atomic64_t npu_trace_ring_ids = ATOMIC64_INIT(0);

static int npu_tring_enable_ioctl(struct npu_tring *r, void __user *uarg)
{
	struct npu_trace_enable en;
	int ret;

	ret = npu_copy_args(&en, uarg);
	if (ret)
		return ret;
	if (en.flags)
		return -EINVAL;
	return npu_trace_ctl_enable(r, en.level);
}

static int npu_tring_disable_ioctl(struct npu_tring *r, void __user *uarg)
{
	npu_trace_ctl_disable(r);
	return 0;
}

static int npu_tring_status_ioctl(struct npu_tring *r, void __user *uarg)
{
	struct npu_trace_dev *tdev = r->tdev;
	struct npu_trace_status st;
	unsigned long flags;

	memset(&st, 0, sizeof(st));
	/* The records of the jobs completed so far are in the ring first. */
	__npu_trace_drain(r->ndev);
	spin_lock_irqsave(&tdev->lock, flags);
	if (npu_tring_flush_lost_locked(r))
		npu_tring_wake_locked(r);
	/* Not from the header page: the reader may write anything there. */
	st.flags = npu_tring_flags_locked(r);
	st.level = r->level;
	st.records = r->n_records;
	st.lost = r->n_lost;
	st.device_lost = r->n_dev_lost;
	st.host_lost = r->n_host_lost;
	st.clock_samples = r->n_clock;
	st.producer = r->prod;
	st.consumer = READ_ONCE(r->hdr->consumer);
	spin_unlock_irqrestore(&tdev->lock, flags);

	if (copy_to_user(uarg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

/* The ioctls of a trace fd; each runs inside npu_dev_enter(). */
static const struct {
	unsigned int cmd;
	int (*fn)(struct npu_tring *r, void __user *uarg);
} npu_tring_ioctls[] = {
	{ NPU_TRACE_IOCTL_ENABLE, npu_tring_enable_ioctl },
	{ NPU_TRACE_IOCTL_DISABLE, npu_tring_disable_ioctl },
	{ NPU_TRACE_IOCTL_STATUS, npu_tring_status_ioctl },
};

static long npu_tring_fop_ioctl(struct file *filp, unsigned int cmd,
				unsigned long arg)
{
	struct npu_tring *r = filp->private_data;
	long ret = -ENOTTY;
	unsigned int i;
	int idx;

	if (!npu_dev_enter(r->ndev, &idx))
		return -ENODEV;
	for (i = 0; i < ARRAY_SIZE(npu_tring_ioctls); i++) {
		if (npu_tring_ioctls[i].cmd == cmd) {
			ret = npu_tring_ioctls[i].fn(r, (void __user *)arg);
			break;
		}
	}
	npu_dev_exit(r->ndev, idx);
	return ret;
}

static __poll_t npu_tring_fop_poll(struct file *filp, poll_table *wait)
{
	struct npu_tring *r = filp->private_data;
	struct npu_trace_dev *tdev = r->tdev;
	unsigned long flags;
	__poll_t mask = 0;

	poll_wait(filp, &r->wq, wait);
	spin_lock_irqsave(&tdev->lock, flags);
	/* A reader that polls has consumed: make room for pending LOSTs. */
	npu_tring_flush_lost_locked(r);
	if (npu_tring_readable_locked(r))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (r->dead)
		mask |= EPOLLHUP | EPOLLERR;
	spin_unlock_irqrestore(&tdev->lock, flags);
	return mask;
}

static int npu_tring_fop_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct npu_tring *r = filp->private_data;
	unsigned long pages = vma_pages(vma);
	unsigned long total = 1 + (r->data_size >> PAGE_SHIFT);

	if (vma->vm_pgoff >= total || pages > total - vma->vm_pgoff)
		return -EINVAL;
	/*
	 * Only a shared mapping of the header page may be written: it holds
	 * the consumer position. A private one would be copied on write and
	 * the kernel would never see the consumer move; like the data pages,
	 * it may be mapped read-only, and can never become writable.
	 */
	if (vma->vm_pgoff + pages > 1 || !(vma->vm_flags & VM_SHARED)) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		npu_compat_vm_flags_clear(vma, VM_MAYWRITE);
	}
	return remap_vmalloc_range(vma, r->hdr, vma->vm_pgoff);
}

/* Free a ring that is on no list and holds no device reference. */
static void npu_tring_destroy(struct npu_tring *r)
{
	npu_tring_mem_free(r);
	put_pid(r->owner);
	if (r->pid_ns)
		put_pid_ns(r->pid_ns);
	kfree(r);
}

/* Undo npu_trace_open_ioctl(): the ring is disabled. */
static void npu_tring_free(struct npu_tring *r)
{
	struct npu_trace_dev *tdev = r->tdev;
	struct npu_dev *ndev = r->ndev;
	unsigned long flags;

	spin_lock_irqsave(&tdev->lock, flags);
	list_del(&r->node);
	spin_unlock_irqrestore(&tdev->lock, flags);
	npu_tring_destroy(r);
	npu_trace_dev_put(tdev);
	npu_dev_put(ndev);
}

static int npu_tring_fop_release(struct inode *inode, struct file *filp)
{
	struct npu_tring *r = filp->private_data;

	npu_trace_ctl_release(r);
	npu_tring_free(r);
	return 0;
}

static void npu_tring_fop_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct npu_tring *r = filp->private_data;
	unsigned long flags;

	spin_lock_irqsave(&r->tdev->lock, flags);
	seq_printf(m, "npu:\t%s\n", r->ndev->name);
	seq_printf(m, "ring_id:\t%llu\n", r->id);
	seq_printf(m, "scope:\t%s\n", r->all ? "all" : "process");
	seq_printf(m, "enabled:\t%d\n", r->enabled);
	seq_printf(m, "level:\t%u\n", r->level);
	seq_printf(m, "data_size:\t%llu\n", r->data_size);
	seq_printf(m, "producer:\t%llu\n", r->prod);
	seq_printf(m, "records:\t%llu\n", r->n_records);
	seq_printf(m, "lost:\t%llu\n", r->n_lost);
	spin_unlock_irqrestore(&r->tdev->lock, flags);
	/* Constant from open to release. */
	seq_printf(m, "mlock_kb:\t%lu\n", r->allow_pages << (PAGE_SHIFT - 10));
	seq_printf(m, "locked_vm_kb:\t%lu\n",
		   r->locked_pages << (PAGE_SHIFT - 10));
}

static const struct file_operations npu_tring_fops = {
	.owner = THIS_MODULE,
	.release = npu_tring_fop_release,
	.unlocked_ioctl = npu_tring_fop_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = npu_tring_fop_poll,
	.mmap = npu_tring_fop_mmap,
	.show_fdinfo = npu_tring_fop_show_fdinfo,
	.llseek = noop_llseek,
};

/* Check NPU_IOCTL_TRACE_OPEN's input. Return: 0, -EINVAL or -EACCES. */
static int npu_trace_open_check(const struct npu_trace_open *op)
{
	if ((op->flags & ~NPU_TRACE_ALL_PROCESSES) || op->fd ||
	    op->data_offset || op->data_size)
		return -EINVAL;
	if (op->data_pages < NPU_TRACE_MIN_DATA_PAGES ||
	    op->data_pages > NPU_TRACE_MAX_DATA_PAGES ||
	    !is_power_of_2(op->data_pages) ||
	    (u64)op->watermark >= (u64)op->data_pages << PAGE_SHIFT)
		return -EINVAL;
	if ((op->flags & NPU_TRACE_ALL_PROCESSES) &&
	    READ_ONCE(trace_paranoid) && !perfmon_capable())
		return -EACCES;
	return 0;
}

/**
 * npu_trace_open_ioctl() - NPU_IOCTL_TRACE_OPEN
 * @nf: the file of /dev/npuN, inside npu_dev_enter()
 * @uarg: struct npu_trace_open in user memory
 *
 * Return: 0 or a negative errno (see struct npu_trace_open).
 */
int npu_trace_open_ioctl(struct npu_file *nf, void __user *uarg)
{
	struct npu_dev *ndev = nf->ndev;
	struct npu_trace_dev *tdev = ndev->trace;
	struct npu_trace_open op;
	struct npu_tring *r;
	struct file *file;
	unsigned long flags;
	int fd, ret;

	ret = npu_copy_args(&op, uarg);
	if (ret)
		return ret;
	ret = npu_trace_open_check(&op);
	if (ret)
		return ret;
	if (!tdev)
		return -ENODEV;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->owner = get_pid(task_tgid(current));
	r->pid_ns = get_pid_ns(task_active_pid_ns(current));
	ret = npu_tring_mem_alloc(r, op.data_pages);
	if (ret) {
		npu_tring_destroy(r);
		return ret;
	}
	r->data_size = (u64)op.data_pages << PAGE_SHIFT;
	r->watermark = op.watermark;
	r->all = op.flags & NPU_TRACE_ALL_PROCESSES;
	r->id = atomic64_inc_return(&npu_trace_ring_ids);
	init_waitqueue_head(&r->wq);
	r->hdr->version = NPU_TRACE_RING_VERSION;
	r->hdr->data_offset = PAGE_SIZE;
	r->hdr->data_size = r->data_size;
	r->hdr->hdr_size = sizeof(*r->hdr);
	r->hdr->watermark = op.watermark;

	r->tdev = tdev;
	kref_get(&tdev->ref);
	r->ndev = ndev;
	npu_dev_get(ndev);
	spin_lock_irqsave(&tdev->lock, flags);
	list_add_tail(&r->node, &tdev->rings);
	spin_unlock_irqrestore(&tdev->lock, flags);

	fd = get_unused_fd_flags(O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		npu_tring_free(r);
		return fd;
	}
	file = anon_inode_getfile("[npu_trace]", &npu_tring_fops, r, O_RDWR);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		npu_tring_free(r);
		return PTR_ERR(file);
	}

	op.fd = fd;
	op.data_offset = PAGE_SIZE;
	op.data_size = r->data_size;
	if (copy_to_user(uarg, &op, sizeof(op))) {
		put_unused_fd(fd);
		fput(file);	/* npu_tring_fop_release() undoes the rest */
		return -EFAULT;
	}
	fd_install(fd, file);
	return 0;
}
