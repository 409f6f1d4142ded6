// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile.c - malformed and hostile ONNX files get a clear one-line error
 * and the documented status, never a crash.
 *
 * run-hostile.sh writes the cases with selftests/onnx-models/hostile.py
 * into OUT/hostile/ (OUT: $NPU_BUILD/onnx): NAME.onnx and expect.txt, whose
 * lines are "NAME STATUSES WORDS" (see hostile.py; WORDS may hold blanks). Every case is given
 *
 * - to onnx_import() here, under ASan and UBSan, in a child process (a
 *   crash fails its case, the others still run): 0 for status 0, -EINVAL
 *   or -E2BIG (a limit of the model format) for 1, -EOPNOTSUPP for 3; on
 *   failure a non-empty message of one line and no file, on success a
 *   file;
 * - to the CLI, `npu-onnx --check FILE` and `npu-onnx -o OUT FILE`: the
 *   exit status must be one of STATUSES, stderr one line (none on success)
 *   that contains one of WORDS, and OUT must not exist after a failure.
 *
 * Then every vector of libonnx-testdata and our MNIST in both ONNX forms
 * (mnist-qop.onnx, mnist-qdq.onnx, made by run-hostile.sh) are cut at a
 * few lengths and fed to onnx_import(), which must not crash and must
 * fail with -EINVAL when protobuf-c itself cannot parse the cut.
 *
 * Locking: single-threaded. Lifetime: each case's buffers are freed at its
 * end.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "onnx.pb-c.h"
#include "onnx_import.h"
#include "onnxvec.h"

static const char *build_dir(void)
{
	const char *b = getenv("NPU_BUILD");

	return b && *b ? b : BUILD_DIR;
}

/* @s contains one of the '|'-separated @words, ignoring case; '-': any */
static bool has_word(const char *s, const char *words)
{
	char w[256], *tok, *save;

	if (!strcmp(words, "-"))
		return true;
	snprintf(w, sizeof(w), "%s", words);
	for (tok = strtok_r(w, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
		if (strcasestr(s, tok))
			return true;
	return false;
}

static bool status_ok(int st, const char *statuses)
{
	char want[4];

	snprintf(want, sizeof(want), "%d", st);
	for (const char *p = statuses; *p; p++)
		if (*p == want[0] && (p[1] == '|' || !p[1]) &&
		    (p == statuses || p[-1] == '|'))
			return true;
	return false;
}

/* run the CLI with up to 3 arguments; as ov_exec() */
static int cli(const char *a1, const char *a2, const char *a3, char *err,
	       size_t errlen)
{
	char path[4096];
	const char *argv[] = { path, a1, a2, a3, NULL };

	snprintf(path, sizeof(path), "%s/bin/npu-onnx", build_dir());
	return ov_exec(argv, err, errlen);
}

/*
 * onnx_import() of @buf in a child, so that a crash (a sanitizer's abort)
 * fails this case and the others still run. Returns its result, or
 * INT_MIN when it crashed; the message in @err.
 */
static int import_child(const uint8_t *buf, size_t len, char *err,
			size_t errlen)
{
	int pfd[2], st, ret = INT_MIN;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return INT_MIN;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return INT_MIN;
	if (!pid) {
		uint8_t *file = NULL;
		size_t size = 0;
		char msg[1024] = "";
		int r;

		close(pfd[0]);
		r = onnx_import(buf, len, NULL, &file, &size, msg, sizeof(msg));
		/* a success gives a file, a failure none */
		if ((r == 0) != (file != NULL))
			r = INT_MIN + 1;
		free(file);
		if (write(pfd[1], &r, sizeof(r)) != sizeof(r) ||
		    write(pfd[1], msg, strlen(msg)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], &ret, sizeof(ret)) != sizeof(ret))
		ret = INT_MIN;
	while (got + 1 < errlen &&
	       (n = read(pfd[0], err + got, errlen - 1 - got)) > 0)
		got += n;
	err[got] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		ret = INT_MIN;
	return ret;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

FIXTURE(hostile) {
	int unused;
};

FIXTURE_SETUP(hostile)
{
}

FIXTURE_TEARDOWN(hostile)
{
}

TEST_F_TIMEOUT(hostile, cases, 300)
{
	char dir[4096], path[4096], out[4096], name[128], statuses[16];
	char words[256], err[1024], line[512];
	unsigned int n = 0;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/onnx/hostile", build_dir());
	snprintf(path, sizeof(path), "%s/expect.txt", dir);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f) TH_LOG("%s: %s (made by hostile.py: see above)", path,
				  strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		uint8_t *buf = NULL;
		struct stat st;
		size_t len;
		int ret, want, s1, s2, at = 0;

		/* the words are the rest of the line, blanks included */
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%127s %15s %n", name, statuses, &at) != 2 ||
		    !line[at])
			continue;
		snprintf(words, sizeof(words), "%s", line + at);
		n++;
		snprintf(path, sizeof(path), "%s/%s.onnx", dir, name);
		ASSERT_EQ(0, ov_slurp(path, &buf, &len)) TH_LOG("%s", path);
		ret = import_child(buf, len, err, sizeof(err));
		EXPECT_NE(INT_MIN, ret)
			TH_LOG("%s: onnx_import() crashed (see above)", name);
		EXPECT_NE(INT_MIN + 1, ret)
			TH_LOG("%s: onnx_import()'s result and file disagree", name);
		/* npu-onnx's exit statuses: a limit exceeded is 1, as malformed */
		want = ret == 0 ? 0 : ret == -EINVAL || ret == -E2BIG ? 1 :
		       ret == -EOPNOTSUPP ? 3 : -1;
		EXPECT_TRUE(status_ok(want, statuses))
			TH_LOG("%s: onnx_import() = %d (%s), expected status %s: %s",
			       name, ret, ret > INT_MIN + 1 ? strerror(-ret) : "-",
			       statuses, err);
		if (ret > INT_MIN + 1 && ret) {
			EXPECT_NE('\0', err[0]) TH_LOG("%s: no message", name);
			EXPECT_EQ(NULL, strchr(err, '\n')) TH_LOG("%s: %s", name, err);
			EXPECT_TRUE(has_word(err, words))
				TH_LOG("%s: message lacks %s: %s", name, words, err);
		}
		printf("# %-28s %s\n", name, ret ? err : "ok");
		free(buf);

		s1 = cli("--check", path, NULL, err, sizeof(err));
		EXPECT_TRUE(status_ok(s1, statuses))
			TH_LOG("%s: npu-onnx --check: status %d, expected %s: %s",
			       name, s1, statuses, err);
		EXPECT_EQ(s1 ? 1 : 0, lines(err))
			TH_LOG("%s: npu-onnx --check: stderr: %s", name, err);
		if (s1) {
			EXPECT_TRUE(has_word(err, words))
				TH_LOG("%s: message lacks %s: %s", name, words, err);
		}
		snprintf(out, sizeof(out), "%s/%s.nmdl", dir, name);
		unlink(out);
		s2 = cli("-o", out, path, err, sizeof(err));
		EXPECT_EQ(s1, s2) TH_LOG("%s: npu-onnx -o: status %d: %s", name,
					 s2, err);
		EXPECT_EQ(s2 ? 1 : 0, lines(err))
			TH_LOG("%s: npu-onnx -o: stderr: %s", name, err);
		if (s2) {
			EXPECT_NE(0, stat(out, &st))
				TH_LOG("%s: %s left after a failure", name, out);
		}
		unlink(out);
	}
	fclose(f);
	EXPECT_LT(20u, n) TH_LOG("only %u cases in expect.txt", n);
}

/* cut @buf at lengths spread over it; onnx_import() must survive each */
static unsigned int cuts(struct __test_metadata *_metadata, const char *what,
			 const uint8_t *buf, size_t len)
{
	static const unsigned int parts = 13;
	unsigned int i, n = 0;

	for (i = 0; i < parts; i++) {
		size_t cut = len * i / parts + (i & 1);
		uint8_t *copy = malloc(cut ? cut : 1), *file = NULL;
		Onnx__ModelProto *m;
		char err[512];
		size_t size;
		int ret;

		ASSERT_NE(NULL, copy);
		memcpy(copy, buf, cut);
		/* exactly the bytes: ASan sees any read beyond them */
		ret = onnx_import(copy, cut, NULL, &file, &size, err, sizeof(err));
		m = onnx__model_proto__unpack(NULL, cut, copy);
		if (!m) {
			EXPECT_EQ(-EINVAL, ret)
				TH_LOG("%s cut at %zu: %d (%s)", what, cut, ret, err);
		} else {
			onnx__model_proto__free_unpacked(m, NULL);
		}
		EXPECT_TRUE(ret == 0 || ret == -EINVAL || ret == -EOPNOTSUPP ||
			    ret == -E2BIG)
			TH_LOG("%s cut at %zu: %d (%s)", what, cut, ret, err);
		free(file);
		free(copy);
		n++;
	}
	return n;
}

TEST_F_TIMEOUT(hostile, truncated_vectors, 300)
{
	const char *data = getenv("NPU_ONNX_DATA");
	static const char *const nets[] = { "mnist-qop", "mnist-qdq" };
	char path[4096];
	unsigned int n = 0, i;
	FILE *ls;

	if (!data || !*data)
		data = "/usr/share/libonnx-testdata/data/node";
	snprintf(path, sizeof(path), "ls -d %s/*/model.onnx 2>/dev/null", data);
	ls = popen(path, "r");
	ASSERT_NE(NULL, ls);
	while (fgets(path, sizeof(path), ls)) {
		uint8_t *buf;
		size_t len;

		path[strcspn(path, "\n")] = '\0';
		if (ov_slurp(path, &buf, &len))
			continue;
		n += cuts(_metadata, path, buf, len);
		free(buf);
	}
	pclose(ls);
	for (i = 0; i < 2; i++) {
		uint8_t *buf;
		size_t len;

		snprintf(path, sizeof(path), "%s/onnx/hostile/%s.onnx",
			 build_dir(), nets[i]);
		ASSERT_EQ(0, ov_slurp(path, &buf, &len))
			TH_LOG("%s missing (made by run-hostile.sh: see above)",
			       path);
		n += cuts(_metadata, path, buf, len);
		free(buf);
	}
	printf("# %u truncated files imported without a crash\n", n);
	EXPECT_LT(0u, n);
}

TEST_HARNESS_MAIN
