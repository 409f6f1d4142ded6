// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_sqlite.c - npuprof_export_sqlite() on the hand-computed synthetic
 * trace of report_gen.h: the database is read back with SQLite's own
 * library (every table, view and index of Documentation/npu/sqlite.rst)
 * and with pandas.read_sql in Debian's python3 (python3-pandas, which
 * scripts/deps.sh installs); the interned names and the batched inserts
 * (more rows than one batch, not a multiple of it, labels among them); an
 * empty trace, a replaced database, a directory that does not exist and a
 * corrupt trace.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "kselftest_harness.h"
#include "report_gen.h"
#include "memory_gen.h"
#include "npuprof_analysis.h"
#include "trace_format.h"
#include "writer.h"

/* The rows of @sql, columns joined by '|', one line each ("" for NULL) */
static char *q(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int i, n;

	if (!f || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "# %s: %s\n", sql, sqlite3_errmsg(db));
		abort();
	}
	n = sqlite3_column_count(st);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			const unsigned char *t = sqlite3_column_text(st, i);

			fprintf(f, "%s%s", i ? "|" : "", t ? (const char *)t : "");
		}
		fputc('\n', f);
	}
	sqlite3_finalize(st);
	fclose(f);
	return out;
}

#define EXPECT_Q(db, want, sql) do {		\
	char *got_ = q(db, sql);		\
	EXPECT_STREQ(want, got_);		\
	free(got_);				\
} while (0)

/* Export @trace_path to a new database; returns its path */
static char *export(const char *trace_path, int *ret)
{
	struct npuprof_trace *t;
	char err[256], *db;

	if (asprintf(&db, "%s.db", trace_path) < 0)
		abort();
	if (npuprof_trace_open(trace_path, &t, err, sizeof(err)))
		abort();
	*ret = npuprof_export_sqlite(t, db);
	npuprof_trace_close(t);
	return db;
}

FIXTURE(sq) {
	char *trace;
	char *path;
	sqlite3 *db;
};

FIXTURE_SETUP(sq)
{
	int ret;

	self->trace = gen_trace("sq");
	self->path = export(self->trace, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(SQLITE_OK, sqlite3_open_v2(self->path, &self->db,
					     SQLITE_OPEN_READONLY, NULL));
}

FIXTURE_TEARDOWN(sq)
{
	sqlite3_close(self->db);
	unlink(self->path);
	unlink(self->trace);
	free(self->path);
	free(self->trace);
}

TEST_F(sq, tables)
{
	sqlite3 *db = self->db;

	EXPECT_Q(db, "5\n", "PRAGMA user_version");
	/* 16 KiB pages: fewer to write, and to read back for the indexes */
	EXPECT_Q(db, "16384\n", "PRAGMA page_size");
	/* no MODEL item: no model on any operator record */
	EXPECT_Q(db, "0|0\n", "SELECT COUNT(model_id), (SELECT COUNT(*) "
		 "FROM model_operators) FROM operator_rows");
	EXPECT_Q(db, "cmdline|gen\n", "SELECT * FROM meta");
	EXPECT_Q(db, "0|/dev/npu3|3|2|2000000000\n1|/dev/npu5|5|2|1000000000\n",
		 "SELECT dev, path, minor, pe_count, clock_hz FROM devices ORDER BY dev");
	EXPECT_Q(db, "31|4|16|6\n",
		 "SELECT COUNT(*), SUM(kind_id = 3), SUM(kind_id BETWEEN 6 AND 9),"
		 " SUM(kind = 'submit') FROM spans");
	EXPECT_Q(db, "record|warm,up \"q\"|50000000\n",
		 "SELECT kind, name, dur_ns FROM spans WHERE kind_id = 1");
	/* the executions, in join order, with their ids */
	EXPECT_Q(db,
		 "aa000000000000000000000000000001|00000000000003eb|00000000000003e8|3|1|4|2|2||0|0\n"
		 "aa000000000000000000000000000002|000000000000044f|000000000000044c|3|2|118134|108134|10000||0|0\n"
		 "aa000000000000000000000000000003|00000000000004b3|00000000000004b0|3|3|1|1|0||0|0\n"
		 "aa000000000000000000000000000004|0000000000000517|0000000000000514|3|4|4|0|4||0|0\n"
		 "aa00000000000000000000000000004d|0000000000000007||5|1|2000|1500|500|1|0|0\n"
		 "|||3|99|4|2|2||1|0\n"
		 "|||5|2|100000|100000|0|1|0|1\n",
		 "SELECT trace_id, span_id, inference_span_id, minor, job_id,"
		 " total_ns, run_ns, iowait_ns, err_ns > 0, inconsistent,"
		 " violation FROM executions ORDER BY id");
	/* Total == Run + IoWait, every row */
	EXPECT_Q(db, "0|220147\n", "SELECT SUM(total_ns != run_ns + iowait_ns),"
		 " SUM(total_ns) FROM executions");
	/* device times: mapped on npu5 (a fit), not on npu3 */
	EXPECT_Q(db, "1|10020001000|10020003000\n",
		 "SELECT dev, start_ns, end_ns FROM executions"
		 " WHERE minor = 5 AND job_id = 1 AND start_ns IS NOT NULL");
	EXPECT_Q(db, "5\n", "SELECT COUNT(*) FROM executions WHERE start_ns IS NULL");
	EXPECT_Q(db, "CONV2D|0|5|5|0\nCONV2D|1|10|10|0\nPAD|2|2|2|0\n"
		 "ADD|3|3|2|1\nCONV2D|4|16|16|0\nPAD|5|4|4|0\nCLIP|6|||\n",
		 "SELECT name, op_index, dur_ns, run_ns, iowait_ns FROM operators"
		 " ORDER BY id");
	EXPECT_Q(db, "11\n", "SELECT COUNT(*) FROM clock_samples WHERE dev = 1");
	EXPECT_Q(db, "0|reader|0\n1|reader|11\n",
		 "SELECT dev, source, samples FROM clock_fits ORDER BY dev");
	EXPECT_Q(db, "ring-full|7\nspans|3\n",
		 "SELECT * FROM losses_total ORDER BY kind");
	EXPECT_Q(db, "5|3|1\n",
		 "SELECT lost_ring, spans_lost, violations FROM summary");
	/* 9, and memory_events(bo_id, dev) */
	EXPECT_Q(db, "10\n",
		 "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'"
		 " AND name NOT LIKE 'sqlite_%'");
}

TEST_F(sq, views)
{
	sqlite3 *db = self->db;

	EXPECT_Q(db,
		 "aa000000000000000000000000000001|00000000000003e8|101|3027309\n"
		 "aa000000000000000000000000000002|000000000000044c|101|2111363\n"
		 "aa000000000000000000000000000003|00000000000004b0|101|1824769\n"
		 "aa000000000000000000000000000004|0000000000000514|101|1584494\n",
		 "SELECT trace_id, span_id, \"thread.id\", dur FROM inferences"
		 " ORDER BY start_ns");
	EXPECT_Q(db, "4|2|2\n118134|108134|10000\n1|1|0\n4|0|4\n2000|1500|500\n"
		 "4|2|2\n100000|100000|0\n",
		 "SELECT \"NPU Total\", \"NPU Run\", \"NPU IoWait\" FROM npu_executions");
	EXPECT_Q(db, "CONV2D|10.3333333333333|3\nADD|3.0|1\nPAD|3.0|2\n",
		 "SELECT name, \"average elapsed(ns)\", count FROM npu_operators");
	EXPECT_Q(db, "16|4|4\n",
		 "SELECT COUNT(*), SUM(name = 'Quantize'), SUM(name = 'Dequantize')"
		 " FROM external_operators");
	EXPECT_Q(db, "00000000000003e8|1|4\n000000000000044c|1|118134\n"
		 "00000000000004b0|1|1\n0000000000000514|1|4\n",
		 "SELECT span_id, executions, npu_total_ns FROM"
		 " inference_executions ORDER BY span_id");
}

TEST_F(sq, pandas)
{
	static const char script[] =
"import sys\n"
"try:\n"
"    import pandas\n"
"except ImportError:\n"
"    print('python3-pandas is missing: install it with scripts/deps.sh', file=sys.stderr)\n"
"    sys.exit(3)\n"
"import sqlite3\n"
"con = sqlite3.connect(sys.argv[1])\n"
"ex = pandas.read_sql('SELECT * FROM npu_executions', con)\n"
"inf = pandas.read_sql('SELECT * FROM inferences', con)\n"
"ops = pandas.read_sql('SELECT * FROM npu_operators', con, index_col='name')\n"
"ext = pandas.read_sql('SELECT * FROM external_operators', con)\n"
"assert (ex['NPU Total'] == ex['NPU Run'] + ex['NPU IoWait']).all()\n"
"print(len(ex), int(ex['NPU Total'].sum()), int(ex['trace_id'].isna().sum()))\n"
"print(len(inf), int(inf['dur'].median()), int(inf['thread.id'].iloc[0]))\n"
"print(list(ops.index), int(ops.loc['PAD', 'count']))\n"
"print(len(ext), int(ext[ext['name'] == 'Lower']['dur'].sum()))\n";
	char out[1024];
	size_t n = 0;
	ssize_t r;
	int pfd[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execlp(gen_python(), "python3", "-c", script, self->path,
		       (char *)NULL);
		fprintf(stderr, "# %s: %s\n", gen_python(), strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	while ((r = read(pfd[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = 0;
	close(pfd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		TH_LOG("python3-pandas is missing: run scripts/deps.sh");
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* 1824769 + 2111363 = 3936132: the median of four is their mean */
	EXPECT_STREQ("7 220147 2\n"
		     "4 1968066 101\n"
		     "['CONV2D', 'ADD', 'PAD'] 2\n"
		     "16 806\n", out);
}

/*
 * GEN_BATCH_INF inferences of seven spans, an execution and three
 * operators each, a label span every tenth: 7 * 75 + 8 = 533 spans (16
 * batches of 32 and 21), 75 executions (2 and 11), 225 operators (7 and
 * 1). Inference k (0..74) starts at 1 s + k ms and lasts 1000 + k ns;
 * its operators last 2, 4 and 6 ticks at 1 GHz (job k + 1, op_index
 * 0..2, opcodes CONV2D, PAD, ADD).
 */
#define GEN_BATCH_INF	75

/* A label span of string @name_id */
static void gen_label(struct npf_writer *w, uint32_t name_id, uint64_t id,
		      uint64_t t)
{
	struct npuprof_span_rec s = { .kind = NPUPROF_SPAN_LABEL,
				      .name_id = name_id, .pid = GEN_PID,
				      .tid = GEN_TID, .start_ns = t,
				      .end_ns = t + 5, .span_id = id,
				      .trace_id = { 1, id } };

	if (npf_writer_add(w, NPF_ITEM_SPAN, &s, sizeof(s), NULL, 0))
		abort();
}

static char *gen_batches(void)
{
	struct npf_item_string st = { .len = 2 };
	struct npf_writer *w;
	char *path, label[3];
	unsigned int k, i;

	if (asprintf(&path, "/tmp/npuprof-sq-%d-batches", (int)getpid()) < 0)
		abort();
	if (npf_writer_open(path, 4096, &w))
		abort();
	gen_device(w, 0, 3, 1000000000);
	for (k = 0; k < GEN_BATCH_INF; k++) {
		uint64_t t = 1000000000ull + k * 1000000ull, inf = 10 * k + 10;
		uint16_t kinds[6] = { NPUPROF_SPAN_QUANTIZE, NPUPROF_SPAN_LOWER,
				      NPUPROF_SPAN_SUBMIT, NPUPROF_SPAN_WAIT,
				      NPUPROF_SPAN_UNLOWER,
				      NPUPROF_SPAN_DEQUANTIZE };
		struct npu_trace_rec_op o;

		if (k % 10 == 0) {
			snprintf(label, sizeof(label), "L%u", k / 10);
			st.id = k / 10 + 1;
			if (npf_writer_add(w, NPF_ITEM_STRING, &st, sizeof(st),
					   label, 3))
				abort();
			gen_label(w, st.id, 5000 + k, t);
		}
		for (i = 0; i < 6; i++)
			gen_span(w, kinds[i], i == 2 || i == 3 ?
				 NPUPROF_SPAN_F_JOB : 0, GEN_PID, inf + 1 + i,
				 inf, k + 1, t + 10 * i, 10, k + 1, 3);
		gen_span(w, NPUPROF_SPAN_INFERENCE, 0, GEN_PID, inf, 0, k + 1, t,
			 1000 + k, 0, 0);
		gen_exec(w, 0, k, GEN_PID, k + 1, 0, 1000 * k, 5, 1, 1000 * k + 6,
			 t + 20, t + 60);
		for (i = 0; i < 3; i++) {
			memset(&o, 0, sizeof(o));
			o.hdr.type = NPU_TRACE_REC_OP;
			o.hdr.size = sizeof(o);
			o.pid = GEN_PID;
			o.tid = GEN_TID;
			o.job_id = k + 1;
			o.opcode = i == 0 ? NPU_OP_CONV2D : i == 1 ? NPU_OP_PAD :
				   NPU_OP_ADD;
			o.op_index = i;
			o.start_tick = 1000 * k;
			o.end_tick = o.start_tick + 2 * (i + 1);
			gen_add_rec(w, 0, &o);
		}
	}
	if (npf_writer_close(w))
		abort();
	return path;
}

TEST(batches)
{
	char *trace = gen_batches(), *path;
	sqlite3 *db;
	int ret;

	path = export(trace, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(SQLITE_OK, sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL));
	/* every row once, ids 1..N with no gap and no padding left */
	EXPECT_Q(db, "533|1|533|75|8\n",
		 "SELECT COUNT(*), MIN(id), MAX(id), SUM(kind = 'inference'),"
		 " SUM(kind = 'record') FROM spans");
	EXPECT_Q(db, "75|75|75|75\n",
		 "SELECT COUNT(*), MAX(id), COUNT(trace_id), COUNT(DISTINCT job_id)"
		 " FROM executions");
	EXPECT_Q(db, "225|225|0\n",
		 "SELECT COUNT(*), MAX(id), SUM(name IS NULL) FROM operators");
	/* sum over k of 1000 + k = 75000 + 2775 */
	EXPECT_Q(db, "77775\n", "SELECT SUM(dur) FROM inferences");
	/* the rows on both sides of the first batch boundary, and the last */
	/* inference 4 is ids 30..36 (a label opens 0, 10, ...): its
	 * SUBMIT (span 50 + 3) is id 32, WAIT 33; the last, 74, is span 750 */
	EXPECT_Q(db, "32|submit|0000000000000035|0000000000000032\n"
		 "33|wait|0000000000000036|0000000000000032\n"
		 "533|inference|00000000000002ee|\n",
		 "SELECT id, kind, span_id, parent_id FROM spans"
		 " WHERE id IN (32, 33, 533) ORDER BY id");
	/* labels, copied when bound: each keeps its own text */
	EXPECT_Q(db, "L0|L1|L2|L3|L4|L5|L6|L7\n",
		 "SELECT group_concat(name, '|') FROM"
		 " (SELECT name FROM spans WHERE kind_id = 1 ORDER BY id)");
	/* 75 * (2 + 4 + 6) ns; names from the interned table */
	EXPECT_Q(db, "900|CONV2D|PAD|ADD\n",
		 "SELECT SUM(dur_ns), (SELECT name FROM operators WHERE id = 223),"
		 " (SELECT name FROM operators WHERE id = 224),"
		 " (SELECT name FROM operators WHERE id = 225) FROM operators");
	/*
	 * a parameter of a batch is bound again only when its value
	 * changes: row by row, each still has its own (op_index and job_id
	 * go round 3 and 225 rows, a batch 32; job_id NULL or not by kind)
	 */
	EXPECT_Q(db, "0|8550|225\n",
		 "SELECT SUM(op_index != (id - 1) % 3 OR job_id != (id - 1) / 3 + 1"
		 " OR minor != 3 OR pid != 100), SUM(job_id), SUM(op_index)"
		 " FROM operator_rows");
	EXPECT_Q(db, "0|150|5700|0|8\n",
		 "SELECT SUM((kind_id IN (10, 11)) != (job_id IS NOT NULL)),"
		 " SUM(minor = 3), SUM(job_id), SUM(op_index IS NOT NULL),"
		 " SUM(name IS NOT NULL) FROM span_rows");
	EXPECT_Q(db, "3\n8\n", "SELECT COUNT(*) FROM opcodes UNION ALL"
		 " SELECT COUNT(*) FROM span_kinds");
	EXPECT_Q(db, "75|75\n", "SELECT COUNT(*), SUM(executions = 1)"
		 " FROM inference_executions");
	sqlite3_close(db);
	unlink(path);
	free(path);
	unlink(trace);
	free(trace);
}

TEST(empty_and_replaced)
{
	char *trace = gen_empty("sq-empty"), *path;
	sqlite3 *db;
	FILE *f;
	int ret;

	/* a file that is not a database is replaced */
	if (asprintf(&path, "%s.db", trace) < 0)
		abort();
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("not a database\n", f);
	fclose(f);
	free(path);
	path = export(trace, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(SQLITE_OK, sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL));
	EXPECT_Q(db, "0|0|0|1\n",
		 "SELECT (SELECT COUNT(*) FROM spans), (SELECT COUNT(*) FROM"
		 " executions), (SELECT COUNT(*) FROM npu_operators),"
		 " (SELECT COUNT(*) FROM devices)");
	EXPECT_Q(db, "", "SELECT * FROM inferences");
	sqlite3_close(db);
	unlink(path);
	free(path);
	unlink(trace);
	free(trace);
}

TEST(errors)
{
	char *trace = gen_trace("sq-err"), err[256];
	struct npuprof_trace *t;
	FILE *f;

	ASSERT_EQ(0, npuprof_trace_open(trace, &t, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, npuprof_export_sqlite(t, ""));
	EXPECT_EQ(-EINVAL, npuprof_export_sqlite(NULL, "/tmp/x.db"));
	/* SQLite cannot create the file: -EIO with its message */
	EXPECT_EQ(-EIO, npuprof_export_sqlite(t, "/nonexistent-dir/t.db"));
	EXPECT_NE(NULL, strstr(npuprof_trace_error(t), "sqlite"));
	/* the reader works again after the failed export */
	EXPECT_EQ(0, npuprof_export_sqlite(t, "/tmp/npuprof-sq-ok.db"));
	EXPECT_EQ(0, unlink("/tmp/npuprof-sq-ok.db"));
	npuprof_trace_close(t);

	/* a damaged chunk: skipped, the rest exported, and the meta table
	 * says what was skipped */
	f = fopen(trace, "r+");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, fseek(f, 4096 + 200, SEEK_SET));
	fputc(0x5a, f);
	fclose(f);
	ASSERT_EQ(0, npuprof_trace_open(trace, &t, err, sizeof(err)));
	EXPECT_EQ(0, npuprof_export_sqlite(t, "/tmp/npuprof-sq-bad.db"));
	EXPECT_NE(0, access("/tmp/npuprof-sq-bad.db.tmp", F_OK));
	{
		struct npuprof_damage d;
		char want[256];
		sqlite3 *db;

		ASSERT_EQ(1u, npuprof_trace_damage(t, &d, NULL));
		ASSERT_EQ(SQLITE_OK, sqlite3_open_v2("/tmp/npuprof-sq-bad.db",
						     &db, SQLITE_OPEN_READONLY,
						     NULL));
		snprintf(want, sizeof(want),
			 "reader.damaged_stretches|1\n"
			 "reader.damaged_chunks|1\n"
			 "reader.damaged_bytes|%llu\n"
			 "reader.damaged_items|%llu\n"
			 "reader.damaged_items_unknown|0\n",
			 (unsigned long long)d.bytes,
			 (unsigned long long)d.items);
		EXPECT_Q(db, want, "SELECT key, value FROM meta WHERE key "
			 "LIKE 'reader.damaged%' AND key != "
			 "'reader.damaged_first' ORDER BY rowid");
		EXPECT_Q(db, "1\n", "SELECT value LIKE 'chunk crc %' FROM meta "
			 "WHERE key = 'reader.damaged_first'");
		EXPECT_LT(0u, d.items);
		EXPECT_LT(0u, d.bytes);
		sqlite3_close(db);
	}
	EXPECT_EQ(0, unlink("/tmp/npuprof-sq-bad.db"));
	npuprof_trace_close(t);
	unlink(trace);
	free(trace);
}

/* The buffer records of memory_gen.h: memory_events, memory_buffers */
TEST(memory_events)
{
	char *trace = mem_gen_trace("sqm"), *path;
	sqlite3 *db;
	int ret;

	path = export(trace, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(SQLITE_OK, sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY,
					     NULL));
	/* 14 records, the one of size 0 left out */
	EXPECT_Q(db, "13\n", "SELECT COUNT(*) FROM memory_events");
	EXPECT_Q(db, "alloc|6\nfail|2\nfree|5\n", "SELECT event, COUNT(*) "
		 "FROM memory_events GROUP BY event ORDER BY event");
	EXPECT_Q(db, "0|10000004000|200|201|||1048576|scratch|ENOMEM|294912\n"
		 "0|10000008000|300|301|||8192|input|EDQUOT|147456\n",
		 "SELECT dev, time_ns, pid, tid, bo_id, addr, size, kind, error, "
		 "dev_used FROM memory_events WHERE event = 'fail' ORDER BY id");
	/* each alloc with its free: id1 of device 0 and id5 never freed */
	EXPECT_Q(db, "0|1|100|4194304|65536|program|10000001000|||\n"
		 "0|2|200|4325376|32768|input|10000002000|10000005000|3000|handle\n"
		 "0|3|100|4358144|131072|scratch|10000003000|10000007000|4000|close\n"
		 "0|4|300|4259840|16384|output|10000006000|10000011000|5000|job\n"
		 "0|5|300|4276224|4096|output|10000009000|||\n"
		 "1|1|100|4194304|8192|other|10000001500|10000002500|1000|handle\n",
		 "SELECT dev, bo_id, pid, addr, size, kind, alloc_ns, free_ns, "
		 "lifetime_ns, reason FROM memory_buffers ORDER BY dev, bo_id");
	sqlite3_close(db);
	unlink(path);
	unlink(trace);
	free(path);
	free(trace);
}

/* The models' operators (memory_gen.h, mem_gen_jobs_write()) */
TEST(operator_memory)
{
	char *trace, *path;
	sqlite3 *db;
	int ret;

	ASSERT_LE(0, asprintf(&trace, "/tmp/npuprof-sqlite-%d-jobs",
			      (int)getpid()));
	mem_gen_jobs_write(trace);
	path = export(trace, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(SQLITE_OK, sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY,
					     NULL));
	/* with the layer table's columns (layers_gen.h) */
	EXPECT_Q(db, "5|tiny|0|CONV2D|1000|1000|2000|7424|" LAY_NAME0 "|"
		 LAY_TYPE0 "|" LAY_IN0 "|" LAY_OUT0 "|3888|124\n"
		 "5|tiny|1|FC|1400|200|1600|7424|" LAY_NAME1 "|" LAY_TYPE1 "|"
		 LAY_IN1 "|" LAY_OUT1 "|1440|1440\n",
		 "SELECT * FROM model_operators ORDER BY model_id, op_index");
	EXPECT_Q(db, "4|4\n", "SELECT COUNT(*), COUNT(model_id) "
		 "FROM operator_rows");
	/* every record with its operator's figures, both jobs */
	EXPECT_Q(db, "1|100|0|5|tiny|0|CONV2D|10000010000|1000|1000|2000|7424\n"
		 "2|300|1|5|tiny|0|CONV2D|10000010008|1000|1000|2000|7424\n"
		 "1|100|0|5|tiny|1|FC|10000010010|1400|200|1600|7424\n"
		 "2|300|1|5|tiny|1|FC|10000010022|1400|200|1600|7424\n",
		 "SELECT job_id, pid, pe, model_id, model, op_index, name, "
		 "start_ns, in_bytes, out_bytes, live_bytes, alloc_bytes "
		 "FROM operator_memory ORDER BY start_ns");
	EXPECT_Q(db, "1|0|" LAY_NAME0 "|" LAY_IN0 "\n"
		 "2|0|" LAY_NAME0 "|" LAY_IN0 "\n"
		 "1|1|" LAY_NAME1 "|" LAY_IN1 "\n"
		 "2|1|" LAY_NAME1 "|" LAY_IN1 "\n",
		 "SELECT job_id, op_index, layer, in_shapes "
		 "FROM operator_memory ORDER BY start_ns");
	/* the operators view names each record's layer */
	EXPECT_Q(db, "1|CONV2D|" LAY_NAME0 "|" LAY_TYPE0 "|" LAY_IN0 "|"
		 LAY_OUT0 "\n"
		 "2|CONV2D|" LAY_NAME0 "|" LAY_TYPE0 "|" LAY_IN0 "|"
		 LAY_OUT0 "\n"
		 "1|FC|" LAY_NAME1 "|" LAY_TYPE1 "|" LAY_IN1 "|" LAY_OUT1 "\n"
		 "2|FC|" LAY_NAME1 "|" LAY_TYPE1 "|" LAY_IN1 "|" LAY_OUT1 "\n",
		 "SELECT job_id, name, layer, op_type, in_shapes, out_shapes "
		 "FROM operators ORDER BY start_ns");
	/* per layer: both jobs' records, 5 ticks (ns) each */
	EXPECT_Q(db, LAY_NAME0 "|CONV2D|5.0|2|10|3888|124\n"
		 LAY_NAME1 "|FC|5.0|2|10|1440|1440\n",
		 "SELECT layer, name, \"average elapsed(ns)\", count, total_ns, "
		 "macs, weight_bytes FROM npu_layers");
	sqlite3_close(db);
	unlink(path);
	free(path);

	/* a model without a layer table: NULL there, no layer rows */
	mem_gen_jobs_write_tail(trace, NULL, 0);
	path = export(trace, &ret);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(SQLITE_OK, sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY,
					     NULL));
	EXPECT_Q(db, "2|0|0|0\n", "SELECT COUNT(*), COUNT(layer), "
		 "COUNT(macs), COUNT(weight_bytes) FROM model_operators");
	EXPECT_Q(db, "4|0\n", "SELECT COUNT(*), COUNT(layer) FROM operators");
	EXPECT_Q(db, "0\n", "SELECT COUNT(*) FROM npu_layers");
	sqlite3_close(db);
	unlink(path);
	unlink(trace);
	free(path);
	free(trace);
}

TEST_HARNESS_MAIN
