# SPDX-License-Identifier: GPL-2.0-only
"""The DataFrames filled from the analysis library's row sink:
get_pandas_dataframe() with the NPU executions and operator records as
rows, the columns= selection, and analyze(), breakdown() and diff() equal
to the CLI's CSV cell for cell."""
import csv
import io

import numpy as np
import pandas as pd
import pytest

import npuprof
from test_trace import assert_frame_is_csv, cli_csv

REF_COLUMNS = ["trace_id", "parent_span_id", "span_id", "name", "cat",
               "start", "end", "dur", "pid", "thread.id", "job_id", "minor",
               "op_index", "pe_index", "error", "flags"]


def csv_of(cli, *args):
    st, out, err = cli(*args)
    assert st == 0, err
    rows = list(csv.reader(io.StringIO(out.decode(), newline="")))
    return rows[0], rows[1:]


def test_reference_frame_has_every_row(report_trace):
    t = npuprof.open(report_trace)
    df = t.get_pandas_dataframe()
    sp, ex, op = t.spans(), t.npu_executions(), t.npu_operator_records()
    assert list(df.columns) == REF_COLUMNS
    assert len(df) == len(sp) + len(ex) + len(op)
    assert len(ex) > 0 and len(op) > 0
    cats = df["cat"]
    assert (cats == "npu_execution").sum() == len(ex)
    assert (cats == "npu_operator").sum() == len(op)
    assert list(cats[:len(sp)]) == list(sp["kind"])

    # the spans: the reference's names (a record label's text, else the kind)
    s = df[:len(sp)]
    want = sp["name"].where(sp["kind"] == "record", sp["kind"])
    assert list(s["name"]) == list(want)
    assert list(s["span_id"]) == list(sp["span_id"])
    assert list(s["parent_span_id"]) == list(sp["parent_id"])
    assert list(s["dur"]) == list(sp["dur"])
    assert list(s["thread.id"]) == list(sp["tid"])

    # the executions: under the submit span that queued them
    e = df[cats == "npu_execution"].reset_index(drop=True)
    assert list(e["parent_span_id"]) == list(ex["span_id"])
    assert list(e["trace_id"]) == list(ex["trace_id"])
    assert e["dur"].astype(object).tolist() == ex["NPU Total"].astype(object).tolist()
    assert e["pe_index"].astype(object).tolist() == ex["pe_index"].astype(object).tolist()
    assert (e["name"] == "execution").all()
    assert e["span_id"].isna().all()

    # the operator records: the trace and submit span of their job's
    # execution, found by (minor, job_id)
    o = df[cats == "npu_operator"].reset_index(drop=True)
    assert list(o["name"]) == list(op["name"])
    assert o["dur"].astype(object).tolist() == op["dur"].astype(object).tolist()
    assert list(o["op_index"]) == list(op["op_index"])
    first = ex.drop_duplicates(["minor", "job_id"]).set_index(["minor", "job_id"])
    for i in range(len(op)):
        key = (op["minor"][i], op["job_id"][i])
        if key in first.index:
            assert o["trace_id"][i] == first.loc[key, "trace_id"], i
            assert o["parent_span_id"][i] == first.loc[key, "span_id"], i
        else:
            assert o["trace_id"][i] is None


def test_seed_filter_works(report_trace):
    df = npuprof.open(report_trace).get_pandas_dataframe()
    sel = df[df["name"] == "inference"][["trace_id", "name", "thread.id", "dur"]]
    inf = npuprof.open(report_trace).inferences()
    assert sorted(sel["dur"]) == sorted(inf["dur"])


def test_columns_selection(report_trace):
    t = npuprof.open(report_trace)
    full = t.get_pandas_dataframe()
    part = t.get_pandas_dataframe(columns=["dur", "trace_id", "cat"])
    assert list(part.columns) == ["dur", "trace_id", "cat"]
    for c in part.columns:
        assert part[c].astype(object).tolist() == full[c].astype(object).tolist()

    ex = t.npu_executions()
    sub = t.npu_executions(columns=["NPU Total", "span_id"])
    assert list(sub.columns) == ["span_id", "NPU Total"]  # the table's order
    assert sub["NPU Total"].tolist() == ex["NPU Total"].tolist()


def test_bad_arguments(report_trace):
    t = npuprof.open(report_trace)
    with pytest.raises(ValueError, match="no column 'nope'"):
        t.get_pandas_dataframe(columns=["dur", "nope"])
    with pytest.raises(TypeError):
        t.get_pandas_dataframe(columns="dur")
    with pytest.raises(TypeError):
        t.spans(columns=[1, 2])
    with pytest.raises(ValueError, match="aggregate"):
        t.analyze(aggregate="median")
    with pytest.raises(ValueError):
        t.analyze(top=-1)
    with pytest.raises(ValueError):
        t.analyze(order_by="colour")
    with pytest.raises(TypeError):
        npuprof.diff(t, "not a trace")
    # the trace still works after them
    assert len(t.get_pandas_dataframe(columns=["dur"])) > 0


def test_analyze_equals_cli(report_trace, cli):
    t = npuprof.open(report_trace)
    header, rows = csv_of(cli, "analyze", "-t", "0", "--format", "csv",
                          report_trace)
    assert rows
    assert_frame_is_csv(t.analyze(top=0), header, rows)
    header, rows = csv_of(cli, "analyze", "--aggregate", "mean",
                          "--order-by", "+name", "--format", "csv",
                          report_trace)
    assert_frame_is_csv(t.analyze(aggregate="mean", order_by="+name"),
                        header, rows)
    header, rows = csv_of(cli, "analyze", "--type", "CONV2D", "-t", "3",
                          "--format", "csv", report_trace)
    df = t.analyze(types=["CONV2D"], top=3)
    assert_frame_is_csv(df, header, rows)
    assert set(df["name"]) == {"CONV2D"} and len(df) == 3


def test_breakdown_equals_cli(report_trace, cli):
    header, rows = csv_of(cli, "analyze", "--breakdown", "--format", "csv",
                          report_trace)
    df = npuprof.open(report_trace).breakdown()
    assert_frame_is_csv(df, header, rows)
    assert len(df) == len(npuprof.open(report_trace).inferences())


def test_diff_equals_cli(report_trace, large_trace, cli):
    header, rows = csv_of(cli, "diff", "--format", "csv", report_trace,
                          large_trace)
    a, b = npuprof.open(report_trace), npuprof.open(large_trace)
    df = npuprof.diff(a, b)
    assert_frame_is_csv(df, header, rows)
    assert df["delta_ns"].dropna().astype(object).tolist() == \
        (df["b_ns"] - df["a_ns"]).dropna().astype(object).tolist()
    # a trace against itself: nothing changed
    same = npuprof.diff(a, a)
    assert (same["delta_ns"].dropna() == 0).all() and len(same) > 0


def test_empty_trace(empty_trace):
    t = npuprof.open(empty_trace)
    df = t.get_pandas_dataframe()
    assert list(df.columns) == REF_COLUMNS and len(df) == 0
    assert len(t.analyze()) == 0
    assert len(t.breakdown()) == 0


def test_large_reference_frame(large_trace):
    t = npuprof.open(large_trace)
    df = t.get_pandas_dataframe()
    assert len(df) == len(t.spans()) + len(t.npu_executions()) + \
        len(t.npu_operator_records())
    assert str(df["start"].dtype) in ("int64", "Int64")
    n = len(t.spans())
    assert df["start"][:n].notna().all()
    assert list(df["start"][:n]) == list(t.spans()["start_ns"])
    assert str(df["op_index"].dtype) == "Int64"
    assert df["name"].dtype == object
