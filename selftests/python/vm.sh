#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# python-npu - the Python device tests in the npu-vm guest, as kselftest TAP
#
# Installed as $(BUILD)/vmtests/python-npu and python-npu-stall, run in the
# guest by scripts/check.sh with the npu-vm options of T.npu-vm (written
# by selftests/python/Makefile): the host's python3 (--file), its standard
# library, /usr/lib/python3 (pytest, numpy, pandas) and library directory
# (@HOSTLIB@, on LD_LIBRARY_PATH), build/python and this directory
# (--share, at their host paths); python-npu-stall's also has --stall-pe 1.
# python-npu runs pytest over test_npu_device.py, test_seed_example.py
# (the FuriosaAI example of the seed), test_profile_op.py and
# test_onnx_profile.py (npuprof record around npu-onnx's MobileNet);
# python-npu-stall over test_npu_stall.py, and fails without
# NPU_EMU_STALL_PE. With PYTHONPATH=$NPU_BUILD/python; prints one TAP
# point per test (with junit_tap.py, as run.sh does on the host) and the
# "# Totals:" line.
# Without a python, pytest, numpy or pandas in the guest it fails with
# one "not ok" naming what is missing: it never skips.
# Environment: NPU_BUILD (or BUILD; default: the build directory this
# script is installed in), PYTEST_ADDOPTS.
# POSIX sh: runs in the guest (busybox).
set -u
SRC=@SRC@
PY=@PYTHON@
HOSTLIB=@HOSTLIB@
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${NPU_BUILD:-${BUILD:-$here}}
NAME=$(basename "$0")

fail() {
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 $NAME: $1"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	exit 1
}

# NumPy's libblas.so.3 and liblapack.so.3 are links through
# /etc/alternatives, which the guest lacks: their directories as well
LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$HOSTLIB:$HOSTLIB/blas:$HOSTLIB/lapack
export LD_LIBRARY_PATH

[ -x "$PY" ] || fail "no $PY in the guest (npu-vm --file $PY: see $SRC/Makefile)"
[ -d "$SRC" ] || fail "no $SRC in the guest (npu-vm --share $SRC)"
[ -d "$BUILD/python/npu" ] ||
	fail "no $BUILD/python/npu in the guest (npu-vm --share $BUILD/python)"
err=$("$PY" -c 'import pytest, numpy, pandas' 2>&1) ||
	fail "$PY cannot import pytest, numpy and pandas: $(echo "$err" | tail -n 1)"
case $NAME in
*-stall)
	[ -n "${NPU_EMU_STALL_PE:-}" ] ||
		fail "NPU_EMU_STALL_PE not set (npu-vm --stall-pe N: see $0.npu-vm)"
	TESTS="$SRC/test_npu_stall.py" ;;
*)
	TESTS="$SRC/test_npu_device.py $SRC/test_seed_example.py $SRC/test_profile_op.py
		$SRC/test_onnx_profile.py" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/$NAME.XXXXXX") || fail "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# -rP: the output of the passed tests too (the seed example's tables)
PYTHONPATH=$BUILD/python NPU_BUILD=$BUILD PYTHONDONTWRITEBYTECODE=1 \
	"$PY" -m pytest -q -p no:cacheprovider -rfEsP \
	--basetemp="$tmp/pytest" --junitxml="$tmp/junit.xml" \
	-o junit_family=xunit1 --rootdir="$SRC" \
	$TESTS >"$tmp/out" 2>&1
st=$?

"$PY" "$SRC/junit_tap.py" "$tmp/junit.xml" "$st" "$tmp/out"
