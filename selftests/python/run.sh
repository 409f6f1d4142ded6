#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# python-npuprof - the tests of the Python package npuprof as kselftest TAP
#
# Runs Debian's pytest with /usr/bin/python3 (the python3 on PATH may be a
# pyenv interpreter without Debian's numpy and pandas) on the tests in
# @SRC@, with PYTHONPATH=$NPU_BUILD/python, and prints one TAP point per
# pytest test (from pytest's JUnit XML) and the "# Totals:" line that
# scripts/totals.sh adds up. pytest's own output follows as "#" lines.
# Skips (exit 4) when pytest, numpy or pandas are missing (scripts/deps.sh
# installs them). Environment: NPU_BUILD (or BUILD; default: the build
# directory this script is installed in), PYTEST_ADDOPTS.
set -u
SRC=@SRC@
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${NPU_BUILD:-${BUILD:-$here}}
PY=/usr/bin/python3

if ! "$PY" -c 'import pytest, numpy, pandas' 2>/dev/null; then
	echo "TAP version 13"
	echo "1..0 # SKIP $PY lacks pytest, numpy or pandas (scripts/deps.sh)"
	echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0"
	exit 4
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/python-npuprof.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

PYTHONPATH=$BUILD/python NPU_BUILD=$BUILD PYTHONDONTWRITEBYTECODE=1 \
	"$PY" -m pytest -q -p no:cacheprovider -rfE \
	--basetemp="$tmp/pytest" --junitxml="$tmp/junit.xml" \
	-o junit_family=xunit1 "$SRC" >"$tmp/out" 2>&1
st=$?

"$PY" "$SRC/junit_tap.py" "$tmp/junit.xml" "$st" "$tmp/out"
