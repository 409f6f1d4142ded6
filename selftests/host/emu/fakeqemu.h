/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fakeqemu.h - host-test helpers that play QEMU's part against npu-emu:
 * connect to the socket, receive the shared memory and eventfds per the
 * ivshmem protocol, access registers, ring doorbells, wait for MSI-X.
 */
#ifndef NPU_EMU_FAKEQEMU_H
#define NPU_EMU_FAKEQEMU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "emu.h"

#define FQ_MAX_FDS	16

struct fakeqemu {
	int sock;
	int64_t version;
	int64_t my_id;
	int shm_fd;
	uint8_t *shm;
	size_t shm_size;
	int64_t peer_id;		/* the other peer (the device) */
	int db_fd[FQ_MAX_FDS];		/* the device's doorbells */
	int n_db;
	int irq_fd[FQ_MAX_FDS];		/* our MSI-X vectors */
	int n_irq;
	uint32_t cmd_prod[NPU_HW_MAX_PES];	/* host shadow producers */
	uint32_t cpl_cons;			/* host shadow consumer */
};

/* Connect and read the whole handshake (version, id, shm, 2 x vectors fds) */
int fq_connect(struct fakeqemu *q, const char *path, int vectors);
/* Connect only; returns the socket or -errno */
int fq_connect_raw(const char *path);
/* Read one protocol message: value and optional fd (-1 when none) */
int fq_recv_msg(int sock, int64_t *val, int *fd);
void fq_close(struct fakeqemu *q);

uint32_t fq_rd(const struct fakeqemu *q, uint32_t off);
void fq_wr(const struct fakeqemu *q, uint32_t off, uint32_t val);
void fq_ring(const struct fakeqemu *q, unsigned int db);
/* 1 if vector fired within timeout_ms (and consume it), 0 if not */
int fq_wait_irq(const struct fakeqemu *q, unsigned int vector, int timeout_ms);
/* Non-blocking: how many times the vector fired since the last read */
uint64_t fq_irq_count(const struct fakeqemu *q, unsigned int vector);

/*
 * Post a mailbox request and wait for its acknowledgement (by the MBOX
 * vector unless op has NPU_MBOX_F_NOIRQ, then by polling ACK).
 * Returns 0, or -ETIMEDOUT.
 */
int fq_mbox(const struct fakeqemu *q, uint32_t op, uint32_t arg, uint32_t seq,
	    uint32_t *result, uint64_t *data);

/* Register page helpers for 64-bit fields and BAR2 pointers */
void *fq_ptr(const struct fakeqemu *q, uint64_t off);

/* Set CONTROL (ENABLE and a trace level), ring, wait for STATUS to follow */
int fq_control(struct fakeqemu *q, bool enable, unsigned int trace_level);

/* Queue a command on PE @pe's queue (entry, then producer); no doorbell */
void fq_put_cmd(struct fakeqemu *q, unsigned int pe,
		const struct npu_hw_cmd *cmd);
/* Queue a command on PE @pe's queue and ring NPU_DB_QUEUE */
void fq_submit(struct fakeqemu *q, unsigned int pe,
	       const struct npu_hw_cmd *cmd);
/* Take the next completion, waiting up to timeout_ms. 0 or -ETIMEDOUT */
int fq_wait_cpl(struct fakeqemu *q, struct npu_hw_cpl *cpl, int timeout_ms);
/* Completions available without waiting */
uint32_t fq_cpl_pending(const struct fakeqemu *q);

/*
 * Program builder: a chain of @n_ops CLIP operators over two PLAIN u8
 * tensors of @elems elements in buffer slot @data_slot (tensor 0 at offset
 * 0, tensor 1 at the next multiple of 64), alternating 0->1, 1->0, ...,
 * clamped to [act_min, act_max]. Writes the program to @dst (at least
 * prog_size_for(n_ops) bytes) and returns its size.
 */
uint32_t prog_size_for(uint32_t n_ops);
uint32_t build_clip_prog(void *dst, uint32_t n_ops, uint32_t elems,
			 uint8_t data_slot, int32_t act_min, int32_t act_max);

/* An emulator running in a thread of the test process */
struct fq_emu {
	struct npu_emu *emu;
	pthread_t thread;
	int ret;
	char dir[64];
	char path[128];
};

/* Create the device on a fresh socket under /tmp and run it in a thread */
int fq_emu_start(struct fq_emu *t, struct npu_emu_opts *o);
/* Stop, join and destroy; returns npu_emu_run()'s result */
int fq_emu_stop(struct fq_emu *t);
/* Make a temporary directory and socket path in it */
int make_sock_path(char *dir, size_t dlen, char *path, size_t plen);

uint64_t now_ns(void);
bool wait_for_path(const char *path, int timeout_ms);

#endif
