// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_trace.c - writes the trace file of the real-viewer test: one
 * inference of process 100 (a label, an inference, a submit and a wait
 * span) whose job runs on PE 1 of npu3 with two operators, built by the
 * same code as the host test of the exporter (chrome_gen.h).
 *
 * Usage: npuprof-viewer-gen FILE
 */
#include "chrome_gen.h"

int main(int argc, char **argv)
{
	struct tb b;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	write_basic(&b);
	if (rename(b.path, argv[1])) {
		perror(argv[1]);
		unlink(b.path);
		return 1;
	}
	return 0;
}
