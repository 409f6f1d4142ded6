# SPDX-License-Identifier: GPL-2.0-only
"""junit_tap.py JUNIT_XML PYTEST_STATUS PYTEST_OUTPUT: pytest's JUnit XML
(-o junit_family=xunit1) as kselftest TAP, one point per test, with
pytest's output as "#" lines and the "# Totals:" line scripts/totals.sh
adds up; exits 1 if a test failed. Used by run.sh (the host) and vm.sh
(the npu-vm guest)."""
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
