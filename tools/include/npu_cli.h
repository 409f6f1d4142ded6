/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * npu_cli.h - what every command line tool of the project does the same
 * way: strict number parsing and usage errors (a one-line message naming
 * the problem, a pointer to --help, exit status 2). Header-only.
 */
#ifndef NPU_CLI_H
#define NPU_CLI_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/**
 * npu_cli_parse_u64() - parse an unsigned number within [@min, @max]
 * @s: the text: decimal or 0x-prefixed hex, nothing else (no sign, no
 *	blanks, no trailing characters)
 * @min: smallest accepted value
 * @max: largest accepted value
 * @v: out: the value; unchanged on error
 *
 * Return: 0; -ERANGE when the number is outside [@min, @max] or 64 bits;
 * -EINVAL when @s is not a number.
 */
static inline int npu_cli_parse_u64(const char *s, uint64_t min, uint64_t max,
				    uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ' || *s == '\t')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || x < min || x > max)
		return -ERANGE;
	if (errno)
		return -EINVAL;
	*v = x;
	return 0;
}

/**
 * npu_cli_usage_error() - report a usage error on stderr
 * @prog: the program's name
 * @fmt: printf format of the message, without a trailing newline
 *
 * Prints "PROG: MESSAGE" and "Try 'PROG --help' for more information."
 *
 * Return: 2, the exit status of a usage error.
 */
__attribute__((format(printf, 2, 3)))
static inline int npu_cli_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	return 2;
}

#endif /* NPU_CLI_H */
