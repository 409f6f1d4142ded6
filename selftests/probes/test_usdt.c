// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_usdt - host test of the USDT probes (lib/npuprof/npuprof_usdt.h):
 * the stapsdt notes of libnpu.so and libnpuprof.so name every probe once,
 * with eleven arguments in the forms libbpf parses and one semaphore per
 * library; and libnpu's span hooks give spans their ids when the probes'
 * semaphore is raised with no session running, and not otherwise.
 *
 * The notes are read with readelf (binutils) from $NPU_BUILD/lib.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "npu_usdt.h"

#define MAX_NOTES 64

struct note {
	char provider[32], name[64], sem[32];
	char args[512];
};

/* Parse the stapsdt notes of @lib (under $NPU_BUILD/lib); count or -1. */
static int read_notes(const char *lib, struct note *n, int max)
{
	const char *b = getenv("NPU_BUILD");
	char cmd[1024], line[1024];
	int cnt = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -n %s/lib/%s 2>/dev/null",
		 b ? b : "build", lib);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");

		line[strcspn(line, "\n")] = 0;
		if (!strncmp(p, "stapsdt", 7)) {
			if (++cnt >= max)
				break;
			memset(&n[cnt], 0, sizeof(n[cnt]));
		} else if (cnt < 0 || cnt >= max) {
			continue;
		} else if (!strncmp(p, "Provider: ", 10)) {
			snprintf(n[cnt].provider, sizeof(n[cnt].provider), "%s", p + 10);
		} else if (!strncmp(p, "Name: ", 6)) {
			snprintf(n[cnt].name, sizeof(n[cnt].name), "%s", p + 6);
		} else if (!strncmp(p, "Arguments: ", 11)) {
			snprintf(n[cnt].args, sizeof(n[cnt].args), "%s", p + 11);
		} else if (strstr(p, "Semaphore: ")) {
			snprintf(n[cnt].sem, sizeof(n[cnt].sem), "%s",
				 strstr(p, "Semaphore: ") + 11);
		}
	}
	if (pclose(f))
		return -1;
	return cnt + 1 > max ? max : cnt + 1;
}

/* Every argument of @args is 8@%reg, 8@OFF(%reg) or 8@$CONST; count. */
static int check_args(struct __test_metadata *_metadata, const char *args)
{
	char buf[512], *tok, *save = NULL;
	regex_t re;
	int n = 0;

	ASSERT_EQ(0, regcomp(&re, "^8@(%[a-z0-9]+|-?[0-9]+\\(%[a-z0-9]+\\)|\\$-?[0-9]+)$",
			     REG_EXTENDED | REG_NOSUB));
	snprintf(buf, sizeof(buf), "%s", args);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save), n++) {
		const char *arg = tok;

		EXPECT_EQ(0, regexec(&re, arg, 0, NULL, 0))
			TH_LOG("argument %d (%s) is not a form libbpf reads",
			       n, arg ? arg : "");
	}
	regfree(&re);
	return n;
}

static void check_lib(struct __test_metadata *_metadata, const char *lib,
		      const char *provider, const char *const *names,
		      int nnames)
{
	static struct note n[MAX_NOTES];
	int cnt = read_notes(lib, n, MAX_NOTES), i, j;

	ASSERT_GE(cnt, 0) TH_LOG("readelf -n %s failed (is it built?)", lib);
	ASSERT_EQ(nnames, cnt) TH_LOG("%s: %d stapsdt notes", lib, cnt);
	for (i = 0; i < nnames; i++) {
		int found = 0;

		for (j = 0; j < cnt; j++) {
			if (strcmp(n[j].name, names[i]))
				continue;
			found++;
			EXPECT_STREQ(provider, n[j].provider);
			EXPECT_EQ(11, check_args(_metadata, n[j].args))
				TH_LOG("%s: %s", names[i], n[j].args);
			/* one semaphore for the library, and a real one */
			EXPECT_STREQ(n[0].sem, n[j].sem);
			EXPECT_NE(0, strtoull(n[j].sem, NULL, 16));
		}
		EXPECT_EQ(1, found) TH_LOG("%s:%s in %s", provider, names[i], lib);
	}
}

TEST(notes_libnpu)
{
	static const char *const names[] = {
		"run_begin", "run_end", "inference_begin", "inference_end",
		"set_input_begin", "set_input_end", "get_output_begin",
		"get_output_end", "cpuop_begin", "cpuop_end", "submit_begin",
		"submit_end", "wait_begin", "wait_end",
	};

	check_lib(_metadata, "libnpu.so", "npu", names, 14);
}

TEST(notes_libnpuprof)
{
	static const char *const names[] = { "region_begin", "region_end" };

	check_lib(_metadata, "libnpuprof.so", "npuprof", names, 2);
}

/*
 * With the semaphore raised as a tracer raises it and no session, spans
 * get ids, a trace and times (what the probes pass); lowered, they stay
 * off, as with no tracer.
 */
TEST(ids_without_session)
{
	struct npuprof_span root, op, off;

	ASSERT_EQ(0, npuprof_spans_on);
	__atomic_add_fetch(&npu_probes_semaphore, 1, __ATOMIC_RELAXED);
	npu_span_begin(&root, NPUPROF_SPAN_INFERENCE, NULL);
	npu_span_op_begin(&op, NPUPROF_SPAN_QUANTIZE, &root, 3);
	ASSERT_NE(0, root.on);
	ASSERT_NE(0, op.on);
	EXPECT_NE(0, root.rec.span_id);
	EXPECT_EQ(0, root.rec.parent_id);
	EXPECT_NE(0, root.rec.trace_id[0]);
	EXPECT_EQ(root.rec.span_id, root.rec.trace_id[1]);
	EXPECT_NE(0, root.rec.start_ns);
	EXPECT_EQ(root.rec.span_id, op.rec.parent_id);
	EXPECT_NE(root.rec.span_id, op.rec.span_id);
	EXPECT_EQ(root.rec.trace_id[0], op.rec.trace_id[0]);
	EXPECT_EQ(root.rec.trace_id[1], op.rec.trace_id[1]);
	EXPECT_EQ(NPUPROF_SPAN_F_OP, op.rec.flags);
	EXPECT_EQ(3, op.rec.op_index);
	npu_span_done(&op, -EINVAL);
	EXPECT_EQ(0, op.on);
	EXPECT_GE(op.rec.end_ns, op.rec.start_ns);
	EXPECT_EQ(NPUPROF_SPAN_F_OP | NPUPROF_SPAN_F_ERROR, op.rec.flags);
	npu_span_end(&root);
	EXPECT_GE(root.rec.end_ns, op.rec.end_ns);
	__atomic_sub_fetch(&npu_probes_semaphore, 1, __ATOMIC_RELAXED);

	npu_span_begin(&off, NPUPROF_SPAN_SUBMIT, NULL);
	EXPECT_EQ(0, off.on);
	npu_span_end(&off);
}

/* The job fields of a wait span are set before its begin probe fires. */
TEST(job_fields_at_begin)
{
	struct npuprof_span w;

	__atomic_add_fetch(&npu_probes_semaphore, 1, __ATOMIC_RELAXED);
	npu_span_begin_x(&w, NPUPROF_SPAN_WAIT, NULL, NPUPROF_SPAN_F_JOB, 0,
			 77, 2);
	ASSERT_NE(0, w.on);
	EXPECT_EQ(NPUPROF_SPAN_F_JOB, w.rec.flags);
	EXPECT_EQ(77, w.rec.job_id);
	EXPECT_EQ(2, w.rec.minor);
	EXPECT_EQ(NPUPROF_SPAN_WAIT, w.rec.kind);
	npu_span_end(&w);
	__atomic_sub_fetch(&npu_probes_semaphore, 1, __ATOMIC_RELAXED);
}

TEST_HARNESS_MAIN
