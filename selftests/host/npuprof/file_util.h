/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * file_util.h - what the host tests that read and damage trace files
 * share (test_tracefile.c, test_damage.c, test_chrome.c): a file read
 * whole, written anew, written with some bytes flipped; the chunks of a
 * sound trace file, found here apart from the reader; a test's directory
 * emptied and removed; and for the span tests (test_span_*.c,
 * test_session.c, test_env.c), a file name of the test's own under /tmp,
 * a CLOCK_MONOTONIC read and spans made back to back.
 * Header-only, no state.
 */
#ifndef FILE_UTIL_H
#define FILE_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace_format.h"

/* The whole of @path in a malloc'ed buffer, NUL-terminated; NULL on error */
static inline uint8_t *file_slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (buf && read(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	if (buf)
		buf[st.st_size] = 0;
	*len = (size_t)st.st_size;
	return buf;
}

/*
 * @len bytes of @buf as the new file @path (unlinked first rather than
 * truncated: ext4 writes a file truncated to 0 out at close, which would
 * make the tests' loops over every byte slow). Return: 0 or -errno.
 */
static inline int file_write(const char *path, const void *buf, size_t len)
{
	ssize_t n;
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/*
 * @buf written to @path with its bytes at @at (@n of them) xor'ed with
 * @x; @buf is as it was on return. Return: file_write()'s.
 */
static inline int file_flip_write(const char *path, uint8_t *buf, size_t len,
				  const size_t *at, size_t n, uint8_t x)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++)
		buf[at[i]] ^= x;
	ret = file_write(path, buf, len);
	for (i = 0; i < n; i++)
		buf[at[i]] ^= x;
	return ret;
}

#define FILE_MAX_CHUNKS		512

/* The chunks of a sound trace file: chunk k is [start[k], end[k]) */
struct file_chunks {
	size_t n;
	size_t start[FILE_MAX_CHUNKS];	/* file offset of its header */
	size_t end[FILE_MAX_CHUNKS];	/* offset past its payload */
	uint32_t items[FILE_MAX_CHUNKS];
};

/* Walk the chunk headers of @buf from the file header on, by their sizes */
static inline void file_chunks_of(const uint8_t *buf, size_t len,
				  struct file_chunks *c)
{
	size_t off = sizeof(struct npf_file_hdr);
	struct npf_chunk_hdr ch;

	c->n = 0;
	while (off + sizeof(ch) <= len && c->n < FILE_MAX_CHUNKS) {
		memcpy(&ch, buf + off, sizeof(ch));
		if (!ch.hdr_size)
			break;		/* not a sound file: no progress */
		c->start[c->n] = off;
		c->end[c->n] = off + ch.hdr_size + ch.size;
		c->items[c->n] = ch.items;
		c->n++;
		off += ch.hdr_size + ch.size;
	}
}

/* Remove the files of a test's directory @dir (no subdirectories), then it */
static inline void file_rmdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/*
 * "/tmp/npuprof-@test-<pid>-@name", malloc'ed (the caller frees it): a
 * file of this process's test alone. Aborts when out of memory.
 */
static inline char *file_tmp(const char *test, const char *name)
{
	char *p;

	if (asprintf(&p, "/tmp/npuprof-%s-%d-%s", test, (int)getpid(),
		     name) < 0)
		abort();
	return p;
}

/* CLOCK_MONOTONIC now, in ns: the clock a span's time is compared with */
static inline uint64_t file_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* @n spans of a program's own, one after the other, on the calling thread */
static inline void file_user_spans(uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		struct npuprof_span sp;

		npuprof_span_begin(&sp, NPUPROF_SPAN_USER, NULL);
		npuprof_span_end(&sp);
	}
}

#endif /* FILE_UTIL_H */
