// SPDX-License-Identifier: GPL-2.0-only
/*
 * ivshmem.c - the server side of QEMU's ivshmem protocol.
 *
 * Every message is one little-endian int64, optionally with one file
 * descriptor attached as SCM_RIGHTS. Right after accept() the server sends:
 * the protocol version (0); the client's peer id; -1 with the shared memory
 * fd. Then, for each peer, its id once per vector with one eventfd each: the
 * vector number is the order of arrival. We send the device's doorbells
 * (peer NPU_EMU_DEV_PEER) first and QEMU's own interrupt vectors last,
 * because QEMU reads synchronously until it has all of its own vectors.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "emu_int.h"

static int fill_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

/* Is a live server listening on @path? */
static bool socket_alive(const char *path)
{
	struct sockaddr_un sa;
	bool alive;
	int fd;

	if (fill_addr(&sa, path))
		return false;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	alive = !connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return alive;
}

int emu_ivsh_listen(struct npu_emu *e)
{
	const char *path = e->opts.socket_path;
	struct sockaddr_un sa;
	struct stat st;
	size_t len;
	int fd, ret;

	len = strlen(path);
	e->sock_path = strdup(path);
	e->tmp_path = malloc(len + 5);
	if (!e->sock_path || !e->tmp_path)
		return -ENOMEM;
	memcpy(e->tmp_path, path, len);
	memcpy(e->tmp_path + len, ".tmp", 5);
	if (fill_addr(&sa, e->tmp_path)) {
		emu_err("socket path '%s' is too long (at most %zu bytes)",
			path, sizeof(sa.sun_path) - 5);
		return -ENAMETOOLONG;
	}

	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			emu_err("'%s' exists and is not a socket", path);
			return -EEXIST;
		}
		if (socket_alive(path)) {
			emu_err("'%s' is in use by another server", path);
			return -EADDRINUSE;
		}
		/* a stale socket: rename() below replaces it */
	}

	if (unlink(e->tmp_path) && errno != ENOENT) {
		ret = -errno;
		emu_err("cannot remove '%s': %s", e->tmp_path, strerror(errno));
		return ret;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		ret = -errno;
		emu_err("socket: %s", strerror(errno));
		return ret;
	}
	e->listen_fd = fd;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		emu_err("cannot bind '%s': %s", e->tmp_path, strerror(errno));
		return ret;
	}
	if (listen(fd, 4) || stat(e->tmp_path, &st)) {
		ret = -errno;
		emu_err("cannot listen on '%s': %s", e->tmp_path,
			strerror(errno));
		unlink(e->tmp_path);
		return ret;
	}
	e->sock_dev = st.st_dev;
	e->sock_ino = st.st_ino;
	if (rename(e->tmp_path, path)) {
		ret = -errno;
		emu_err("cannot rename '%s' to '%s': %s", e->tmp_path, path,
			strerror(errno));
		unlink(e->tmp_path);
		return ret;
	}
	e->sock_bound = true;
	return 0;
}

void emu_ivsh_unlink(struct npu_emu *e)
{
	struct stat st;

	if (!e->sock_bound)
		return;
	/* remove PATH only if it is still our socket */
	if (!stat(e->sock_path, &st) && st.st_dev == e->sock_dev &&
	    st.st_ino == e->sock_ino)
		unlink(e->sock_path);
	e->sock_bound = false;
}

static int send_msg(int sock, int64_t val, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	struct iovec iov;
	ssize_t n;

	/* x86 is little-endian: the int64 goes out as is */
	iov.iov_base = &val;
	iov.iov_len = sizeof(val);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	do {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n != sizeof(val))
		return -EIO;
	return 0;
}

int emu_ivsh_handshake(struct npu_emu *e, int fd)
{
	unsigned int v;
	int ret;

	ret = send_msg(fd, 0, -1);			/* protocol version */
	if (!ret)
		ret = send_msg(fd, NPU_EMU_QEMU_PEER, -1);	/* your id */
	if (!ret)
		ret = send_msg(fd, -1, e->shm_fd);	/* shared memory */
	for (v = 0; !ret && v < NPU_EMU_VECTORS; v++)
		ret = send_msg(fd, NPU_EMU_DEV_PEER, e->db_fd[v]);
	for (v = 0; !ret && v < NPU_EMU_VECTORS; v++)
		ret = send_msg(fd, NPU_EMU_QEMU_PEER, e->irq_fd[v]);
	if (ret)
		emu_err("handshake with the client failed: %s", strerror(-ret));
	return ret;
}
