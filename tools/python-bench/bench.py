# SPDX-License-Identifier: GPL-2.0-only
"""bench.py - the DataFrame getters of npuprof against the SQLite route.

Issue 22, item 4: a trace read into the span DataFrame
(get_pandas_dataframe(): every span, NPU execution and operator record),
into the spans table (spans()) and into the executions table
(npu_executions()), side by side with the route that works without the
package: the SQLite export (Trace.export_sqlite()) followed by
pandas.read_sql of the spans, the executions and the operator records
(Documentation/npu/sqlite.rst). Each getter is also compared with the
export and the read of the same rows alone.

Each measurement runs in a child process of its own (this script with
--child), so that its peak RSS (ru_maxrss, from wait4() of that child) is
its own; the routes are interleaved over the rounds. The times are taken
in the child around the route alone (the interpreter's start and the
imports are not counted; their RSS is printed apart). Figures only, no
pass/fail.

Usage: bench.py --build BUILD [--events N] [--rounds K] [--trace FILE]
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROUTES = ("frame", "spans", "executions", "sqlite")
LABELS = {
    "frame": "npuprof.open(f).get_pandas_dataframe()",
    "spans": "npuprof.open(f).spans()",
    "executions": "npuprof.open(f).npu_executions()",
    "sqlite": "export_sqlite + read_sql of spans, executions, operator_rows",
}
# the SQLite route's reads, in order, and which getter each matches
READS = (("spans", "select * from spans"),
         ("executions", "select * from npu_executions"),
         ("op_records", "select * from operator_rows"))


def child(route, trace, db):
    """Run one route; print a JSON line of its figures."""
    # pandas is imported here by every route: npuprof imports it on the
    # first DataFrame, and its import (about 0.25 s) is not the route's
    import sqlite3
    import pandas
    import npuprof
    base = resource.getrusage(resource.RUSAGE_SELF)
    r0 = base.ru_utime + base.ru_stime
    t0 = time.perf_counter()
    out = {}
    if route != "sqlite":
        getter = {"frame": "get_pandas_dataframe"}.get(route, route)
        if route == "executions":
            getter = "npu_executions"
        df = getattr(npuprof.open(trace), getter)()
        out["rows"] = len(df)
        out["cols"] = len(df.columns)
    else:
        npuprof.open(trace).export_sqlite(db)
        split = [time.perf_counter() - t0]
        con = sqlite3.connect(db)
        rows, cols = 0, []
        for _, query in READS:
            t1 = time.perf_counter()
            df = pandas.read_sql(query, con)
            split.append(time.perf_counter() - t1)
            rows += len(df)
            cols.append(str(len(df.columns)))
            del df
        con.close()
        out["rows"] = rows
        out["cols"] = "+".join(cols)
        out["split"] = split
        out["db_bytes"] = os.path.getsize(db)
    out["seconds"] = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu"] = ru.ru_utime + ru.ru_stime - r0
    # kB on Linux: the RSS of the interpreter and the imports, for context
    out["base_maxrss_kb"] = base.ru_maxrss
    print(json.dumps(out), flush=True)


def run_child(route, trace, db, env):
    """One child; returns its figures with its own peak RSS (MiB)."""
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                          "--child", route, "--trace", trace, "--db", db],
                         stdout=subprocess.PIPE, env=env)
    data = p.stdout.read()
    p.stdout.close()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("python-bench: route %s failed (exit status %d)" %
                 (route, p.returncode))
    out = json.loads(data.decode().strip().splitlines()[-1])
    out["maxrss_mib"] = ru.ru_maxrss / 1024.0
    return out


def fmt_rate(x):
    if x >= 1e6:
        return "%.2f M" % (x / 1e6)
    return "%.0f k" % (x / 1e3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", choices=ROUTES)
    ap.add_argument("--trace")
    ap.add_argument("--db")
    ap.add_argument("--build")
    ap.add_argument("--events", type=int, default=1000000)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if a.child:
        child(a.child, a.trace, a.db)
        return

    tmp = tempfile.mkdtemp(prefix="python-bench.")
    try:
        bench(a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bench(a, tmp):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(a.build, "python")
    trace = a.trace
    if not trace:
        trace = os.path.join(tmp, "bench.npuprof")
        t0 = time.perf_counter()
        subprocess.run([os.path.join(a.build, "bin", "npuprof-bench-export"),
                        "--gen", trace, "--events", str(a.events)],
                       check=True, stdout=subprocess.DEVNULL)
        gen_s = time.perf_counter() - t0
        print("trace: %d events (npuprof-bench-export --gen: per job a "
              "submit span, an EXEC and 8 OP records), %.1f MB, written in "
              "%.1f s" % (a.events, os.path.getsize(trace) / 1e6, gen_s))
    events = a.events
    db = os.path.join(tmp, "bench.db")
    print("python: %s, %d rounds, routes interleaved, each in a child "
          "process; times median of %d, around the route alone"
          % (sys.executable, a.rounds, a.rounds))

    res = {r: [] for r in ROUTES}
    for rnd in range(a.rounds):
        for route in ROUTES:
            if os.path.exists(db):
                os.unlink(db)
            res[route].append(run_child(route, trace, db, env))
        if os.path.exists(db):
            os.unlink(db)

    med = {}
    for route in ROUTES:
        rs = res[route]
        med[route] = {
            "rows": rs[0]["rows"],
            "cols": rs[0]["cols"],
            "seconds": statistics.median(x["seconds"] for x in rs),
            "cpu": statistics.median(x["cpu"] for x in rs),
            "rss": max(x["maxrss_mib"] for x in rs),
            "all": [x["seconds"] for x in rs],
        }
    sq = med["sqlite"]

    print()
    print("%-11s %9s %8s %9s %9s %11s %10s %9s %9s %9s" %
          ("route", "rows", "cols", "seconds", "cpu s", "events/s",
           "rows/s", "peak RSS", "vs sqlite", "RSS vs"))
    print("%-11s %9s %8s %9s %9s %11s %10s %9s %9s %9s" %
          ("", "", "", "(median)", "(median)", "", "", "MiB", "(speed)",
           "sqlite"))
    for route in ROUTES:
        m = med[route]
        print("%-11s %9d %8s %9.3f %9.3f %11s %10s %9.0f %8.2fx %8.2fx" %
              (route, m["rows"], m["cols"], m["seconds"], m["cpu"],
               fmt_rate(events / m["seconds"]),
               fmt_rate(m["rows"] / m["seconds"]), m["rss"],
               sq["seconds"] / m["seconds"], m["rss"] / sq["rss"]))
    print()
    for route in ROUTES:
        print("%-11s %s; rounds: %s s" % (
            route, LABELS[route],
            " ".join("%.3f" % s for s in med[route]["all"])))
    split = [statistics.median(x["split"][i] for x in res["sqlite"])
             for i in range(len(READS) + 1)]
    print("sqlite split (medians): export_sqlite %.3f s, %s; database "
          "%.1f MB" % (split[0], ", ".join(
              "read_sql %s %.3f s" % (name, split[i + 1])
              for i, (name, _) in enumerate(READS)),
              res["sqlite"][0]["db_bytes"] / 1e6))
    # the same rows by the SQLite route alone: the export, then their reads
    for route, reads in (("frame", (1, 2, 3)), ("spans", (1,)),
                         ("executions", (2,))):
        alone = split[0] + sum(split[i] for i in reads)
        print("same rows: %-10s %.3f s, export_sqlite + read_sql of %s "
              "%.3f s: %.2fx" % (route, med[route]["seconds"],
                                 "+".join(READS[i - 1][0] for i in reads),
                                 alone, alone / med[route]["seconds"]))
    print("RSS of the interpreter and the imports (child, before the "
          "route: npuprof, sqlite3, pandas): %.0f MiB"
          % (res["sqlite"][0]["base_maxrss_kb"] / 1024.0))
    print("events/s: events of the trace / seconds; vs sqlite (speed): "
          "SQLite route's seconds / the route's; RSS vs sqlite: the "
          "route's peak RSS / the SQLite route's")
    try:
        print("load average: %.2f %.2f %.2f" % os.getloadavg())
    except OSError:
        pass


if __name__ == "__main__":
    main()
