/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npuprof_run.h - running the tools from a VM test: the path of a model of
 * $NPU_BUILD/models, a command started with its output redirected, its
 * exit status as a shell reports it, a small file read whole. Shared by
 * the npuprof record tests (selftests/npuprof) and the eBPF probe tests
 * (selftests/bpf). Single-threaded.
 */
#ifndef NPUPROF_RUN_H
#define NPUPROF_RUN_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static inline int model_path(const char *name, char *buf, size_t len)
{
	const char *b = getenv("NPU_BUILD");

	if (!b)
		return -ENOENT;
	snprintf(buf, len, "%s/models/%s.nmdl", b, name);
	return access(buf, R_OK) ? -errno : 0;
}

/* Start @argv with stdout and stderr to @out and @err (NULL: inherit) */
static inline pid_t spawn(char *const argv[], const char *out, const char *err)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (out) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(200);
		close(fd);
	}
	if (err) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(200);
		close(fd);
	}
	execvp(argv[0], argv);
	_exit(201);
}

/* Exit status of @pid as a shell reports it, or -errno */
static inline int reap(pid_t pid)
{
	int st;

	if (pid < 0)
		return -errno;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static inline int run(char *const argv[], const char *out, const char *err)
{
	return reap(spawn(argv, out, err));
}

/* Whole small file into @buf, NUL-terminated; -errno */
static inline int slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

#endif /* NPUPROF_RUN_H */
