/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_job.h - jobs straight through the ioctls of /dev/npuN
 * (Documentation/npu/uapi.rst), without libnpu: open the device, make and
 * map buffers, write a one-operator program (CLIP over a buffer), submit a
 * job and wait for it.
 *
 * For the programs that drive the driver itself rather than run models:
 * the benchmarks npu-uring-bench and npuprof-bench-vm, and the VM
 * selftests (selftests/npu/npu_test.h includes it). A program that runs
 * models uses libnpu instead. Header-only; no global state. Every helper
 * returns 0 (or what it says) or a negative errno, and never exits.
 */
#ifndef NPU_JOB_H
#define NPU_JOB_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include <linux/npu.h>

#include "npu/npu_program.h"

/* The device the tools and the VM selftests use */
#define NPU_DEV		"/dev/npu0"

/* open(NPU_DEV) read-write: the fd, or -errno */
static inline int npu_open(void)
{
	int fd = open(NPU_DEV, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* ioctl() returning 0 or -errno */
static inline int npu_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* CLOCK_MONOTONIC in ns, the clock of the driver's *_ns fields */
static inline unsigned long long npu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- buffers ------------------------------------------------------------ */

/* NPU_IOCTL_BO_CREATE of @size bytes; fills @bo */
static inline int npu_bo_new(int fd, unsigned long long size,
			     struct npu_bo_create *bo)
{
	memset(bo, 0, sizeof(*bo));
	bo->size = size;
	return npu_ioctl(fd, NPU_IOCTL_BO_CREATE, bo);
}

/* NPU_IOCTL_BO_FREE of @handle */
static inline int npu_bo_del(int fd, unsigned int handle)
{
	struct npu_bo_free f = { .handle = handle };

	return npu_ioctl(fd, NPU_IOCTL_BO_FREE, &f);
}

/* Map a whole buffer read-write; NULL on failure (errno set). */
static inline void *npu_bo_map(int fd, const struct npu_bo_create *bo)
{
	void *p = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       bo->mmap_offset);

	return p == MAP_FAILED ? NULL : p;
}

/* ---- programs ----------------------------------------------------------- */

/*
 * A one-operator program (Documentation/npu/program.rst): out =
 * clamp(zy + x - zx) over @n bytes (CLIP), input in slot @in_slot, output
 * in slot @out_slot, both at offset 0. Layout: header, 2 tensors, 1 op.
 * @prog must hold NPU_CLIP_PROG_SIZE bytes.
 */
#define NPU_CLIP_PROG_SIZE (sizeof(struct npu_prog_hdr) + \
			    2 * sizeof(struct npu_prog_tensor) + \
			    sizeof(struct npu_prog_op))

struct npu_clip_prog {
	struct npu_prog_hdr hdr;
	struct npu_prog_tensor t[2];
	struct npu_prog_op op;
};

static inline void npu_clip_prog(void *prog, unsigned int n,
				 unsigned int in_slot, unsigned int out_slot,
				 int act_min, int act_max)
{
	struct npu_clip_prog p;

	memset(&p, 0, sizeof(p));
	p.hdr.magic = NPU_PROG_MAGIC;
	p.hdr.version = NPU_PROG_VERSION;
	p.hdr.hdr_size = sizeof(p.hdr);
	p.hdr.n_tensors = 2;
	p.hdr.n_ops = 1;
	p.hdr.tensors_off = offsetof(struct npu_clip_prog, t);
	p.hdr.ops_off = offsetof(struct npu_clip_prog, op);
	p.hdr.size = sizeof(p);
	p.t[0].dtype = NPU_DT_U8;
	p.t[0].ndim = 1;
	p.t[0].layout = NPU_LAYOUT_PLAIN;
	p.t[0].buf = in_slot;
	p.t[0].dims[0] = n;
	p.t[0].dims[1] = p.t[0].dims[2] = p.t[0].dims[3] = 1;
	p.t[1] = p.t[0];
	p.t[1].buf = out_slot;
	p.op.opcode = NPU_OP_CLIP;
	p.op.in[0] = 0;
	p.op.in[1] = NPU_PROG_NONE;
	p.op.in[2] = NPU_PROG_NONE;
	p.op.out = 1;
	p.op.act_min = act_min;
	p.op.act_max = act_max;
	p.op.rq = NPU_PROG_NONE;
	memcpy(prog, &p, sizeof(p));
}

/* ---- jobs --------------------------------------------------------------- */

/*
 * NPU_IOCTL_SUBMIT of a job on @pe (or NPU_PE_ANY) over the @n buffers
 * @handles, its program at @prog_off in slot @prog_slot; its id in *@id
 * (when @id is not NULL).
 */
static inline int npu_submit_job(int fd, unsigned int pe,
				 const unsigned int *handles, unsigned int n,
				 unsigned int prog_slot, unsigned int prog_off,
				 unsigned int prog_size, unsigned long long *id)
{
	struct npu_submit s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.job.pe = pe;
	s.job.nbufs = n;
	s.job.prog_slot = prog_slot;
	s.job.prog_offset = prog_off;
	s.job.prog_size = prog_size;
	s.job.bufs = (uintptr_t)handles;
	ret = npu_ioctl(fd, NPU_IOCTL_SUBMIT, &s);
	if (!ret && id)
		*id = s.job_id;
	return ret;
}

/*
 * NPU_IOCTL_WAIT for job @id (or, with @flags NPU_WAIT_ANY, any job of
 * @fd) for up to @timeout_ns (< 0: for ever); its result in @w->result.
 */
static inline int npu_wait_job(int fd, unsigned long long id,
			       unsigned int flags, long long timeout_ns,
			       struct npu_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->flags = flags;
	w->job_id = id;
	w->timeout_ns = timeout_ns;
	return npu_ioctl(fd, NPU_IOCTL_WAIT, w);
}

#endif /* NPU_JOB_H */
