/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * compiler.h - what every file of the capture and analysis libraries may
 * use: the export marker (everything else is hidden by -fvisibility=hidden
 * and the version scripts), branch hints and 8-byte alignment.
 */
#ifndef NPF_COMPILER_H
#define NPF_COMPILER_H


#define NPUPROF_EXPORT __attribute__((visibility("default")))

#define npf_likely(x)	__builtin_expect(!!(x), 1)
#define npf_unlikely(x)	__builtin_expect(!!(x), 0)

#define NPF_ALIGN8(x)	(((x) + 7u) & ~(size_t)7u)

#endif /* NPF_COMPILER_H */
