/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace_lib.h - what the trace selftests share beyond the ring reader and
 * the CLIP-chain jobs of tools/include/npu_trace_reader.h (included here):
 * a thread that polls a trace fd once, and the driver's trace parameters.
 *
 * Include after npu_test.h. Helpers return 0 or a negative errno.
 */
#ifndef _TRACE_LIB_H
#define _TRACE_LIB_H

#include <poll.h>
#include <stdio.h>

#include "npu_trace_reader.h"

#define TRACE_PARAM_DIR	"/sys/module/npu/parameters/"

/* Thread body (pthread_create) that polls @fd once for POLLIN. */
struct trace_poller {
	int fd;
	int timeout_ms;
	int ret;		/* poll()'s result */
	short revents;
};

static inline void *trace_poller_main(void *arg)
{
	struct trace_poller *p = arg;
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

	p->ret = poll(&pfd, 1, p->timeout_ms);
	p->revents = pfd.revents;
	return NULL;
}

static inline int trace_param_get(const char *name, unsigned long long *v)
{
	char path[128];

	snprintf(path, sizeof(path), TRACE_PARAM_DIR "%s", name);
	return npu_read_u64(path, v);
}

static inline int trace_param_set(const char *name, unsigned long long v)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), TRACE_PARAM_DIR "%s", name);
	snprintf(buf, sizeof(buf), "%llu", v);
	return npu_write_file(path, buf);
}

#endif /* _TRACE_LIB_H */
