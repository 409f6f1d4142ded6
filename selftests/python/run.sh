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

"$PY" - "$tmp/junit.xml" "$st" "$tmp/out" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET

junit, status, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
points = []
try:
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = case.get("name")
        mod = (case.get("classname") or "").rsplit(".", 1)[-1]
        name = f"{mod}::{name}" if mod else name
        if case.find("failure") is not None or case.find("error") is not None:
            points.append(("not ok", name, ""))
        elif case.find("skipped") is not None:
            msg = case.find("skipped").get("message") or ""
            points.append(("ok", name, " # SKIP " + msg.replace("\n", " ")))
        else:
            points.append(("ok", name, ""))
except (OSError, ET.ParseError) as e:
    points.append(("not ok", f"pytest wrote no results ({e})", ""))
fails = sum(p[0] == "not ok" for p in points)
if (status != 0 or not points) and not fails:
    # pytest failed outside any test (collection, an internal error)
    points.append(("not ok", f"pytest exit status {status}", ""))
    fails = 1
print("TAP version 13")
print(f"1..{len(points)}")
with open(out, errors="replace") as f:
    for line in f:
        print("# " + line.rstrip("\n"))
skips = 0
for i, (res, name, extra) in enumerate(points, 1):
    skips += "# SKIP" in extra
    print(f"{res} {i} {name}{extra}")
passed = len(points) - fails - skips
print(f"# Totals: pass:{passed} fail:{fails} xfail:0 xpass:0 skip:{skips} error:0")
sys.exit(1 if fails else 0)
PYEOF
