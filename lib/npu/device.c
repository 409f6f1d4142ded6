// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* device.c - NPU devices and buffers */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npu_internal.h"

int npu_device_open(const char *path, struct npu_device **devp)
{
	struct npu_device *dev;
	int ret;

	if (!path || !devp)
		return -EINVAL;
	/* zero-code profiling: a session when NPUPROF_OUTPUT_PATH is set */
	npuprof_env_start();
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		ret = -errno;
		free(dev);
		return ret;
	}
	ret = npu_xioctl(dev->fd, NPU_IOCTL_GET_INFO, &dev->info);
	/* a driver of another uapi version lays its structs out otherwise */
	if (!ret && dev->info.version != NPU_INFO_VERSION)
		ret = -EPROTONOSUPPORT;
	if (ret < 0) {
		close(dev->fd);
		free(dev);
		return ret;
	}
	*devp = dev;
	return 0;
}

int npu_device_open_index(unsigned int index, struct npu_device **dev)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/npu%u", index);
	return npu_device_open(path, dev);
}

void npu_device_close(struct npu_device *dev)
{
	if (!dev)
		return;
	close(dev->fd);
	free(dev);
}

const struct npu_info *npu_device_info(const struct npu_device *dev)
{
	return &dev->info;
}

int npu_device_fd(const struct npu_device *dev)
{
	return dev->fd;
}

int npu_buffer_create(struct npu_device *dev, size_t size, uint32_t flags,
		      struct npu_buffer **bufp)
{
	struct npu_bo_create req = { .size = size, .flags = flags };
	struct npu_buffer *buf;
	int ret;

	if (!dev || !bufp || !size)
		return -EINVAL;
	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	ret = npu_xioctl(dev->fd, NPU_IOCTL_BO_CREATE, &req);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	buf->dev = dev;
	buf->size = size;
	buf->map_size = size;
	buf->handle = req.handle;
	buf->dev_addr = req.dev_addr;
	buf->mmap_offset = req.mmap_offset;
	pthread_mutex_init(&buf->lock, NULL);
	*bufp = buf;
	return 0;
}

int npu_buffer_map(struct npu_buffer *buf, void **addr)
{
	int ret = 0;

	pthread_mutex_lock(&buf->lock);
	if (!buf->map) {
		void *p = mmap(NULL, buf->map_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, buf->dev->fd, (off_t)buf->mmap_offset);

		if (p == MAP_FAILED)
			ret = -errno;
		else
			buf->map = p;
	}
	if (!ret)
		*addr = buf->map;
	pthread_mutex_unlock(&buf->lock);
	return ret;
}

size_t npu_buffer_size(const struct npu_buffer *buf)
{
	return buf->size;
}

uint32_t npu_buffer_handle(const struct npu_buffer *buf)
{
	return buf->handle;
}

uint64_t npu_buffer_dev_addr(const struct npu_buffer *buf)
{
	return buf->dev_addr;
}

void npu_buffer_free(struct npu_buffer *buf)
{
	struct npu_bo_free req = { .handle = buf ? buf->handle : 0 };

	if (!buf)
		return;
	if (buf->map)
		munmap(buf->map, buf->map_size);
	npu_xioctl(buf->dev->fd, NPU_IOCTL_BO_FREE, &req);
	pthread_mutex_destroy(&buf->lock);
	free(buf);
}
