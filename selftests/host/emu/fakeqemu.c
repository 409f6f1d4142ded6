// SPDX-License-Identifier: GPL-2.0-only
/*
 * fakeqemu.c - see fakeqemu.h.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fakeqemu.h"
#include "npu_progbuild.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool wait_for_path(const char *path, int timeout_ms)
{
	struct stat st;
	int i;

	for (i = 0; i < timeout_ms; i++) {
		if (!stat(path, &st))
			return true;
		usleep(1000);
	}
	return false;
}

int fq_connect_raw(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

int fq_recv_msg(int sock, int64_t *val, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	struct iovec iov = { .iov_base = val, .iov_len = sizeof(*val) };
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	ssize_t n;

	*fd = -1;
	if (poll(&pfd, 1, 5000) != 1)
		return -ETIMEDOUT;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	if (n != sizeof(*val))
		return -EPROTO;
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET &&
		    cmsg->cmsg_type == SCM_RIGHTS &&
		    cmsg->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	return 0;
}

int fq_connect(struct fakeqemu *q, const char *path, int vectors)
{
	struct stat st;
	int64_t val;
	int fd, ret;

	memset(q, 0, sizeof(*q));
	q->shm_fd = -1;
	q->sock = fq_connect_raw(path);
	if (q->sock < 0)
		return q->sock;
	ret = fq_recv_msg(q->sock, &q->version, &fd);
	if (ret || fd >= 0)
		return ret ? ret : -EPROTO;
	ret = fq_recv_msg(q->sock, &q->my_id, &fd);
	if (ret || fd >= 0)
		return ret ? ret : -EPROTO;
	ret = fq_recv_msg(q->sock, &val, &q->shm_fd);
	if (ret || val != -1 || q->shm_fd < 0)
		return ret ? ret : -EPROTO;
	if (fstat(q->shm_fd, &st))
		return -errno;
	q->shm_size = (size_t)st.st_size;
	q->shm = mmap(NULL, q->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      q->shm_fd, 0);
	if (q->shm == MAP_FAILED) {
		q->shm = NULL;
		return -errno;
	}
	/* like QEMU: read until we have all of our own vectors */
	q->peer_id = -1;
	while (q->n_irq < vectors) {
		ret = fq_recv_msg(q->sock, &val, &fd);
		if (ret)
			return ret;
		if (fd < 0)
			return -EPROTO;
		if (val == q->my_id) {
			q->irq_fd[q->n_irq++] = fd;
		} else {
			if (q->peer_id >= 0 && q->peer_id != val)
				return -EPROTO;
			if (q->n_db >= FQ_MAX_FDS) {
				close(fd);
				return -E2BIG;
			}
			q->peer_id = val;
			q->db_fd[q->n_db++] = fd;
		}
	}
	return 0;
}

void fq_close(struct fakeqemu *q)
{
	int i;

	for (i = 0; i < q->n_db; i++)
		close(q->db_fd[i]);
	for (i = 0; i < q->n_irq; i++)
		close(q->irq_fd[i]);
	if (q->shm)
		munmap(q->shm, q->shm_size);
	if (q->shm_fd >= 0)
		close(q->shm_fd);
	if (q->sock >= 0)
		close(q->sock);
	memset(q, 0, sizeof(*q));
	q->sock = q->shm_fd = -1;
}

uint32_t fq_rd(const struct fakeqemu *q, uint32_t off)
{
	return __atomic_load_n((uint32_t *)(q->shm + off), __ATOMIC_ACQUIRE);
}

void fq_wr(const struct fakeqemu *q, uint32_t off, uint32_t val)
{
	__atomic_store_n((uint32_t *)(q->shm + off), val, __ATOMIC_RELEASE);
}

void fq_ring(const struct fakeqemu *q, unsigned int db)
{
	uint64_t one = 1;

	if (db < (unsigned int)q->n_db &&
	    write(q->db_fd[db], &one, sizeof(one)) != sizeof(one))
		perror("fq_ring");
}

int fq_wait_irq(const struct fakeqemu *q, unsigned int vector, int timeout_ms)
{
	struct pollfd pfd = { .fd = q->irq_fd[vector], .events = POLLIN };
	uint64_t cnt;

	if (poll(&pfd, 1, timeout_ms) != 1)
		return 0;
	if (read(q->irq_fd[vector], &cnt, sizeof(cnt)) != sizeof(cnt))
		return 0;
	return 1;
}

uint64_t fq_irq_count(const struct fakeqemu *q, unsigned int vector)
{
	struct pollfd pfd = { .fd = q->irq_fd[vector], .events = POLLIN };
	uint64_t cnt;

	if (poll(&pfd, 1, 0) != 1)
		return 0;
	if (read(q->irq_fd[vector], &cnt, sizeof(cnt)) != sizeof(cnt))
		return 0;
	return cnt;
}

int fq_mbox(const struct fakeqemu *q, uint32_t op, uint32_t arg, uint32_t seq,
	    uint32_t *result, uint64_t *data)
{
	int i;

	fq_wr(q, NPU_REG_MBOX_OP, op);
	fq_wr(q, NPU_REG_MBOX_ARG, arg);
	fq_wr(q, NPU_REG_MBOX_SEQ, seq);
	fq_ring(q, NPU_DB_MBOX);
	if (!(op & NPU_MBOX_F_NOIRQ)) {
		if (!fq_wait_irq(q, NPU_MSIX_MBOX, 10000))
			return -ETIMEDOUT;
		if (fq_rd(q, NPU_REG_MBOX_ACK) != seq)
			return -EPROTO;
	} else {
		for (i = 0; fq_rd(q, NPU_REG_MBOX_ACK) != seq; i++) {
			if (i > 100000)
				return -ETIMEDOUT;
			usleep(100);
		}
	}
	if (result)
		*result = fq_rd(q, NPU_REG_MBOX_RESULT);
	if (data)
		*data = fq_rd(q, NPU_REG_MBOX_DATA_LO) |
			(uint64_t)fq_rd(q, NPU_REG_MBOX_DATA_HI) << 32;
	return 0;
}

int make_sock_path(char *dir, size_t dlen, char *path, size_t plen)
{
	snprintf(dir, dlen, "/tmp/npu-emu-test.XXXXXX");
	if (!mkdtemp(dir))
		return -errno;
	snprintf(path, plen, "%s/npu.sock", dir);
	return 0;
}

static void *fq_emu_thread(void *arg)
{
	struct fq_emu *t = arg;

	t->ret = npu_emu_run(t->emu);
	return NULL;
}

int fq_emu_start(struct fq_emu *t, struct npu_emu_opts *o)
{
	int ret;

	memset(t, 0, sizeof(*t));
	ret = make_sock_path(t->dir, sizeof(t->dir), t->path, sizeof(t->path));
	if (ret)
		return ret;
	o->socket_path = t->path;
	ret = npu_emu_create(o, &t->emu);
	if (ret)
		return ret;
	ret = pthread_create(&t->thread, NULL, fq_emu_thread, t);
	if (ret) {
		npu_emu_destroy(t->emu);
		t->emu = NULL;
		return -ret;
	}
	return 0;
}

int fq_emu_stop(struct fq_emu *t)
{
	if (!t->emu)
		return -EINVAL;
	npu_emu_stop(t->emu);
	pthread_join(t->thread, NULL);
	npu_emu_destroy(t->emu);
	t->emu = NULL;
	rmdir(t->dir);
	return t->ret;
}

void *fq_ptr(const struct fakeqemu *q, uint64_t off)
{
	return q->shm + off;
}

int fq_control(struct fakeqemu *q, bool enable, unsigned int trace_level)
{
	uint32_t want = NPU_STATUS_READY | (enable ? NPU_STATUS_ENABLED : 0);
	uint32_t seq = fq_rd(q, NPU_REG_MBOX_ACK) + 1;
	uint32_t result;
	int ret;

	fq_wr(q, NPU_REG_CONTROL, (enable ? NPU_CTRL_ENABLE : 0) |
	      (trace_level << NPU_CTRL_TRACE_SHIFT));
	fq_ring(q, NPU_DB_CONTROL);
	/* the device services doorbells in order: a ping orders the two */
	ret = fq_mbox(q, NPU_MBOX_PING | NPU_MBOX_F_NOIRQ, 0, seq, &result,
		      NULL);
	if (ret)
		return ret;
	return (fq_rd(q, NPU_REG_STATUS) & ~NPU_STATUS_FAULT) == want ? 0 :
	       -EIO;
}

void fq_put_cmd(struct fakeqemu *q, unsigned int pe,
		const struct npu_hw_cmd *cmd)
{
	uint32_t base = fq_rd(q, NPU_REG_CMDQ_BASE) +
			pe * fq_rd(q, NPU_REG_CMDQ_STRIDE);
	uint32_t entries = fq_rd(q, NPU_REG_CMDQ_ENTRIES);
	struct npu_hw_ring_ptrs *ptrs = fq_ptr(q, base);
	struct npu_hw_cmd *slot;

	slot = (struct npu_hw_cmd *)((uint8_t *)ptrs +
				     NPU_HW_CMDQ_ENTRIES_OFFSET) +
	       (q->cmd_prod[pe] & (entries - 1));
	memcpy(slot, cmd, sizeof(*cmd));
	q->cmd_prod[pe]++;
	__atomic_store_n(&ptrs->prod, q->cmd_prod[pe], __ATOMIC_RELEASE);
}

void fq_submit(struct fakeqemu *q, unsigned int pe,
	       const struct npu_hw_cmd *cmd)
{
	fq_put_cmd(q, pe, cmd);
	fq_ring(q, NPU_DB_QUEUE);
}

uint32_t fq_cpl_pending(const struct fakeqemu *q)
{
	struct npu_hw_ring_ptrs *ptrs = fq_ptr(q, fq_rd(q, NPU_REG_CPLQ_BASE));

	return __atomic_load_n(&ptrs->prod, __ATOMIC_ACQUIRE) - q->cpl_cons;
}

int fq_wait_cpl(struct fakeqemu *q, struct npu_hw_cpl *cpl, int timeout_ms)
{
	struct npu_hw_ring_ptrs *ptrs = fq_ptr(q, fq_rd(q, NPU_REG_CPLQ_BASE));
	uint32_t entries = fq_rd(q, NPU_REG_CPLQ_ENTRIES);
	uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000;
	struct npu_hw_cpl *slot;

	while (!fq_cpl_pending(q)) {
		if (now_ns() > deadline)
			return -ETIMEDOUT;
		fq_wait_irq(q, NPU_MSIX_CPL, 10);
	}
	slot = (struct npu_hw_cpl *)((uint8_t *)ptrs +
				     NPU_HW_CPLQ_ENTRIES_OFFSET) +
	       (q->cpl_cons & (entries - 1));
	memcpy(cpl, slot, sizeof(*cpl));
	q->cpl_cons++;
	__atomic_store_n(&ptrs->cons, q->cpl_cons, __ATOMIC_RELEASE);
	return 0;
}

uint32_t prog_size_for(uint32_t n_ops)
{
	return (uint32_t)progbuild_size_for(2, n_ops);
}

uint32_t build_clip_prog(void *dst, uint32_t n_ops, uint32_t elems,
			 uint8_t data_slot, int32_t act_min, int32_t act_max)
{
	const uint32_t dims[4] = { elems, 1, 1, 1 };
	struct npu_prog_tensor t[2];
	struct npu_prog_op *op;
	uint32_t i, size;

	op = calloc(n_ops ? n_ops : 1, sizeof(*op));
	if (!op)
		return 0;
	for (i = 0; i < 2; i++)
		progbuild_fill_tensor(&t[i], NPU_DT_U8, NPU_LAYOUT_PLAIN, data_slot,
			   i ? (elems + 63) & ~63u : 0, 1, dims, 0);
	for (i = 0; i < n_ops; i++)
		progbuild_fill_op(&op[i], NPU_OP_CLIP, i & 1, NPU_PROG_NONE,
		       NPU_PROG_NONE, !(i & 1), NPU_PROG_NONE, act_min,
		       act_max);
	size = (uint32_t)progbuild_write(dst, t, 2, op, n_ops);
	free(op);
	return size;
}
