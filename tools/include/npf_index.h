/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * npf_index.h - the index at the end of a synthetic trace file, for the
 * benchmarks and tests that write one with the capture library's writer
 * (a session keeps its clock samples and writes its own index): the
 * chunks so far flushed and read back with the analysis library's reader,
 * then CLOCKS items with the samples its fits were made of. Uses the
 * internals of both libraries: link their static archives.
 */
#ifndef NPF_INDEX_H
#define NPF_INDEX_H

#include "trace.h"
#include "writer.h"

/* Return: 0 or -errno */
static inline int npf_trace_index_file(struct npf_writer *w, const char *path)
{
	const struct npf_clock_sample *s;
	struct npuprof_trace *t;
	uint64_t hz;
	uint32_t i;
	size_t n;
	int ret;

	ret = npf_writer_flush(w);
	if (!ret)
		ret = npf_trace_open(path, true, &t, NULL, 0);
	if (ret)
		return ret;
	ret = npf_writer_index(w);
	for (i = 0; !ret && i < npf_trace_ndev(t); i++) {
		ret = npf_trace_samples(t, i, &s, &n, &hz);
		if (!ret)
			ret = npf_writer_add_clocks(w, i, hz, s, n);
	}
	npuprof_trace_close(t);
	return ret;
}

#endif /* NPF_INDEX_H */
