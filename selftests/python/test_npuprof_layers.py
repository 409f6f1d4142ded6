# SPDX-License-Identifier: GPL-2.0-only
"""Layer names and shapes in the DataFrames: the trace of memory_gen.h's
model "tiny" (npuprof-python-gen memory-used), whose MODEL item carries the
layer table of layers_gen.h (op 0: conv1/Conv, op 1: fc/Gemm), through
get_pandas_dataframe(), the operator tables, analyze() and memory(); the
report trace, which has no model, gives empty strings (and its reference
frame no layer columns unless asked)."""
import pytest

import npuprof
from conftest import _gen

CONV = ("conv1/Conv", "QLinearConv+Clip", "u8[1,3,8,8] i8[4,3,3,3] i32[4]",
        "u8[1,4,6,6]")
GEMM = ("fc/Gemm", "Gemm", "u8[1,144] i8[10,144]", "u8[1,10]")
COLS = ["layer", "op_type", "in_shapes", "out_shapes"]


@pytest.fixture(scope="session")
def layers_trace(tmp_path_factory):
    return _gen(tmp_path_factory, "layers.npuprof", "memory-used")


def rows(df):
    return [tuple(r) for r in df[COLS].itertuples(index=False)]


def test_reference_frame(layers_trace):
    with npuprof.open(layers_trace) as t:
        df = t.get_pandas_dataframe()
    ops = df[df["cat"] == "npu_operator"].sort_values("op_index")
    assert rows(ops) == [CONV, GEMM]
    assert list(ops["name"]) == ["CONV2D", "FC"]
    # spans and executions have no layer
    assert df[df["cat"] != "npu_operator"]["layer"].isna().all()
    with npuprof.open(layers_trace) as t:
        sel = t.get_pandas_dataframe(columns=["name", "layer", "in_shapes"])
    assert list(sel.columns) == ["name", "layer", "in_shapes"]


def test_operator_tables(layers_trace):
    with npuprof.open(layers_trace) as t:
        rec = t.npu_operator_records().sort_values("op_index")
        ops = t.npu_operators()
    assert rows(rec) == [CONV, GEMM]
    assert list(rec["model_id"]) == [5, 5]
    # one row per layer operator, its shapes as strings
    assert sorted(rows(ops)) == [CONV, GEMM]
    assert ops["in_shapes"].map(type).eq(str).all()
    assert list(ops.sort_values("op_index")["op_index"]) == [0, 1]


def test_analyze_by_layer_and_shape(layers_trace):
    with npuprof.open(layers_trace) as t:
        per = t.analyze(types=["npu"], top=0)
        lay = t.analyze(types=["npu"], aggregate_by="layer")
        shp = t.analyze(types=["npu"], aggregate_by="shape",
                        aggregate="mean")
        with pytest.raises(ValueError, match="aggregate_by 'size'"):
            t.analyze(aggregate_by="size")
    assert sorted(rows(per)) == [CONV, GEMM]
    assert sorted(lay["layer"]) == ["conv1/Conv", "fc/Gemm"]
    assert list(lay["count"]) == [1, 1]
    # by shape: the key's columns stay, the layer does not
    assert list(shp["layer"]) == ["", ""]
    assert sorted(shp["in_shapes"]) == sorted([CONV[2], GEMM[2]])


def test_memory_tables(layers_trace):
    with npuprof.open(layers_trace) as t:
        ops = t.memory("operators")
        ten = t.memory("tensors")
    assert rows(ops) == [CONV, GEMM]
    # the tensors live at the max_used operator, op 0
    assert set(rows(ten)) == {CONV}


def test_no_layer_table(report_trace):
    with npuprof.open(report_trace) as t:
        rec = t.npu_operator_records()
        ops = t.npu_operators()
    assert len(rec) > 0
    assert (rec["layer"] == "").all() and (rec["in_shapes"] == "").all()
    assert (ops["layer"] == "").all()
    # the reference frame keeps the reference's columns
    with npuprof.open(report_trace) as t:
        assert "layer" not in t.get_pandas_dataframe().columns
        df = t.get_pandas_dataframe(columns=["cat", "layer"])
    assert (df[df["cat"] == "npu_operator"]["layer"] == "").all()
