# SPDX-License-Identifier: GPL-2.0-only
"""npuprof.open(): the DataFrames equal the CLI's CSV cell for cell, the
prints print what the CLI prints, the exports write what the CLI writes."""
import csv
import io
import json
import math
import sqlite3

import numpy as np
import pandas as pd
import pytest

import npuprof
from conftest import LARGE_INFERENCES

# getter, `npuprof report` option, table() name
TABLES = [
    ("inferences", "--inferences", "inferences"),
    ("npu_executions", "--executions", "executions"),
    ("npu_operators", "--operators", "operators"),
    ("external_operators", "--external", "external"),
    ("spans", "--spans", "spans"),
    ("npu_operator_records", "--op-records", "op_records"),
]


def cell_text(v):
    """A DataFrame cell as the CSV writes it (report_fmt.c)."""
    if v is None or v is pd.NA:
        return ""
    if isinstance(v, (float, np.floating)):
        return "" if math.isnan(v) else "%.6f" % v
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    assert isinstance(v, str), f"cell of type {type(v)}"
    return v


def cli_csv(cli, option, path):
    st, out, err = cli("report", option, "--format", "csv", path)
    assert st == 0, err
    rows = list(csv.reader(io.StringIO(out.decode(), newline="")))
    return rows[0], rows[1:]


def assert_frame_is_csv(df, header, rows):
    assert list(df.columns) == header
    assert len(df) == len(rows)
    got = [[cell_text(v) for v in row]
           for row in df.astype(object).itertuples(index=False, name=None)]
    for i, (g, w) in enumerate(zip(got, rows)):
        assert g == w, f"row {i}"


@pytest.mark.parametrize("getter,option,name", TABLES)
def test_frame_equals_cli_csv(report_trace, cli, getter, option, name):
    header, rows = cli_csv(cli, option, report_trace)
    assert rows, "the fixture has rows in every table"
    with npuprof.open(report_trace) as t:
        df = getattr(t, getter)()
        assert_frame_is_csv(df, header, rows)
        assert_frame_is_csv(t.table(name), header, rows)


@pytest.mark.parametrize("getter,option,name", TABLES)
def test_empty_trace_has_the_columns(empty_trace, cli, getter, option, name):
    header, rows = cli_csv(cli, option, empty_trace)
    assert rows == []
    df = getattr(npuprof.open(empty_trace), getter)()
    assert list(df.columns) == header and len(df) == 0


@pytest.mark.parametrize("getter,option", [TABLES[0][:2], TABLES[1][:2],
                                           TABLES[2][:2]])
def test_large_frame_equals_cli_csv(large_trace, cli, getter, option):
    header, rows = cli_csv(cli, option, large_trace)
    df = getattr(npuprof.open(large_trace), getter)()
    assert_frame_is_csv(df, header, rows)


def test_values_and_types(report_trace):
    """What report_gen.h says the reports hold, and the column types."""
    t = npuprof.open(report_trace)
    inf = t.inferences()
    assert list(inf["dur"]) == [3027309, 2111363, 1824769, 1584494]
    assert inf["dur"].dtype == np.int64
    assert inf["trace_id"].dtype == object
    assert inf["trace_id"][0] == "aa000000000000000000000000000001"

    ex = t.npu_executions()
    assert (ex["NPU Total"] == ex["NPU Run"] + ex["NPU IoWait"]).all()
    assert list(ex["NPU Total"][:4]) == [4, 118134, 1, 4]
    # a span id of decimal digits stays a string
    assert ex["span_id"][4] == "0000000000000007"
    # empty cells: None in strings, <NA> in nullable integers
    assert ex["trace_id"][5] is None
    assert str(ex["Bound (+-ns)"].dtype) == "Int64"
    assert ex["Bound (+-ns)"].isna().sum() == 5
    assert ex["Bound (+-ns)"][4] == 8004

    ops = t.npu_operators().set_index("name")
    assert ops["average elapsed(ns)"].dtype == np.float64
    assert ops.loc["CONV2D", "average elapsed(ns)"] == pytest.approx(31 / 3, abs=1e-6)
    assert ops.loc["CONV2D", "count"] == 3
    assert ops.loc["PAD", "average elapsed(ns)"] == 3.0

    spans = t.spans()
    assert 'warm,up "q"' in set(spans["name"].dropna())
    ext = t.external_operators()
    assert sorted(set(ext["name"])) == ["Dequantize", "Lower", "Quantize",
                                        "Unlower"]
    # the seed's filter works on it
    sel = inf[inf["dur"] > 2000000][["trace_id", "thread.id", "dur"]]
    assert list(sel["dur"]) == [3027309, 2111363]


PRINTS = [
    ("print_summary", ("summary",)),
    ("print_inferences", ("report", "--inferences")),
    ("print_npu_executions", ("report", "--executions")),
    ("print_npu_operators", ("report", "--operators")),
    ("print_external_operators", ("report", "--external")),
]


@pytest.mark.parametrize("fn,args", PRINTS)
def test_print_is_cli_output(report_trace, cli, capsys, fn, args):
    st, want, err = cli(*args, report_trace)
    assert st == 0, err
    t = npuprof.open(report_trace)
    getattr(t, fn)()
    got = capsys.readouterr().out
    assert got == want.decode()
    assert len(got.splitlines()) > 3
    buf = io.StringIO()
    getattr(t, fn)(file=buf)
    assert buf.getvalue() == got
    assert capsys.readouterr().out == ""


def test_summary_json_is_cli_output(report_trace, cli):
    st, want, err = cli("summary", "--format", "json", report_trace)
    assert st == 0, err
    got = npuprof.open(report_trace).summary(format="json")
    assert json.loads(got) == json.loads(want)
    assert json.loads(got)["inferences"] == 4


def test_export_chrome_is_cli_output(report_trace, cli, tmp_path):
    ours, theirs = tmp_path / "py.json", tmp_path / "cli.json"
    npuprof.open(report_trace).export_chrome(str(ours))
    st, _, err = cli("export", "--format", "chrome", "-o", str(theirs),
                     report_trace)
    assert st == 0, err
    assert ours.read_bytes() == theirs.read_bytes()
    assert len(json.loads(ours.read_text())["traceEvents"]) > 10


def test_export_sqlite(report_trace, tmp_path):
    db = tmp_path / "t.sqlite"
    t = npuprof.open(report_trace)
    t.export_sqlite(db)     # a PathLike too
    con = sqlite3.connect(db)
    names = {r[0] for r in con.execute(
        "select name from sqlite_master where type in ('table', 'view')")}
    assert names, "tables in the database"
    counts = {n: con.execute(f'select count(*) from "{n}"').fetchone()[0]
              for n in names}
    con.close()
    assert len(t.npu_executions()) in counts.values()
    assert len(t.spans()) in counts.values()


def test_pathlike_and_bytes(report_trace, tmp_path):
    import pathlib
    a = npuprof.open(pathlib.Path(report_trace)).inferences()
    b = npuprof.open(report_trace.encode()).inferences()
    assert a.equals(b) and len(a) == 4


def test_large_counts(large_trace):
    t = npuprof.open(large_trace)
    assert len(t.inferences()) == LARGE_INFERENCES
    ex = t.npu_executions()
    assert len(ex) == LARGE_INFERENCES
    assert ex["job_id"].is_unique
    assert t.truncated is False
