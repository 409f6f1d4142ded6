#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# deps.sh - install everything needed to build and test the project
#
# Usage: scripts/deps.sh [--no-install]
#
# Installs, with apt-get and only when missing, every Debian 12 package the
# project needs (compilers, kernel images and headers for the 6.1 and 6.12
# series, QEMU, busybox, libraries), then extracts the few files the build
# uses from Debian's linux-source-6.1 tarball into build/linux-src/:
# the kselftest harness headers, checkpatch.pl with its data files,
# extract-vmlinux, and kernel-doc (which makes the man pages of the
# libraries' functions from their headers). Safe to run again: it does
# nothing when all is in place. It does not build the debug kernel (an
# hour or more on a 2-core machine): scripts/debug-kernel.sh does, and
# flex, bison and bc are here for it.
#
# Must run as root when a package is missing. --no-install only checks the
# packages (exit 1 if one is missing) and still extracts the sources.
# BUILD overrides the build directory (default: <repo>/build).

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SRC_TARBALL=${SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
INSTALL=1

for arg in "$@"; do
	case "$arg" in
	--no-install) INSTALL=0 ;;
	-h|--help) sed -n '4,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "deps.sh: unknown argument: $arg" >&2; exit 2 ;;
	esac
done

PACKAGES=(
	build-essential kmod cpio xz-utils busybox-static qemu-system-x86
	linux-source-6.1
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	libbpf-dev liburing-dev libnl-3-dev libnl-genl-3-dev
	protobuf-c-compiler libprotobuf-c-dev
	libonnx-testdata libonnx-dev
	dwarves clang llvm libelf-dev zlib1g-dev bpftool
	libclang-rt-14-dev
	libsqlite3-dev sqlite3 python3-pandas
	python3-dev python3-numpy python3-pytest python3-onnx
	python3-nbclient python3-nbformat python3-ipykernel python3-matplotlib
	systemtap-sdt-dev bpftrace linux-perf trace-cmd
	liblttng-ust-dev lttng-tools
	chromium nodejs
	dkms man-db pkg-config
	flex bison bc
)

log() { printf 'deps.sh: %s\n' "$*" >&2; }

installed() {
	[[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == installed ]]
}

missing=()
for p in "${PACKAGES[@]}"; do
	installed "$p" || missing+=("$p")
done

if [[ ${#missing[@]} -gt 0 ]]; then
	if [[ $INSTALL -eq 0 ]]; then
		log "missing packages: ${missing[*]}"
		exit 1
	fi
	if [[ $(id -u) -ne 0 ]]; then
		log "missing packages: ${missing[*]}; run me as root to install them"
		exit 1
	fi
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt_opts=(-y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
	# Try without an update first: the package lists may be fresh enough.
	if ! apt-get install "${apt_opts[@]}" --no-install-recommends "${missing[@]}" </dev/null; then
		log "apt-get install failed; running apt-get update once and retrying"
		apt-get update -q </dev/null
		apt-get install "${apt_opts[@]}" --no-install-recommends "${missing[@]}" </dev/null
	fi
else
	log "all ${#PACKAGES[@]} packages are installed"
fi

# Files taken from the kernel source, relative to its top directory.
SRC_FILES=(
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest.h
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
	scripts/extract-vmlinux
	scripts/kernel-doc
)
DEST=$BUILD/linux-src

need=()
for f in "${SRC_FILES[@]}"; do
	[[ -s "$DEST/$f" ]] || need+=("$f")
done
if [[ ${#need[@]} -eq 0 ]]; then
	log "kernel source files are in $DEST"
	exit 0
fi
if [[ ! -f "$SRC_TARBALL" ]]; then
	log "$SRC_TARBALL not found (package linux-source-6.1)"
	exit 1
fi

log "extracting ${#need[@]} files from $SRC_TARBALL into $DEST"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/npu-deps.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The tarball holds one top directory (linux-source-6.1/); match any.
patterns=()
for f in "${need[@]}"; do
	patterns+=("*/$f")
done
tar -xJf "$SRC_TARBALL" -C "$tmp" --wildcards --no-same-owner "${patterns[@]}"
mkdir -p "$DEST"
for f in "${need[@]}"; do
	src=$(find "$tmp" -path "*/$f" -type f | head -n 1)
	if [[ -z "$src" ]]; then
		log "$f is not in $SRC_TARBALL"
		exit 1
	fi
	mkdir -p "$DEST/$(dirname "$f")"
	cp "$src" "$DEST/$f"
done
chmod +x "$DEST/scripts/checkpatch.pl" "$DEST/scripts/extract-vmlinux" \
	"$DEST/scripts/kernel-doc"
log "done"
