// SPDX-License-Identifier: GPL-2.0-only
/*
 * emu.c - device lifetime and the event loop.
 *
 * One thread (the caller of npu_emu_run()) serves the socket, the doorbells,
 * the mailbox and the control register; each PE has its own thread (pe.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu_int.h"

enum {
	EV_LISTEN = 100,
	EV_CLIENT,
	EV_STOP,
	EV_SIGNAL,
	EV_DB0 = 0,	/* EV_DB0 + v: doorbell eventfd v */
};

const struct npu_emu_layout *npu_emu_get_layout(const struct npu_emu *e)
{
	return &e->lay;
}

uint8_t *npu_emu_get_shm(const struct npu_emu *e)
{
	return e->shm;
}

static int epoll_add(struct npu_emu *e, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	if (epoll_ctl(e->epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
		int ret = -errno;

		emu_err("epoll_ctl: %s", strerror(errno));
		return ret;
	}
	return 0;
}

static int setup_signals(struct npu_emu *e)
{
	sigset_t set;
	int ret;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	/* block before the PE threads exist, so that they inherit the mask */
	ret = pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (ret) {
		emu_err("pthread_sigmask: %s", strerror(ret));
		return -ret;
	}
	e->sig_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (e->sig_fd < 0) {
		ret = -errno;
		emu_err("signalfd: %s", strerror(errno));
		return ret;
	}
	return 0;
}

int npu_emu_create(const struct npu_emu_opts *o, struct npu_emu **out)
{
	struct npu_emu *e;
	unsigned int v;
	int ret;

	*out = NULL;
	if (!o->socket_path || !*o->socket_path || !o->pes ||
	    o->pes > NPU_HW_MAX_PES || !o->clock_hz ||
	    o->clock_hz > UINT32_MAX || !o->dma_bw || !o->macs_per_cycle ||
	    (o->stall_pe >= 0 && (unsigned int)o->stall_pe >= o->pes))
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->opts = *o;
	e->shm_fd = e->listen_fd = e->client_fd = -1;
	e->stop_fd = e->sig_fd = e->epoll_fd = -1;
	for (v = 0; v < NPU_EMU_VECTORS; v++)
		e->db_fd[v] = e->irq_fd[v] = -1;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->wake, NULL);
	pthread_cond_init(&e->idle, NULL);
	pthread_mutex_init(&e->cpl_lock, NULL);
	pthread_mutex_init(&e->trace_lock, NULL);
	emu_clock_init(&e->clock, o->clock_hz, o->clock_offset,
		       o->clock_drift_ppm, emu_mono_ns());
	e->log.start_ns = e->clock.start_ns;
	e->log.verbose = o->verbose;

	ret = npu_emu_compute_layout(o, &e->lay);
	if (ret) {
		emu_err("DRAM of %" PRIu64 " bytes and a trace area of %" PRIu64
			" bytes do not fit in a 4 GiB BAR", o->dram_size,
			o->trace_size);
		goto fail;
	}
	ret = emu_dev_init_shm(e);
	if (ret)
		goto fail;
	emu_dev_init_regs(e);

	for (v = 0; v < NPU_EMU_VECTORS; v++) {
		e->db_fd[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		e->irq_fd[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (e->db_fd[v] < 0 || e->irq_fd[v] < 0) {
			ret = -errno;
			emu_err("eventfd: %s", strerror(errno));
			goto fail;
		}
	}
	e->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	e->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (e->stop_fd < 0 || e->epoll_fd < 0) {
		ret = -errno;
		emu_err("cannot create event fds: %s", strerror(errno));
		goto fail;
	}
	signal(SIGPIPE, SIG_IGN);
	if (o->handle_signals) {
		ret = setup_signals(e);
		if (ret)
			goto fail;
	}
	ret = emu_pe_start(e);
	if (ret)
		goto fail;
	/* last: the socket appearing means the device is ready */
	ret = emu_ivsh_listen(e);
	if (ret)
		goto fail;

	emu_log(&e->log, "listening on %s: %u PEs, BAR2 %" PRIu64 " bytes, DRAM %"
		PRIu64 " bytes at 0x%" PRIx64 ", clock %" PRIu64
		" Hz, DMA %u MB/s per PE, DRAM bandwidth %u MB/s shared",
		e->sock_path, o->pes, e->lay.bar_size, e->lay.dram_size,
		e->lay.dram_base, o->clock_hz, e->dram.dma_bw, e->dram.dram_bw);
	*out = e;
	return 0;
fail:
	npu_emu_destroy(e);
	return ret;
}

void npu_emu_stop(struct npu_emu *e)
{
	uint64_t one = 1;
	ssize_t n;

	n = write(e->stop_fd, &one, sizeof(one));
	(void)n;
}

static int on_listen(struct npu_emu *e)
{
	int fd, ret;

	fd = accept4(e->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			emu_err("accept: %s", strerror(errno));
		return 0;
	}
	if (e->client_fd >= 0) {
		emu_err("refusing a second connection: this device serves one QEMU at a time");
		close(fd);
		return 0;
	}
	ret = emu_ivsh_handshake(e, fd);
	if (ret) {
		close(fd);
		return 0;
	}
	ret = epoll_add(e, fd, EV_CLIENT);
	if (ret) {
		close(fd);
		return ret;
	}
	e->client_fd = fd;
	emu_log(&e->log, "client connected: peer %d, device peer %d, %d vectors",
		NPU_EMU_QEMU_PEER, NPU_EMU_DEV_PEER, NPU_EMU_VECTORS);
	return 0;
}

/* Return 1 when the client is gone */
static int on_client(struct npu_emu *e, uint32_t events)
{
	char buf[256];
	ssize_t n;

	if (events & EPOLLIN) {
		n = recv(e->client_fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0) {
			if (!e->client_junk)
				emu_err("client sent unexpected data; the ivshmem protocol has no client messages, ignored");
			e->client_junk += (uint64_t)n;
			return 0;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0)
			emu_err("client socket: %s", strerror(errno));
		return 1;
	}
	return (events & (EPOLLHUP | EPOLLERR)) ? 1 : 0;
}

/* --replug: the device was unplugged; wait for the next connection. */
static void on_unplug(struct npu_emu *e)
{
	epoll_ctl(e->epoll_fd, EPOLL_CTL_DEL, e->client_fd, NULL);
	close(e->client_fd);
	e->client_fd = -1;
	e->client_junk = 0;
	emu_dev_power_on(e);
	emu_log(&e->log, "device reset, waiting for the next connection (--replug)");
}

static void on_doorbell(struct npu_emu *e, unsigned int v)
{
	uint64_t count;
	ssize_t n;

	n = read(e->db_fd[v], &count, sizeof(count));
	if (n != sizeof(count))
		return;	/* EAGAIN: already consumed */
	emu_dev_doorbell(e, v, count);
}

int npu_emu_run(struct npu_emu *e)
{
	struct epoll_event evs[16];
	struct signalfd_siginfo si;
	unsigned int v;
	int i, n, ret;

	ret = epoll_add(e, e->listen_fd, EV_LISTEN);
	if (!ret)
		ret = epoll_add(e, e->stop_fd, EV_STOP);
	if (!ret && e->sig_fd >= 0)
		ret = epoll_add(e, e->sig_fd, EV_SIGNAL);
	for (v = 0; !ret && v < NPU_EMU_VECTORS; v++)
		ret = epoll_add(e, e->db_fd[v], EV_DB0 + v);
	if (ret)
		return ret;

	for (;;) {
		n = epoll_wait(e->epoll_fd, evs, 16, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			emu_err("epoll_wait: %s", strerror(errno));
			return ret;
		}
		for (i = 0; i < n; i++) {
			uint32_t tag = evs[i].data.u32;

			switch (tag) {
			case EV_LISTEN:
				ret = on_listen(e);
				if (ret)
					return ret;
				break;
			case EV_CLIENT:
				if (on_client(e, evs[i].events)) {
					if (e->client_junk)
						emu_err("client sent %" PRIu64 " unexpected bytes in all",
							e->client_junk);
					emu_log(&e->log, "client disconnected");
					if (!e->opts.replug)
						return 0;
					on_unplug(e);
				}
				break;
			case EV_STOP:
				emu_log(&e->log, "stop requested");
				return 0;
			case EV_SIGNAL:
				if (read(e->sig_fd, &si, sizeof(si)) ==
				    sizeof(si))
					emu_log(&e->log, "signal %u, exiting",
						si.ssi_signo);
				return 0;
			default:
				if (tag < NPU_EMU_VECTORS)
					on_doorbell(e, tag);
				break;
			}
		}
	}
}

void npu_emu_destroy(struct npu_emu *e)
{
	unsigned int v;

	if (!e)
		return;
	emu_pe_stop(e);
	emu_ivsh_unlink(e);
	if (e->client_fd >= 0)
		close(e->client_fd);
	if (e->listen_fd >= 0)
		close(e->listen_fd);
	for (v = 0; v < NPU_EMU_VECTORS; v++) {
		if (e->db_fd[v] >= 0)
			close(e->db_fd[v]);
		if (e->irq_fd[v] >= 0)
			close(e->irq_fd[v]);
	}
	if (e->stop_fd >= 0)
		close(e->stop_fd);
	if (e->sig_fd >= 0)
		close(e->sig_fd);
	if (e->epoll_fd >= 0)
		close(e->epoll_fd);
	if (e->shm)
		munmap(e->shm, e->lay.bar_size);
	if (e->shm_fd >= 0)
		close(e->shm_fd);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->wake);
	pthread_cond_destroy(&e->idle);
	pthread_mutex_destroy(&e->cpl_lock);
	pthread_mutex_destroy(&e->trace_lock);
	free(e->sock_path);
	free(e->tmp_path);
	free(e);
}

int npu_emu_main(int argc, char **argv)
{
	struct npu_emu_opts o;
	struct npu_emu *e;
	int ret;

	ret = npu_emu_parse_opts(argc, argv, &o, stdout, stderr);
	if (ret)
		return ret > 0 ? 0 : 2;
	o.handle_signals = true;
	ret = npu_emu_create(&o, &e);
	if (ret)
		return 1;
	ret = npu_emu_run(e);
	npu_emu_destroy(e);
	return ret ? 1 : 0;
}
