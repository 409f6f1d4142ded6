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
 * Usage: npuprof-viewer-gen [--loss|--b2b] FILE
 */
#include "chrome_gen.h"

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
	    (argc == 3 && strcmp(opt, "--loss") && strcmp(opt, "--b2b"))) {
		fprintf(stderr, "usage: %s [--loss|--b2b] FILE\n", argv[0]);
		return 2;
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
