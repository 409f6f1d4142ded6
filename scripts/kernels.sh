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
# Exits 1 (with a message on stderr) if something cannot be resolved.
#
# BOOT_DIR and MODULES_DIR override /boot and /lib/modules (for tests).

set -euo pipefail

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

resolve() {
	local want=$1 v best=
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
		sed -n '4,16p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	esac
	resolve "$arg" || rc=1
done
exit $rc
