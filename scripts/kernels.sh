#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernels.sh - print the installed kernel versions the project is tested on
#
# Usage: scripts/kernels.sh [SERIES|VERSION]...
#
# Without arguments, prints one line per supported series (6.1, then 6.12):
# the newest installed version of that series that has both
# /boot/vmlinuz-VERSION and /lib/modules/VERSION/build.
# With arguments, resolves each one: a series ("6.1", "6.12") to its newest
# usable version, a full version (e.g. "6.1.0-56-amd64") to itself if usable.
# "debug" resolves to the release of the debug kernel built by
# scripts/debug-kernel.sh (e.g. 6.1.192-npudebug), only when its cache
# entry exists; it lives in that entry, not in /boot and /lib/modules.
# Exits 1 (with a message on stderr) if something cannot be resolved.
#
#   --debug          print the debug kernel's release if it is built,
#                    nothing otherwise (exit 0 either way)
#   --root VERSION   print the directory that holds VERSION's boot/ and
#                    lib/modules/: the debug kernel's cache entry, or an
#                    empty line for an installed kernel (/boot, /lib/modules)
#
# BOOT_DIR and MODULES_DIR override /boot and /lib/modules (for tests).

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BOOT_DIR=${BOOT_DIR:-/boot}
MODULES_DIR=${MODULES_DIR:-/lib/modules}
DEFAULT_SERIES=(6.1 6.12)

usable() {
	[[ -f "$BOOT_DIR/vmlinuz-$1" && -d "$MODULES_DIR/$1/build" ]]
}

# All usable versions, oldest first.
all_versions() {
	local f v
	for f in "$BOOT_DIR"/vmlinuz-*; do
		[[ -e "$f" ]] || continue
		v=${f##*/vmlinuz-}
		usable "$v" && printf '%s\n' "$v"
	done | sort -V
}

# The debug kernel's cache entry and release, if it is built.
DEBUG_DIR=
DEBUG_REL=
debug_kernel() {
	[[ -n "$DEBUG_DIR" ]] && return 0
	DEBUG_DIR=$("$HERE/debug-kernel.sh" --dir 2>/dev/null) || return 1
	DEBUG_REL=$(cat "$DEBUG_DIR/release") || return 1
	[[ -f "$DEBUG_DIR/boot/vmlinuz-$DEBUG_REL" && -d "$DEBUG_DIR/lib/modules/$DEBUG_REL/build" ]]
}

resolve() {
	local want=$1 v best=
	if [[ "$want" == debug ]]; then
		if ! debug_kernel; then
			echo "kernels.sh: the debug kernel is not built (run scripts/debug-kernel.sh)" >&2
			return 1
		fi
		printf '%s\n' "$DEBUG_REL"
		return 0
	fi
	if debug_kernel && [[ "$want" == "$DEBUG_REL" ]]; then
		printf '%s\n' "$want"
		return 0
	fi
	if usable "$want"; then
		printf '%s\n' "$want"
		return 0
	fi
	if [[ ! "$want" =~ ^[0-9]+\.[0-9]+$ ]]; then
		echo "kernels.sh: kernel $want is not installed (need $BOOT_DIR/vmlinuz-$want and $MODULES_DIR/$want/build)" >&2
		return 1
	fi
	# "6.1" matches 6.1.0-56-amd64 and 6.1.99, never 6.12.x
	while read -r v; do
		[[ "$v" == "$want".* || "$v" == "$want"-* ]] && best=$v
	done < <(all_versions)
	if [[ -z "$best" ]]; then
		echo "kernels.sh: no $want.* kernel with both $BOOT_DIR/vmlinuz-* and $MODULES_DIR/*/build installed (run scripts/deps.sh)" >&2
		return 1
	fi
	printf '%s\n' "$best"
}

if [[ $# -eq 0 ]]; then
	set -- "${DEFAULT_SERIES[@]}"
fi
rc=0
for arg in "$@"; do
	case "$arg" in
	-h|--help)
		sed -n '4,25p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	--debug)
		debug_kernel && printf '%s\n' "$DEBUG_REL"
		exit 0
		;;
	--root)
		[[ $# -eq 2 ]] || { echo "kernels.sh: --root takes one VERSION" >&2; exit 2; }
		v=$(resolve "$2") || exit 1
		if debug_kernel && [[ "$v" == "$DEBUG_REL" ]]; then
			printf '%s\n' "$DEBUG_DIR"
		else
			echo
		fi
		exit 0
		;;
	esac
	resolve "$arg" || rc=1
done
exit $rc
