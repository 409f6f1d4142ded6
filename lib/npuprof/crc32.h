/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * crc32.h - the CRC-32 of every trace file chunk (crc32.c).
 */
#ifndef NPF_CRC32_H
#define NPF_CRC32_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * CRC-32 of zlib (polynomial 0xedb88320), @crc 0 to start, by the
 * implementation npf_crc32_select() chose (it chooses on the first call).
 */
uint32_t npf_crc32(uint32_t crc, const void *data, size_t len);

/* Implementations of npf_crc32(): 0 is slicing-by-8, on every CPU */
#define NPF_CRC32_IMPLS		3
/* Bytes each implementation is timed on by npf_crc32_select() */
#define NPF_CRC32_PROBE		(64u * 1024)

/* Name of implementation @i; NULL when this build or CPU lacks it */
const char *npf_crc32_impl(unsigned int i);

/* npf_crc32() by implementation @i (0 when @i is not available) */
uint32_t npf_crc32_with(unsigned int i, uint32_t crc, const void *data,
			size_t len);

/*
 * npf_crc32_select() - time each implementation once on NPF_CRC32_PROBE
 * bytes and keep the fastest for npf_crc32(); later calls return the
 * choice. Return: the index of the implementation chosen.
 */
unsigned int npf_crc32_select(void);

/* -- writer: single-threaded; the session serializes its calls -- */

#endif /* NPF_CRC32_H */
