#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# gen-man.sh - write the man pages of the commands and of the libraries
#
# Usage: gen-man.sh OUTDIR BINDIR VERSION DATE TOOL...
#
# Writes OUTDIR/man1/TOOL.1 from "BINDIR/TOOL --help" for each TOOL, and
# for npuprof also OUTDIR/man1/npuprof-COMMAND.1 from "npuprof help
# COMMAND" for each command its --help lists under COMMANDS (but help),
# with packaging/help2troff; then OUTDIR/man3/NAME.3 for every function,
# struct, enum and typedef documented in lib/npu/libnpu.h,
# lib/npuprof/npuprof.h and lib/analysis/npuprof_analysis.h, from the kernel's scripts/kernel-doc -man (in
# $KERNEL_DOC, default BUILD/linux-src/scripts/kernel-doc, extracted by
# scripts/deps.sh) with packaging/kdoc2man. So the pages are made from the
# --help texts and the headers' kernel-doc, and never disagree with them.
# Everything is written to OUTDIR.tmp first and replaces OUTDIR at the end.
# Exits 1 if a command's help or a page fails.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
[[ $# -ge 4 ]] || { sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
out=$1 bindir=$2 version=$3 date=$4
shift 4
KERNEL_DOC=${KERNEL_DOC:-$(dirname "$bindir")/linux-src/scripts/kernel-doc}

tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp/man1" "$tmp/man3"
trap 'rm -rf "$tmp"' EXIT

man1() {	# NAME COMMAND-WORDS ARGV...
	local name=$1 words=$2 help
	shift 2
	help=$("$@") || { echo "gen-man.sh: \"$*\" failed" >&2; return 1; }
	printf '%s\n' "$help" | "$HERE/help2troff" --name "$name" \
		--command "$words" --section 1 --date "$date" \
		--source "npu $version" --manual "NPU Manual" \
		>"$tmp/man1/$name.1"
}

for tool in "$@"; do
	man1 "$tool" "$tool" "$bindir/$tool" --help
	[[ $tool == npuprof ]] || continue
	# the commands of "npuprof --help": "    NAME   text" under COMMANDS
	cmds=$("$bindir/npuprof" --help | awk '
		/^[A-Z]/ { in_cmds = ($0 == "COMMANDS"); next }
		in_cmds && /^    [a-z][a-z-]*   */ && $1 != "help" { print $1 }')
	[[ -n $cmds ]] || { echo "gen-man.sh: npuprof --help lists no COMMANDS" >&2; exit 1; }
	for c in $cmds; do
		man1 "npuprof-$c" "npuprof $c" "$bindir/npuprof" help "$c"
	done
done

for lib in "libnpu lib/npu/libnpu.h NPU runtime library" \
	   "libnpuprof lib/npuprof/npuprof.h NPU profiler capture library" \
	   "libnpuprof-analysis lib/analysis/npuprof_analysis.h NPU profiler analysis library"; do
	read -r name header what <<<"$lib"
	perl "$KERNEL_DOC" -man "$TOP/$header" |
		"$HERE/kdoc2man" --outdir "$tmp/man3" --include "${header##*/}" \
			--library "$what ($name, -l${name#lib}; pkg-config $name)" \
			--source "$name $version" --manual "NPU Library Functions" \
			--date "$date" >/dev/null
done

rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "gen-man.sh: $(ls "$out/man1" | wc -l) command pages, $(ls "$out/man3" | wc -l) library pages in $out"
