// SPDX-License-Identifier: GPL-2.0-only
/*
 * consumer.c - a program outside the tree, built by install.sh against an
 * installed NPU stack only: its headers and pkg-config files in a DESTDIR,
 * linked with libnpu, libnpuprof and (to read its trace back)
 * libnpuprof-analysis, dynamically and statically.
 *
 * Usage: consumer MODEL TRACE
 *   MODEL  an MNIST model file written by the installed npu-model-gen
 *   TRACE  a trace file to write (host spans only: no NPU is needed)
 *
 * Each check prints "ok - what" or "not ok - what: got ..."; the exit
 * status is the number of failed checks (0: all passed). No device, no
 * global state; the session and the reader live within main().
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/npu.h>	/* the uapi header, from INCLUDEDIR/npu */
#include <libnpu.h>
#include <npuprof.h>
#include <npuprof_analysis.h>

static int failed;

#define CHECK(cond, what, fmt, ...) do {				\
	if (cond) {							\
		printf("ok - %s\n", what);				\
	} else {							\
		printf("not ok - %s: got " fmt "\n", what, __VA_ARGS__);	\
		failed++;						\
	}								\
} while (0)

static void check_opts(void)
{
	struct npuprof_opts o;

	memset(&o, 0xa5, sizeof(o));
	npuprof_opts_init(&o);
	CHECK(o.sz == sizeof(o) && o.level == NPUPROF_DEFAULT_LEVEL &&
	      o.ring_pages == 0 &&
	      o.span_buf_kb == NPUPROF_DEFAULT_SPAN_BUF_KB &&
	      o.log_level == NPUPROF_LOG_WARN && !o.output && !o.devices &&
	      !o.flags && !o.log,
	      "npuprof_opts_init() sets the documented defaults",
	      "sz %zu level %d pages %u span_kb %u", o.sz, o.level,
	      o.ring_pages, o.span_buf_kb);
}

static void check_model(const char *path)
{
	const struct npu_tensor_desc *in, *out;
	struct npu_model *m = NULL;
	char err[256] = "";
	int ret;

	ret = npu_model_load(path, &m, err, sizeof(err));
	CHECK(ret == 0, "npu_model_load() of npu-model-gen's mnist", "%d (%s)",
	      ret, err);
	if (ret)
		return;
	in = npu_model_input(m, 0);
	out = npu_model_output(m, 0);
	CHECK(!strcmp(npu_model_name(m), "mnist") &&
	      npu_model_num_inputs(m) == 1 && npu_model_num_outputs(m) == 1,
	      "the model is mnist with one input and one output",
	      "%s, %u inputs, %u outputs", npu_model_name(m),
	      npu_model_num_inputs(m), npu_model_num_outputs(m));
	CHECK(in && out && in->count == 28 * 28 && out->count == 10 &&
	      !npu_model_input(m, 1),
	      "its input is 28x28 and its output 10 classes",
	      "%zu in, %zu out", in ? in->count : 0, out ? out->count : 0);
	npu_model_free(m);

	ret = npu_model_load("/nonexistent/model.nmdl", &m, err, sizeof(err));
	CHECK(ret == -ENOENT && !strncmp(err, "/nonexistent/model.nmdl", 23),
	      "npu_model_load() of a missing file: -ENOENT naming it",
	      "%d (%s)", ret, err);
}

static void check_cpuops(void)
{
	static const float in[4] = { 0.0f, 1.0f, -1.0f, 1000.0f };
	static const uint8_t want[4] = { 128, 130, 126, 255 };
	uint8_t q[4] = { 0 };
	uint32_t crc;
	int ret;

	ret = npu_quantize(in, q, 4, 0.5f, 128);
	CHECK(ret == 0 && !memcmp(q, want, sizeof(want)),
	      "npu_quantize() rounds and saturates", "%d: %u %u %u %u", ret,
	      q[0], q[1], q[2], q[3]);
	crc = npu_crc32(0, "123456789", 9);
	CHECK(crc == 0xcbf43926u, "npu_crc32() of \"123456789\"", "%#x", crc);
	CHECK(sizeof(struct npu_info) > 0 && NPU_IOCTL_GET_INFO != 0,
	      "<linux/npu.h> declares struct npu_info and its ioctl", "%zu",
	      sizeof(struct npu_info));
}

/* a host-spans-only session writes TRACE; the reader finds the record */
static void check_trace(const char *path)
{
	static const char *const no_devices[] = { NULL };
	struct npuprof_session *s = NULL;
	struct npuprof_trace *t = NULL;
	struct npuprof_stats st = { .sz = sizeof(st) };
	struct npuprof_event ev;
	struct npuprof_opts o;
	int ret, labels = 0, spans = 0;
	char err[256] = "";

	npuprof_opts_init(&o);
	o.output = path;
	o.devices = no_devices;
	ret = npuprof_session_create(&o, &s);
	if (!ret)
		ret = npuprof_session_start(s);
	if (!ret)
		ret = npuprof_region_begin("consumer");
	if (!ret)
		ret = npuprof_region_end();
	if (!ret)
		ret = npuprof_session_stop(s);
	if (!ret)
		ret = npuprof_session_stats(s, &st);
	CHECK(ret == 0 && st.spans == 1 && st.spans_lost == 0,
	      "a host-only session records one labelled span", "%d, %llu spans",
	      ret, (unsigned long long)st.spans);
	npuprof_session_free(s);

	ret = npuprof_trace_open(path, &t, err, sizeof(err));
	CHECK(ret == 0, "npuprof_trace_open() of the file", "%d (%s)", ret, err);
	if (ret)
		return;
	while ((ret = npuprof_trace_next(t, &ev)) == 1) {
		if (ev.type != NPUPROF_EV_SPAN)
			continue;
		spans++;
		if (ev.label && !strcmp(ev.label, "consumer") &&
		    ev.span->kind == NPUPROF_SPAN_LABEL &&
		    ev.span->end_ns >= ev.span->start_ns)
			labels++;
	}
	CHECK(ret == 0 && spans == 1 && labels == 1 &&
	      !npuprof_trace_truncated(t),
	      "the reader finds the span \"consumer\" in a complete file",
	      "%d, %d spans, %d labelled (%s)", ret, spans, labels,
	      npuprof_trace_error(t));
	npuprof_trace_close(t);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: consumer MODEL TRACE\n");
		return 2;
	}
	check_opts();
	check_model(argv[1]);
	check_cpuops();
	check_trace(argv[2]);
	return failed;
}
