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

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

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

#define TRACEFS		"/sys/kernel/tracing"

/*
 * ftrace around a test: tracefs_begin() empties the trace buffer, enables
 * the NULL-terminated @events ("npu/npu_job_submit", or "npu" for the
 * whole system) and turns tracing on; tracefs_end() turns it off, disables
 * them and reads the buffer into @buf (NUL-terminated). Task names are not
 * recorded meanwhile: enabling that hooks sched_switch, which patches
 * __schedule() while the other CPUs run it, and under QEMU TCG that
 * cross-modifying write can leave a vCPU looping on a stale int3 (both
 * CPUs then hang in text_poke_bp()). @saved keeps the option's value.
 */
static inline int tracefs_event_set(const char *event, const char *on)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/events/%s/enable", event);
	return npu_write_file(path, on);
}

static inline int tracefs_begin(const char *const *events, char *saved,
				size_t len)
{
	int fd, ret;

	saved[0] = '\0';
	if (!npu_read_file(TRACEFS "/options/record-cmd", saved, len))
		npu_write_file(TRACEFS "/options/record-cmd", "0");
	ret = npu_write_file(TRACEFS "/tracing_on", "0");
	if (ret)
		return ret;
	/* Empty the buffer (O_TRUNC), or earlier runs' events fill it. */
	fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	for (; *events; events++) {
		ret = tracefs_event_set(*events, "1");
		if (ret)
			return ret;
	}
	return npu_write_file(TRACEFS "/tracing_on", "1");
}

static inline ssize_t tracefs_end(const char *const *events,
				  const char *saved, char *buf, size_t len)
{
	ssize_t n;
	int fd, ret;

	ret = npu_write_file(TRACEFS "/tracing_on", "0");
	for (; *events; events++)
		tracefs_event_set(*events, "0");
	if (saved[0])
		npu_write_file(TRACEFS "/options/record-cmd", saved);
	if (ret)
		return ret;
	fd = open(TRACEFS "/trace", O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

#endif /* _TRACE_LIB_H */
