/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * writer.h - the trace file's chunked writer (tracefile_write.c).
 */
#ifndef NPF_WRITER_H
#define NPF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace_format.h"

struct npf_writer;

/*
 * npf_writer_open() - create @path (O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
 * and write the file header. @chunk_max 0 means NPF_CHUNK_DEFAULT.
 * Return: 0 or -errno; -EINVAL for a chunk size out of range.
 */
int npf_writer_open(const char *path, uint32_t chunk_max,
		    struct npf_writer **w);

/*
 * npf_writer_add() - append an item of @type whose body is @a (@alen
 * bytes) followed by @b (@blen bytes, may be 0), padded to 8 bytes. Starts
 * a new chunk (writing the current one) when the item does not fit.
 * Return: 0; -EMSGSIZE when the item cannot fit in any chunk; -errno of
 * write(); once a write failed every later call fails with its error.
 */
int npf_writer_add(struct npf_writer *w, uint16_t type, const void *a,
		   size_t alen, const void *b, size_t blen);

/*
 * npf_writer_add_items() - write @n items already laid out as in a chunk
 * payload (struct npf_item headers, sizes multiples of 8; @len bytes, at
 * most the chunk size) as one chunk of their own, straight from @items
 * with writev(): the current chunk is written first, so items stay in
 * order. Return: 0, -EMSGSIZE, or as npf_writer_add().
 */
int npf_writer_add_items(struct npf_writer *w, const void *items,
			 uint32_t len, uint32_t n);

/* npf_writer_flush() - write the current chunk if it holds any item */
int npf_writer_flush(struct npf_writer *w);

/*
 * npf_writer_index() - the items added from now on are the file's index:
 * the current chunk is written, the next one's offset and seq go into the
 * END item, which then gets a chunk of its own. Called once, just before
 * the CLOCKS items that end a file. Return: 0, or the sticky error.
 */
int npf_writer_index(struct npf_writer *w);

/*
 * npf_writer_add_clocks() - CLOCKS items for the @n samples @s of device
 * @dev of nominal frequency @clock_hz (0: unknown): as many items as the
 * chunk size needs, one when @n is 0. Return: as npf_writer_add().
 */
int npf_writer_add_clocks(struct npf_writer *w, uint32_t dev,
			  uint64_t clock_hz,
			  const struct npf_clock_sample *s, size_t n);

/*
 * npf_writer_close() - append the END item, flush, close the fd and free
 * @w (also on error). Return: 0 or the first error.
 */
int npf_writer_close(struct npf_writer *w);

/* npf_writer_abort() - close without the END item, as a killed writer */
void npf_writer_abort(struct npf_writer *w);

/* Bytes written to the file so far (header and complete chunks) */
uint64_t npf_writer_bytes(const struct npf_writer *w);
uint64_t npf_writer_chunks(const struct npf_writer *w);

/* -- reader: streams a file one chunk at a time -- */

#endif /* NPF_WRITER_H */
