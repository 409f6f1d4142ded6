// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * export_sqlite.c - npuprof_export_sqlite(): one SQLite database per trace,
 * in the schema of Documentation/npu/sqlite.rst (tables of metadata,
 * devices, threads, sessions, spans, executions, operator records, clock
 * samples and fits, losses, the recorder's summary, the buffer records
 * (memory_events, memtrack.c checks them), the models' per-operator
 * memory (model_operators, memuse.h); views for the reports), for users
 * to answer their own questions in SQL or with pandas.read_sql, as Nsight
 * Systems' SQLite export is used.
 *
 * One pass over the trace through the join (join.c), so that executions
 * carry their trace and span ids. Written as bulk loaders write: a new
 * file of 16 KiB pages with no journal and no syncs, one transaction, a
 * connection without mutexes, prepared statements reset and rebound for
 * every row with SQLITE_STATIC text (ids formatted into buffers of struct
 * npf_sq, no allocation per row), span kind and operator names interned
 * in tables of their own (a row holds the number; the spans and operators
 * views put the name back), indexes built after the last row, ANALYZE on
 * a sample, a batch's integer and NULL parameters bound again only when
 * they change. What SQLite does is then nearly all of the time: SQLite
 * alone on the same rows, bound the same way (npuprof-bench-report),
 * takes 8% fewer instructions (sqlite.rst, "Performance").
 * The database is written to PATH.tmp and renamed over PATH when
 * complete, so a failed export leaves no half database behind. Memory:
 * the join's waiting entries, SQLite's page cache (NPF_SQ_CACHE_KB) and
 * sorter, and two bitmaps of the names interned, whatever the length of
 * the trace.
 *
 * Each call owns its database handle; callers serialize calls on a trace.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "compiler.h"
#include "join.h"
#include "memtrack.h"
#include "memuse.h"
#include "report_util.h"
#include "trace.h"

#define NPF_SQ_CACHE_KB	16384	/* SQLite page cache */
#define NPF_SQ_PAGE	16384	/* page size: fewer pages, writes, reads */
#define NPF_SQ_VERSION	5	/* PRAGMA user_version of the schema */
#define NPF_SQ_ANALYZE	"1000"	/* PRAGMA analysis_limit: rows sampled */
#define NPF_SQ_ROWS	32	/* rows per INSERT into the large tables */
#define NPF_SQ_COLS	32	/* columns of a large table, at most */

static const char npf_sq_schema[] =
"CREATE TABLE meta(key TEXT NOT NULL, value TEXT);\n"
"CREATE TABLE devices(dev INTEGER PRIMARY KEY, path TEXT, minor INTEGER,\n"
"  pe_count INTEGER, clock_hz INTEGER, hw_version INTEGER,\n"
"  dram_size INTEGER, caps INTEGER, trace_levels INTEGER);\n"
"CREATE TABLE threads(pid INTEGER, tid INTEGER, name TEXT);\n"
"CREATE TABLE sessions(op TEXT, time_ns INTEGER);\n"
"CREATE TABLE span_kinds(kind_id INTEGER PRIMARY KEY, kind TEXT);\n"
"CREATE TABLE opcodes(opcode INTEGER PRIMARY KEY, name TEXT);\n"
"CREATE TABLE span_rows(id INTEGER PRIMARY KEY, kind_id INTEGER,\n"
"  name TEXT, pid INTEGER, tid INTEGER, trace_id TEXT, span_id TEXT,\n"
"  parent_id TEXT, start_ns INTEGER, end_ns INTEGER, flags INTEGER,\n"
"  job_id INTEGER, minor INTEGER, op_index INTEGER, error INTEGER);\n"
"CREATE TABLE executions(id INTEGER PRIMARY KEY, dev INTEGER,\n"
"  minor INTEGER, job_id INTEGER, pid INTEGER, tid INTEGER,\n"
"  status INTEGER, trace_id TEXT, span_id TEXT, inference_span_id TEXT,\n"
"  pe INTEGER, exec_index INTEGER, n_ops INTEGER, submit_ns INTEGER,\n"
"  complete_ns INTEGER, start_ns INTEGER, end_ns INTEGER,\n"
"  start_tick INTEGER, end_tick INTEGER, run_ticks INTEGER,\n"
"  iowait_ticks INTEGER, total_ns INTEGER, run_ns INTEGER,\n"
"  iowait_ns INTEGER, err_ns INTEGER, dma_bytes INTEGER, macs INTEGER,\n"
"  inconsistent INTEGER, violation INTEGER);\n"
"CREATE TABLE operator_rows(id INTEGER PRIMARY KEY, dev INTEGER,\n"
"  minor INTEGER, job_id INTEGER, pid INTEGER, tid INTEGER, pe INTEGER,\n"
"  exec_index INTEGER, op_index INTEGER, opcode INTEGER,\n"
"  start_ns INTEGER, end_ns INTEGER, run_ns INTEGER,\n"
"  iowait_ns INTEGER, err_ns INTEGER, start_tick INTEGER,\n"
"  end_tick INTEGER, iowait_ticks INTEGER, dma_bytes INTEGER,\n"
"  macs INTEGER, inconsistent INTEGER, model_id INTEGER);\n"
"CREATE VIEW spans AS SELECT s.id, k.kind, s.kind_id, s.name, s.pid,\n"
"  s.tid, s.trace_id, s.span_id, s.parent_id, s.start_ns, s.end_ns,\n"
"  s.end_ns - s.start_ns AS dur_ns, s.flags, s.job_id, s.minor,\n"
"  s.op_index, s.error\n"
"  FROM span_rows s JOIN span_kinds k ON k.kind_id = s.kind_id;\n"
"CREATE VIEW operators AS SELECT o.id, o.dev, o.minor, o.job_id, o.pid,\n"
"  o.tid, o.pe, o.exec_index, o.op_index, o.opcode, c.name, o.start_ns,\n"
"  o.end_ns, o.run_ns + o.iowait_ns AS dur_ns, o.run_ns, o.iowait_ns,\n"
"  o.err_ns, o.start_tick, o.end_tick, o.iowait_ticks, o.dma_bytes,\n"
"  o.macs, o.inconsistent, o.model_id, m.layer, m.op_type, m.in_shapes,\n"
"  m.out_shapes\n"
"  FROM operator_rows o JOIN opcodes c ON c.opcode = o.opcode\n"
"  LEFT JOIN model_operators m\n"
"  ON m.model_id = o.model_id AND m.op_index = o.op_index;\n"
"CREATE TABLE clock_samples(dev INTEGER, host_before_ns INTEGER,\n"
"  device_tick INTEGER, host_after_ns INTEGER, samples INTEGER);\n"
"CREATE TABLE clock_fits(dev INTEGER, source TEXT, samples INTEGER,\n"
"  used INTEGER, segments INTEGER, ns_per_tick REAL, offset_ns REAL,\n"
"  err_ns INTEGER, checked INTEGER, violations INTEGER);\n"
"CREATE TABLE losses(dev INTEGER, kind TEXT, pid INTEGER, tid INTEGER,\n"
"  count INTEGER, time_ns INTEGER);\n"
"CREATE TABLE summary(spans INTEGER, spans_lost INTEGER,\n"
"  records INTEGER, lost_ring INTEGER, lost_device INTEGER,\n"
"  lost_host INTEGER, ring_errors INTEGER, violations INTEGER,\n"
"  start_ns INTEGER, stop_ns INTEGER);\n"
"CREATE TABLE memory_events(id INTEGER PRIMARY KEY, dev INTEGER,\n"
"  time_ns INTEGER, event TEXT, bo_id INTEGER, pid INTEGER, tid INTEGER,\n"
"  addr INTEGER, size INTEGER, kind TEXT, error TEXT, reason TEXT,\n"
"  dev_used INTEGER);\n"
"CREATE VIEW memory_buffers AS SELECT a.dev, a.bo_id, a.pid, a.tid,\n"
"  a.addr, a.size, a.kind, a.time_ns AS alloc_ns, f.time_ns AS free_ns,\n"
"  f.time_ns - a.time_ns AS lifetime_ns, f.reason\n"
"  FROM memory_events a LEFT JOIN memory_events f ON f.dev = a.dev\n"
"  AND f.bo_id = a.bo_id AND f.event = 'free' AND f.id > a.id\n"
"  WHERE a.event = 'alloc';\n"
"CREATE TABLE model_operators(model_id INTEGER, model TEXT,\n"
"  op_index INTEGER, name TEXT, in_bytes INTEGER, out_bytes INTEGER,\n"
"  live_bytes INTEGER, alloc_bytes INTEGER, layer TEXT, op_type TEXT,\n"
"  in_shapes TEXT, out_shapes TEXT, macs INTEGER, weight_bytes INTEGER,\n"
"  PRIMARY KEY(model_id, op_index));\n"
"CREATE VIEW operator_memory AS SELECT o.id, o.dev, o.minor, o.job_id,\n"
"  o.pid, o.tid, o.pe, o.model_id, m.model, o.op_index, m.name,\n"
"  o.start_ns, o.end_ns, m.in_bytes, m.out_bytes, m.live_bytes,\n"
"  m.alloc_bytes, m.layer, m.op_type, m.in_shapes, m.out_shapes\n"
"  FROM operator_rows o JOIN model_operators m\n"
"  ON m.model_id = o.model_id AND m.op_index = o.op_index;\n"
"CREATE VIEW inferences AS SELECT trace_id, span_id, tid AS \"thread.id\",\n"
"  dur_ns AS dur, pid, start_ns, end_ns FROM spans WHERE kind_id = 3;\n"
"CREATE VIEW npu_executions AS SELECT trace_id, span_id,\n"
"  pe AS pe_index, exec_index AS execution_index,\n"
"  total_ns AS \"NPU Total\", run_ns AS \"NPU Run\",\n"
"  iowait_ns AS \"NPU IoWait\", err_ns AS \"Bound (+-ns)\"\n"
"  FROM executions;\n"
"CREATE VIEW npu_operators AS SELECT c.name,\n"
"  AVG(o.run_ns + o.iowait_ns) AS \"average elapsed(ns)\",\n"
"  COUNT(*) AS count\n"
"  FROM operator_rows o JOIN opcodes c ON c.opcode = o.opcode\n"
"  WHERE o.run_ns IS NOT NULL GROUP BY o.opcode ORDER BY 2 DESC, 1;\n"
"CREATE VIEW npu_layers AS SELECT m.layer, c.name, m.op_type,\n"
"  m.in_shapes, m.out_shapes,\n"
"  AVG(o.run_ns + o.iowait_ns) AS \"average elapsed(ns)\",\n"
"  COUNT(*) AS count, SUM(o.run_ns + o.iowait_ns) AS total_ns, m.macs,\n"
"  m.weight_bytes, o.model_id, m.model, o.op_index\n"
"  FROM operator_rows o JOIN opcodes c ON c.opcode = o.opcode\n"
"  JOIN model_operators m\n"
"  ON m.model_id = o.model_id AND m.op_index = o.op_index\n"
"  WHERE o.run_ns IS NOT NULL AND m.layer IS NOT NULL\n"
"  GROUP BY o.model_id, o.op_index ORDER BY 6 DESC, 1;\n"
"CREATE VIEW external_operators AS SELECT trace_id, span_id,\n"
"  tid AS \"thread.id\", kind AS name, op_index AS operator_index,\n"
"  dur_ns AS dur FROM spans WHERE kind_id IN (6, 7, 8, 9);\n"
"CREATE VIEW inference_executions AS SELECT i.trace_id, i.span_id,\n"
"  i.end_ns - i.start_ns AS dur, COUNT(e.id) AS executions,\n"
"  SUM(e.total_ns) AS npu_total_ns, SUM(e.run_ns) AS npu_run_ns,\n"
"  SUM(e.iowait_ns) AS npu_iowait_ns\n"
"  FROM span_rows i LEFT JOIN executions e ON e.trace_id = i.trace_id\n"
"  AND e.inference_span_id = i.span_id\n"
"  WHERE i.kind_id = 3 GROUP BY i.id;\n"
"CREATE VIEW losses_total AS SELECT kind, SUM(count) AS count\n"
"  FROM losses GROUP BY kind;\n";

static const char npf_sq_indexes[] =
"CREATE INDEX spans_trace ON span_rows(trace_id);\n"
"CREATE INDEX spans_inference ON span_rows(start_ns) WHERE kind_id = 3;\n"
"CREATE INDEX spans_span ON span_rows(span_id, pid);\n"
"CREATE INDEX spans_job ON span_rows(job_id, minor)\n"
"  WHERE job_id IS NOT NULL;\n"
"CREATE INDEX executions_trace ON executions(trace_id);\n"
"CREATE INDEX executions_job ON executions(job_id, minor);\n"
"CREATE INDEX executions_inference ON executions(inference_span_id);\n"
"CREATE INDEX operators_job ON operator_rows(job_id, minor);\n"
"CREATE INDEX operators_opcode ON operator_rows(opcode);\n"
"CREATE INDEX memory_bo ON memory_events(bo_id, dev);\n";

/* The large tables first: SQ_SPAN .. SQ_OP insert NPF_SQ_ROWS at a time */
enum {
	SQ_SPAN, SQ_EXEC, SQ_OP, SQ_BATCHED = SQ_OP,
	SQ_META, SQ_DEVICE, SQ_THREAD, SQ_SESSION, SQ_CLOCK, SQ_FIT, SQ_LOSS,
	SQ_SUMMARY, SQ_KIND, SQ_OPCODE, SQ_MEM, SQ_MODEL_OP, SQ_N
};

static const char *const npf_sq_insert[SQ_N] = {
	[SQ_META] = "INSERT INTO meta VALUES(?,?)",
	[SQ_DEVICE] = "INSERT INTO devices VALUES(?,?,?,?,?,?,?,?,?)",
	[SQ_THREAD] = "INSERT INTO threads VALUES(?,?,?)",
	[SQ_SESSION] = "INSERT INTO sessions VALUES(?,?)",
	[SQ_SPAN] = "INSERT INTO span_rows VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[SQ_EXEC] = "INSERT INTO executions VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,"
		    "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[SQ_OP] = "INSERT INTO operator_rows VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,"
		  "?,?,?,?,?,?,?,?,?)",
	[SQ_CLOCK] = "INSERT INTO clock_samples VALUES(?,?,?,?,?)",
	[SQ_FIT] = "INSERT INTO clock_fits VALUES(?,?,?,?,?,?,?,?,?,?)",
	[SQ_LOSS] = "INSERT INTO losses VALUES(?,?,?,?,?,?)",
	[SQ_SUMMARY] = "INSERT INTO summary VALUES(?,?,?,?,?,?,?,?,?,?)",
	[SQ_KIND] = "INSERT INTO span_kinds VALUES(?,?)",
	[SQ_OPCODE] = "INSERT INTO opcodes VALUES(?,?)",
	[SQ_MEM] = "INSERT INTO memory_events VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?)",
	[SQ_MODEL_OP] = "INSERT INTO model_operators VALUES(?,?,?,?,?,?,?,?,?,?,?,"
			"?,?,?)",
};

/* The hex ids of one row, bound SQLITE_STATIC: they outlive the step */
struct npf_sq_ids {
	char trace[NPF_HEX_TRACE], span[NPF_HEX_SPAN], parent[NPF_HEX_SPAN];
};

/*
 * What a parameter of a batched INSERT holds since it was last bound
 * (SQLite keeps bindings across sqlite3_reset()): an integer or NULL is
 * not bound again when the same row of the next batch has the same;
 * SQV_NONE: text or a real, or nothing yet
 */
enum { SQV_NONE, SQV_INT, SQV_NULL };

struct npf_sq_val {
	int64_t v;
	int kind;		/* SQV_*: none known, an integer, NULL */
};

/*
 * @st: the INSERT of each table; of the large ones (up to SQ_BATCHED), of
 * NPF_SQ_ROWS rows, bound row after row: @pending rows bound so far, of
 * @ncols columns each, @rows inserted (or pending) in all, the ids of
 * each pending row in @ids, what each parameter holds in @bound.
 */
struct npf_sq {
	struct npuprof_trace *trace;
	sqlite3 *db;
	sqlite3_stmt *st[SQ_N];
	int err;		/* -EIO once SQLite failed */
	int ncols[SQ_BATCHED + 1];
	int pending[SQ_BATCHED + 1];
	int64_t rows[SQ_BATCHED + 1];
	struct npf_sq_ids ids[SQ_BATCHED + 1][NPF_SQ_ROWS];
	struct npf_sq_val bound[SQ_BATCHED + 1][NPF_SQ_ROWS * NPF_SQ_COLS];
	/* span kinds and opcodes already in span_kinds and opcodes */
	uint64_t kinds[65536 / 64];
	uint64_t opcodes[65536 / 64];
};

/*
 * One row being bound: its statement, the last column bound, SQLite's
 * errors, where its ids go, what the statement's parameters hold (NULL:
 * not known, bind every value)
 */
struct npf_sqb {
	sqlite3_stmt *st;
	int col;
	int rc;			/* OR of the bind results: nonzero failed */
	int which;
	struct npf_sq_ids *ids;
	struct npf_sq_val *bound;
};

static int npf_sq_fail(struct npf_sq *s, const char *what)
{
	if (!s->err)
		npf_trace_set_error(s->trace, "sqlite: %s: %s", what,
				    s->db ? sqlite3_errmsg(s->db) : "out of memory");
	s->err = -EIO;
	return -EIO;
}

static int npf_sq_exec(struct npf_sq *s, const char *sql)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return npf_sq_fail(s, sql);
	return 0;
}

static inline struct npf_sqb npf_sqb(struct npf_sq *s, int which)
{
	struct npf_sqb b = { .st = s->st[which], .which = which };

	if (which <= SQ_BATCHED) {
		b.col = s->pending[which] * s->ncols[which];
		b.ids = &s->ids[which][s->pending[which]];
		if (s->ncols[which] <= NPF_SQ_COLS)
			b.bound = s->bound[which];
	}
	return b;
}

/*
 * The next parameter, to hold an integer @v (@kind SQV_INT) or NULL
 * (SQV_NULL): false when it already does (nothing to bind)
 */
static inline bool npf_b_next(struct npf_sqb *b, int kind, int64_t v)
{
	struct npf_sq_val *p = b->bound ? &b->bound[b->col] : NULL;

	b->col++;
	if (!p)
		return true;
	if (p->kind == kind && (kind == SQV_NULL || p->v == v))
		return false;
	p->kind = kind;
	p->v = v;
	return true;
}

/* The next parameter, for text or a real: bound every time */
static inline int npf_b_any(struct npf_sqb *b)
{
	if (b->bound)
		b->bound[b->col].kind = SQV_NONE;
	return ++b->col;
}

static inline void npf_b_null(struct npf_sqb *b)
{
	if (npf_b_next(b, SQV_NULL, 0))
		b->rc |= sqlite3_bind_null(b->st, b->col);
}

static inline void npf_b_i(struct npf_sqb *b, int64_t v)
{
	if (npf_b_next(b, SQV_INT, v))
		b->rc |= sqlite3_bind_int64(b->st, b->col, v);
}

/* An unsigned 64-bit field: stored as the same 64 bits, signed */
static inline void npf_b_u(struct npf_sqb *b, uint64_t v)
{
	npf_b_i(b, (int64_t)v);
}

/* @v when @have, else NULL */
static inline void npf_b_opt(struct npf_sqb *b, bool have, int64_t v)
{
	if (have)
		npf_b_i(b, v);
	else
		npf_b_null(b);
}

static inline void npf_b_f(struct npf_sqb *b, bool have, double v)
{
	if (have)
		b->rc |= sqlite3_bind_double(b->st, npf_b_any(b), v);
	else
		npf_b_null(b);
}

/* Text that stays valid until the row is stepped; NULL stores NULL */
static inline void npf_b_s(struct npf_sqb *b, const char *v)
{
	if (v)
		b->rc |= sqlite3_bind_text(b->st, npf_b_any(b), v, -1,
					   SQLITE_STATIC);
	else
		npf_b_null(b);
}

/* Text of @len bytes, or NULL: as npf_b_s(), without SQLite's strlen() */
static inline void npf_b_sn(struct npf_sqb *b, const char *v, int len)
{
	if (v)
		b->rc |= sqlite3_bind_text(b->st, npf_b_any(b), v, len,
					   SQLITE_STATIC);
	else
		npf_b_null(b);
}

/* Text copied by SQLite (it need not outlive the call) */
static inline void npf_b_copy(struct npf_sqb *b, const char *v)
{
	b->rc |= sqlite3_bind_text(b->st, npf_b_any(b), v, -1,
				   SQLITE_TRANSIENT);
}

/* Insert the row bound in @b: now, or with the full batch */
static int npf_sq_step(struct npf_sq *s, struct npf_sqb *b)
{
	int rc = b->rc;

	if (!rc && b->which <= SQ_BATCHED) {
		s->rows[b->which]++;
		if (++s->pending[b->which] < NPF_SQ_ROWS)
			return 0;
		s->pending[b->which] = 0;
	}
	if (!rc)
		rc = sqlite3_step(b->st);
	sqlite3_reset(b->st);
	if (rc != SQLITE_DONE)
		return npf_sq_fail(s, npf_sq_insert[b->which]);
	return 0;
}

/*
 * Insert the rows still pending in a large table's batch: the rest of the
 * batch is filled with rows of NULLs, which are then deleted (the ids of
 * a new table count from 1, so they are those after the rows inserted).
 */
static int npf_sq_flush(struct npf_sq *s, int which)
{
	struct npf_sqb b = npf_sqb(s, which);
	int n = NPF_SQ_ROWS * s->ncols[which];
	char sql[96];

	if (!s->pending[which])
		return 0;
	while (b.col < n)
		npf_b_null(&b);
	s->pending[which] = NPF_SQ_ROWS - 1;
	s->rows[which]--;	/* counted again by the step */
	if (npf_sq_step(s, &b))
		return -EIO;
	snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE id > %lld",
		 which == SQ_SPAN ? "span_rows" : which == SQ_EXEC ?
		 "executions" : "operator_rows", (long long)s->rows[which]);
	return npf_sq_exec(s, sql);
}

/* The row (@id, @name) in span_kinds or opcodes, once per @id */
static int npf_sq_intern(struct npf_sq *s, int which, uint64_t *seen,
			 uint16_t id, const char *name)
{
	struct npf_sqb b = npf_sqb(s, which);

	if (seen[id / 64] & (1ull << (id % 64)))
		return 0;
	seen[id / 64] |= 1ull << (id % 64);
	npf_b_i(&b, id);
	npf_b_s(&b, name);
	return npf_sq_step(s, &b);
}

/* The ids of a row of a large table: trace, span and parent, or NULLs */
static void npf_b_ids(struct npf_sqb *b, bool have, const uint64_t trace_id[2],
		      uint64_t span_id, uint64_t parent_id)
{
	struct npf_sq_ids *d = b->ids;

	npf_b_sn(b, have ? npf_hex_trace(d->trace, trace_id) : NULL,
		 NPF_HEX_TRACE - 1);
	npf_b_sn(b, have ? npf_hex_span(d->span, span_id) : NULL,
		 NPF_HEX_SPAN - 1);
	npf_b_sn(b, have && parent_id ? npf_hex_span(d->parent, parent_id) : NULL,
		 NPF_HEX_SPAN - 1);
}

/* The durations of a device row: total (with @total), run, iowait, bound */
static void npf_b_dur(struct npf_sqb *b, const struct npf_dur *d, bool total)
{
	if (total)
		npf_b_opt(b, d->ok, d->total);
	npf_b_opt(b, d->ok, d->run);
	npf_b_opt(b, d->ok, d->iowait);
	npf_b_opt(b, d->ok && d->err_ns != UINT64_MAX, (int64_t)d->err_ns);
}

static int npf_sq_exec_row(void *ctx, const struct npf_exec_row *r)
{
	struct npf_sq *s = ctx;
	const struct npu_trace_rec_exec *e = &r->rec;
	struct npf_sqb b = npf_sqb(s, SQ_EXEC);
	bool dv = r->device;

	npf_b_i(&b, r->dev);
	npf_b_opt(&b, r->minor != UINT32_MAX, r->minor);
	npf_b_u(&b, e->job_id);
	npf_b_i(&b, e->pid);
	npf_b_i(&b, e->tid);
	npf_b_i(&b, e->status);
	npf_b_ids(&b, r->matched, r->trace_id, r->span_id, r->parent_id);
	npf_b_opt(&b, dv, e->pe);
	npf_b_opt(&b, dv, e->exec_index);
	npf_b_opt(&b, dv, e->n_ops);
	npf_b_u(&b, e->submit_ns);
	npf_b_u(&b, e->complete_ns);
	npf_b_opt(&b, dv && r->start.valid, r->start.ns);
	npf_b_opt(&b, dv && r->end.valid, r->end.ns);
	npf_b_opt(&b, dv, (int64_t)e->start_tick);
	npf_b_opt(&b, dv, (int64_t)e->end_tick);
	npf_b_opt(&b, dv, (int64_t)e->run_ticks);
	npf_b_opt(&b, dv, (int64_t)e->iowait_ticks);
	npf_b_dur(&b, &r->dur, true);
	npf_b_opt(&b, dv, (int64_t)e->dma_bytes);
	npf_b_opt(&b, dv, (int64_t)e->macs);
	npf_b_i(&b, r->inconsistent);
	npf_b_i(&b, r->violation);
	return npf_sq_step(s, &b);
}

static int npf_sq_op_row(void *ctx, const struct npf_op_row *r)
{
	struct npf_sq *s = ctx;
	const struct npu_trace_rec_op *o = r->rec;
	struct npf_sqb b = npf_sqb(s, SQ_OP);
	int ret;

	ret = npf_sq_intern(s, SQ_OPCODE, s->opcodes, o->opcode,
			    npf_opcode_name(o->opcode));
	if (ret)
		return ret;
	npf_b_i(&b, r->dev);
	npf_b_opt(&b, r->minor != UINT32_MAX, r->minor);
	npf_b_u(&b, o->job_id);
	npf_b_i(&b, o->pid);
	npf_b_i(&b, o->tid);
	npf_b_i(&b, o->pe);
	npf_b_i(&b, o->exec_index);
	npf_b_i(&b, o->op_index);
	npf_b_i(&b, o->opcode);
	npf_b_opt(&b, r->start.valid, r->start.ns);
	npf_b_opt(&b, r->end.valid, r->end.ns);
	npf_b_dur(&b, &r->dur, false);
	npf_b_u(&b, o->start_tick);
	npf_b_u(&b, o->end_tick);
	npf_b_u(&b, o->iowait_ticks);
	npf_b_u(&b, o->dma_bytes);
	npf_b_u(&b, o->macs);
	npf_b_i(&b, r->inconsistent);
	npf_b_opt(&b, r->model_id != 0, r->model_id);
	return npf_sq_step(s, &b);
}

static const struct npf_join_ops npf_sq_ops = {
	.exec = npf_sq_exec_row,
	.op = npf_sq_op_row,
};

static const char *npf_sq_session_op(uint32_t op)
{
	static const char *const names[] = { "unknown", "start", "pause",
					     "resume", "stop" };

	return op < 5 ? names[op] : names[0];
}

static int npf_sq_span(struct npf_sq *s, const struct npuprof_event *ev)
{
	const struct npuprof_span_rec *p = ev->span;
	struct npf_sqb b = npf_sqb(s, SQ_SPAN);
	bool job = p->flags & NPUPROF_SPAN_F_JOB;
	int ret;

	ret = npf_sq_intern(s, SQ_KIND, s->kinds, p->kind,
			    npuprof_span_kind_name(p->kind));
	if (ret)
		return ret;
	npf_b_i(&b, p->kind);
	/* the label is in the reader's buffer, which the next event reuses */
	if (p->kind == NPUPROF_SPAN_LABEL)
		npf_b_copy(&b, ev->label ? ev->label : "");
	else
		npf_b_null(&b);
	npf_b_i(&b, p->pid);
	npf_b_i(&b, p->tid);
	npf_b_ids(&b, true, p->trace_id, p->span_id, p->parent_id);
	npf_b_u(&b, p->start_ns);
	npf_b_u(&b, p->end_ns);
	npf_b_i(&b, p->flags);
	npf_b_opt(&b, job, (int64_t)p->job_id);
	npf_b_opt(&b, job, p->minor);
	npf_b_opt(&b, p->flags & NPUPROF_SPAN_F_OP, p->op_index);
	npf_b_i(&b, !!(p->flags & NPUPROF_SPAN_F_ERROR));
	return npf_sq_step(s, &b);
}

static int npf_sq_device(struct npf_sq *s, const struct npuprof_event *ev)
{
	struct npu_info info;
	size_t n = ev->info_size < sizeof(info) ? ev->info_size : sizeof(info);
	bool full = n >= offsetof(struct npu_info, reserved);
	struct npf_sqb b = npf_sqb(s, SQ_DEVICE);

	memset(&info, 0, sizeof(info));
	memcpy(&info, ev->info, n);
	npf_b_i(&b, ev->dev);
	npf_b_s(&b, ev->key);
	npf_b_opt(&b, full, info.minor);
	npf_b_opt(&b, full, info.pe_count);
	npf_b_opt(&b, full, (int64_t)info.clock_hz);
	npf_b_opt(&b, full, info.hw_version);
	npf_b_opt(&b, full, (int64_t)info.dram_size);
	npf_b_opt(&b, full, info.caps);
	npf_b_opt(&b, full, info.trace_levels);
	return npf_sq_step(s, &b);
}

/* A BO record into memory_events (one that makes no sense: none) */
static int npf_sq_bo(struct npf_sq *s, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_bo *r;
	struct npf_sqb b;
	char eb[16];
	bool fail, alloc;

	if (npf_bo_rec(ev, &r) != 1)
		return 0;
	alloc = r->hdr.type == NPU_TRACE_REC_BO_ALLOC;
	fail = alloc && r->error;
	b = npf_sqb(s, SQ_MEM);
	npf_b_i(&b, ev->dev);
	npf_b_u(&b, r->host_ns);
	npf_b_s(&b, fail ? "fail" : alloc ? "alloc" : "free");
	npf_b_opt(&b, !fail, (int64_t)r->bo_id);
	npf_b_i(&b, r->pid);
	npf_b_opt(&b, alloc, r->tid);
	npf_b_opt(&b, !fail, (int64_t)r->dev_addr);
	npf_b_u(&b, r->size);
	npf_b_s(&b, npf_bo_kind_name(r->kind));
	if (fail)
		npf_b_copy(&b, npf_bo_error_name(r->error, eb, sizeof(eb)));
	else
		npf_b_null(&b);
	npf_b_s(&b, alloc ? NULL : npf_bo_reason_name(r->reason));
	npf_b_u(&b, r->dev_used);
	return npf_sq_step(s, &b);
}

static int npf_sq_record(struct npf_sq *s, const struct npuprof_event *ev)
{
	const struct npu_trace_rec_hdr *h = ev->rec;
	struct npf_sqb b;

	if (h->type == NPU_TRACE_REC_CLOCK) {
		const struct npu_trace_rec_clock *c = ev->rec;

		b = npf_sqb(s, SQ_CLOCK);
		npf_b_i(&b, ev->dev);
		npf_b_u(&b, c->host_before_ns);
		npf_b_u(&b, c->device_tick);
		npf_b_u(&b, c->host_after_ns);
		npf_b_i(&b, c->samples);
		return npf_sq_step(s, &b);
	}
	if (h->type == NPU_TRACE_REC_LOST) {
		const struct npu_trace_rec_lost *l = ev->rec;

		b = npf_sqb(s, SQ_LOSS);
		npf_b_i(&b, ev->dev);
		npf_b_s(&b, npf_lost_reason_name(l->reason));
		npf_b_null(&b);
		npf_b_null(&b);
		npf_b_u(&b, l->count);
		npf_b_i(&b, ev->time_ns);
		return npf_sq_step(s, &b);
	}
	if (h->type == NPU_TRACE_REC_BO_ALLOC || h->type == NPU_TRACE_REC_BO_FREE)
		return npf_sq_bo(s, ev);
	return 0;
}

/* The rows of the small tables (one per item of the trace) */
static int npf_sq_small(struct npf_sq *s, const struct npuprof_event *ev)
{
	const struct npuprof_summary *m = &ev->summary;
	struct npf_sqb b = { 0 };

	switch (ev->type) {
	case NPUPROF_EV_META:
		b = npf_sqb(s, SQ_META);
		npf_b_s(&b, ev->key);
		npf_b_s(&b, ev->value);
		break;
	case NPUPROF_EV_SESSION:
		b = npf_sqb(s, SQ_SESSION);
		npf_b_s(&b, npf_sq_session_op(ev->session_op));
		npf_b_i(&b, ev->time_ns);
		break;
	case NPUPROF_EV_HOST_LOST:
		b = npf_sqb(s, SQ_LOSS);
		npf_b_null(&b);
		npf_b_s(&b, "spans");
		npf_b_i(&b, ev->pid);
		npf_b_i(&b, (int)(int64_t)ev->id);
		npf_b_u(&b, ev->count);
		npf_b_i(&b, ev->time_ns);
		break;
	case NPUPROF_EV_CLOCK_FIT:
		/* the reader's own: its row is npf_sq_fits()'s */
		if (ev->key)
			return 0;
		b = npf_sqb(s, SQ_FIT);
		npf_b_i(&b, ev->dev);
		npf_b_s(&b, "recorder");
		npf_b_i(&b, ev->fit.samples);
		npf_b_i(&b, ev->fit.used);
		npf_b_i(&b, ev->fit.segments);
		npf_b_f(&b, true, ev->fit.ns_per_tick);
		npf_b_f(&b, true, ev->fit.offset_ns);
		npf_b_u(&b, ev->fit.err_ns);
		npf_b_u(&b, ev->fit.checked);
		npf_b_u(&b, ev->fit.violations);
		break;
	case NPUPROF_EV_SUMMARY:
		b = npf_sqb(s, SQ_SUMMARY);
		npf_b_u(&b, m->spans);
		npf_b_u(&b, m->spans_lost);
		npf_b_u(&b, m->records);
		npf_b_u(&b, m->lost_ring);
		npf_b_u(&b, m->lost_device);
		npf_b_u(&b, m->lost_host);
		npf_b_u(&b, m->ring_errors);
		npf_b_u(&b, m->violations);
		npf_b_u(&b, m->start_ns);
		npf_b_u(&b, m->stop_ns);
		break;
	case NPUPROF_EV_THREAD:
		b = npf_sqb(s, SQ_THREAD);
		npf_b_i(&b, ev->pid);
		npf_b_i(&b, (int)(int64_t)ev->id);
		npf_b_s(&b, ev->key);
		break;
	default:
		return 0;
	}
	return npf_sq_step(s, &b);
}

static int npf_sq_event(struct npf_sq *s, const struct npuprof_event *ev)
{
	switch (ev->type) {
	case NPUPROF_EV_SPAN:
		return npf_sq_span(s, ev);
	case NPUPROF_EV_RECORD:
		return npf_sq_record(s, ev);
	case NPUPROF_EV_DEVICE:
		return npf_sq_device(s, ev);
	default:
		return npf_sq_small(s, ev);
	}
}

/*
 * The damaged chunks the reader skipped, when it skipped any, as meta rows
 * of its own ("reader.damaged_*", the counts of struct npuprof_damage):
 * what the other tables lack
 */
static int npf_sq_damage(struct npf_sq *s)
{
	struct npuprof_damage d;
	const char *why = "";
	char v[5][24];
	size_t i;
	int ret = 0;

	if (!npuprof_trace_damage(s->trace, &d, &why))
		return 0;
	const char *const kv[][2] = {
		{ "reader.damaged_stretches", v[0] },
		{ "reader.damaged_chunks", v[1] },
		{ "reader.damaged_bytes", v[2] },
		{ "reader.damaged_items", v[3] },
		{ "reader.damaged_items_unknown", v[4] },
		{ "reader.damaged_first", why },
	};

	snprintf(v[0], sizeof(v[0]), "%llu", (unsigned long long)d.stretches);
	snprintf(v[1], sizeof(v[1]), "%llu", (unsigned long long)d.chunks);
	snprintf(v[2], sizeof(v[2]), "%llu", (unsigned long long)d.bytes);
	snprintf(v[3], sizeof(v[3]), "%llu", (unsigned long long)d.items);
	snprintf(v[4], sizeof(v[4]), "%llu",
		 (unsigned long long)d.items_unknown);
	for (i = 0; !ret && i < sizeof(kv) / sizeof(kv[0]); i++) {
		struct npf_sqb b = npf_sqb(s, SQ_META);

		npf_b_s(&b, kv[i][0]);
		npf_b_s(&b, kv[i][1]);
		ret = npf_sq_step(s, &b);
	}
	return ret;
}

/* The reader's own fits (those the exported times use) */
static int npf_sq_fits(struct npf_sq *s)
{
	const struct npf_clock_fit *f;
	uint32_t d;
	int ret = 0;

	for (d = 0; !ret && (f = npf_trace_fit(s->trace, d)); d++) {
		struct npf_sqb b = npf_sqb(s, SQ_FIT);
		bool have = f->nseg > 0;

		npf_b_i(&b, d);
		npf_b_s(&b, "reader");
		npf_b_i(&b, f->samples);
		npf_b_i(&b, f->used);
		npf_b_i(&b, f->nseg);
		npf_b_f(&b, have, have ? f->seg[0].ns_per_tick : 0.0);
		npf_b_f(&b, have, have ? (double)f->seg[0].ref_ns -
			f->seg[0].ns_per_tick * (double)f->seg[0].ref_tick : 0.0);
		npf_b_opt(&b, have, (int64_t)f->err_ns);
		npf_b_null(&b);
		npf_b_null(&b);
		ret = npf_sq_step(s, &b);
	}
	return ret;
}

/* Every operator of every model of the trace (memuse.h) */
static int npf_sq_models(struct npf_sq *s)
{
	size_t i, n = npf_trace_nmodels(s->trace);
	int ret = 0;

	for (i = 0; !ret && i < n; i++) {
		const struct npf_model *m = npf_trace_model_at(s->trace, i);
		uint32_t op, nops = npf_model_nops(m);
		bool lay = npf_model_has_layers(m);
		struct npf_op_mem om;
		struct npf_layer l;

		for (op = 0; !ret && op < nops; op++) {
			struct npf_sqb b = npf_sqb(s, SQ_MODEL_OP);

			if (npf_model_op_mem(m, op, &om))
				continue;
			npf_model_layer(m, op, &l);
			npf_b_i(&b, npf_model_id(m));
			npf_b_s(&b, npf_model_name(m));
			npf_b_i(&b, op);
			npf_b_s(&b, npf_opcode_name(npf_model_opcode(m, op)));
			npf_b_u(&b, om.in_bytes);
			npf_b_u(&b, om.out_bytes);
			npf_b_u(&b, om.live_bytes);
			npf_b_u(&b, om.alloc_bytes);
			/* the layer table's columns: NULL without one */
			npf_b_s(&b, lay ? l.name : NULL);
			npf_b_s(&b, lay ? l.op_type : NULL);
			npf_b_s(&b, lay ? l.in_shapes : NULL);
			npf_b_s(&b, lay ? l.out_shapes : NULL);
			npf_b_opt(&b, lay, (int64_t)l.macs);
			npf_b_opt(&b, lay, (int64_t)l.weight_bytes);
			ret = npf_sq_step(s, &b);
		}
	}
	return ret;
}

/* The INSERT of table @which; of NPF_SQ_ROWS rows for a large table */
static int npf_sq_prepare(struct npf_sq *s, int which)
{
	const char *one = npf_sq_insert[which];
	const char *tuple = strchr(one, '(');
	size_t head = (size_t)(tuple - one), len = strlen(tuple);
	char *sql = NULL, *p;
	int i, rc;

	if (which <= SQ_BATCHED) {
		sql = malloc(head + NPF_SQ_ROWS * (len + 1));
		if (!sql)
			return npf_sq_fail(s, "out of memory");
		p = mempcpy(sql, one, head);
		for (i = 0; i < NPF_SQ_ROWS; i++) {
			if (i)
				*p++ = ',';
			p = mempcpy(p, tuple, len);
		}
		*p = 0;
		for (p = (char *)tuple; *p; p++)
			s->ncols[which] += *p == '?';
	}
	rc = sqlite3_prepare_v3(s->db, sql ? sql : one, -1,
				SQLITE_PREPARE_PERSISTENT, &s->st[which], NULL);
	free(sql);
	return rc == SQLITE_OK ? 0 : npf_sq_fail(s, one);
}

static int npf_sq_open(struct npf_sq *s, const char *tmp)
{
	char sql[256];
	int i;

	unlink(tmp);
	/* one thread uses the connection: no mutexes */
	if (sqlite3_open_v2(tmp, &s->db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK)
		return npf_sq_fail(s, "open");
	snprintf(sql, sizeof(sql),
		 "PRAGMA page_size=%d; PRAGMA journal_mode=OFF;"
		 "PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
		 "PRAGMA temp_store=FILE; PRAGMA cache_size=-%d;"
		 "PRAGMA user_version=%d;",
		 NPF_SQ_PAGE, NPF_SQ_CACHE_KB, NPF_SQ_VERSION);
	if (npf_sq_exec(s, sql) || npf_sq_exec(s, npf_sq_schema))
		return -EIO;
	for (i = 0; i < SQ_N; i++)
		if (npf_sq_prepare(s, i))
			return -EIO;
	return npf_sq_exec(s, "BEGIN");
}

static void npf_sq_close(struct npf_sq *s)
{
	int i;

	for (i = 0; i < SQ_N; i++)
		sqlite3_finalize(s->st[i]);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK && !s->err)
		npf_sq_fail(s, "close");
	s->db = NULL;
}

NPUPROF_EXPORT
int npuprof_export_sqlite(struct npuprof_trace *trace, const char *path)
{
	struct npf_sq *s = NULL;
	struct npuprof_event ev;
	struct npf_join *j = NULL;
	char *tmp = NULL;
	int ret, i;

	if (!trace || !path || !*path)
		return -EINVAL;
	ret = npuprof_trace_rewind(trace);
	if (ret)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s || asprintf(&tmp, "%s.tmp", path) < 0) {
		free(s);
		return -ENOMEM;
	}
	s->trace = trace;
	ret = npf_join_new(trace, &npf_sq_ops, s, &j);
	if (!ret)
		ret = npf_sq_open(s, tmp);
	while (!ret && (ret = npuprof_trace_next(trace, &ev)) == 1) {
		ret = npf_sq_event(s, &ev);
		if (!ret)
			ret = npf_join_event(j, &ev);
	}
	if (!ret)
		ret = npf_join_finish(j);
	if (!ret)
		ret = npf_sq_damage(s);
	for (i = 0; !ret && i <= SQ_BATCHED; i++)
		ret = npf_sq_flush(s, i);
	if (!ret)
		ret = npf_sq_fits(s);
	if (!ret)
		ret = npf_sq_models(s);
	if (!ret)
		ret = npf_sq_exec(s, "COMMIT");
	if (!ret)
		ret = npf_sq_exec(s, npf_sq_indexes);
	/* statistics for the planner from a sample of each index */
	if (!ret)
		ret = npf_sq_exec(s, "PRAGMA analysis_limit=" NPF_SQ_ANALYZE
				  "; ANALYZE");
	npf_sq_close(s);
	if (!ret && s->err)
		ret = s->err;
	if (!ret && rename(tmp, path)) {
		ret = -errno;
		npf_trace_set_error(trace, "rename to %s: %s", path, strerror(-ret));
	}
	if (ret)
		unlink(tmp);
	npf_join_free(j);
	free(tmp);
	free(s);
	return ret;
}
