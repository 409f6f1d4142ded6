# SPDX-License-Identifier: GPL-2.0-only
"""bench.py - the DataFrame getters of npuprof against the SQLite route.

Issue 22, item 4: a trace read into the span DataFrame
(get_pandas_dataframe()) and into the executions table (npu_executions()),
side by side with the route that works without the package: the SQLite
export (Trace.export_sqlite()) followed by pandas.read_sql of the spans
and the executions tables (Documentation/npu/sqlite.rst).

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

ROUTES = ("spans", "executions", "sqlite")
LABELS = {
    "spans": "npuprof.open(f).get_pandas_dataframe()",
    "executions": "npuprof.open(f).npu_executions()",
    "sqlite": "export_sqlite + read_sql(spans) + read_sql(executions)",
}


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
    if route == "spans":
        df = npuprof.open(trace).get_pandas_dataframe()
        out["rows"] = len(df)
        out["cols"] = len(df.columns)
    elif route == "executions":
        df = npuprof.open(trace).npu_executions()
        out["rows"] = len(df)
        out["cols"] = len(df.columns)
    else:
        npuprof.open(trace).export_sqlite(db)
        t1 = time.perf_counter()
        con = sqlite3.connect(db)
        sp = pandas.read_sql("select * from spans", con)
        t2 = time.perf_counter()
        ex = pandas.read_sql("select * from executions", con)
        t3 = time.perf_counter()
        con.close()
        out["rows"] = len(sp) + len(ex)
        out["cols"] = "%d+%d" % (len(sp.columns), len(ex.columns))
        out["split"] = [t1 - t0, t2 - t1, t3 - t2]
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
    print("%-11s %9s %6s %9s %9s %11s %10s %9s %9s %9s" %
          ("route", "rows", "cols", "seconds", "cpu s", "events/s",
           "rows/s", "peak RSS", "vs sqlite", "RSS vs"))
    print("%-11s %9s %6s %9s %9s %11s %10s %9s %9s %9s" %
          ("", "", "", "(median)", "(median)", "", "", "MiB", "(speed)",
           "sqlite"))
    for route in ROUTES:
        m = med[route]
        print("%-11s %9d %6s %9.3f %9.3f %11s %10s %9.0f %8.2fx %8.2fx" %
              (route, m["rows"], m["cols"], m["seconds"], m["cpu"],
               fmt_rate(events / m["seconds"]),
               fmt_rate(m["rows"] / m["seconds"]), m["rss"],
               sq["seconds"] / m["seconds"], m["rss"] / sq["rss"]))
    both = med["spans"]["seconds"] + med["executions"]["seconds"]
    print("%-11s %9d %6s %9.3f %9s %11s %10s %9s %8.2fx" %
          ("spans+exec", med["spans"]["rows"] + med["executions"]["rows"],
           "", both, "", fmt_rate(events / both),
           fmt_rate((med["spans"]["rows"] + med["executions"]["rows"]) / both),
           "", sq["seconds"] / both))
    print()
    for route in ROUTES:
        print("%-11s %s; rounds: %s s" % (
            route, LABELS[route],
            " ".join("%.3f" % s for s in med[route]["all"])))
    split = [statistics.median(x["split"][i] for x in res["sqlite"])
             for i in range(3)]
    print("sqlite split (medians): export_sqlite %.3f s, read_sql spans "
          "%.3f s, read_sql executions %.3f s; database %.1f MB"
          % (split[0], split[1], split[2],
             res["sqlite"][0]["db_bytes"] / 1e6))
    # the same table by the SQLite route alone: the export, then its read
    for route, i in (("spans", 1), ("executions", 2)):
        alone = split[0] + split[i]
        print("per table: %s %.3f s, export_sqlite + read_sql of %s alone "
              "%.3f s: %.2fx" % (route, med[route]["seconds"], route, alone,
                                 alone / med[route]["seconds"]))
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
