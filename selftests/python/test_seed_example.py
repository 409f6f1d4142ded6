# SPDX-License-Identifier: GPL-2.0-only
"""The FuriosaAI profiler example of the seed (001, "Enabling trace
generation through profiler context" and "Trace analysis using Pandas
DataFrame"), nearly verbatim, with npu in place of furiosa.runtime: MNIST,
"warm up" and "trace" records, the Chrome trace, the five prints and the
DataFrame filter. Needs /dev/npu0: skipped on the host, run in the VM by
$(BUILD)/vmtests/python-npu (selftests/python/vm.sh).

npu and npuprof share one libnpuprof.so, so the runs inside profile() are
in its trace: their host spans (inference, Quantize, submit, ...) and
their inferences."""
import json
import os
import threading

import numpy as np
import pytest

import npu
import npuprof
from npuprof import RecordFormat, profile
# the model fixture: npu-model-gen -o ... mnist
from test_npu_host import mnist  # noqa: F401

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/npu0"),
                                reason="no /dev/npu0 (run in the VM)")

WARM_UP, TRACE = 10, 10       # the seed's Chrome example
PD_WARM_UP, PD_TRACE = 2, 2   # the seed's DataFrame example
# libnpu's host spans of one run (npuprof_span_kind_name())
NPU_SPANS = ("inference", "set_input", "Quantize", "Lower", "submit", "wait",
             "get_output", "Unlower", "Dequantize")


def rand(desc):
    """tensor.rand(input_shape) of furiosa.runtime."""
    return np.random.rand(*desc.shape).astype(np.float32)


def test_chrome_trace(mnist, tmp_path):
    model_path = mnist
    trace_path = tmp_path / "mnist_trace.json"

    with open(trace_path, "w") as output:
        with profile(file=output) as profiler:
            with npu.Session(model_path) as sess:
                input_shape = sess.inputs()[0]

                with profiler.record("warm up") as record:
                    for _ in range(0, WARM_UP):
                        sess.run(rand(input_shape))

                with profiler.record("trace") as record:  # noqa: F841
                    for _ in range(0, TRACE):
                        sess.run(rand(input_shape))

    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    labels = [e for e in events if e.get("cat") == "label"]
    assert sorted(e["name"] for e in labels) == ["trace", "warm up"]
    cpu = [e for e in events if e.get("cat") == "cpu"]
    names = {e["name"] for e in cpu}
    assert set(NPU_SPANS) <= names, sorted(names)
    # the inferences of each record lie inside it
    runs = sorted((e for e in cpu if e["name"] == "inference"),
                  key=lambda e: e["ts"])
    assert len(runs) == WARM_UP + TRACE
    by_name = {e["name"]: e for e in labels}
    for lab, rs in (("warm up", runs[:WARM_UP]), ("trace", runs[WARM_UP:])):
        e = by_name[lab]
        if e.get("ph") == "X":
            for r in rs:
                assert e["ts"] <= r["ts"] + 1e-3
                assert r["ts"] + r["dur"] <= e["ts"] + e["dur"] + 1e-3
    # the same profile, as npuprof's Trace
    assert len(profiler.inferences()) == WARM_UP + TRACE


def test_pandas_dataframe(mnist):
    model_path = mnist

    with profile(format=RecordFormat.PandasDataFrame) as profiler:
        with npu.Session(model_path) as sess:
            input_shape = sess.inputs()[0]

            with profiler.record("warm up") as record:
                for _ in range(0, PD_WARM_UP):
                    sess.run(rand(input_shape))

            with profiler.record("trace") as record:  # noqa: F841
                for _ in range(0, PD_TRACE):
                    sess.run(rand(input_shape))

    profiler.print_summary()  # (1)

    profiler.print_inferences()  # (2)

    profiler.print_npu_executions()  # (3)

    profiler.print_npu_operators()  # (4)

    profiler.print_external_operators()  # (5)

    df = profiler.get_pandas_dataframe()  # (6)
    print(df[df["name"] == "trace"][["trace_id", "name", "thread.id", "dur"]])

    # what the seed shows, with values
    n = PD_WARM_UP + PD_TRACE
    sel = df[df["name"] == "trace"][["trace_id", "name", "thread.id", "dur"]]
    assert len(sel) == 1
    assert (sel["thread.id"] == threading.get_native_id()).all()
    assert (sel["dur"] > 0).all()
    rec = df[df["cat"] == "record"]
    assert sorted(rec["name"]) == ["trace", "warm up"]
    assert (rec["thread.id"] == threading.get_native_id()).all()

    # npu's own host spans are in the profile: each kind once per run
    cats = df["cat"].value_counts()
    for kind in NPU_SPANS:
        assert cats.get(kind) == n, (kind, dict(cats))
    # and the device's: one execution per run, its operator records, each
    # under the run's submit span, on the thread that submitted it
    ops = df[df["cat"] == "npu_operator"]
    exe = df[df["cat"] == "npu_execution"]
    assert len(exe) == n and len(ops) % n == 0 and len(ops) > 0
    assert len(df) == len(NPU_SPANS) * n + 2 + len(exe) + len(ops)
    submits = df[df["cat"] == "submit"]
    assert set(exe["parent_span_id"]) == set(submits["span_id"])
    assert set(ops["parent_span_id"]) == set(submits["span_id"])
    assert (exe["dur"] > 0).all() and (ops["dur"] >= 0).all()
    assert (df["thread.id"] == threading.get_native_id()).all()
    # the "trace" record's inferences are inside it
    t = df[(df["cat"] == "record") & (df["name"] == "trace")].iloc[0]
    runs = df[df["cat"] == "inference"].sort_values("start")
    for _, r in runs.iloc[PD_WARM_UP:].iterrows():
        assert t["start"] <= r["start"] <= r["end"] <= t["end"]

    inf = profiler.inferences()
    assert len(inf) == n
    ex = profiler.npu_executions()
    assert len(ex) == n
    ext = profiler.external_operators()
    assert set(ext["name"]) >= {"Quantize", "Lower", "Unlower", "Dequantize"}
    summary = profiler.trace.summary()
    assert f"Inference counts                : {n}" in summary, summary
