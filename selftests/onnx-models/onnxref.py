#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""onnxref.py - run an exported network by the ONNX specification, in numpy.

An independent reading of the ONNX files mg2onnx.py writes: every node is
evaluated as the ONNX operator specification defines it, in float32 with
numpy (QuantizeLinear rounds half to even and saturates, DequantizeLinear
is (q - zero_point) * scale, Conv, Gemm, the pools, Relu, Clip, Flatten,
Reshape, QLinearConv as its DequantizeLinear/Conv/QuantizeLinear
definition), with no knowledge of the NPU or of our importer. The round
trip compares its output with the NPU's (the generated model on
lib/npuref): they agree up to the rounding of the integer requantization,
so a layout mistake of the export (a transposed weight, a flatten in the
wrong order) shows as a large difference even where our importer, which
reads the same file, would agree with it.

Usage: onnxref.py MODEL.onnx INPUT.u8 OUTPUT.u8
    INPUT.u8: the quantized input, NHWC (as npu-model-gen's model takes
    it); OUTPUT.u8: the NPU's quantized output. Prints one line,
    "max_lsb N differing M of T", the largest difference and the number
    of differing elements, in steps of the output's scale.
"""

import sys

import numpy as np
import onnx
from onnx import numpy_helper


def attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def bshape(v, x, axis):
    """A per-axis parameter shaped to broadcast over x along axis."""
    v = np.asarray(v)
    if v.ndim == 0 or v.size == 1:
        return v.reshape(())
    s = [1] * x.ndim
    s[axis] = v.size
    return v.reshape(s)


def quantize(x, s, z, axis=1):
    zt = np.asarray(z).dtype
    info = np.iinfo(zt)
    q = np.rint(x / bshape(s, x, axis)) + bshape(z, x, axis).astype(np.float32)
    return np.clip(q, info.min, info.max).astype(zt)


def dequantize(q, s, z, axis=1):
    return ((q.astype(np.int64) - bshape(z, q, axis).astype(np.int64))
            .astype(np.float32) * bshape(s, q, axis)).astype(np.float32)


def pad_nchw(x, pads, value=0.0):
    t, l, b, r = pads
    return np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)),
                  constant_values=value)


def windows(x, kh, kw, sh, sw):
    """[N, C, OH, OW, kh, kw] view of x."""
    n, c, h, w = x.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    st = x.strides
    return np.lib.stride_tricks.as_strided(
        x, (n, c, oh, ow, kh, kw),
        (st[0], st[1], st[2] * sh, st[3] * sw, st[2], st[3]))


def conv(x, w, b, node):
    k = attr(node, "kernel_shape", list(w.shape[2:]))
    s = attr(node, "strides", [1, 1])
    p = attr(node, "pads", [0, 0, 0, 0])
    g = attr(node, "group", 1)
    xp = pad_nchw(x, [p[0], p[1], p[2], p[3]])
    win = windows(np.ascontiguousarray(xp), k[0], k[1], s[0], s[1])
    cin = x.shape[1] // g
    cout = w.shape[0] // g
    outs = []
    for gi in range(g):
        wg = w[gi * cout:(gi + 1) * cout].astype(np.float64)
        xg = win[:, gi * cin:(gi + 1) * cin].astype(np.float64)
        outs.append(np.einsum("nchwij,ocij->nohw", xg, wg))
    y = np.concatenate(outs, axis=1)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def pool(x, node, avg):
    k = attr(node, "kernel_shape")
    s = attr(node, "strides", [1, 1])
    p = attr(node, "pads", [0, 0, 0, 0])
    if any(p):
        raise ValueError("pools with pads are not exported")
    win = windows(np.ascontiguousarray(x), k[0], k[1], s[0], s[1])
    return (win.mean(axis=(4, 5), dtype=np.float64).astype(np.float32)
            if avg else win.max(axis=(4, 5)))


def run(model, x):
    g = model.graph
    env = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    env[g.input[0].name] = x
    for n in g.node:
        i = [env[v] if v else None for v in n.input]
        op = n.op_type
        if op == "QuantizeLinear":
            y = quantize(i[0], i[1], i[2], attr(n, "axis", 1))
        elif op == "DequantizeLinear":
            y = dequantize(i[0], i[1], i[2], attr(n, "axis", 1))
        elif op == "Conv":
            y = conv(i[0], i[1], i[2] if len(i) > 2 else None, n)
        elif op == "QLinearConv":
            xf = dequantize(i[0], i[1], i[2])
            wf = dequantize(i[3], i[4], i[5], 0)
            # B: int32 with scale x_scale * w_scale, zero point 0
            bf = (i[8].astype(np.float32) * (i[1] * i[4]).astype(np.float32)
                  if len(i) > 8 else None)
            y = quantize(conv(xf, wf, bf, n), i[6], i[7])
        elif op == "Gemm":
            a, b = i[0].astype(np.float64), i[1].astype(np.float64)
            if attr(n, "transA", 0):
                a = a.T
            if attr(n, "transB", 0):
                b = b.T
            y = a @ b
            if len(i) > 2 and i[2] is not None:
                y = y + i[2]
            y = y.astype(np.float32)
        elif op == "Relu":
            y = np.maximum(i[0], 0).astype(i[0].dtype)
        elif op == "Clip":
            y = np.clip(i[0], i[1], i[2]).astype(i[0].dtype)
        elif op == "MaxPool":
            y = pool(i[0], n, False)
        elif op == "AveragePool":
            y = pool(i[0], n, True)
        elif op == "GlobalAveragePool":
            y = i[0].mean(axis=(2, 3), keepdims=True,
                          dtype=np.float64).astype(np.float32)
        elif op == "Flatten":
            a = attr(n, "axis", 1)
            y = i[0].reshape(int(np.prod(i[0].shape[:a])), -1)
        elif op == "Reshape":
            y = i[0].reshape([int(d) for d in i[1]])
        else:
            raise ValueError("node %r: %s is not evaluated here" %
                             (n.name, op))
        env[n.output[0]] = y
    return env[g.output[0].name]


def main():
    model = onnx.load(sys.argv[1])
    g = model.graph
    dims = [d.dim_value for d in g.input[0].type.tensor_type.shape.dim]
    q = np.fromfile(sys.argv[2], dtype=np.uint8)
    want = np.fromfile(sys.argv[3], dtype=np.uint8)
    # the input's and output's quantization: the edges' Q and DQ
    qin = next(n for n in g.node if n.op_type == "QuantizeLinear" and
               n.input[0] == g.input[0].name)
    dqo = next(n for n in g.node if n.op_type == "DequantizeLinear" and
               n.output[0] == g.output[0].name)
    init = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    si, zi = init[qin.input[1]], init[qin.input[2]]
    so, zo = init[dqo.input[1]], init[dqo.input[2]]
    if len(dims) == 4:		# NHWC bytes -> NCHW
        n, c, h, w = dims
        q = q.reshape(n, h, w, c).transpose(0, 3, 1, 2)
    x = dequantize(np.ascontiguousarray(q.reshape(dims)), si, zi)
    y = run(model, x)
    # back to the quantized domain of the output
    yq = np.rint(y / so).astype(np.int64) + int(zo)
    d = np.abs(yq.reshape(-1) - want.astype(np.int64))
    print("max_lsb %d differing %d of %d" % (d.max(), (d > 0).sum(), d.size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
