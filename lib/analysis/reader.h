/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * reader.h - the trace file's low-level streaming reader (tracefile_read.c):
 * items of sound chunks, in file order.
 */
#ifndef NPF_READER_H
#define NPF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "trace_format.h"

struct npf_reader;
struct npuprof_damage;

/*
 * npf_reader_open() - open @path and check its header. On error, @err
 * receives "PATH: offset N: what was wrong".
 * Return: 0; -errno of open(); -ENOEXEC bad magic (not a trace file);
 * -EPROTONOSUPPORT unknown version or other byte order; -EBADMSG a
 * corrupt or short header; -ENOMEM.
 */
int npf_reader_open(const char *path, struct npf_reader **r, char *err,
		    size_t errlen);

/*
 * npf_reader_next() - the next item, in file order. Items of known types
 * are validated (sizes, NUL-terminated strings, a RECORD's inner size)
 * before they are returned; unknown types are returned as they are.
 * *@item stays valid until the next call; *@offset is its file offset.
 * A chunk that fails a check of its header, its header's CRC or its
 * payload's CRC is skipped, with the rest of the damaged stretch, up to
 * the next sound chunk: npf_reader_damage() counts it.
 * Return: 1; 0 at the end (complete, or truncated: see
 * npf_reader_truncated()); -EBADMSG on a corrupt item in a chunk whose
 * CRC matched, or data after the END item, with the message in
 * npf_reader_error(); -errno of read(). After an error, every later call
 * returns the same error.
 */
int npf_reader_next(struct npf_reader *r, const struct npf_item **item,
		    uint64_t *offset);

const char *npf_reader_error(const struct npf_reader *r);
/* 1 when the file ended before its END item */
int npf_reader_truncated(const struct npf_reader *r);
/* back to the first item */
int npf_reader_rewind(struct npf_reader *r);

/*
 * npf_reader_index() - where the file's index starts (END's index_off and
 * index_seq), from its last chunk alone: END by itself, with a good CRC.
 * Reads nothing else and leaves the reader where it was. Return: 0, or
 * -ENOENT (no index: an older or cut file, or a last chunk that is not
 * such an END), or -errno of fstat() or pread().
 */
int npf_reader_index(struct npf_reader *r, uint64_t *off, uint64_t *seq);

/*
 * npf_reader_seek() - read on from the chunk at @off, which must have seq
 * @seq (npf_reader_index()); chunks and items are checked as ever, but
 * the items before @off being unknown, END's count of them is not, until
 * the next npf_reader_rewind(). Return: 0, -EINVAL (@off not 8-aligned
 * or inside the file header).
 */
int npf_reader_seek(struct npf_reader *r, uint64_t off, uint64_t seq);
const struct npf_file_hdr *npf_reader_hdr(const struct npf_reader *r);

/*
 * npf_reader_damage() - the damaged stretches skipped so far, each counted
 * once over every pass from the start (a seek's pass counts none), into
 * *@d (NULL: not wanted), and what was wrong at the first one (*@why, ""
 * when none). Return: the number of stretches.
 */
uint64_t npf_reader_damage(const struct npf_reader *r,
			   struct npuprof_damage *d, const char **why);
/* 1 when this pass (since the last rewind or seek) skipped a stretch */
int npf_reader_skipped(const struct npf_reader *r);
void npf_reader_close(struct npf_reader *r);

#endif /* NPF_READER_H */
