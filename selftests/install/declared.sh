#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# declared.sh - does a shared library export every function its header
# declares?
#
# Usage: declared.sh HEADER LIBRARY [CFLAGS...]
#        declared.sh --list HEADER [CFLAGS...]
#
# Finds the functions HEADER itself declares (not those of the headers it
# includes) as the compiler sees them: gcc compiles a file that includes
# HEADER with -aux-info, which writes one line per function declaration of
# the translation unit, with its file and line, however the source spells
# it (over several lines, several in one declaration, through a typedef of
# a function type, behind attribute macros). Static functions (static
# inline ones) are left out: a caller compiles them in. Typedefs of
# function pointers, struct members, macros and variables declare no
# function. CFLAGS go to that compilation (the -I that HEADER's own
# includes need).
#
# Then compares those names with the functions LIBRARY defines in its
# dynamic symbol table (nm -D --defined-only: T, W or i). Prints each
# declared function that LIBRARY does not export, one a line, and a count.
# With --list, prints the declared functions instead, sorted.
#
# Exit status: 0 when every declared function is exported; 1 when one is
# not, when HEADER or LIBRARY does not exist, when HEADER does not compile
# or declares no function at all (a wrong header, or a method that stopped
# seeing them: never a pass); 2 on a usage error.

set -uo pipefail

usage() {
	sed -n '7,8p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}

list=0
if [[ ${1:-} == --list ]]; then
	list=1
	shift
fi
(($# >= 2 - list)) || usage
hdr=$1
lib=
shift
if ((!list)); then
	lib=$1
	shift
fi

if [[ ! -f $hdr ]]; then
	echo "$hdr: no such header (not installed?)"
	exit 1
fi
if [[ -n $lib && ! -e $lib ]]; then
	echo "$lib: no such library (not installed?)"
	exit 1
fi
# -aux-info names the header by the path it was included by
hdr=$(realpath "$hdr")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/declared.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

printf '#include "%s"\n' "$hdr" >"$tmp/decl.c"
if ! gcc -std=gnu11 -fsyntax-only -aux-info "$tmp/aux" "$@" "$tmp/decl.c" \
	2>"$tmp/cc.err"; then
	echo "${hdr##*/} does not compile with: gcc -std=gnu11 $*"
	cat "$tmp/cc.err"
	exit 1
fi

# A line of -aux-info:  /* FILE:LINE:NC */ extern int npu_nl_open (...);
# (NC: a prototype declaration; NF: a definition, followed by a comment).
# The name is the first identifier followed by "(" that does not open a
# declarator ("void (*f (int)) (int)" declares f), or the last one of a
# declaration through a function typedef ("extern fn_t f;").
awk -v f="$hdr" '
	index($0, "/* " f ":") != 1 { next }
	{
		d = substr($0, length(f) + 5)
		sub(/^[0-9]+:[A-Z]+ \*\/ /, "", d)
		sub(/ \/\*.*\*\/$/, "", d)
		if (d ~ /^static /)
			next
		if (match(d, /[A-Za-z_][A-Za-z0-9_]* ?\([^*]/)) {
			name = substr(d, RSTART, RLENGTH)
			sub(/ ?\(.*/, "", name)
		} else if (match(d, /[A-Za-z_][A-Za-z0-9_]*;$/)) {
			name = substr(d, RSTART, RLENGTH - 1)
		} else {
			print "cannot read the declaration: " $0 >"/dev/stderr"
			bad = 1
			next
		}
		print name
	}
	END { exit bad }' "$tmp/aux" >"$tmp/names" || exit 1
sort -u "$tmp/names" >"$tmp/declared"
n=$(wc -l <"$tmp/declared")
if ((n == 0)); then
	echo "${hdr##*/} declares no function that gcc -aux-info shows"
	exit 1
fi
if ((list)); then
	cat "$tmp/declared"
	exit 0
fi

if ! nm -D --defined-only "$lib" >"$tmp/nm" 2>"$tmp/nm.err"; then
	echo "nm -D $lib failed:"
	cat "$tmp/nm.err"
	exit 1
fi
awk '$2 ~ /^[TWi]$/ { sub(/@.*/, "", $3); print $3 }' "$tmp/nm" |
	sort -u >"$tmp/exported"
comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
m=$(wc -l <"$tmp/missing")
if ((m)); then
	sed "s/\$/: declared in ${hdr##*/}, not exported by ${lib##*/}/" "$tmp/missing"
	echo "$m of the $n functions declared in ${hdr##*/} are not exported by ${lib##*/}"
	exit 1
fi
echo "the $n functions declared in ${hdr##*/} are exported by ${lib##*/}"
