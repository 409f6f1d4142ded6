/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* npu_internal.h - libnpu private declarations */
#ifndef NPU_INTERNAL_H
#define NPU_INTERNAL_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/ioctl.h>

#include "libnpu.h"
#include "npuprof.h"
#include "npu/npu_program.h"
#include "npu/npu_model_file.h"
#include "npu/npu_model_layers.h"

struct npu_device {
	int fd;
	struct npu_info info;
	int uring;	/* io_uring: 0 not probed, 1 yes, -1 no; atomic */
};

/* uring.c: jobs through io_uring (NPU_URING_CMD_SUBMIT), one at a time */
struct npu_uring;

/* 1 when the driver takes NPU_URING_CMD_SUBMIT on @fd, else 0 */
int npu_uring_probe(int fd);
/* a ring for one job at a time on @fd */
int npu_uring_create(int fd, struct npu_uring **u);
void npu_uring_free(struct npu_uring *u);
/* queue a job: 0 and its id once the driver has it, or -errno */
int npu_uring_submit(struct npu_uring *u, const struct npu_job_desc *job,
		     __u64 *job_id);
/* its result, as NPU_IOCTL_WAIT gives it; -ETIMEDOUT, or the CQE's -errno */
int npu_uring_wait(struct npu_uring *u, int64_t timeout_ns,
		   struct npu_job_result *res);

struct npu_buffer {
	struct npu_device *dev;
	size_t size;
	size_t map_size;
	uint32_t handle;
	uint64_t dev_addr;
	uint64_t mmap_offset;
	void *map;
	pthread_mutex_t lock;
};

struct npu_model {
	char name[NPU_MODEL_NAME_LEN];
	unsigned int n_slots;
	uint32_t slot_kind[NPU_MODEL_MAX_SLOTS];
	size_t slot_size[NPU_MODEL_MAX_SLOTS];
	unsigned int n_inputs, n_outputs;
	struct npu_tensor_desc io[NPU_MODEL_MAX_IO];
	/* slot 0 image: const blob, zero padding, program */
	uint8_t *image;
	size_t image_size;
	uint32_t prog_offset;
	uint32_t prog_size;
	/* the checked layer table (npu_model_layers.h), or NULL */
	void *layers;
	size_t layers_size;
	/* npuprof_model_register()'s id, 0 when it failed: SUBMIT spans */
	uint32_t prof_id;
};

struct npu_runner;

struct npu_inference {
	struct npu_runner *runner;
	struct npu_buffer *bufs[NPU_MODEL_MAX_SLOTS];	/* [0] is shared */
	uint8_t *maps[NPU_MODEL_MAX_SLOTS];
	uint8_t *stage;		/* host staging, max io count bytes */
	bool submitted;		/* a job is on the device */
	bool done;		/* the last job completed with NPU_JOB_OK */
	bool busy;		/* acquired; under runner->lock */
	uint64_t job_id;
	struct npu_uring *uring;	/* the context's ring, or NULL (ioctls) */
	struct npuprof_span span;	/* acquire .. release */
};

struct npu_runner {
	struct npu_device *dev;
	const struct npu_model *model;
	struct npu_buffer *const_buf;
	uint8_t *const_map;
	unsigned int n_ctx;
	struct npu_inference *ctx;
	unsigned int n_pes;
	uint32_t pes[16];
	unsigned int rr;
	unsigned int n_free;
	bool uring;		/* contexts submit through io_uring */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* ioctl() restarted on EINTR; returns its result or -errno */
static inline int npu_xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

#endif /* NPU_INTERNAL_H */
