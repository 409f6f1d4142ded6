#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""mg2onnx.py - our generated networks, exported to ONNX.

Reads the parameters dump of ``npu-model-gen --params-out DIR NETWORK``
(DIR/params.json and the raw weight and bias files it names; see
Documentation/npu/model.rst, "Parameters dump") and writes the same network
as an int8 ONNX model, with Debian's python3-onnx, in one of the two forms
that exporters produce:

``qop`` (QOperator)
    QuantizeLinear at the input; QLinearConv per conv2d/dwconv2d layer,
    followed by a Clip on uint8 when the layer's act_min/act_max are
    narrower than what the output's uint8 range implies; MaxPool on uint8;
    DequantizeLinear -> (Global)AveragePool -> QuantizeLinear for avgpool
    (the standard domain has no QLinear pool); Reshape or Flatten on uint8;
    DequantizeLinear -> Gemm -> QuantizeLinear for fc (QLinearMatMul has no
    bias input); DequantizeLinear at the output.
``qdq`` (QDQ)
    QuantizeLinear at the input; every conv2d, dwconv2d, fc and pool as
    DequantizeLinear (activation, int8 weights per output channel, int32
    bias with scale s_x * s_w[c]) -> Conv/Gemm/pool -> Relu or Clip (when
    the layer has an activation) -> QuantizeLinear; Reshape or Flatten on
    uint8; DequantizeLinear at the output.

Layouts are ONNX's: NCHW activations (the graph input is [N, C, H, W]),
OIHW weights ([C, 1, H, W] for depthwise, group = C). A reshape of
[N, H, W, C] to [N, H*W*C] with H*W > 1 becomes a Flatten of the NCHW
tensor, and the next fc layer's weight columns are permuted so that the
network computes the same function. Node names are the layer names of the
dump; the helper nodes around a layer are named LAYER/what. Every model
passes onnx.checker.check_model (full_check).

Usage: mg2onnx.py [--form qop|qdq] -o OUT.onnx PARAMS_DIR
"""

import argparse
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13

DTYPES = {"int8": np.int8, "int32": np.int32, "uint8": np.uint8}


class Error(Exception):
    pass


def f32(v):
    return np.float32(v)


def load_tensor(pdir, desc, what):
    """A raw little-endian array named by a weights/bias descriptor."""
    dt = DTYPES.get(desc.get("dtype"))
    if dt is None:
        raise Error("%s: unknown dtype %r" % (what, desc.get("dtype")))
    shape = [int(d) for d in desc["shape"]]
    path = os.path.join(pdir, desc["file"])
    data = np.fromfile(path, dtype=np.dtype(dt).newbyteorder("<"))
    if data.size != int(np.prod(shape)):
        raise Error("%s: %s holds %d elements, shape %s needs %d" %
                    (what, path, data.size, shape, int(np.prod(shape))))
    return data.astype(dt).reshape(shape)


def pair(v):
    """kernel/stride: an int or [h, w]."""
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return [int(v[0]), int(v[0])]
        return [int(v[0]), int(v[1])]
    return [int(v), int(v)]


class Builder:
    def __init__(self, params, pdir, form):
        self.p = params
        self.pdir = pdir
        self.form = form
        self.nodes = []
        self.inits = []
        self.names = set()	# values and initializers
        self.nnames = set()	# nodes: a namespace of their own
        # ONNX name of the uint8 tensor holding each dump tensor, and its
        # NHWC shape, scale and zero point
        self.u8 = {}
        # column permutation the next fc applies (after a Flatten)
        self.perm = None

    # -- helpers ---------------------------------------------------------

    @staticmethod
    def uniq_in(names, name):
        n, i = name, 1
        while n in names:
            i += 1
            n = "%s_%d" % (name, i)
        names.add(n)
        return n

    def uniq(self, name):
        return self.uniq_in(self.names, name)

    def const(self, name, arr):
        name = self.uniq(name)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(arr),
                                                  name))
        return name

    def scalar_q(self, base, scale, zp):
        s = self.const(base + "_scale", np.array(f32(scale), dtype=np.float32))
        z = self.const(base + "_zero_point", np.array(zp, dtype=np.uint8))
        return s, z

    def node(self, op, inputs, outputs, name, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs,
                                           name=self.uniq_in(self.nnames, name),
                                           **attrs))

    def value(self, base):
        return self.uniq(base)

    def dq(self, src, scale, zp, name):
        """DequantizeLinear of a uint8 activation."""
        s, z = self.scalar_q(name, scale, zp)
        out = self.value(name + "_out")
        self.node("DequantizeLinear", [src, s, z], [out], name)
        return out

    def q(self, src, scale, zp, out, name):
        s, z = self.scalar_q(name, scale, zp)
        self.node("QuantizeLinear", [src, s, z], [out], name)
        return out

    # -- layers ------------------------------------------------------------

    def act_bounds(self, L):
        """(min, max) of the uint8 clamp the output's range does not imply,
        or None."""
        lo, hi = int(L.get("act_min", 0)), int(L.get("act_max", 255))
        if lo <= 0 and hi >= 255:
            return None
        return lo, hi

    def weights(self, L, x_scale):
        """OIHW int8 weights, their per-channel scales and the bias."""
        W = L["weights"]
        w = load_tensor(self.pdir, W, L["name"] + " weights")
        if int(W.get("zero_point", 0)) != 0:
            raise Error("%s: weights zero point %s: symmetric int8 expected" %
                        (L["name"], W.get("zero_point")))
        if L["op"] == "conv2d":			# OHWI -> OIHW
            w = w.transpose(0, 3, 1, 2)
        elif L["op"] == "dwconv2d":		# 1HWC -> C1HW
            w = w.transpose(3, 0, 1, 2)
        elif L["op"] == "fc":			# NK
            if self.perm is not None:
                if w.shape[1] != self.perm.size:
                    raise Error("%s: %d weight columns after a flatten of %d" %
                                (L["name"], w.shape[1], self.perm.size))
                w = w[:, self.perm]
        sw = np.array([f32(s) for s in W["scales"]], dtype=np.float32)
        if sw.size == 1:
            sw = np.full(w.shape[0], sw[0], dtype=np.float32)
        if sw.size != w.shape[0]:
            raise Error("%s: %d scales for %d output channels" %
                        (L["name"], sw.size, w.shape[0]))
        b = None
        if L.get("bias"):
            b = load_tensor(self.pdir, L["bias"], L["name"] + " bias")
            b = b.reshape(-1).astype(np.int32)
        # the bias scale exporters write: s_x * s_w[c] in float32
        sb = (np.float32(x_scale) * sw).astype(np.float32)
        return np.ascontiguousarray(w), sw, b, sb

    def layer_in(self, L):
        src = L["input"]
        if src not in self.u8:
            raise Error("%s: input %r is not produced by an earlier layer" %
                        (L["name"], src))
        return src, self.u8[src]

    def set_out(self, L, name):
        o = L["out"]
        self.u8[L["output"]] = (name, [int(d) for d in o["shape"]],
                                f32(o["scale"]), int(o["zero_point"]))

    def conv_attrs(self, L, w):
        t, l, b, r = [int(v) for v in L.get("pads", [0, 0, 0, 0])]
        a = dict(kernel_shape=[int(w.shape[2]), int(w.shape[3])],
                 strides=pair(L.get("stride", 1)), pads=[t, l, b, r])
        if L["op"] == "dwconv2d":
            a["group"] = int(w.shape[0])
        return a

    def conv_qop(self, L):
        src, (x, _, xs, xz) = self.layer_in(L)
        o = L["out"]
        ys, yz = f32(o["scale"]), int(o["zero_point"])
        w, sw, b, _ = self.weights(L, xs)
        n = L["name"]
        xsn, xzn = self.scalar_q(n + "/x", xs, xz)
        ysn, yzn = self.scalar_q(n + "/y", ys, yz)
        ins = [x, xsn, xzn, self.const(n + "/W", w),
               self.const(n + "/W_scale", sw),
               self.const(n + "/W_zero_point",
                          np.zeros(w.shape[0], dtype=np.int8)), ysn, yzn]
        if b is not None:
            ins.append(self.const(n + "/B", b))
        bounds = self.act_bounds(L)
        y = self.value(L["output"] if bounds is None else n + "/conv_out")
        self.node("QLinearConv", ins, [y], n, **self.conv_attrs(L, w))
        if bounds is not None:
            out = self.value(L["output"])
            self.node("Clip", [y, self.const(n + "/clip_min",
                                             np.array(bounds[0], np.uint8)),
                               self.const(n + "/clip_max",
                                          np.array(bounds[1], np.uint8))],
                      [out], n + "/clip")
            y = out
        self.set_out(L, y)

    def float_act(self, L, y, ys, yz):
        """Relu or Clip in float before the QuantizeLinear of a QDQ layer."""
        act = L.get("act", "none")
        if act == "none":
            return y
        n = L["name"]
        lo, hi = int(L.get("act_min", yz)), int(L.get("act_max", 255))
        out = self.value(n + "/act_out")
        if act == "relu" and lo <= yz and hi >= 255:
            self.node("Relu", [y], [out], n + "/relu")
            return out
        # the real values of the uint8 clamp, so Q maps them back exactly
        fmin = (np.float32(lo - yz) * ys).astype(np.float32)
        fmax = (np.float32(hi - yz) * ys).astype(np.float32)
        if act == "relu6" and hi >= 255:
            fmax = np.float32(6.0)
        self.node("Clip", [y, self.const(n + "/clip_min", np.array(fmin)),
                           self.const(n + "/clip_max", np.array(fmax))],
                  [out], n + "/clip")
        return out

    def conv_qdq(self, L):
        src, (x, _, xs, xz) = self.layer_in(L)
        o = L["out"]
        ys, yz = f32(o["scale"]), int(o["zero_point"])
        w, sw, b, sb = self.weights(L, xs)
        n = L["name"]
        xf = self.dq(x, xs, xz, n + "/dq_x")
        wf = self.value(n + "/W_dq")
        self.node("DequantizeLinear",
                  [self.const(n + "/W", w), self.const(n + "/W_scale", sw),
                   self.const(n + "/W_zero_point",
                              np.zeros(w.shape[0], dtype=np.int8))],
                  [wf], n + "/dq_W", axis=0)
        ins = [xf, wf]
        if b is not None:
            bf = self.value(n + "/B_dq")
            self.node("DequantizeLinear",
                      [self.const(n + "/B", b), self.const(n + "/B_scale", sb),
                       self.const(n + "/B_zero_point",
                                  np.zeros(b.size, dtype=np.int32))],
                      [bf], n + "/dq_B", axis=0)
            ins.append(bf)
        y = self.value(n + "/conv_out")
        if L["op"] == "fc":
            self.node("Gemm", ins, [y], n, transB=1)
        else:
            self.node("Conv", ins, [y], n, **self.conv_attrs(L, w))
        y = self.float_act(L, y, ys, yz)
        out = self.value(L["output"])
        self.q(y, ys, yz, out, n + "/q_y")
        self.set_out(L, out)

    def pool(self, L):
        src, (x, shape, xs, xz) = self.layer_in(L)
        o = L["out"]
        ys, yz = f32(o["scale"]), int(o["zero_point"])
        n = L["name"]
        k, s = pair(L["kernel"]), pair(L.get("stride", L["kernel"]))
        pads = [int(v) for v in L.get("pads", [0, 0, 0, 0])]
        glob = (len(shape) == 4 and k == [shape[1], shape[2]] and
                not any(pads))
        avg = L["op"] == "avgpool"
        if not avg and self.form == "qop":
            out = self.value(L["output"])
            self.node("MaxPool", [x], [out], n, kernel_shape=k, strides=s,
                      pads=pads)
            self.set_out(L, out)
            return
        xf = self.dq(x, xs, xz, n + "/dq_x")
        y = self.value(n + "/pool_out")
        if avg and glob:
            self.node("GlobalAveragePool", [xf], [y], n)
        else:
            self.node("AveragePool" if avg else "MaxPool", [xf], [y], n,
                      kernel_shape=k, strides=s, pads=pads)
        out = self.value(L["output"])
        self.q(y, ys, yz, out, n + "/q_y")
        self.set_out(L, out)

    def reshape(self, L):
        src, (x, shape, xs, xz) = self.layer_in(L)
        oshape = [int(d) for d in L["out"]["shape"]]
        n = L["name"]
        out = self.value(L["output"])
        if len(shape) == 4 and shape[1] * shape[2] > 1 and shape[3] > 1:
            if len(oshape) != 2 or oshape[1] != shape[1] * shape[2] * shape[3]:
                raise Error("%s: reshape %s -> %s: only a flatten to 2-D "
                            "can be exported" % (n, shape, oshape))
            N, H, W, C = shape
            # NCHW Flatten position c*H*W + h*W + w holds NHWC element
            # (h*W + w)*C + c
            c, h, w = np.meshgrid(np.arange(C), np.arange(H), np.arange(W),
                                  indexing="ij")
            self.perm = ((h * W + w) * C + c).reshape(-1)
            self.node("Flatten", [x], [out], n, axis=1)
        else:
            self.perm = None
            sh = self.const(n + "/shape", np.array(oshape, dtype=np.int64))
            self.node("Reshape", [x, sh], [out], n)
        self.set_out(L, out)

    def fc(self, L):
        # QLinearMatMul has no bias: a QDQ Gemm in both forms
        self.conv_qdq(L)
        self.perm = None

    # -- the graph -----------------------------------------------------------

    def build(self):
        p = self.p
        I, O = p["input"], p["output"]
        ishape = [int(d) for d in I["shape"]]
        if len(ishape) == 4:
            onnx_in = [ishape[0], ishape[3], ishape[1], ishape[2]]
        else:
            onnx_in = ishape
        in_name = self.uniq(I["name"])
        out_name = self.uniq(O["name"])
        xq = self.value(I["name"] + "_quant")
        self.q(in_name, f32(I["scale"]), int(I["zero_point"]), xq,
               "input/quantize")
        self.u8[I["name"]] = (xq, ishape, f32(I["scale"]),
                              int(I["zero_point"]))
        for L in p["layers"]:
            op = L.get("op")
            if op in ("conv2d", "dwconv2d"):
                if self.form == "qop":
                    self.conv_qop(L)
                else:
                    self.conv_qdq(L)
            elif op in ("maxpool", "avgpool"):
                self.pool(L)
            elif op == "reshape":
                self.reshape(L)
            elif op == "fc":
                self.fc(L)
            else:
                raise Error("layer %r: unknown op %r" % (L.get("name"), op))
        # the graph output is the tensor of that name, else the last layer's
        last = O["name"] if O["name"] in self.u8 else \
            (p["layers"][-1]["output"] if p["layers"] else None)
        if last not in self.u8:
            raise Error("output %r is not produced by any layer" % O["name"])
        y, oshape, ys, yz = self.u8[last]
        if ys != f32(O["scale"]) or yz != int(O["zero_point"]):
            raise Error("output %r: scale/zero point differ from its layer's" %
                        O["name"])
        s, z = self.scalar_q("output/dequantize", ys, yz)
        self.node("DequantizeLinear", [y, s, z], [out_name],
                  "output/dequantize")
        if len(oshape) == 4:
            oshape = [oshape[0], oshape[3], oshape[1], oshape[2]]
        graph = helper.make_graph(
            self.nodes, "%s-%s" % (p["network"], self.form),
            [helper.make_tensor_value_info(in_name, TensorProto.FLOAT,
                                           onnx_in)],
            [helper.make_tensor_value_info(out_name, TensorProto.FLOAT,
                                           oshape)],
            initializer=self.inits)
        model = helper.make_model(
            graph, producer_name="mg2onnx", producer_version="1",
            opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 7
        model.doc_string = ("npu-model-gen %s, seed %s, %s form" %
                            (p["network"], p.get("seed"), self.form))
        onnx.checker.check_model(model, full_check=True)
        return model


def main():
    ap = argparse.ArgumentParser(
        description="Export an npu-model-gen parameters dump to ONNX.")
    ap.add_argument("--form", choices=("qop", "qdq"), default="qop",
                    help="QOperator (default) or QDQ")
    ap.add_argument("-o", "--output", required=True, help="ONNX file")
    ap.add_argument("params", help="directory of params.json")
    a = ap.parse_args()
    try:
        with open(os.path.join(a.params, "params.json")) as f:
            params = json.load(f)
        model = Builder(params, a.params, a.form).build()
    except (OSError, ValueError, KeyError, TypeError, Error,
            onnx.checker.ValidationError) as e:
        print("mg2onnx: %s: %s" % (a.params, e), file=sys.stderr)
        return 1
    tmp = a.output + ".tmp"
    onnx.save(model, tmp)
    os.replace(tmp, a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
