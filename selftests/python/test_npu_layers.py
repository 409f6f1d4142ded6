# SPDX-License-Identifier: GPL-2.0-only
"""npu.Model.layers on the host, with no device: the layer table of
npu-model-gen's networks (names, op types, shapes as the reports print
them, MACs), consecutive operators of one layer grouped, a file without a
table, a damaged table refused by the loader; and npu-model-gen
--params-out: params.json as Documentation/npu/model.rst ("Parameters
dump") describes it, its raw files and float32 scales."""
import errno
import json
import struct
import subprocess
import zlib

import numpy as np
import pytest

import npu
from conftest import build_path

HDR = 128             # struct npu_model_file_hdr
LAYERS_OFF = 112      # its layers_off, layers_size
DESC = 112            # struct npu_layer_desc

MOBILENET = (["conv1"] +
             [f"conv_{k}_{i}" for i in range(1, 14) for k in ("dw", "pw")] +
             ["avg_pool", "reshape", "fc"])


def gen(tmp_path, net, *args):
    path = str(tmp_path / f"{net}.nmdl")
    subprocess.run([build_path("bin", "npu-model-gen"), "-o", path, *args,
                    net], check=True, capture_output=True)
    return path


def edit(path, fn):
    """Apply FN to the file's bytes (a bytearray), fix the checksum and
    write it back."""
    b = bytearray(open(path, "rb").read())
    b = fn(b) or b
    struct.pack_into("<I", b, 12, 0)
    struct.pack_into("<I", b, 12, zlib.crc32(bytes(b)))
    open(path, "wb").write(b)


def desc_off(b, i):
    off, _ = struct.unpack_from("<II", b, LAYERS_OFF)
    return off + 16 + i * DESC


def test_mnist_layers(tmp_path):
    layers = npu.Model(gen(tmp_path, "mnist")).layers
    assert [l["name"] for l in layers] == ["conv1", "pool1", "conv2",
                                          "pool2", "flatten", "fc"]
    assert layers[0] == {
        "name": "conv1", "op_type": "Conv2D+Relu",
        "in_shapes": "u8[1,28,28,1] i8[16,3,3,1] i32[16]",
        "out_shapes": "u8[1,28,28,16]",
        "macs": 28 * 28 * 16 * 3 * 3 * 1, "weight_bytes": 16 * 9 + 16 * 4,
        "ops": [0]}
    assert layers[4]["op_type"] == "Reshape"
    assert layers[4]["out_shapes"] == "u8[1,1568]"
    assert layers[4]["macs"] == 0
    assert layers[5]["in_shapes"] == "u8[1,1568] i8[10,1568] i32[10]"
    assert [l["ops"] for l in layers] == [[i] for i in range(6)]


def test_mobilenet_layers(tmp_path):
    layers = npu.Model(gen(tmp_path, "mobilenet-v1")).layers
    assert [l["name"] for l in layers] == MOBILENET
    assert {l["op_type"] for l in layers} == {
        "Conv2D+Relu6", "DepthwiseConv2D+Relu6", "AveragePool2D", "Reshape",
        "FullyConnected"}
    dw2 = layers[3]
    assert dw2["in_shapes"] == "u8[1,112,112,64] i8[1,3,3,64] i32[64]"
    assert dw2["out_shapes"] == "u8[1,56,56,64]"
    assert sum(l["macs"] for l in layers) == 568791552
    assert sum(l["weight_bytes"] for l in layers) == 4257892


def test_consecutive_operators_grouped(tmp_path):
    path = gen(tmp_path, "mnist")

    def same_name(b):
        # pool2 (3) carries conv2's (2) name: one layer of two operators
        name = struct.unpack_from("<I", b, desc_off(b, 2))[0]
        struct.pack_into("<I", b, desc_off(b, 3), name)
    edit(path, same_name)
    layers = npu.Model(path).layers
    assert [l["name"] for l in layers] == ["conv1", "pool1", "conv2",
                                          "flatten", "fc"]
    conv2 = layers[2]
    assert conv2["ops"] == [2, 3]
    assert conv2["in_shapes"] == "u8[1,14,14,16] i8[32,3,3,16] i32[32]"
    assert conv2["out_shapes"] == "u8[1,7,7,32]"
    assert conv2["macs"] == 14 * 14 * 32 * 9 * 16 + 7 * 7 * 32 * 4
    assert conv2["op_type"] == "Conv2D+Relu"


def test_no_table(tmp_path):
    path = gen(tmp_path, "mnist")

    def strip(b):
        off, _ = struct.unpack_from("<II", b, LAYERS_OFF)
        struct.pack_into("<I", b, 8, 0)                 # flags
        struct.pack_into("<II", b, LAYERS_OFF, 0, 0)
        struct.pack_into("<Q", b, 16, off)              # file_size
        return b[:off]
    edit(path, strip)
    m = npu.Model(path)
    assert m.layers == []
    assert m.name == "mnist"


def test_damaged_table(tmp_path):
    path = gen(tmp_path, "mnist")

    def bad_dtype(b):
        # layer 4's data input: dtype 9
        b[desc_off(b, 4) + 32] = 9
    edit(path, bad_dtype)
    with pytest.raises(npu.Error) as e:
        npu.Model(path)
    assert e.value.errno == errno.EINVAL
    assert "layer table: layer 4: unknown dtype" in str(e.value)


@pytest.mark.parametrize("net", ["mnist", "mobilenet-v1"])
def test_params_dump(tmp_path, net):
    out = tmp_path / "params"
    subprocess.run([build_path("bin", "npu-model-gen"), "--params-out",
                    str(out), net], check=True, capture_output=True)
    # without --output no model file is written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["params"]
    p = json.loads((out / "params.json").read_text())
    assert p["network"] == net and p["seed"] == 1
    assert p["input"]["name"] == "input" and p["input"]["layout"] == "NHWC"
    assert p["output"]["name"] == "logits"
    layers = p["layers"]
    assert [l["name"] for l in layers] == (
        MOBILENET if net == "mobilenet-v1" else
        ["conv1", "pool1", "conv2", "pool2", "flatten", "fc"])
    model = npu.Model(gen(tmp_path, net))
    assert [l["name"] for l in model.layers] == [l["name"] for l in layers]
    assert p["output"]["shape"] == layers[-1]["out"]["shape"]
    assert p["output"]["scale"] == layers[-1]["out"]["scale"]
    # float32 values, printed with %.9g: they round-trip (test_gen.c
    # rebuilds every requantization pair from them)
    assert np.float32(model.inputs()[0].scale) == np.float32(
        p["input"]["scale"])
    assert np.float32(model.outputs()[0].scale) == np.float32(
        p["output"]["scale"])
    prev = "input"
    for l, t in zip(layers, model.layers):
        assert l["input"] == prev and l["output"] == l["name"]
        prev = l["name"]
        assert l["op"] in ("conv2d", "dwconv2d", "maxpool", "avgpool",
                           "reshape", "fc")
        assert l["act"] in ("none", "relu", "relu6")
        assert 0 <= l["act_min"] <= l["act_max"] <= 255
        assert t["out_shapes"] == "u8[%s]" % ",".join(
            map(str, l["out"]["shape"]))
        if l["op"] in ("conv2d", "dwconv2d", "maxpool", "avgpool"):
            assert len(l["kernel"]) == 2 and len(l["pads"]) == 4
        else:
            assert "kernel" not in l
        if "weights" not in l:
            assert l["op"] in ("maxpool", "avgpool", "reshape")
            continue
        w, b = l["weights"], l["bias"]
        cout = w["shape"][-1] if l["op"] == "dwconv2d" else w["shape"][0]
        assert w["layout"] == {"conv2d": "OHWI", "dwconv2d": "1HWC",
                               "fc": "NK"}[l["op"]]
        assert len(w["scales"]) == cout == b["shape"][0]
        assert all(s > 0 for s in w["scales"])
        wq = np.fromfile(out / w["file"], np.int8)
        assert wq.size == np.prod(w["shape"])
        assert wq.min() >= -127 and wq.max() <= 127
        bq = np.fromfile(out / b["file"], "<i4")
        assert bq.size == cout
        assert t["weight_bytes"] == wq.size + 4 * bq.size
        assert t["in_shapes"].split(" ")[1:] == [
            "i8[%s]" % ",".join(map(str, w["shape"])), "i32[%d]" % cout]


def test_params_dump_bad_dir(tmp_path):
    f = tmp_path / "file"
    f.write_text("")
    r = subprocess.run([build_path("bin", "npu-model-gen"), "--params-out",
                        str(f / "sub"), "mnist"], capture_output=True,
                       text=True)
    assert r.returncode == 1
    assert str(f / "sub") in r.stderr
    assert r.stderr.count("\n") == 1
