#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""hostile.py - malformed and hostile ONNX files for the importer's tests.

Writes into OUT_DIR one NAME.onnx per case and OUT_DIR/expect.txt, one line
per case: "NAME STATUSES WORDS", where STATUSES are the npu-onnx exit
statuses accepted, joined by '|' (0 valid, 1 malformed or too large, 3
refused), and
WORDS is '-' or a '|'-separated list of words of which the one-line
message must contain one (case-insensitive). A limit of the program or
model format exceeded is status 1, as npu-onnx documents. The cases start from a small
valid QDQ convolution (QuantizeLinear -> DQ -> Conv -> Q -> DQ, weights and
bias as initializers) and break one thing each: truncated files, bytes
that are no protobuf, huge or negative dims, a dims product that
overflows, cycles, a missing initializer, dangling names, wrong element
types, raw data of the wrong length, names with control characters,
subgraphs nested 50000 deep, attributes and constants out of range
(strides, kernels, pads, groups, scales, axes, permutations, shapes),
duplicate producers, a chain of more
nodes than a program holds. The files are made without onnx.checker
(most would not pass it: that is the point).

Usage: hostile.py OUT_DIR
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def base_model(nodes=None, inits=None, inputs=None, outputs=None):
    """A 1x2x5x5 float input, QDQ Conv 3x3 to 3 channels, float output."""
    w = np.arange(54, dtype=np.int8).reshape(3, 2, 3, 3) - 27
    I = [
        numpy_helper.from_array(np.array(0.05, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "x_zp"),
        numpy_helper.from_array(w, "W"),
        numpy_helper.from_array(np.full(3, 0.01, np.float32), "W_scale"),
        numpy_helper.from_array(np.zeros(3, np.int8), "W_zp"),
        numpy_helper.from_array(np.array([5, -7, 100], np.int32), "B"),
        numpy_helper.from_array(np.full(3, 0.0005, np.float32), "B_scale"),
        numpy_helper.from_array(np.zeros(3, np.int32), "B_zp"),
        numpy_helper.from_array(np.array(0.1, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(10, np.uint8), "y_zp"),
    ]
    N = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["xq"],
                         name="quant_in"),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zp"],
                         ["xf"], name="dq_x"),
        helper.make_node("DequantizeLinear", ["W", "W_scale", "W_zp"],
                         ["Wf"], name="dq_W", axis=0),
        helper.make_node("DequantizeLinear", ["B", "B_scale", "B_zp"],
                         ["Bf"], name="dq_B", axis=0),
        helper.make_node("Conv", ["xf", "Wf", "Bf"], ["yf"], name="conv",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("QuantizeLinear", ["yf", "y_scale", "y_zp"], ["yq"],
                         name="quant_y"),
        helper.make_node("DequantizeLinear", ["yq", "y_scale", "y_zp"],
                         ["y"], name="dequant_out"),
    ]
    g = helper.make_graph(
        N if nodes is None else nodes, "hostile",
        inputs if inputs is not None else
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5])],
        outputs if outputs is not None else
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 5, 5])],
        initializer=I if inits is None else inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return m


def qconv_model(**attrs):
    """A uint8 QLinearConv 3x3, 2 -> 3 channels, constants as initializers;
    @attrs replace or add attributes."""
    a = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    a.update(attrs)
    inits = [
        numpy_helper.from_array(np.array(0.05, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "x_zp"),
        numpy_helper.from_array(np.ones((3, 2, 3, 3), np.int8), "w"),
        numpy_helper.from_array(np.array(0.01, np.float32), "w_scale"),
        numpy_helper.from_array(np.array(0, np.int8), "w_zp"),
        numpy_helper.from_array(np.array(0.1, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(10, np.uint8), "y_zp"),
    ]
    n = helper.make_node(
        "QLinearConv", ["x", "x_scale", "x_zp", "w", "w_scale", "w_zp",
                        "y_scale", "y_zp"], ["y"], name="qconv", **a)
    return base_model(
        nodes=[n], inits=inits,
        inputs=[helper.make_tensor_value_info("x", TensorProto.UINT8,
                                              [1, 2, 5, 5])],
        outputs=[helper.make_tensor_value_info("y", TensorProto.UINT8,
                                               [1, 3, 5, 5])])


def u8_model(op, inits, extra_inputs, attrs):
    """One node 'n' of @op on a uint8 [1, 2, 4, 4] input."""
    n = helper.make_node(op, ["x"] + extra_inputs, ["y"], name="n", **attrs)
    return base_model(
        nodes=[n], inits=inits,
        inputs=[helper.make_tensor_value_info("x", TensorProto.UINT8,
                                              [1, 2, 4, 4])],
        outputs=[helper.make_tensor_value_info("y", TensorProto.UINT8,
                                               None)])


def node(m, name):
    for n in m.graph.node:
        if n.name == name:
            return n
    raise KeyError(name)


def init(m, name):
    for t in m.graph.initializer:
        if t.name == name:
            return t
    raise KeyError(name)


def varint(n):
    out = b""
    while True:
        b, n = n & 0x7f, n >> 7
        if not n:
            return out + bytes([b])
        out += bytes([b | 0x80])


def field(num, payload):
    """A length-delimited protobuf field."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def nested_if(depth):
    """A ModelProto whose graph is an If whose then_branch is an If ...
    @depth times: a few MB that a recursive parser cannot take."""
    g = b""
    for _ in range(depth):
        # AttributeProto: name 1, type 20 (GRAPH), g 6
        attr = (field(1, b"then_branch") + varint(20 << 3) + varint(5) +
                field(6, g))
        g = field(1, field(4, b"If") + field(5, attr))	# GraphProto.node
    return varint(1 << 3) + varint(7) + field(7, g)	# ir_version, graph


def parses(b):
    try:
        onnx.load_from_string(b)
        return True
    except Exception:		# any decode error of protobuf
        return False


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    cases = []

    def add(name, data, statuses, words="-"):
        if isinstance(data, onnx.ModelProto):
            data = data.SerializeToString()
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data)
        cases.append("%s %s %s" % (name, statuses, words))

    valid = base_model()
    onnx.checker.check_model(valid)
    add("valid", valid, "0")
    vb = valid.SerializeToString()

    # truncated: cuts that protobuf itself cannot parse, and an empty file
    cuts = [n for n in (1, 7, len(vb) // 3, len(vb) // 2, len(vb) - 3)
            if not parses(vb[:n])]
    for n in cuts:
        add("truncated_%d" % n, vb[:n], "1", "truncated|malformed|not an ONNX")
    add("empty", b"", "1")
    add("not_protobuf", b"\xff" * 64 + b"this is not an ONNX file\n", "1")
    add("text", b"ir_version: 7\ngraph { name: 'x' }\n", "1")

    # huge, negative and overflowing dims
    m = base_model(inputs=[helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, 2, 1 << 40, 5])])
    add("huge_input_dim", m, "1|3", "1099511627776|dim|too large")
    m = base_model(inputs=[helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, 2, -5, 5])])
    add("negative_input_dim", m, "1|3", "-5|negative")
    m = base_model(inputs=[helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1 << 31, 1 << 31, 1 << 31, 1 << 31])])
    add("overflow_input_dims", m, "1|3")
    m = base_model()
    t = init(m, "W")
    del t.dims[:]
    t.dims.extend([1 << 40, 1 << 40, 3, 3])
    add("huge_initializer_dims", m, "1|3", "'W'")
    m = base_model()
    t = init(m, "W")
    del t.dims[:]
    t.dims.extend([3, 2, 3, -3])
    add("negative_initializer_dim", m, "1", "-3|negative")
    m = base_model(inputs=[helper.make_tensor_value_info(
        "x", TensorProto.FLOAT, [1, 2, 0, 5])])
    add("zero_input_dim", m, "1|3")

    # cycles
    m = base_model()
    node(m, "dq_x").input[0] = "yq"		# dq_x <- ... <- quant_y <- conv <- dq_x
    add("cycle", m, "1", "cycle")
    m = base_model()
    node(m, "dq_W").input[0] = "Wf"		# a node reading its own output
    add("self_loop", m, "1", "cycle")

    # missing initializer, dangling names
    m = base_model()
    keep = [t for t in m.graph.initializer if t.name != "W"]
    del m.graph.initializer[:]
    m.graph.initializer.extend(keep)
    add("missing_initializer", m, "1", "'W'")
    m = base_model()
    node(m, "conv").input[2] = "nowhere"
    add("dangling_input", m, "1", "nowhere")
    m = base_model()
    m.graph.output[0].name = "no_such_output"
    add("dangling_output", m, "1", "no_such_output")
    m = base_model()
    node(m, "quant_in").input[1] = ""		# a required input left empty
    add("empty_required_input", m, "1")

    # the weights of a QLinearConv as a graph input nobody binds: not a
    # constant
    m = qconv_model()
    onnx.checker.check_model(m)
    add("qlinearconv_valid", m, "0")
    m = qconv_model()
    keep = [t for t in m.graph.initializer if t.name != "w"]
    del m.graph.initializer[:]
    m.graph.initializer.extend(keep)
    m.graph.input.extend([helper.make_tensor_value_info(
        "w", TensorProto.INT8, [3, 2, 3, 3])])
    add("weights_not_constant", m, "3", "constant|weight")

    # attributes and constants out of range: refused or malformed, and
    # the message names the node
    for name, attrs in (("strides_zero", dict(strides=[0, 0])),
                        ("strides_huge", dict(strides=[1 << 40, 1])),
                        ("kernel_zero", dict(kernel_shape=[0, 0])),
                        ("kernel_mismatch", dict(kernel_shape=[5, 5])),
                        ("pads_negative", dict(pads=[-1, -1, -1, -1])),
                        ("pads_huge", dict(pads=[1 << 62, 1, 1, 1])),
                        ("dilations_zero", dict(dilations=[0, 0])),
                        ("group_zero", dict(group=0)),
                        ("group_negative", dict(group=-2))):
        add("qconv_" + name, qconv_model(**attrs), "1|3", "'qconv'")
    for name, tensor, value in (
            ("scale_zero", "x_scale", np.array(0.0, np.float32)),
            ("scale_nan", "y_scale", np.array(np.nan, np.float32)),
            ("scale_negative", "y_scale", np.array(-1, np.float32)),
            ("requant_huge", "y_scale", np.array(1e-30, np.float32)),
            ("w_scale_count", "w_scale", np.ones(7, np.float32)),
            ("w_3d", "w", np.ones((3, 2, 3), np.int8)),
            ("zp_vector", "x_zp", np.array([1, 2], np.uint8))):
        m = qconv_model()
        init(m, tensor).CopyFrom(numpy_helper.from_array(value, tensor))
        add("qconv_" + name, m, "1|3", "'qconv'")
    # a requantization factor below 2^-32 is {0, 0}: valid, outputs the
    # zero point
    m = qconv_model()
    init(m, "w_scale").CopyFrom(numpy_helper.from_array(
        np.array([1e-30, 1, 1], np.float32), "w_scale"))
    add("qconv_scale_tiny", m, "0")

    i64 = np.int64
    for name, op, consts, attrs in (
            ("reshape_two_minus_one", "Reshape", [[-1, -1]], {}),
            ("reshape_huge", "Reshape", [[1 << 40, 1 << 40]], {}),
            ("reshape_zeros_6d", "Reshape", [[0] * 6], {}),
            ("reshape_negative", "Reshape", [[-7, 32]], {}),
            ("transpose_duplicate", "Transpose", [], dict(perm=[0, 0, 1, 2])),
            ("transpose_range", "Transpose", [], dict(perm=[0, 1, 2, 99])),
            ("transpose_negative", "Transpose", [],
             dict(perm=[0, 1, 2, -1 << 62])),
            ("flatten_axis", "Flatten", [], dict(axis=1 << 40)),
            ("flatten_axis_negative", "Flatten", [], dict(axis=-(1 << 40))),
            ("maxpool_kernel_big", "MaxPool", [], dict(kernel_shape=[9, 9])),
            ("maxpool_kernel_negative", "MaxPool", [],
             dict(kernel_shape=[-3, 2])),
            ("maxpool_strides_zero", "MaxPool", [],
             dict(kernel_shape=[2, 2], strides=[0, 0])),
            ("slice_huge", "Slice", [[-(1 << 62)], [1 << 62], [1 << 62]], {}),
            ("slice_step_zero", "Slice", [[0], [2], [1], [0]], {}),
            ("slice_step_min", "Slice", [[0], [2], [1], [-(1 << 63)]], {}),
            ("pad_huge", "Pad", [[0, 0, 1 << 40, 0, 0, 0, 1 << 40, 0]], {}),
            ("pad_negative", "Pad", [[0, 0, -9, 0, 0, 0, -9, 0]], {}),
            ("pad_min", "Pad", [[0, 0, -(1 << 63), 0, 0, 0, 0, 0]], {}),
            ("concat_axis", "Concat", None, dict(axis=1 << 40)),
            ("concat_axis_min", "Concat", None, dict(axis=-(1 << 63)))):
        if consts is None:		# Concat of x with itself
            inits, ins = [], ["x"]
        else:
            inits = [numpy_helper.from_array(np.array(c, i64), "c%d" % k)
                     for k, c in enumerate(consts)]
            ins = ["c%d" % k for k in range(len(consts))]
        add(name, u8_model(op, inits, ins, attrs), "1|3", "'n'")
    add("clip_reversed", u8_model("Clip", [
        numpy_helper.from_array(np.array(200, np.uint8), "lo"),
        numpy_helper.from_array(np.array(10, np.uint8), "hi")],
        ["lo", "hi"], {}), "1|3", "'n'")

    # wrong types
    m = base_model()
    t = init(m, "W")
    w = numpy_helper.to_array(t).astype(np.float32)
    t.CopyFrom(numpy_helper.from_array(w, "W"))
    add("float_weights_in_dequantize", m, "1|3")
    m = base_model()
    t = init(m, "x_scale")
    t.CopyFrom(numpy_helper.from_array(np.array(5, np.int32), "x_scale"))
    add("int_scale", m, "1|3")
    m = base_model()
    t = init(m, "W")
    t.data_type = TensorProto.STRING
    add("string_weights", m, "1|3")
    m = base_model()
    t = init(m, "W")
    t.data_type = 999
    add("unknown_element_type", m, "1", "'W'")
    m = base_model(inputs=[helper.make_tensor_value_info(
        "x", TensorProto.STRING, [1, 2, 5, 5])])
    add("string_input", m, "1|3", "string")
    m = base_model()
    c = node(m, "conv")
    del c.attribute[:]
    c.attribute.extend([helper.make_attribute("kernel_shape", [3.0, 3.0]),
                        helper.make_attribute("pads", [1, 1, 1, 1])])
    add("float_kernel_shape", m, "1|3", "kernel_shape")
    m = base_model()
    t = init(m, "W")
    t.raw_data = t.raw_data[:-5]
    add("short_raw_data", m, "1", "'W'")
    m = base_model()
    t = init(m, "B")
    t.raw_data = t.raw_data + b"\0" * 4
    add("long_raw_data", m, "1", "'B'")

    # names are data: a message quotes them on one line, whatever they hold
    m = base_model()
    m.graph.output[0].name = "out\nput\x01\x1b[2J"
    add("control_chars_in_name", m, "1")

    # subgraphs nested 50000 deep (1.6 MB): parsing them must not recurse
    # on the stack without a bound
    add("deep_nesting", nested_if(50000), "1|3")

    # one tensor, two producers
    m = base_model()
    node(m, "dq_B").output[0] = "Wf"
    node(m, "conv").input[2] = "Wf"
    add("duplicate_producer", m, "1", "Wf")
    m = base_model()
    node(m, "conv").op_type = ""
    add("empty_op_type", m, "1|3")
    m = base_model()
    del m.graph.node[:]
    add("no_nodes", m, "1|3")
    m = base_model()
    m.ClearField("graph")
    add("no_graph", m, "1")

    # more operators than a program holds: a chain of uint8 MaxPools
    n = 5000
    nodes = [helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"],
                              ["t0"], name="q")]
    for i in range(n):
        nodes.append(helper.make_node("MaxPool", ["t%d" % i], ["t%d" % (i + 1)],
                                      name="pool%d" % i, kernel_shape=[1, 1]))
    nodes.append(helper.make_node("DequantizeLinear",
                                  ["t%d" % n, "x_scale", "x_zp"], ["y"],
                                  name="dq"))
    m = base_model(nodes=nodes, outputs=[helper.make_tensor_value_info(
        "y", TensorProto.FLOAT, [1, 2, 5, 5])],
        inits=[numpy_helper.from_array(np.array(0.05, np.float32), "x_scale"),
               numpy_helper.from_array(np.array(128, np.uint8), "x_zp")])
    add("too_many_nodes", m, "1", "more than|too many|limit")

    with open(os.path.join(out, "expect.txt"), "w") as f:
        f.write("\n".join(cases) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
