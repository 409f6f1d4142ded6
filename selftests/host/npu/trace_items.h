/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trace_items.h - the items of a .npuprof trace file, read raw
 * (Documentation/npu/trace-file.rst) for libnpu's tests, which link the
 * capture library only: no analysis library, no checks beyond the chunk
 * magic (the files are the tests' own). Header-only, no state.
 */
#ifndef TRACE_ITEMS_H
#define TRACE_ITEMS_H

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "trace_format.h"

/* Receives each item: @type, its body and the body's bytes */
typedef void (*trace_item_fn)(void *ctx, uint16_t type, const void *body,
			      uint32_t len);

/* Pass every item of the file at @path to @fn; aborts on a bad file */
static inline void trace_items(const char *path, trace_item_fn fn, void *ctx)
{
	struct npf_file_hdr fh;
	struct npf_chunk_hdr ch;
	uint8_t *buf = NULL;
	int fd = open(path, O_RDONLY);
	uint32_t off;

	if (fd < 0 || read(fd, &fh, sizeof(fh)) != sizeof(fh) ||
	    lseek(fd, fh.hdr_size, SEEK_SET) < 0)
		abort();
	while (read(fd, &ch, sizeof(ch)) == sizeof(ch)) {
		buf = realloc(buf, ch.size);
		if (ch.magic != NPF_CHUNK_MAGIC || !buf ||
		    read(fd, buf, ch.size) != (ssize_t)ch.size)
			abort();
		for (off = 0; off + 8 <= ch.size;) {
			const struct npf_item *it = (const void *)(buf + off);

			if (it->size < 8 || it->size > ch.size - off)
				abort();
			fn(ctx, it->type, it + 1, it->size - 8);
			off += it->size;
		}
	}
	free(buf);
	close(fd);
}

#endif /* TRACE_ITEMS_H */
