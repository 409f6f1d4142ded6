#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# totals.sh - add up the kselftest results of test logs
#
# Usage: scripts/totals.sh LOG...   (or standard input)
#
# Reads logs written by tools/vm/run-suites (host and VM), where each suite's
# output is framed by "# suite-begin: NAME" and "# suite-end: NAME STATUS",
# and harness lines "# harness-end: NAME STATUS" written by scripts/check.sh.
# Adds up every "# Totals: pass:N fail:N xfail:N xpass:N skip:N error:N" line:
#   passed = pass + xfail + xpass      failed = fail + error
# and counts one more failure for each suite that
#   - printed no Totals line (crashed, timed out, or not a kselftest), or
#   - exited with a status other than 0 or 4 (KSFT_SKIP) although its Totals
#     showed no failure (e.g. a sanitizer report at exit), or
#   - began but never ended (the VM died under it),
# and for each harness run that ended with a status other than 0 or 1 (npu-vm
# could not boot, timed out, or the guest kernel logged a WARN/BUG/Oops),
# and for each "# failure: REASON" line (e.g. a failed build).
# Prints the failures, then as its very last line "N passed, N failed".
# Exits 1 if anything failed, else 0.

set -euo pipefail

awk '
function close_suite(why) {
	if (cur == "")
		return
	failed++
	problems[++np] = cur ": " why
	cur = ""
}
function flag(name, why) {
	failed++
	problems[++np] = name ": " why
}
{ sub(/\r$/, "") }
/^# suite-begin: / {
	close_suite("began but never ended (crash or VM failure)")
	cur = $3; stotals = 0; sfail = 0
	suites++
	next
}
/^# suite-end: / {
	name = $3; st = $4
	if (cur == "")
		next
	if (!stotals)
		flag(name, "no \"# Totals\" line (exit status " st ")")
	else if (st != 0 && st != 4 && sfail == 0)
		flag(name, "exit status " st " although no test failed")
	cur = ""
	next
}
/^# harness-end: / {
	name = $3; st = $4
	close_suite("began but never ended (harness " name " exited " st ")")
	if (st != 0 && st != 1)
		flag(name, "harness failure, exit status " st)
	next
}
/^# failure: / {
	sub(/^# failure: /, "")
	flag("failure", $0)
	next
}
/^# Totals: / {
	for (i = 3; i <= NF; i++) {
		split($i, kv, ":")
		v[kv[1]] = kv[2] + 0
	}
	p = v["pass"] + v["xfail"] + v["xpass"]
	f = v["fail"] + v["error"]
	passed += p; failed += f; skipped += v["skip"]
	stotals = 1; sfail += f
	if (f > 0 && cur != "")
		problems[++np] = cur ": " f " test(s) failed"
	delete v
	next
}
END {
	close_suite("began but never ended (log truncated)")
	if (np > 0) {
		print "Failures:"
		for (i = 1; i <= np; i++)
			print "  " problems[i]
	}
	printf "%d suites, %d tests skipped\n", suites, skipped
	printf "%d passed, %d failed\n", passed, failed
	exit failed > 0
}
' "$@"
