// SPDX-License-Identifier: GPL-2.0-only
/*
 * npuprof-bench-vm - does libnpuprof's reader keep up with the driver?
 * Run in the VM (tools/npuprof-bench/bench.sh does).
 *
 * The flood of npu-trace-bench (level 2, 1000-op jobs whose OP records
 * come as fast as the emulator runs them, 8 jobs in flight) with a
 * libnpuprof session as the reader: for several ring sizes, the records
 * the session wrote to its trace file per second, what the driver dropped
 * (ring full) and what the device dropped (its trace area full). A reader
 * that keeps up loses nothing once the ring holds what arrives between
 * two wake-ups. Not a test: it prints figures, and exits 1 only when
 * something fails.
 *
 * Usage: npuprof-bench-vm [-j JOBS] [-o DIR]
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

/* npu_test.h wants the harness's includes; it has no harness dependency. */
#include "npu_test.h"
#include "trace_lib.h"
#include "npuprof.h"

static void die(const char *what, int err)
{
	fprintf(stderr, "npuprof-bench-vm: %s: %s\n", what, strerror(-err));
	exit(1);
}

static void log_all(void *ctx, int level, const char *msg)
{
	(void)ctx;
	printf("    [%d] %s\n", level, msg);
}

static void flood(int fd, struct trace_jobs *j, const char *dir,
		  unsigned int pages, unsigned int jobs)
{
	static const char *const devs[] = { NPU_DEV, NULL };
	struct npuprof_stats st = { .sz = sizeof(st) };
	unsigned long long *ids = calloc(jobs, sizeof(*ids));
	struct npuprof_session *s;
	struct npuprof_opts o;
	unsigned int done = 0, sub = 0;
	struct npu_wait w;
	char path[256];
	uint64_t t0, t1;
	int ret;

	snprintf(path, sizeof(path), "%s/bench-%u.npuprof", dir, pages);
	npuprof_opts_init(&o);
	o.output = path;
	o.devices = devs;
	o.ring_pages = pages;
	o.level = 2;
	o.log = log_all;
	o.log_level = NPUPROF_LOG_WARN;
	ret = npuprof_session_create(&o, &s);
	if (!ret)
		ret = npuprof_session_start(s);
	if (ret)
		die("session", ret);
	t0 = npu_now_ns();
	while (done < jobs) {
		while (sub < jobs && sub - done < 8) {
			ret = trace_job_submit(j, NPU_PE_ANY, &ids[sub]);
			if (ret)
				die("submit", ret);
			sub++;
		}
		ret = npu_wait_job(fd, ids[done], 0, 10000000000ll, &w);
		if (ret || w.status != NPU_JOB_OK)
			die("wait", ret ? ret : -EIO);
		done++;
	}
	ret = npuprof_session_stop(s);
	t1 = npu_now_ns();
	if (ret)
		die("stop", ret);
	npuprof_session_stats(s, &st);
	npuprof_session_free(s);
	printf("  ring %5u pages: %9.0f records/s into the file (%6.1f MB/s), %llu records, %llu lost in ring, %llu lost in device, file %.1f MiB\n",
	       pages, (double)st.records * 1e9 / (double)(t1 - t0),
	       (double)st.records * 80 / (double)(t1 - t0) * 1e3,
	       (unsigned long long)st.records,
	       (unsigned long long)st.lost_ring,
	       (unsigned long long)st.lost_device,
	       (double)st.bytes_written / 1048576.0);
	unlink(path);
	free(ids);
}

int main(int argc, char **argv)
{
	static const unsigned int pages[] = { 1, 4, 16, 64, 256, 1024 };
	unsigned int jobs = 40, i;
	const char *dir = "/tmp";
	struct trace_jobs j;
	int fd, ret, c;

	while ((c = getopt(argc, argv, "j:o:h")) != -1) {
		switch (c) {
		case 'j':
			jobs = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			dir = optarg;
			break;
		default:
			fprintf(stderr, "usage: npuprof-bench-vm [-j JOBS] [-o DIR]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!jobs) {
		fprintf(stderr, "npuprof-bench-vm: -j needs at least 1 job\n");
		return 2;
	}
	fd = npu_open();
	if (fd < 0)
		die(NPU_DEV, fd);
	ret = trace_jobs_init(&j, fd, 64, 1000);
	if (ret)
		die("buffers", ret);
	printf("libnpuprof reader: level 2, 1000-op jobs (80-byte OP records), 8 in flight, %u jobs per ring size\n",
	       jobs);
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		flood(fd, &j, dir, pages[i], jobs);
	close(fd);
	return 0;
}
