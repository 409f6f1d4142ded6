/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * npu_usdt.h - libnpu's span hooks with USDT probes (libnpu private).
 *
 * The span sites of libnpu (runner.c) call these instead of npuprof.h's
 * npuprof_span_begin()/_end(): they take the slow path when a session
 * captures host spans OR a tracer has one of libnpu's probes attached
 * (its semaphore, npuprof_usdt.h), and the slow path (usdt.c) fires the
 * probe of the span's kind after libnpuprof assigned the ids. With
 * neither, a span costs one predictable branch on two loads. The _at
 * variants share one clock read where a span ends and the next begins, or
 * a child begins with its parent or a parent ends with its last child
 * (npuprof_span_begin_at(), npuprof_span_end_at()).
 */
#ifndef NPU_USDT_H
#define NPU_USDT_H

#include <stdbool.h>
#include <stdint.h>

#include "npuprof.h"
#include "npuprof_usdt.h"

void npu_span_begin_slow(struct npuprof_span *s, unsigned int kind,
			 const struct npuprof_span *parent, uint32_t flags,
			 uint32_t op_index, uint64_t job_id, uint32_t minor);
void npu_span_end_slow(struct npuprof_span *s);
/* the same for shared timestamps (npuprof_span_begin_at(), _end_at()) */
void npu_span_op_begin_at_slow(struct npuprof_span *s, unsigned int kind,
			       const struct npuprof_span *parent,
			       unsigned int idx, struct npuprof_stamp at);
struct npuprof_stamp npu_span_end_at_slow(struct npuprof_span *s,
					  struct npuprof_stamp at);

/* A stamp of no time: the slow paths read the clock. */
#define NPU_STAMP_NONE ((struct npuprof_stamp){ 0, 0 })

/* A session captures host spans, or a tracer attached a libnpu probe. */
static inline bool npu_spans_wanted(void)
{
	return __builtin_expect((__atomic_load_n(&npuprof_spans_on,
						 __ATOMIC_RELAXED) |
				 NPU_USDT_SEMAPHORE(npu_probes_semaphore)) != 0,
				0);
}

/*
 * Begin span @s of @kind under @parent (or a root), with @flags and the
 * fields they make valid (NPUPROF_SPAN_F_OP: @op_index; NPUPROF_SPAN_F_JOB:
 * @job_id and @minor) set before the begin probe fires.
 */
static inline void npu_span_begin_x(struct npuprof_span *s, unsigned int kind,
				    const struct npuprof_span *parent,
				    uint32_t flags, uint32_t op_index,
				    uint64_t job_id, uint32_t minor)
{
	s->on = 0;
	if (npu_spans_wanted())
		npu_span_begin_slow(s, kind, parent, flags, op_index, job_id,
				    minor);
}

static inline void npu_span_begin(struct npuprof_span *s, unsigned int kind,
				  const struct npuprof_span *parent)
{
	npu_span_begin_x(s, kind, parent, 0, 0, 0, 0);
}

/* A CPU operator's span: operator_index is the input or output index. */
static inline void npu_span_op_begin(struct npuprof_span *s, unsigned int kind,
				     const struct npuprof_span *parent,
				     unsigned int idx)
{
	npu_span_begin_x(s, kind, parent, NPUPROF_SPAN_F_OP, idx, 0, 0);
}

/*
 * A CPU operator's span that begins at @at (npuprof_span_begin_at()):
 * where the span before it ended, or with its parent.
 */
static inline void npu_span_op_begin_at(struct npuprof_span *s,
					unsigned int kind,
					const struct npuprof_span *parent,
					unsigned int idx, struct npuprof_stamp at)
{
	s->on = 0;
	if (npu_spans_wanted())
		npu_span_op_begin_at_slow(s, kind, parent, idx, at);
}

/* End span @s: record it (when a session captures) and fire its probe. */
static inline void npu_span_end(struct npuprof_span *s)
{
	if (__builtin_expect(s->on, 0))
		npu_span_end_slow(s);
}

/* End a span, marking it failed when @ret is an error. */
static inline void npu_span_done(struct npuprof_span *s, int ret)
{
	if (s->on && ret < 0)
		s->rec.flags |= NPUPROF_SPAN_F_ERROR;
	npu_span_end(s);
}

/*
 * End span @s at @at (npuprof_span_end_at(); NPU_STAMP_NONE: now), marking
 * it failed when @ret is an error. Return: the stamp of its end, for the
 * span that begins where it ends or a parent that ends with it.
 */
static inline struct npuprof_stamp
npu_span_done_at(struct npuprof_span *s, int ret, struct npuprof_stamp at)
{
	if (!__builtin_expect(s->on, 0))
		return NPU_STAMP_NONE;
	if (ret < 0)
		s->rec.flags |= NPUPROF_SPAN_F_ERROR;
	return npu_span_end_at_slow(s, at);
}

#endif /* NPU_USDT_H */
