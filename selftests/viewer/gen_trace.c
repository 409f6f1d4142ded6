// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_trace.c - writes the trace files of the real-viewer test, built by
 * the same code as the host test of the exporter (chrome_gen.h); what
 * they hold is written down in expect.mjs.
 *
 * The basic trace: one inference of process 100 (a label, an inference,
 * a submit and a wait span) whose job runs on PE 1 of npu3 with two
 * operators (write_basic()).
 *
 * The loss trace (--loss): npu0 with one PE runs job 1 of process 100,
 * then job 2, which the device reports started 1 ms before it was
 * submitted (a causality violation); the ring loses 6 records, then 2
 * more, and the host loses 4 spans of thread 102. No host span.
 *
 * The back-to-back trace (--b2b): 8 MobileNet-like inferences of 30
 * operators each on the 2 PEs of npu0 at 10 days of uptime, every
 * operator starting when the one before ends (write_b2b()).
 *
 * The memory trace (--memory): memory_gen.h's buffer records, whose SVG
 * memsvg.mjs checks against the figures of test_memory.c. The many
 * buffers trace (--memory-many): 400 buffers of 4 processes on npu0
 * (1 GiB), sizes from 4 KiB to 4 MiB, lifetimes from 1 us to the whole
 * trace, some never freed, every 50th allocation a failure: the SVG
 * must stay readable (every buffer at least 1 px, in its plot).
 *
 * Usage: npuprof-viewer-gen [--loss|--b2b|--memory|--memory-many] FILE
 */
#include "chrome_gen.h"
#include "memory_gen.h"

/* 400 buffers: a deterministic mix (no rand(): the same file each run) */
static char *write_memory_many(void)
{
	uint64_t seed = 12345, t = MEM_T0, used = 0, id, addr = 0x400000;
	struct { uint64_t id, addr, size, end; int32_t pid; uint32_t kind; }
		live[400];
	struct npf_writer *w;
	unsigned int nlive = 0, k, seq = 0;
	char *path;

	if (asprintf(&path, "/tmp/npuprof-viewer-%d-many", (int)getpid()) < 0 ||
	    npf_writer_open(path, 0, &w))
		abort();
	mem_gen_device(w, 0, 0, 1ull << 30);
	for (id = 1; id <= 400; id++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		t += 1000 + (seed >> 33) % 20000;
		/* frees whose time has come, in time order enough */
		for (k = 0; k < nlive; k++)
			if (live[k].end && live[k].end <= t) {
				used -= live[k].size;
				mem_gen_bo(w, 0, MEM_F, seq++, live[k].pid,
					   live[k].id, live[k].addr, live[k].size,
					   live[k].kind, 0, NPU_TRACE_BO_FREE_HANDLE,
					   live[k].end, used);
				live[k] = live[--nlive];
				k--;
			}
		if (id % 50 == 0) {
			mem_gen_bo(w, 0, MEM_A, seq++, 100 + (int32_t)(id % 4), 0,
				   0, 2ull << 30, NPU_BO_KIND_SCRATCH, -ENOMEM, 0,
				   t, used);
			continue;
		}
		live[nlive].id = id;
		live[nlive].size = 4096ull << ((seed >> 40) % 11);
		live[nlive].addr = addr;
		live[nlive].pid = 100 + (int32_t)(id % 4);
		live[nlive].kind = (uint32_t)((seed >> 20) % 5);
		/* one in eight lives to the end */
		live[nlive].end = (seed >> 50) % 8 ? t + 1000 +
				  (seed >> 24) % 3000000 : 0;
		addr = 0x400000 + (addr - 0x400000 + live[nlive].size) %
		       (1ull << 29);
		used += live[nlive].size;
		mem_gen_bo(w, 0, MEM_A, seq++, live[nlive].pid, id,
			   live[nlive].addr, live[nlive].size, live[nlive].kind,
			   0, 0, t, used);
		nlive++;
	}
	if (npf_writer_close(w))
		abort();
	return path;
}

static void write_loss(struct tb *b)
{
	struct npf_item_host_lost hl = { .pid = 100, .tid = 102, .count = 4 };

	tb_open(b, "viewer-loss");
	tb_meta(b, "pid", "100");
	tb_meta(b, "host_spans", "on");
	tb_device(b, 0, 0, 1);
	tb_thread(b, 100, 102, "feeder");
	tb_exec(b, 0, 100, 1, 0, T0, T0 + 10000, T0 + 60000, T0 + 70000, 0);
	tb_lost(b, 0, NPU_TRACE_LOST_RING_FULL, 6);
	tb_add(b, NPF_ITEM_HOST_LOST, &hl, sizeof(hl), NULL, 0);
	tb_exec(b, 0, 100, 2, 0, T0 + 3000000, T0 + 2000000, T0 + 2400000,
		T0 + 3500000, 0);
	tb_lost(b, 0, NPU_TRACE_LOST_RING_FULL, 2);
	tb_close(b);
}

int main(int argc, char **argv)
{
	const char *opt = argc == 3 ? argv[1] : "";
	struct tb b;

	if ((argc != 2 && argc != 3) ||
	    (argc == 3 && strcmp(opt, "--loss") && strcmp(opt, "--b2b") &&
	     strcmp(opt, "--memory") && strcmp(opt, "--memory-many"))) {
		fprintf(stderr, "usage: %s [--loss|--b2b|--memory|--memory-many] FILE\n",
			argv[0]);
		return 2;
	}
	if (!strcmp(opt, "--memory") || !strcmp(opt, "--memory-many")) {
		char *p = opt[8] ? write_memory_many() : mem_gen_trace("viewer");

		if (rename(p, argv[argc - 1])) {
			perror(argv[argc - 1]);
			unlink(p);
			free(p);
			return 1;
		}
		free(p);
		return 0;
	}
	if (!strcmp(opt, "--loss"))
		write_loss(&b);
	else if (!strcmp(opt, "--b2b"))
		write_b2b(&b);
	else
		write_basic(&b);
	if (rename(b.path, argv[argc - 1])) {
		perror(argv[argc - 1]);
		unlink(b.path);
		return 1;
	}
	return 0;
}
