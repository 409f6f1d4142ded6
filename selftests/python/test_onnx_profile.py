# SPDX-License-Identifier: GPL-2.0-only
"""npuprof record around an ONNX model compiled by npu-onnx, in the guest.

The host suite selftests/host/onnx-models exports npu-model-gen's
MobileNet-v1 to ONNX in both quantization forms and compiles each with
npu-onnx into $NPU_BUILD/onnx/models/mobilenet-v1/{qdq,qop}.{onnx,nmdl}.
Here each model runs under `npuprof record`; the slowest layers of the
report must carry the names of the ONNX file's nodes and their shapes and
dtypes as the ONNX file states them (read with python3-onnx and its shape
inference, not with anything of ours), in the CLI's CSV and in
Trace.analyze().
"""
import csv
import io
import os
import subprocess

import pytest

import npuprof

onnx = pytest.importorskip("onnx")
from onnx import shape_inference  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/npu0"),
                                reason="no /dev/npu0 (run in the VM)")

BUILD = os.environ.get("NPU_BUILD", "")
MODELS = os.path.join(BUILD, "onnx", "models", "mobilenet-v1")
TOP = 5

# ONNX element types of the layer shapes' dtypes (npu_layer_dtype_name())
DTYPES = {onnx.TensorProto.UINT8: "u8", onnx.TensorProto.INT8: "i8",
          onnx.TensorProto.INT32: "i32", onnx.TensorProto.FLOAT: "f32"}
# the data, weights and bias inputs of each node type
OPERANDS = {"Conv": (0, 1, 2), "QLinearConv": (0, 3, 8), "Gemm": (0, 1, 2)}


def shape_str(dtype, dims):
    return "%s[%s]" % (dtype, ",".join(str(d) for d in dims))


def onnx_layers(path):
    """{node name: (op type, in_shapes, out_shapes)} of the compute nodes."""
    m = shape_inference.infer_shapes(onnx.load(path))
    g = m.graph
    dims, types = {}, {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        tt = vi.type.tensor_type
        dims[vi.name] = [d.dim_value for d in tt.shape.dim]
        types[vi.name] = tt.elem_type
    for t in g.initializer:
        dims[t.name] = list(t.dims)
        types[t.name] = t.data_type
    # a QDQ node reads the float output of a DequantizeLinear: its dtype
    # is that of the quantized tensor the DequantizeLinear reads
    deq = {n.output[0]: n.input[0] for n in g.node
           if n.op_type == "DequantizeLinear"}
    quant = {n.input[0]: n.output[0] for n in g.node
             if n.op_type == "QuantizeLinear"}

    def shape_of(name):
        src = deq.get(name, name)
        return shape_str(DTYPES[types[src]], dims[name])

    def out_of(name):
        # Conv -> (Relu|Clip) -> QuantizeLinear in QDQ
        seen = name
        for n in g.node:
            if n.input and n.input[0] == seen and n.op_type in ("Relu", "Clip"):
                seen = n.output[0]
        q = quant.get(seen, seen)
        return shape_str(DTYPES[types[q]], dims[q])

    layers = {}
    for n in g.node:
        if n.op_type not in OPERANDS:
            continue
        ins = [shape_of(n.input[i]) for i in OPERANDS[n.op_type]
               if i < len(n.input) and n.input[i]]
        layers[n.name] = (n.op_type, " ".join(ins), out_of(n.output[0]))
    return layers


@pytest.fixture(scope="module", params=["qdq", "qop"])
def recorded(request, tmp_path_factory):
    form = request.param
    onnx_path = os.path.join(MODELS, form + ".onnx")
    model = os.path.join(MODELS, form + ".nmdl")
    if not os.path.exists(model):
        pytest.fail("%s is missing: the host suite onnx-models did not "
                    "compile it (npu-vm --share %s/onnx)" % (model, BUILD))
    trace = str(tmp_path_factory.mktemp(form) / "mb.npuprof")
    subprocess.run(["npuprof", "record", "-q", "-o", trace, "--",
                    "npu-classify", "-m", model, "-n", "2", "-r", "3"],
                   check=True, stdout=subprocess.DEVNULL)
    return form, onnx_layers(onnx_path), trace


def test_slowest_layers_carry_onnx_names_and_shapes(recorded):
    form, layers, trace = recorded
    out = subprocess.run(["npuprof", "report", "--operators", "--format",
                          "csv", trace], check=True, capture_output=True,
                         text=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    # one row per layer operator, slowest first
    assert len(rows) >= 28
    conv = [r for r in rows if r["name"] in ("CONV2D", "DWCONV2D", "FC")]
    assert len(conv) >= TOP
    for r in conv[:TOP]:
        assert r["layer"] in layers, (form, r["layer"], sorted(layers))
        op_type, ins, outs = layers[r["layer"]]
        assert r["op_type"].split("+")[0] == op_type
        assert r["in_shapes"] == ins, (r["layer"], r["in_shapes"], ins)
        assert r["out_shapes"] == outs, (r["layer"], r["out_shapes"], outs)
        assert int(r["count"]) == 2


def test_analyze_by_layer_in_python(recorded):
    form, layers, trace = recorded
    t = npuprof.open(trace)
    df = t.analyze(top=0, types=["npu"], aggregate="sum",
                   aggregate_by="layer")
    named = df[df["layer"] != ""]
    # every compute node of the ONNX file is a row, with its name
    assert set(layers) <= set(named["layer"]), \
        sorted(set(layers) - set(named["layer"]))
    top = named.sort_values("self_ns", ascending=False).head(TOP)
    for _, r in top.iterrows():
        assert r["layer"] in layers
        assert r["count"] % 2 == 0 and r["self_ns"] > 0
