#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Generate the ONNX models of the npu-onnx tests and their expected outputs.

gen_cases.py OUTDIR writes, for every case, OUTDIR/NAME.onnx and a line of
OUTDIR/cases.txt that test_onnx_compile reads:

  ok NAME                      compiles; NAME.inK.bin are the uint8 bytes
                               the device reads for model input K (plain,
                               ONNX dims), NAME.outK.bin the bytes output K
                               must hold after the run, bit for bit
  io NAME in|out K SCALE ZP    the model I/O's scale and zero point
  layers NAME N|T N|T ...      the layer table: per device operator, its
                               node name and op type, in order
  err NAME ERRNO TEXT          onnx_import() fails with -ERRNO and a
                               message containing TEXT

Expected values are computed here with numpy, independently of the
importer: data movement, max pooling and clamps exactly as numpy does
them; convolutions, matrix products, Add and average pooling with the
integer arithmetic of Documentation/npu/program.rst written out again in
Python (TFLite's QuantizeMultiplier, SRDHM, rounding divide by a power of
two), from the ONNX model's float scales. Exit status 4 when python3-onnx
is missing (the test then skips).
"""
import math
import os
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError:
    sys.exit(4)

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
LINES = []
RNG = np.random.default_rng(24)
EINVAL, E2BIG, EOPNOTSUPP = 22, 7, 95

# ---- the integer arithmetic of program.rst, again ----


def quantize_multiplier(real):
    """TFLite's QuantizeMultiplier: real ~= m * 2^(shift - 31)."""
    if real == 0:
        return 0, 0
    q, shift = math.frexp(real)
    qf = int(math.floor(abs(q) * (1 << 31) + 0.5))
    if qf == 1 << 31:
        qf //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    assert shift <= 30
    return qf, shift


def srdhm(a, b):
    if a == b == -(1 << 31):
        return (1 << 31) - 1
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    v = ab + nudge
    q = abs(v) >> 31
    return q if v >= 0 else -q


def rdivpot(x, e):
    mask = (1 << e) - 1
    rem = x & mask
    thr = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if rem > thr else 0)


def sat32(v):
    return max(-(1 << 31), min((1 << 31) - 1, v))


def requant(x, m, s):
    left, right = max(s, 0), max(-s, 0)
    return rdivpot(srdhm(sat32(x * (1 << left)), m), right)


def rq_vec(acc, m, s):
    f = np.vectorize(lambda a, mm, ss: requant(int(a), int(mm), int(ss)),
                     otypes=[np.int64])
    return f(acc, m, s)


def add_ref(a, za, sa, b, zb, sb, sy):
    """ADD's sum before the output zero point, TFLite's three factors"""
    twice = 2 * max(np.float64(np.float32(sa)), np.float64(np.float32(sb)))
    r0 = quantize_multiplier(np.float64(np.float32(sa)) / twice)
    r1 = quantize_multiplier(np.float64(np.float32(sb)) / twice)
    r2 = quantize_multiplier(twice / ((1 << 20) * np.float64(np.float32(sy))))
    f = np.vectorize(lambda x0, x1: requant(
        requant((int(x0) - za) << 20, *r0) + requant((int(x1) - zb) << 20, *r1), *r2),
        otypes=[np.int64])
    return f(a, b)


def out_u8(zy, r, lo=0, hi=255):
    return np.clip(np.clip(zy + r, 0, 255), lo, hi).astype(np.uint8)


def qclamp(v, s, zp, inf):
    if math.isinf(v):
        return inf
    q = zp + int(np.rint(np.float32(v) / np.float32(s)))
    return max(0, min(255, q))


def f32(v):
    return float(np.float32(v))

# ---- building models ----


def tensor(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def topo(nodes, known):
    """nodes in an order ONNX accepts (each after its inputs' producers)"""
    known, out, left = set(known) | {""}, [], list(nodes)
    while left:
        for n in left:
            if all(i in known for i in n.input):
                out.append(n)
                known.update(n.output)
                left.remove(n)
                break
        else:
            return nodes
    return out


def save(name, nodes, inputs, outputs, inits=(), check=True, opset=13,
         gname=None):
    if check:
        nodes = topo(nodes, [i.name for i in inputs] + [t.name for t in inits])
    g = helper.make_graph(nodes, name if gname is None else gname, inputs, outputs,
                          list(inits))
    ops = [helper.make_opsetid("", opset)]
    if any(n.domain == "com.microsoft" for n in nodes):
        ops.append(helper.make_opsetid("com.microsoft", 1))
    m = helper.make_model(g, opset_imports=ops)
    m.ir_version = 8
    if check:
        # the outputs' shapes, as ONNX infers them (the checker wants them)
        inf = onnx.shape_inference.infer_shapes(m)
        for o, io in zip(m.graph.output, inf.graph.output):
            if not o.type.tensor_type.HasField("shape"):
                o.type.CopyFrom(io.type)
        try:
            onnx.checker.check_model(m, full_check=True)
        except Exception:
            print(name, m.graph.output, file=sys.stderr)
            raise
    with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
        f.write(m.SerializeToString())
    return m


def ok(name, ins, outs, layers=None, io=()):
    LINES.append("ok %s" % name)
    for k, a in enumerate(ins):
        np.ascontiguousarray(a, dtype=np.uint8).tofile(
            os.path.join(OUT, "%s.in%d.bin" % (name, k)))
    for k, a in enumerate(outs):
        np.ascontiguousarray(a, dtype=np.uint8).tofile(
            os.path.join(OUT, "%s.out%d.bin" % (name, k)))
    for d, k, s, z in io:
        LINES.append("io %s %s %d %.9g %d" % (name, d, k, s, z))
    if layers is not None:
        LINES.append("layers %s %s" % (name, " ".join(
            "%s|%s" % l for l in layers)))


def err(name, errno, text):
    LINES.append("err %s %d %s" % (name, errno, text))


def q_in(name, s, z, shape, qname=None):
    """a float graph input and its QuantizeLinear -> name_q"""
    return ([helper.make_node("QuantizeLinear", [name, name + "_s", name + "_z"],
                              [name + "_q"], name=qname or ("q_" + name))],
            [tensor(name + "_s", np.float32(s)), tensor(name + "_z", np.uint8(z))])


def dq(src, dst, s, z, nname=None, zdt=np.uint8):
    """DequantizeLinear src -> dst with its constants"""
    return ([helper.make_node("DequantizeLinear", [src, dst + "_s", dst + "_z"],
                              [dst], name=nname or ("dq_" + dst))],
            [tensor(dst + "_s", np.float32(s)), tensor(dst + "_z", zdt(z))])


def qn(src, dst, s, z, nname=None):
    return ([helper.make_node("QuantizeLinear", [src, dst + "_s", dst + "_z"],
                              [dst], name=nname or ("q_" + dst))],
            [tensor(dst + "_s", np.float32(s)), tensor(dst + "_z", np.uint8(z))])


def join(*parts):
    nodes, inits = [], []
    for n, i in parts:
        nodes += n
        inits += i
    return nodes, inits


def u8(shape):
    return RNG.integers(0, 256, size=shape, dtype=np.uint8)


def i8(shape):
    return RNG.integers(-127, 128, size=shape, dtype=np.int8)

# ---- reference operators (NCHW, integers) ----


def conv_ref(x, zx, w, zw, b, pads, stride, group):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    pt, pl, pb, pr = pads
    xp = np.full((n, c, h + pt + pb, wd + pl + pr), zx, dtype=np.int64)
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    xp -= zx
    oh = (h + pt + pb - kh) // stride + 1
    ow = (wd + pl + pr - kw) // stride + 1
    acc = np.zeros((n, m, oh, ow), dtype=np.int64)
    wz = w.astype(np.int64) - zw
    for co in range(m):
        cin = range(c) if group == 1 else [co]
        for i in range(oh):
            for j in range(ow):
                win = xp[:, list(cin), i * stride:i * stride + kh,
                         j * stride:j * stride + kw]
                wk = wz[co] if group == 1 else wz[co, :1]
                acc[:, co, i, j] = (win * wk).sum(axis=(1, 2, 3))
    if b is not None:
        acc += b.astype(np.int64).reshape(1, m, 1, 1)
    return acc


def requant_ch(acc, sx, sw, sy, axis):
    """requantize acc per channel along axis (TFLite pairs from floats)"""
    pairs = [quantize_multiplier(float(np.float64(np.float32(sx)) *
                                       np.float64(np.float32(s)) /
                                       np.float64(np.float32(sy))))
             for s in np.atleast_1d(sw)]
    m = np.array([p[0] for p in pairs], dtype=np.int64)
    s = np.array([p[1] for p in pairs], dtype=np.int64)
    shape = [1] * acc.ndim
    shape[axis] = len(pairs)
    if len(pairs) == 1:
        shape = [1] * acc.ndim
    return rq_vec(acc, m.reshape(shape), s.reshape(shape))


def wscales(n):
    return (RNG.uniform(0.002, 0.01, size=n)).astype(np.float32)

# ======================================================================
# QDQ format
# ======================================================================


def qdq_conv(name, cin, cout, hw, k, stride, pads, group=1, act=None,
             auto_pad=None, per_channel=True, dtype_w=np.int8, bias="int"):
    """bias: "int" int32 at scale sx * sw (used as given), "scaled" int32
    at twice that scale (the importer doubles it), "float" a float
    constant (quantized with rint)"""
    sx, zx, sy, zy = 0.02, 128, 0.05, 100
    x = u8((1, cin, hw, hw))
    cg = 1 if group != 1 else cin
    w = i8((cout, cg, k, k))
    sw = wscales(cout) if per_channel else wscales(1)
    b = RNG.integers(-2000, 2000, size=cout, dtype=np.int32)
    attrs = dict(strides=[stride, stride], group=group)
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    else:
        attrs["pads"] = list(pads)
    parts = [q_in("x", sx, zx, [1, cin, hw, hw]),
             dq("x_q", "x_dq", sx, zx)]
    conv = helper.make_node("Conv", ["x_dq", "w_dq", "b_dq"], ["y"],
                            name="conv", **attrs)
    nodes = [conv]
    bsc = np.float32(sx) * sw * (2 if bias == "scaled" else 1)
    inits = [tensor("w", w), tensor("w_s", sw if per_channel else sw[0]),
             tensor("w_z", np.zeros(cout, np.int8) if per_channel else np.int8(0))]
    nodes.append(helper.make_node("DequantizeLinear", ["w", "w_s", "w_z"],
                                  ["w_dq"], name="dq_w", axis=0))
    if bias == "float":
        inits.append(tensor("b_dq", (b * np.float64(np.float32(sx)) *
                                     np.broadcast_to(sw, b.shape).astype(np.float64)
                                     ).astype(np.float32)))
    else:
        inits += [tensor("b", b), tensor("b_s", bsc.astype(np.float32)),
                  tensor("b_z", np.zeros(cout, np.int32))]
        nodes.append(helper.make_node("DequantizeLinear", ["b", "b_s", "b_z"],
                                      ["b_dq"], name="dq_b", axis=0))
    if bias == "scaled":
        b = b * 2
    lo, hi, last = -math.inf, math.inf, "y"
    types = "Conv"
    if act == "relu":
        nodes.append(helper.make_node("Relu", ["y"], ["y_act"], name="relu"))
        lo, last, types = 0, "y_act", "Conv+Relu"
    elif act == "relu_after_q":
        # Conv -> Q -> DQ -> Relu -> Q -> DQ: fused through the pair
        n0, i0 = join(qn("y", "y_q0", sy, zy), dq("y_q0", "y_dq0", sy, zy))
        nodes += n0 + [helper.make_node("Relu", ["y_dq0"], ["y_act"], name="relu")]
        inits += i0
        lo, last, types = 0, "y_act", "Conv+Relu"
    elif act == "clip_attrs":
        # opset 6 Clip: bounds as attributes
        nodes.append(helper.make_node("Clip", ["y"], ["y_act"], name="relu6",
                                      min=0.0, max=6.0))
        lo, hi, last, types = 0, 6, "y_act", "Conv+Clip"
    elif act == "relu6":
        nodes.append(helper.make_node("Clip", ["y", "c_lo", "c_hi"], ["y_act"],
                                      name="relu6"))
        inits += [tensor("c_lo", np.float32(0)), tensor("c_hi", np.float32(6))]
        lo, hi, last, types = 0, 6, "y_act", "Conv+Clip"
    n2, i2 = join(qn(last, "y_q", sy, zy), dq("y_q", "out", sy, zy))
    nodes = parts[0][0] + parts[1][0] + nodes + n2
    inits = parts[0][1] + parts[1][1] + inits + i2
    save(name, nodes, [vi("x", TensorProto.FLOAT, [1, cin, hw, hw])],
         [vi("out", TensorProto.FLOAT, None)], inits, check=act != "clip_attrs")
    # expected
    if auto_pad:
        oh = -(-hw // stride)
        tot = max((oh - 1) * stride + k - hw, 0)
        beg = tot // 2 if auto_pad == "SAME_UPPER" else tot - tot // 2
        pads = (beg, beg, tot - beg, tot - beg)
    acc = conv_ref(x, zx, w, 0, b, pads, stride, group)
    r = requant_ch(acc, sx, sw, sy, 1)
    y = out_u8(zy, r, qclamp(lo, sy, zy, 0), qclamp(hi, sy, zy, 255))
    ok(name, [x], [y], io=[("in", 0, sx, zx), ("out", 0, sy, zy)],
       layers=[("q_x", "QuantizeLinear"), ("conv", types),
               ("dq_out", "DequantizeLinear")])


qdq_conv("qdq_conv_relu", 3, 4, 8, 3, 1, (1, 1, 1, 1), act="relu")
qdq_conv("qdq_conv_q_dq_relu", 3, 4, 6, 3, 1, (1, 1, 1, 1), act="relu_after_q")
qdq_conv("qdq_conv_clip_attrs", 2, 3, 5, 3, 1, (1, 1, 1, 1), act="clip_attrs")
qdq_conv("qdq_conv_same_lower", 3, 2, 5, 2, 1, None, auto_pad="SAME_LOWER")
qdq_conv("qdq_conv_s2_asym", 5, 20, 9, 3, 2, (0, 1, 2, 0))
qdq_conv("qdq_conv_per_tensor_relu6", 2, 3, 6, 1, 1, (0, 0, 0, 0),
         act="relu6", per_channel=False)
qdq_conv("qdq_conv_bias_rescaled", 3, 8, 5, 3, 1, (1, 1, 1, 1), bias="scaled")
qdq_conv("qdq_conv_bias_float", 3, 8, 5, 3, 1, (0, 0, 0, 0), bias="float")
qdq_conv("qdq_dwconv_relu6_same", 17, 17, 7, 3, 2, None, group=17,
         act="relu6", auto_pad="SAME_UPPER")


def qdq_fc(name, k, n, gemm, transb, per_channel, bias, bias_2d=False):
    sx, zx, sy, zy = 0.03, 120, 0.07, 90
    x = u8((2, k))
    wt = i8((n, k))           # [N, K]
    sw = wscales(n) if per_channel else wscales(1)
    b = RNG.integers(-3000, 3000, size=n, dtype=np.int32)
    nodes, inits = join(q_in("x", sx, zx, [2, k]), dq("x_q", "x_dq", sx, zx))
    wstore = wt if (gemm and transb) else wt.T.copy()
    inits += [tensor("w", wstore), tensor("w_s", sw if per_channel else sw[0]),
              tensor("w_z", np.zeros(n, np.int8) if per_channel else np.int8(0))]
    nodes.append(helper.make_node("DequantizeLinear", ["w", "w_s", "w_z"], ["w_dq"],
                                  name="dq_w", axis=0 if (gemm and transb) else 1))
    ins = ["x_dq", "w_dq"]
    if bias:
        bsc = (np.float32(sx) * sw).astype(np.float32)
        if bias_2d:	# Gemm's C as [1, N], per-tensor weights
            inits += [tensor("b", b.reshape(1, n)), tensor("b_s", bsc[0]),
                      tensor("b_z", np.int32(0))]
        else:
            inits += [tensor("b", b), tensor("b_s", bsc),
                      tensor("b_z", np.zeros(n, np.int32))]
        nodes.append(helper.make_node("DequantizeLinear", ["b", "b_s", "b_z"], ["b_dq"],
                                      name="dq_b", axis=0 if not bias_2d else 1))
        ins.append("b_dq")
    if gemm:
        nodes.append(helper.make_node("Gemm", ins, ["y"], name="fc", transB=int(transb)))
    else:
        nodes.append(helper.make_node("MatMul", ins, ["y"], name="fc"))
    n2, i2 = join(qn("y", "y_q", sy, zy), dq("y_q", "out", sy, zy))
    save(name, nodes + n2, [vi("x", TensorProto.FLOAT, [2, k])],
         [vi("out", TensorProto.FLOAT, None)], inits + i2)
    acc = (x.astype(np.int64) - zx) @ wt.astype(np.int64).T
    if bias:
        acc += b
    y = out_u8(zy, requant_ch(acc, sx, sw, sy, 1))
    ok(name, [x], [y], layers=[("fc", "Gemm" if gemm else "MatMul")],
       io=[("in", 0, sx, zx), ("out", 0, sy, zy)])


qdq_fc("qdq_gemm_transb", 40, 10, True, True, True, True)
qdq_fc("qdq_gemm_kn", 33, 7, True, False, False, True)
qdq_fc("qdq_matmul", 16, 8, False, False, True, False)
qdq_fc("qdq_gemm_bias_1xn", 12, 6, True, True, False, True, bias_2d=True)


def qdq_add():
    s0, z0, s1, z1, sy, zy = 0.02, 128, 0.035, 60, 0.04, 30
    shape = [1, 3, 4, 5]
    a, b = u8(shape), u8(shape)
    nodes, inits = join(q_in("a", s0, z0, shape), q_in("b", s1, z1, shape),
                        dq("a_q", "a_dq", s0, z0), dq("b_q", "b_dq", s1, z1),
                        qn("y2", "y_q", sy, zy), dq("y_q", "out", sy, zy))
    nodes[4:4] = [helper.make_node("Add", ["a_dq", "b_dq"], ["y"], name="add"),
                  helper.make_node("Relu", ["y"], ["y2"], name="relu")]
    save("qdq_add_relu", nodes, [vi("a", TensorProto.FLOAT, shape),
                                 vi("b", TensorProto.FLOAT, shape)],
         [vi("out", TensorProto.FLOAT, None)], inits)
    y = out_u8(zy, add_ref(a, z0, s0, b, z1, s1, sy), zy, 255)
    ok("qdq_add_relu", [a, b], [y],
       layers=[("add", "Add+Relu")])


qdq_add()


def qdq_float_weights():
    """float weights behind QuantizeLinear: quantized at compile time"""
    sx, zx, sy, zy = 0.02, 100, 0.04, 128
    x = u8((1, 2, 4, 4))
    wf = RNG.uniform(-0.6, 0.6, size=(3, 2, 3, 3)).astype(np.float32)
    sw = np.float32(0.005)
    wq = np.clip(np.rint(wf / sw), -128, 127).astype(np.int8)
    nodes, inits = join(q_in("x", sx, zx, [1, 2, 4, 4]), dq("x_q", "x_dq", sx, zx),
                        qn("y", "y_q", sy, zy), dq("y_q", "out", sy, zy))
    inits += [tensor("wf", wf), tensor("w_s", sw), tensor("w_z", np.int8(0))]
    nodes += [helper.make_node("QuantizeLinear", ["wf", "w_s", "w_z"], ["w_q"], name="q_w"),
              helper.make_node("DequantizeLinear", ["w_q", "w_s", "w_z"], ["w_dq"],
                               name="dq_w"),
              helper.make_node("Conv", ["x_dq", "w_dq"], ["y"], name="conv",
                               pads=[1, 1, 1, 1])]
    save("qdq_conv_float_weights", nodes, [vi("x", TensorProto.FLOAT, [1, 2, 4, 4])],
         [vi("out", TensorProto.FLOAT, None)], inits)
    acc = conv_ref(x, zx, wq, 0, None, (1, 1, 1, 1), 1, 1)
    ok("qdq_conv_float_weights", [x], [out_u8(zy, requant_ch(acc, sx, sw, sy, 1))])


qdq_float_weights()


def qdq_add_chain(n=70):
    """70 Adds: more device values than the importer's first allocation"""
    sx, zx = 0.01, 128
    x = u8((1, 8))
    nodes, inits = join(q_in("x", sx, zx, [1, 8]))
    inits += [tensor("s", np.float32(sx)), tensor("z", np.uint8(zx))]
    prev = "x_q"
    for i in range(n):
        nodes += [helper.make_node("DequantizeLinear", [prev, "s", "z"], ["a%d" % i],
                                   name="dqa%d" % i),
                  helper.make_node("DequantizeLinear", ["x_q", "s", "z"], ["b%d" % i],
                                   name="dqb%d" % i),
                  helper.make_node("Add", ["a%d" % i, "b%d" % i], ["y%d" % i],
                                   name="add%d" % i),
                  helper.make_node("QuantizeLinear", ["y%d" % i, "s", "z"], ["v%d" % i],
                                   name="q%d" % i)]
        prev = "v%d" % i
    nodes.append(helper.make_node("DequantizeLinear", [prev, "s", "z"], ["out"], name="dq_out"))
    save("qdq_add_chain", nodes, [vi("x", TensorProto.FLOAT, [1, 8])],
         [vi("out", TensorProto.FLOAT, None)], inits)
    v = x
    for _ in range(n):
        v = out_u8(zx, add_ref(v, zx, sx, x, zx, sx, sx))
    ok("qdq_add_chain", [x], [v])


qdq_add_chain()


def qdq_residual():
    """conv a -> conv b -> Add(a, b): a lives across conv b (slot plan)"""
    sx, zx, sa, za, sb, zb, sy, zy = 0.02, 128, 0.03, 10, 0.04, 120, 0.05, 60
    x = u8((1, 4, 5, 5))
    wa, wb = i8((4, 4, 3, 3)), i8((4, 4, 1, 1))
    swa, swb = wscales(4), wscales(4)
    nodes, inits = join(q_in("x", sx, zx, [1, 4, 5, 5]), dq("x_q", "x_dq", sx, zx),
                        qn("a", "a_q", sa, za), dq("a_q", "a_dq", sa, za),
                        dq("a_q", "a_dq2", sa, za),
                        qn("b", "b_q", sb, zb), dq("b_q", "b_dq", sb, zb),
                        qn("y", "y_q", sy, zy), dq("y_q", "out", sy, zy))
    inits += [tensor("wa", wa), tensor("wa_s", swa), tensor("wa_z", np.zeros(4, np.int8)),
              tensor("wb", wb), tensor("wb_s", swb), tensor("wb_z", np.zeros(4, np.int8))]
    nodes += [helper.make_node("DequantizeLinear", ["wa", "wa_s", "wa_z"], ["wa_dq"],
                               name="dq_wa", axis=0),
              helper.make_node("DequantizeLinear", ["wb", "wb_s", "wb_z"], ["wb_dq"],
                               name="dq_wb", axis=0),
              helper.make_node("Conv", ["x_dq", "wa_dq"], ["a"], name="conv_a",
                               pads=[1, 1, 1, 1]),
              helper.make_node("Conv", ["a_dq", "wb_dq"], ["b"], name="conv_b"),
              helper.make_node("Add", ["a_dq2", "b_dq"], ["y"], name="add")]
    save("qdq_residual", nodes, [vi("x", TensorProto.FLOAT, [1, 4, 5, 5])],
         [vi("out", TensorProto.FLOAT, None)], inits)
    a = out_u8(za, requant_ch(conv_ref(x, zx, wa, 0, None, (1, 1, 1, 1), 1, 1),
                              sx, swa, sa, 1))
    b = out_u8(zb, requant_ch(conv_ref(a, za, wb, 0, None, (0, 0, 0, 0), 1, 1),
                              sa, swb, sb, 1))
    ok("qdq_residual", [x], [out_u8(zy, add_ref(a, za, sa, b, zb, sb, sy))],
       layers=[("q_x", "QuantizeLinear"), ("conv_a", "Conv"), ("conv_b", "Conv"),
               ("add", "Add"), ("dq_out", "DequantizeLinear")])


qdq_residual()


def avg_ref(x, zx, k, s, pads, cip=False):
    n, c, h, w = x.shape
    pt, pl, pb, pr = pads
    oh = (h + pt + pb - k) // s + 1
    ow = (w + pl + pr - k) // s + 1
    out = np.zeros((n, c, oh, ow), dtype=np.int64)
    xi = x.astype(np.int64) - zx
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s - pt, j * s - pl
            rs, cs = max(r0, 0), max(c0, 0)
            re, ce = min(r0 + k, h), min(c0 + k, w)
            acc = xi[:, :, rs:re, cs:ce].sum(axis=(2, 3))
            cnt = k * k if cip else (re - rs) * (ce - cs)
            out[:, :, i, j] = np.where(acc >= 0, (acc + cnt // 2) // cnt,
                                       -((-acc + cnt // 2) // cnt))
    return out


def qdq_pools():
    sx, zx = 0.05, 110
    shape = [1, 18, 6, 6]
    x = u8(shape)
    # AveragePool 2x2/2 with the same scale: no requantization
    nodes, inits = join(q_in("x", sx, zx, shape), dq("x_q", "x_dq", sx, zx),
                        qn("y", "y_q", sx, zx), dq("y_q", "out", sx, zx))
    nodes.insert(2, helper.make_node("AveragePool", ["x_dq"], ["y"], name="avg",
                                     kernel_shape=[2, 2], strides=[2, 2]))
    save("qdq_avgpool", nodes, [vi("x", TensorProto.FLOAT, shape)],
         [vi("out", TensorProto.FLOAT, None)], inits)
    ok("qdq_avgpool", [x], [out_u8(zx, avg_ref(x, zx, 2, 2, (0, 0, 0, 0)))],
       layers=[("q_x", "QuantizeLinear"), ("avg", "AveragePool"),
               ("dq_out", "DequantizeLinear")])
    # AveragePool 3x3/1 pads 1, padding excluded
    nodes, inits = join(q_in("x", sx, zx, shape), dq("x_q", "x_dq", sx, zx),
                        qn("y", "y_q", sx, zx), dq("y_q", "out", sx, zx))
    nodes.insert(2, helper.make_node("AveragePool", ["x_dq"], ["y"], name="avg",
                                     kernel_shape=[3, 3], pads=[1, 1, 1, 1]))
    save("qdq_avgpool_pads", nodes, [vi("x", TensorProto.FLOAT, shape)],
         [vi("out", TensorProto.FLOAT, None)], inits)
    ok("qdq_avgpool_pads", [x], [out_u8(zx, avg_ref(x, zx, 3, 1, (1, 1, 1, 1)))])
    # count_include_pad=1: a PAD with the zero point first
    nodes, inits = join(q_in("x", sx, zx, shape), dq("x_q", "x_dq", sx, zx),
                        qn("y", "y_q", sx, zx), dq("y_q", "out", sx, zx))
    nodes.insert(2, helper.make_node("AveragePool", ["x_dq"], ["y"], name="avg",
                                     kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                     count_include_pad=1))
    save("qdq_avgpool_cip", nodes, [vi("x", TensorProto.FLOAT, shape)],
         [vi("out", TensorProto.FLOAT, None)], inits)
    ok("qdq_avgpool_cip", [x],
       [out_u8(zx, avg_ref(x, zx, 3, 1, (1, 1, 1, 1), cip=True))],
       layers=[("q_x", "QuantizeLinear"), ("avg", "AveragePool"),
               ("avg", "AveragePool"), ("dq_out", "DequantizeLinear")])
    # GlobalAveragePool to another scale: requantized
    sy, zy = 0.02, 128
    nodes, inits = join(q_in("x", sx, zx, shape), dq("x_q", "x_dq", sx, zx),
                        qn("y", "y_q", sy, zy), dq("y_q", "out", sy, zy))
    nodes.insert(2, helper.make_node("GlobalAveragePool", ["x_dq"], ["y"], name="gap"))
    save("qdq_gap", nodes, [vi("x", TensorProto.FLOAT, shape)],
         [vi("out", TensorProto.FLOAT, None)], inits)
    avg = avg_ref(x, zx, 6, 1, (0, 0, 0, 0))
    m, s = quantize_multiplier(float(np.float64(np.float32(sx)) / np.float64(np.float32(sy))))
    ok("qdq_gap", [x], [out_u8(zy, rq_vec(avg, m, s))])
    # MaxPool 3x3/2 pads 1 on the dequantized tensor
    nodes, inits = join(q_in("x", sx, zx, shape), dq("x_q", "x_dq", sx, zx),
                        qn("y", "y_q", sx, zx), dq("y_q", "out", sx, zx))
    nodes.insert(2, helper.make_node("MaxPool", ["x_dq"], ["y"], name="maxpool",
                                     kernel_shape=[3, 3], strides=[2, 2],
                                     pads=[1, 1, 1, 1]))
    save("qdq_maxpool", nodes, [vi("x", TensorProto.FLOAT, shape)],
         [vi("out", TensorProto.FLOAT, None)], inits)
    xp = np.pad(x.astype(np.int32), ((0, 0), (0, 0), (1, 1), (1, 1)),
                constant_values=-1)
    y = np.zeros((1, 18, 3, 3), np.uint8)
    for i in range(3):
        for j in range(3):
            y[:, :, i, j] = xp[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].max(axis=(2, 3))
    ok("qdq_maxpool", [x], [y],
       layers=[("q_x", "QuantizeLinear"), ("maxpool", "MaxPool"),
               ("dq_out", "DequantizeLinear")])


qdq_pools()


def qdq_mnist_like(name, hw1):
    """Conv+Relu, MaxPool, Flatten (NCHW order), Gemm: MNIST's shape"""
    sx, zx, s1, z1, sy, zy = 1 / 255, 0, 0.03, 0, 0.1, 128
    hw = 2 if hw1 else 6
    x = u8((1, 1, hw, hw))
    w = i8((4, 1, 3, 3))
    sw = wscales(4)
    b = RNG.integers(-500, 500, size=4, dtype=np.int32)
    ph = 1 if hw1 else 3
    k_fc = 4 * ph * ph
    wf = i8((5, k_fc))
    swf = wscales(5)
    nodes, inits = join(q_in("x", sx, zx, [1, 1, hw, hw]), dq("x_q", "x_dq", sx, zx))
    inits += [tensor("w", w), tensor("w_s", sw), tensor("w_z", np.zeros(4, np.int8)),
              tensor("b", b), tensor("b_s", (np.float32(sx) * sw).astype(np.float32)),
              tensor("b_z", np.zeros(4, np.int32)),
              tensor("wf", wf), tensor("wf_s", swf), tensor("wf_z", np.zeros(5, np.int8))]
    nodes += [helper.make_node("DequantizeLinear", ["w", "w_s", "w_z"], ["w_dq"], name="dq_w", axis=0),
              helper.make_node("DequantizeLinear", ["b", "b_s", "b_z"], ["b_dq"], name="dq_b", axis=0),
              helper.make_node("Conv", ["x_dq", "w_dq", "b_dq"], ["c"], name="conv1",
                               pads=[1, 1, 1, 1]),
              helper.make_node("Relu", ["c"], ["r"], name="relu1")]
    n2, i2 = join(qn("r", "r_q", s1, z1), dq("r_q", "r_dq", s1, z1))
    nodes += n2
    inits += i2
    nodes += [helper.make_node("MaxPool", ["r_dq"], ["p"], name="pool1",
                               kernel_shape=[2, 2], strides=[2, 2])]
    n2, i2 = join(qn("p", "p_q", s1, z1), dq("p_q", "p_dq", s1, z1))
    nodes += n2 + [helper.make_node("Flatten", ["p_dq"], ["f"], name="flatten"),
                   helper.make_node("DequantizeLinear", ["wf", "wf_s", "wf_z"], ["wf_dq"],
                                    name="dq_wf", axis=0),
                   helper.make_node("Gemm", ["f", "wf_dq"], ["g"], name="fc", transB=1)]
    inits += i2
    n2, i2 = join(qn("g", "g_q", sy, zy), dq("g_q", "out", sy, zy))
    save(name, nodes + n2, [vi("x", TensorProto.FLOAT, [1, 1, hw, hw])],
         [vi("out", TensorProto.FLOAT, None)], inits + i2)
    acc = conv_ref(x, zx, w, 0, b, (1, 1, 1, 1), 1, 1)
    c = out_u8(z1, requant_ch(acc, sx, sw, s1, 1), z1, 255)
    p = c.reshape(1, 4, ph, 2, ph, 2).max(axis=(3, 5))
    f = p.reshape(1, -1).astype(np.int64) - z1
    g = out_u8(zy, requant_ch(f @ wf.astype(np.int64).T, s1, swf, sy, 1))
    layers = [("q_x", "QuantizeLinear"), ("conv1", "Conv+Relu"), ("pool1", "MaxPool")]
    if not hw1:
        layers += [("flatten", "Flatten")]
    layers += [("flatten", "Flatten"), ("fc", "Gemm")]
    ok(name, [x], [g], layers=layers)


qdq_mnist_like("qdq_mnist_like", False)
qdq_mnist_like("qdq_flatten_hw1", True)


def qdq_branch():
    """a Relu that is not its producer's only consumer: a CLIP"""
    sx, zx = 0.04, 100
    shape = [1, 2, 3, 3]
    x = u8(shape)
    nodes, inits = join(q_in("x", sx, zx, shape), dq("x_q", "x_dq", sx, zx))
    nodes += [helper.make_node("Relu", ["x_dq"], ["r"], name="relu")]
    n2, i2 = join(qn("r", "r_q", sx, zx), dq("r_q", "o1", sx, zx),
                  dq("x_q", "o2", sx, zx))
    save("qdq_relu_clip_op", nodes + n2, [vi("x", TensorProto.FLOAT, shape)],
         [vi("o1", TensorProto.FLOAT, None), vi("o2", TensorProto.FLOAT, None)],
         inits + i2)
    ok("qdq_relu_clip_op", [x], [np.maximum(x, zx), x],
       layers=[("relu", "Relu"), ("dq_o2", "DequantizeLinear")])


qdq_branch()


def qdq_requant():
    """DequantizeLinear then QuantizeLinear with other parameters"""
    s1, z1, s2, z2 = 0.05, 100, 0.02, 30
    for name, shape in (("qdq_requant_4d", [1, 3, 2, 5]), ("refuse_requant_2d", [3, 4])):
        nodes, inits = join(q_in("x", s1, z1, shape), dq("x_q", "x_dq", s1, z1),
                            qn("x_dq", "y", s2, z2))
        save(name, nodes, [vi("x", TensorProto.FLOAT, shape)],
             [vi("y", TensorProto.UINT8, None)], inits)
    x = u8((1, 3, 2, 5))
    m, sh = quantize_multiplier(float(np.float64(np.float32(s1)) / np.float64(np.float32(s2))))
    ok("qdq_requant_4d", [x], [out_u8(z2, rq_vec(x.astype(np.int64) - z1, m, sh))],
       layers=[("q_x", "QuantizeLinear"), ("q_y", "QuantizeLinear"),
               ("q_y", "QuantizeLinear")], io=[("out", 0, s2, z2)])
    err("refuse_requant_2d", EOPNOTSUPP,
        "node 'q_y' (QuantizeLinear): requantizing a 2-D tensor")


qdq_requant()


def qdq_bigpad():
    """pads above 255: a PAD before the CONV2D"""
    sx, zx, sy, zy = 0.02, 7, 0.02, 7
    x = u8((1, 1, 2, 2))
    w = np.array([[[[1]]]], np.int8)
    nodes, inits = join(q_in("x", sx, zx, [1, 1, 2, 2]), dq("x_q", "x_dq", sx, zx))
    inits += [tensor("w", w), tensor("w_s", np.float32(1.0)), tensor("w_z", np.int8(0))]
    nodes += [helper.make_node("DequantizeLinear", ["w", "w_s", "w_z"], ["w_dq"], name="dq_w"),
              helper.make_node("Conv", ["x_dq", "w_dq"], ["y"], name="conv",
                               pads=[300, 0, 0, 1])]
    n2, i2 = join(qn("y", "y_q", sy, zy), dq("y_q", "out", sy, zy))
    save("qdq_conv_pad300", nodes + n2, [vi("x", TensorProto.FLOAT, [1, 1, 2, 2])],
         [vi("out", TensorProto.FLOAT, None)], inits + i2)
    y = np.full((1, 1, 302, 3), zy, np.uint8)
    y[:, :, 300:, :2] = x
    ok("qdq_conv_pad300", [x], [y],
       layers=[("q_x", "QuantizeLinear"), ("conv", "Conv"), ("conv", "Conv"),
               ("dq_out", "DequantizeLinear")])


qdq_bigpad()


def edges():
    x = RNG.uniform(-1, 1, size=(1, 3, 2, 2)).astype(np.float32)
    nodes, inits = join(q_in("x", 0.01, 128, [1, 3, 2, 2]))
    save("edge_quantize_only", nodes, [vi("x", TensorProto.FLOAT, [1, 3, 2, 2])],
         [vi("x_q", TensorProto.UINT8, None)], inits)
    xq = u8((1, 3, 2, 2))
    ok("edge_quantize_only", [xq], [xq], layers=[("q_x", "QuantizeLinear")],
       io=[("in", 0, 0.01, 128), ("out", 0, 0.01, 128)])
    nodes, inits = join(dq("x", "y", 0.5, 3))
    save("edge_dequantize_only", nodes, [vi("x", TensorProto.UINT8, [4, 5])],
         [vi("y", TensorProto.FLOAT, None)], inits)
    x = u8((4, 5))
    ok("edge_dequantize_only", [x], [x], layers=[("dq_y", "DequantizeLinear")],
       io=[("in", 0, 0.5, 3), ("out", 0, 0.5, 3)])


edges()

# ======================================================================
# QOperator format
# ======================================================================


def qop_conv():
    sx, zx, sy, zy = 0.02, 128, 0.05, 20
    x = u8((1, 3, 5, 5))
    w = i8((6, 3, 3, 3))
    sw = wscales(6)
    b = RNG.integers(-2000, 2000, size=6, dtype=np.int32)
    inits = [tensor("xs", np.float32(sx)), tensor("xz", np.uint8(zx)), tensor("w", w),
             tensor("ws", sw), tensor("wz", np.zeros(6, np.int8)),
             tensor("ys", np.float32(sy)), tensor("yz", np.uint8(zy)), tensor("b", b),
             tensor("cmin", np.uint8(zy)), tensor("cmax", np.uint8(zy + 120))]
    nodes = [helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys",
                                              "yz", "b"], ["y"], name="qconv",
                              pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Clip", ["y", "cmin", "cmax"], ["yc"], name="clip")]
    save("qop_conv_clip", nodes, [vi("x", TensorProto.UINT8, [1, 3, 5, 5])],
         [vi("yc", TensorProto.UINT8, None)], inits)
    acc = conv_ref(x, zx, w, 0, b, (1, 1, 1, 1), 2, 1)
    y = out_u8(zy, requant_ch(acc, sx, sw, sy, 1), zy, zy + 120)
    ok("qop_conv_clip", [x], [y],
       layers=[("qconv", "QLinearConv"), ("qconv", "QLinearConv+Clip"),
               ("clip", "Clip")],
       io=[("in", 0, sx, zx), ("out", 0, sy, zy)])
    # QLinearMatMul with float edges
    sa, za, sy, zy = 0.03, 7, 0.06, 200
    a = u8((3, 12))
    wb = i8((12, 5))
    sb = np.float32(0.004)
    nodes, inits = join(q_in("a", sa, za, [3, 12]))
    inits += [tensor("as", np.float32(sa)), tensor("az", np.uint8(za)), tensor("wb", wb),
              tensor("bs", sb), tensor("bz", np.int8(0)), tensor("ys", np.float32(sy)),
              tensor("yz", np.uint8(zy))]
    nodes += [helper.make_node("QLinearMatMul", ["a_q", "as", "az", "wb", "bs", "bz",
                                                 "ys", "yz"], ["y"], name="qmm")]
    n2, i2 = join(dq("y", "out", sy, zy))
    save("qop_matmul", nodes + n2, [vi("a", TensorProto.FLOAT, [3, 12])],
         [vi("out", TensorProto.FLOAT, None)], inits + i2)
    acc = (a.astype(np.int64) - za) @ wb.astype(np.int64)
    ok("qop_matmul", [a], [out_u8(zy, requant_ch(acc, sa, sb, sy, 1))],
       layers=[("qmm", "QLinearMatMul")])


qop_conv()


def qop_reshape_first():
    """a uint8 input reshaped before its QLinearConv: the conv's zero point"""
    sx, zx, sy, zy = 0.02, 128, 0.05, 3
    x = u8((1, 48))
    w = i8((2, 3, 1, 1))
    inits = [tensor("shape", np.array([1, 3, 4, 4], np.int64)),
             tensor("xs", np.float32(sx)), tensor("xz", np.uint8(zx)), tensor("w", w),
             tensor("ws", np.float32(0.01)), tensor("wz", np.int8(0)),
             tensor("ys", np.float32(sy)), tensor("yz", np.uint8(zy))]
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["x4"], name="r"),
             helper.make_node("QLinearConv", ["x4", "xs", "xz", "w", "ws", "wz", "ys", "yz"],
                              ["y"], name="qconv")]
    save("qop_reshape_first", nodes, [vi("x", TensorProto.UINT8, [1, 48])],
         [vi("y", TensorProto.UINT8, None)], inits)
    acc = conv_ref(x.reshape(1, 3, 4, 4), zx, w, 0, None, (0, 0, 0, 0), 1, 1)
    ok("qop_reshape_first", [x], [out_u8(zy, requant_ch(acc, sx, np.float32(0.01), sy, 1))],
       io=[("in", 0, sx, zx), ("out", 0, sy, zy)])


qop_reshape_first()


def qop_ms():
    """ONNX Runtime's com.microsoft QLinearAdd and QLinear pools"""
    sa, za, sb, zb, sy, zy = 0.03, 120, 0.02, 7, 0.05, 128
    shape = [1, 5, 3, 4]
    a, b = u8(shape), u8(shape)
    inits = [tensor("as", np.float32(sa)), tensor("az", np.uint8(za)),
             tensor("bs", np.float32(sb)), tensor("bz", np.uint8(zb)),
             tensor("ys", np.float32(sy)), tensor("yz", np.uint8(zy))]
    nodes = [helper.make_node("QLinearAdd", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
                              ["y"], name="qadd", domain="com.microsoft")]
    save("qop_ms_add", nodes, [vi("a", TensorProto.UINT8, shape),
                               vi("b", TensorProto.UINT8, shape)],
         [vi("y", TensorProto.UINT8, shape)], inits, check=False)
    ok("qop_ms_add", [a, b], [out_u8(zy, add_ref(a, za, sa, b, zb, sb, sy))],
       io=[("in", 0, sa, za), ("in", 1, sb, zb), ("out", 0, sy, zy)],
       layers=[("qadd", "QLinearAdd")])
    x = u8(shape)
    inits = [tensor("xs", np.float32(sa)), tensor("xz", np.uint8(za)),
             tensor("ys", np.float32(sy)), tensor("yz", np.uint8(zy))]
    nodes = [helper.make_node("QLinearGlobalAveragePool", ["x", "xs", "xz", "ys", "yz"],
                              ["y"], name="qgap", domain="com.microsoft", channels_last=0)]
    save("qop_ms_gap", nodes, [vi("x", TensorProto.UINT8, shape)],
         [vi("y", TensorProto.UINT8, [1, 5, 1, 1])], inits, check=False)
    m, sh = quantize_multiplier(float(np.float64(np.float32(sa)) / np.float64(np.float32(sy))))
    ok("qop_ms_gap", [x], [out_u8(zy, rq_vec(avg_gap(x, za), m, sh))],
       layers=[("qgap", "QLinearGlobalAveragePool"), ("qgap", "QLinearGlobalAveragePool"),
               ("qgap", "QLinearGlobalAveragePool")])
    nodes = [helper.make_node("QLinearAveragePool", ["x", "xs", "xz", "ys", "yz"],
                              ["y"], name="qavg", domain="com.microsoft",
                              kernel_shape=[2, 2], strides=[1, 2], pads=[1, 0, 0, 0])]
    save("qop_ms_avgpool", nodes, [vi("x", TensorProto.UINT8, shape)],
         [vi("y", TensorProto.UINT8, None)], inits, check=False)
    avg = avg_ref_hw(x, za, (2, 2), (1, 2), (1, 0, 0, 0))
    ok("qop_ms_avgpool", [x], [out_u8(zy, rq_vec(avg, m, sh))])
    nodes = [helper.make_node("QLinearLeakyRelu", ["x", "xs", "xz", "ys", "yz"],
                              ["y"], name="qlrelu", domain="com.microsoft")]
    save("refuse_ms_other", nodes, [vi("x", TensorProto.UINT8, shape)],
         [vi("y", TensorProto.UINT8, None)], inits, check=False)
    err("refuse_ms_other", EOPNOTSUPP,
        "node 'qlrelu' (QLinearLeakyRelu): operator domain 'com.microsoft' is not supported")


def avg_gap(x, zx):
    """GlobalAveragePool, rounded half away from zero"""
    n, c, h, w = x.shape
    acc = (x.astype(np.int64) - zx).sum(axis=(2, 3), keepdims=True)
    cnt = h * w
    return np.where(acc >= 0, (acc + cnt // 2) // cnt, -((-acc + cnt // 2) // cnt))


def avg_ref_hw(x, zx, k, s, pads):
    """AveragePool with a kh x kw window and sh x sw strides, pads excluded"""
    n, c, h, w = x.shape
    pt, pl, pb, pr = pads
    oh = (h + pt + pb - k[0]) // s[0] + 1
    ow = (w + pl + pr - k[1]) // s[1] + 1
    out = np.zeros((n, c, oh, ow), dtype=np.int64)
    xi = x.astype(np.int64) - zx
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            rs, cs = max(r0, 0), max(c0, 0)
            re, ce = min(r0 + k[0], h), min(c0 + k[1], w)
            acc = xi[:, :, rs:re, cs:ce].sum(axis=(2, 3))
            cnt = (re - rs) * (ce - cs)
            out[:, :, i, j] = np.where(acc >= 0, (acc + cnt // 2) // cnt,
                                       -((-acc + cnt // 2) // cnt))
    return out


qop_ms()

# ======================================================================
# data movement on uint8 tensors
# ======================================================================


def dm(name, shape, node_fn, ref, inits=(), n_in=1, layers=None, shapes=None,
       opset=13, check=True):
    ins = [u8(s) for s in (shapes or [shape] * n_in)]
    names = ["x%d" % i for i in range(n_in)]
    nodes = node_fn(names)
    save(name, nodes, [vi(nm, TensorProto.UINT8, list(a.shape))
                       for nm, a in zip(names, ins)],
         [vi("y", TensorProto.UINT8, None)], inits, opset=opset, check=check)
    ok(name, ins, [ref(*ins)], layers=layers)


dm("dm_transpose4", [1, 4, 5, 6],
   lambda n: [helper.make_node("Transpose", n, ["y"], name="t", perm=[0, 3, 1, 2])],
   lambda x: x.transpose(0, 3, 1, 2))
dm("dm_transpose3", [2, 3, 4],
   lambda n: [helper.make_node("Transpose", n, ["y"], name="t", perm=[2, 0, 1])],
   lambda x: x.transpose(2, 0, 1), layers=[("t", "Transpose")])
dm("dm_reshape_2d", [1, 4, 5, 6],
   lambda n: [helper.make_node("Reshape", [n[0], "shape"], ["y"], name="r")],
   lambda x: x.reshape(2, 60), inits=[tensor("shape", np.array([2, -1], np.int64))])
dm("dm_reshape_4d", [3, 40],
   lambda n: [helper.make_node("Reshape", [n[0], "shape"], ["y"], name="r")],
   lambda x: x.reshape(1, 2, 6, 10),
   inits=[tensor("shape", np.array([1, 2, 6, 10], np.int64))])
dm("dm_flatten_axis2", [2, 3, 4, 5],
   lambda n: [helper.make_node("Flatten", n, ["y"], name="f", axis=2)],
   lambda x: x.reshape(6, 20))
dm("dm_slice4", [2, 6, 7, 5],
   lambda n: [helper.make_node("Slice", [n[0], "st", "en", "ax"], ["y"], name="s")],
   lambda x: x[:, 1:5, :, -3:-1],
   inits=[tensor("st", np.array([1, -3], np.int64)),
          tensor("en", np.array([5, -1], np.int64)),
          tensor("ax", np.array([1, 3], np.int64))])
dm("dm_concat4_ax1", None,
   lambda n: [helper.make_node("Concat", n, ["y"], name="c", axis=1)],
   lambda *x: np.concatenate(x, axis=1), n_in=4,
   shapes=[[1, 2, 3, 4], [1, 5, 3, 4], [1, 1, 3, 4], [1, 17, 3, 4]],
   layers=[("c", "Concat")] * 2)
dm("dm_concat2_ax0", None,
   lambda n: [helper.make_node("Concat", n, ["y"], name="c", axis=-2)],
   lambda *x: np.concatenate(x, axis=0), n_in=2, shapes=[[2, 7], [3, 7]])
dm("dm_pad4", [1, 3, 4, 5],
   lambda n: [helper.make_node("Pad", [n[0], "pads"], ["y"], name="p")],
   lambda x: np.pad(x, ((0, 0), (1, 2), (0, 1), (3, 0))),
   inits=[tensor("pads", np.array([0, 1, 0, 3, 0, 2, 1, 0], np.int64))])
dm("dm_pad2", [3, 4],
   lambda n: [helper.make_node("Pad", [n[0], "pads"], ["y"], name="p")],
   lambda x: np.pad(x, ((2, 0), (1, 3))),
   inits=[tensor("pads", np.array([2, 1, 0, 3], np.int64))])
dm("dm_clip_u8", [2, 9],
   lambda n: [helper.make_node("Clip", [n[0], "lo", "hi"], ["y"], name="clip")],
   lambda x: np.clip(x, 30, 200),
   inits=[tensor("lo", np.uint8(30)), tensor("hi", np.uint8(200))],
   layers=[("clip", "Clip")])
dm("dm_chain", [1, 2, 3, 4],
   lambda n: [helper.make_node("Transpose", n, ["t"], name="t", perm=[0, 2, 3, 1]),
              helper.make_node("Clip", ["t", "lo"], ["c"], name="clip"),
              helper.make_node("Flatten", ["c"], ["y"], name="f")],
   lambda x: np.maximum(x.transpose(0, 2, 3, 1), 9).reshape(1, 24),
   inits=[tensor("lo", np.uint8(9))])
# the same on values held in NHWC form only: a MaxPool 1x1 (the identity)
# first puts them there, so perms, begins, pads and axes are translated


def mp(src, dst):
    return helper.make_node("MaxPool", [src], [dst], name="mp_" + dst,
                            kernel_shape=[1, 1])


dm("nhwc_transpose", [2, 3, 4, 5],
   lambda n: [mp(n[0], "m"),
              helper.make_node("Transpose", ["m"], ["y"], name="t", perm=[2, 0, 3, 1])],
   lambda x: x.transpose(2, 0, 3, 1),
   layers=[("mp_m", "MaxPool"), ("mp_m", "MaxPool"), ("t", "Transpose"),
           ("t", "Transpose")])
dm("nhwc_slice", [2, 6, 7, 18],
   lambda n: [mp(n[0], "m"),
              helper.make_node("Slice", ["m", "st", "en", "ax"], ["y"], name="s")],
   lambda x: x[1:2, 2:5, 1:-1, 3:17],
   inits=[tensor("st", np.array([1, 2, 1, 3], np.int64)),
          tensor("en", np.array([2, 5, -1, 17], np.int64)),
          tensor("ax", np.array([0, 1, 2, 3], np.int64))])
dm("nhwc_pad", [1, 3, 4, 5],
   lambda n: [mp(n[0], "m"),
              helper.make_node("Pad", ["m", "pads"], ["y"], name="p")],
   lambda x: np.pad(x, ((1, 0), (2, 1), (0, 3), (1, 2))),
   inits=[tensor("pads", np.array([1, 2, 0, 1, 0, 1, 3, 2], np.int64))],
   layers=[("mp_m", "MaxPool"), ("mp_m", "MaxPool"), ("p", "Pad"), ("p", "Pad")])
dm("nhwc_concat", None,
   lambda n: [mp(n[0], "m0"), mp(n[1], "m1"), mp(n[2], "m2"),
              helper.make_node("Concat", ["m0", "m1", "m2"], ["y"], name="c", axis=-1)],
   lambda *x: np.concatenate(x, axis=3), n_in=3,
   shapes=[[1, 20, 3, 2], [1, 20, 3, 5], [1, 20, 3, 1]])
dm("nhwc_flatten_hw1", [2, 40, 1, 1],
   lambda n: [mp(n[0], "m"), helper.make_node("Flatten", ["m"], ["y"], name="f")],
   lambda x: x.reshape(2, 40),
   layers=[("mp_m", "MaxPool"), ("mp_m", "MaxPool"), ("f", "Flatten")])
dm("nhwc_reshape_hw", [1, 3, 2, 4],
   lambda n: [mp(n[0], "m"),
              helper.make_node("Reshape", ["m", "shape"], ["y"], name="r")],
   lambda x: x.reshape(4, 6),
   inits=[tensor("shape", np.array([4, 6], np.int64))],
   layers=[("mp_m", "MaxPool"), ("mp_m", "MaxPool"), ("r", "Reshape"),
           ("r", "Reshape")])

# opset 9: Slice and Pad with attributes, a Constant node for a shape,
# Gemm's C as [1, N] is below (no QDQ here: uint8 data movement)
dm("dm_opset9", [1, 4, 6, 2],
   lambda n: [helper.make_node("Slice", n, ["s"], name="sl", starts=[1, 2],
                               ends=[3, 100], axes=[1, 2]),
              helper.make_node("Pad", ["s"], ["p"], name="pad", mode="constant",
                               pads=[0, 1, 0, 0, 0, 0, 2, 0], value=0.0),
              helper.make_node("Constant", [], ["shape"], name="const",
                               value=tensor("v", np.array([3, -1], np.int64))),
              helper.make_node("Reshape", ["p", "shape"], ["y"], name="r")],
   lambda x: np.pad(x[:, 1:3, 2:, :], ((0, 0), (1, 0), (0, 2), (0, 0))).reshape(3, -1),
   opset=9, check=False)	# opset 9's Pad takes float only

# ceil_mode=1 where it changes nothing (4 - 2 is a multiple of 2)
dm("dm_maxpool_ceil_same", [1, 2, 4, 4],
   lambda n: [helper.make_node("MaxPool", n, ["y"], name="mp", kernel_shape=[2, 2],
                               strides=[2, 2], ceil_mode=1)],
   lambda x: x.reshape(1, 2, 2, 2, 2, 2).max(axis=(3, 5)))

# six TRANSPOSEs of 256 bytes: liveness keeps two in the scratch slot
dm("dm_transpose_chain", [4, 64],
   lambda n: [helper.make_node("Transpose", [n[0] if i == 0 else "t%d" % (i - 1)],
                               ["t%d" % i if i < 5 else "y"], name="t%d" % i)
              for i in range(6)],
   lambda x: x)
LINES.append("scratch dm_transpose_chain 512")
dm("dm_squeeze_unsqueeze", [1, 6, 1, 2],
   lambda n: [helper.make_node("Squeeze", [n[0], "ax"], ["s"], name="sq"),
              helper.make_node("Unsqueeze", ["s", "ax2"], ["y"], name="usq")],
   lambda x: x.reshape(6, 2)[None],
   inits=[tensor("ax", np.array([0, 2], np.int64)), tensor("ax2", np.array([0], np.int64))])

# ======================================================================
# the layer table's shapes, MACs and weight bytes; the CLI's models
# ======================================================================


def lshape(name, idx, macs, wbytes, ins, out):
    LINES.append("lshape %s %d %d %d %s|%s" % (name, idx, macs, wbytes, ins, out))


# CONV2D 3x3 3->4 on 8x8: 8*8*4*3*3*3 MACs; weights 4*3*3*3 + bias 4*4
lshape("qdq_conv_relu", 0, 0, 0, "u8[1,3,8,8]", "u8[1,3,8,8]")
lshape("qdq_conv_relu", 1, 6912, 124, "u8[1,3,8,8] i8[4,3,3,3] i32[4]",
       "u8[1,4,8,8]")
# DWCONV2D 3x3/2 on 17 channels 7x7 -> 4x4: 4*4*17*9; 17*9 + 17*4
lshape("qdq_dwconv_relu6_same", 1, 2448, 221,
       "u8[1,17,7,7] i8[17,1,3,3] i32[17]", "u8[1,17,4,4]")
# the MNIST-like FC: 1x36 by 5; no bias
lshape("qdq_mnist_like", 5, 180, 180, "u8[1,36] i8[5,36]", "u8[1,5]")
# MAXPOOL 2x2: 4 channels 3x3 out, 4 per window
lshape("qdq_mnist_like", 2, 144, 0, "u8[1,4,6,6]", "u8[1,4,3,3]")
lshape("qdq_add_relu", 0, 60, 0, "u8[1,3,4,5] u8[1,3,4,5]", "u8[1,3,4,5]")

b_nodes, b_inits = join(q_in("x", 1.0, 0, [2, 3]))
save("cli_bind", b_nodes, [vi("x", TensorProto.FLOAT, [2, 3]),
                           vi("x_s", TensorProto.FLOAT, []),
                           vi("x_z", TensorProto.UINT8, [])],
     [vi("x_q", TensorProto.UINT8, [2, 3])], [], check=False)
with open(os.path.join(OUT, "cli_bind_s.pb"), "wb") as f:
    f.write(tensor("x_s", np.float32(0.25)).SerializeToString())
with open(os.path.join(OUT, "cli_bind_z.pb"), "wb") as f:
    f.write(tensor("x_z", np.uint8(9)).SerializeToString())
save("cli_longnames", [helper.make_node("Concat", ["a_very_long_input_name_1",
                                                   "a_very_long_input_name_2"],
                                         ["y"], name="c", axis=0)],
     [vi("a_very_long_input_name_1", TensorProto.UINT8, [2, 3]),
      vi("a_very_long_input_name_2", TensorProto.UINT8, [2, 3])],
     [vi("y", TensorProto.UINT8, [4, 3])])
save("cli_noname", [helper.make_node("Transpose", ["x"], ["y"], name="t")],
     [vi("x", TensorProto.UINT8, [2, 3])], [vi("y", TensorProto.UINT8, [3, 2])],
     gname="", check=False)

# ======================================================================
# refusals (-EOPNOTSUPP) and malformed files (-EINVAL, -E2BIG)
# ======================================================================


def ref_conv_graph(name, conv_attrs=None, wshape=(2, 2, 3, 3), group=1, xshape=(1, 2, 5, 5),
                   zdt=np.uint8, act_axis_scale=False, float_only=False,
                   w_input=False, xdims=None):
    sx, zx = 0.02, 0
    nodes, inits = [], []
    ins = [vi("x", TensorProto.FLOAT, xdims or list(xshape))]
    if float_only:
        inits.append(tensor("w", RNG.standard_normal(wshape).astype(np.float32)))
        nodes.append(helper.make_node("Conv", ["x", "w"], ["y"], name="conv"))
        save(name, nodes, ins, [vi("y", TensorProto.FLOAT, None)], inits)
        return
    nodes.append(helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="q_x"))
    s = np.full(xshape[1], sx, np.float32) if act_axis_scale else np.float32(sx)
    inits += [tensor("xs", s), tensor("xz", zdt(zx) if not act_axis_scale
                                      else np.zeros(xshape[1], np.uint8))]
    nodes.append(helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="dq_x"))
    if w_input:
        ins.append(vi("w", TensorProto.INT8 if w_input == "int8" else TensorProto.UINT8,
                      list(wshape)))
    else:
        inits.append(tensor("w", i8(wshape)))
    inits += [tensor("ws", np.float32(0.01)),
              tensor("wz", np.uint8(0) if w_input == "uint8" else np.int8(0))]
    nodes.append(helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], name="dq_w"))
    nodes.append(helper.make_node("Conv", ["xd", "wd"], ["y"], name="conv", group=group,
                                  **(conv_attrs or {})))
    nodes.append(helper.make_node("QuantizeLinear", ["y", "xs", "xz"], ["out"], name="q_y"))
    save(name, nodes, ins, [vi("out", TensorProto.UINT8 if zdt == np.uint8 else TensorProto.INT8,
                                None)], inits,
         check=not (conv_attrs and ("fancy" in conv_attrs or "auto_pad" in conv_attrs)))


ref_conv_graph("refuse_float_conv", float_only=True)
err("refuse_float_conv", EOPNOTSUPP,
    "node 'conv' (Conv): float-only path: input 'x' is float")
ref_conv_graph("refuse_int8_act", zdt=np.int8)
err("refuse_int8_act", EOPNOTSUPP, "node 'q_x' (QuantizeLinear): int8 activations")
ref_conv_graph("refuse_per_axis_act", act_axis_scale=True)
err("refuse_per_axis_act", EOPNOTSUPP,
    "node 'q_x' (QuantizeLinear): per-axis activation quantization")
ref_conv_graph("refuse_weights_input", w_input="int8")
err("refuse_weights_input", EOPNOTSUPP,
    "node 'dq_w' (DequantizeLinear): int8 activations")
ref_conv_graph("refuse_weights_uint8_input", w_input="uint8")
err("refuse_weights_uint8_input", EOPNOTSUPP,
    "node 'conv' (Conv): non-constant weights 'wd' are not supported")
ref_conv_graph("refuse_dilations", conv_attrs=dict(dilations=[2, 2]))
err("refuse_dilations", EOPNOTSUPP, "node 'conv' (Conv): dilations other than 1")
ref_conv_graph("refuse_auto_pad", conv_attrs=dict(auto_pad="FULL"))
err("refuse_auto_pad", EOPNOTSUPP, "node 'conv' (Conv): auto_pad 'FULL' is not supported")
ref_conv_graph("refuse_unknown_attr", conv_attrs=dict(fancy=1))
err("refuse_unknown_attr", EOPNOTSUPP,
    "node 'conv' (Conv): attribute 'fancy' is not supported")
ref_conv_graph("refuse_group", wshape=(4, 1, 3, 3), group=2, xshape=(1, 2, 5, 5))
err("refuse_group", EOPNOTSUPP, "node 'conv' (Conv): group=2")
ref_conv_graph("refuse_dynamic", xdims=["N", 2, 5, 5])
err("refuse_dynamic", EOPNOTSUPP,
    "node 'q_x' (QuantizeLinear): input 'x' has a dynamic shape (dim 0 is 'N')")


def refuse_simple(name, nodes, ins, outs, inits, errno, text, check=True):
    save(name, nodes, ins, outs, inits, check=check)
    err(name, errno, text)


u8x = [vi("x", TensorProto.UINT8, [1, 2, 4, 4])]
u8y = [vi("y", TensorProto.UINT8, None)]
refuse_simple("refuse_ceil_mode",
              [helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[3, 3],
                                strides=[2, 2], ceil_mode=1)],
              u8x, u8y, [], EOPNOTSUPP, "node 'mp' (MaxPool): ceil_mode=1")
refuse_simple("refuse_storage_order",
              [helper.make_node("MaxPool", ["x"], ["y"], name="mp", kernel_shape=[2, 2],
                                storage_order=1)],
              u8x, u8y, [], EOPNOTSUPP, "node 'mp' (MaxPool): storage_order=1")
refuse_simple("refuse_int_add",
              [helper.make_node("Add", ["x", "x"], ["y"], name="add")],
              [vi("x", TensorProto.UINT8, [2, 2])], u8y, [], EOPNOTSUPP,
              "node 'add' (Add): integer Add wraps around", check=False)
# two distinct uint8 graph inputs (libonnx-testdata's test_add_uint8): the
# reason is the wrap, not the float output the refusal once named
refuse_simple("refuse_int_add_inputs",
              [helper.make_node("Add", ["x", "z"], ["y"], name="add")],
              [vi("x", TensorProto.UINT8, [2, 2]), vi("z", TensorProto.UINT8, [2, 2])],
              u8y, [], EOPNOTSUPP,
              "node 'add' (Add): integer Add wraps around", check=False)
refuse_simple("refuse_unknown_op",
              [helper.make_node("Sigmoid", ["x"], ["y"], name="sig")],
              [vi("x", TensorProto.FLOAT, [2, 2])], [vi("y", TensorProto.FLOAT, None)], [],
              EOPNOTSUPP, "node 'sig' (Sigmoid): operator Sigmoid is not supported")
refuse_simple("refuse_pad_mode",
              [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad", mode="reflect")],
              [vi("x", TensorProto.UINT8, [2, 2])], u8y,
              [tensor("pads", np.array([0, 1, 0, 1], np.int64))], EOPNOTSUPP,
              "node 'pad' (Pad): mode 'reflect'")
refuse_simple("refuse_slice_steps",
              [helper.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["y"], name="sl")],
              [vi("x", TensorProto.UINT8, [4, 4])], u8y,
              [tensor("st", np.array([0], np.int64)), tensor("en", np.array([4], np.int64)),
               tensor("ax", np.array([0], np.int64)), tensor("sp", np.array([2], np.int64))],
              EOPNOTSUPP, "node 'sl' (Slice): steps other than 1")


def malformed():
    base = onnx.load(os.path.join(OUT, "dm_transpose3.onnx")).SerializeToString()
    with open(os.path.join(OUT, "bad_truncated.onnx"), "wb") as f:
        f.write(base[:len(base) - 9])
    err("bad_truncated", EINVAL, "the protobuf is truncated or malformed")
    with open(os.path.join(OUT, "bad_garbage.onnx"), "wb") as f:
        f.write(b"\xff" * 64)
    err("bad_garbage", EINVAL, "not an ONNX model")
    x = [vi("x", TensorProto.UINT8, [2, 2])]
    refuse_simple("bad_cycle",
                  [helper.make_node("Transpose", ["x2"], ["x1"], name="a"),
                   helper.make_node("Transpose", ["x1"], ["x2"], name="b"),
                   helper.make_node("Transpose", ["x"], ["y"], name="c")],
                  x, u8y, [], EINVAL, "the graph has a cycle", check=False)
    refuse_simple("bad_missing_init",
                  [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
                  x, u8y, [], EINVAL,
                  "node 'r' (Reshape): input 'shape' is not a graph input, an initializer or a node output",
                  check=False)
    refuse_simple("bad_duplicate_output",
                  [helper.make_node("Transpose", ["x"], ["y"], name="a"),
                   helper.make_node("Transpose", ["x"], ["y"], name="b")],
                  x, u8y, [], EINVAL, "node 'b' (Transpose): output 'y' is already defined",
                  check=False)
    refuse_simple("bad_dangling_output",
                  [helper.make_node("Transpose", ["x"], ["y"], name="a")],
                  x, [vi("z", TensorProto.UINT8, None)], [], EINVAL,
                  "graph output 'z' is not defined", check=False)
    big = TensorProto()
    big.name = "shape"
    big.data_type = TensorProto.INT64
    big.dims.extend([1 << 40])
    refuse_simple("bad_huge_dims",
                  [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
                  x, u8y, [big], EINVAL, "tensor 'shape': more than 2^30 elements",
                  check=False)
    short = TensorProto()
    short.name = "shape"
    short.data_type = TensorProto.INT64
    short.dims.extend([2])
    short.raw_data = b"\x01" * 9
    refuse_simple("bad_raw_size",
                  [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
                  x, u8y, [short], EINVAL, "tensor 'shape': 9 bytes of raw data for 2 int64",
                  check=False)
    refuse_simple("bad_huge_input",
                  [helper.make_node("Transpose", ["x"], ["y"], name="t")],
                  [vi("x", TensorProto.UINT8, [4096, 4096, 128])], u8y, [], E2BIG,
                  "a tensor of more than 1 GiB", check=False)
    refuse_simple("bad_too_many_io",
                  [helper.make_node("Concat", ["i%d" % k for k in range(8)], ["y"],
                                    name="c", axis=0)],
                  [vi("i%d" % k, TensorProto.UINT8, [1, 2]) for k in range(8)],
                  u8y, [], E2BIG, "8 inputs and 1 outputs (at most 8 in all)", check=False)
    refuse_simple("bad_declared_output",
                  [helper.make_node("Transpose", ["x"], ["y"], name="t")],
                  [vi("x", TensorProto.UINT8, [2, 3])],
                  [vi("y", TensorProto.UINT8, [2, 3])], [], EINVAL,
                  "graph output 'y' is declared with 2 dims [2, ...] but computes 2 dims [3, ...]",
                  check=False)
    # subgraphs nested 20000 deep: protobuf-c would recurse off the stack
    def varint(v):
        b = b""
        while v >= 0x80:
            b += bytes([v & 0x7f | 0x80])
            v >>= 7
        return b + bytes([v])

    def field(num, payload):
        return varint(num << 3 | 2) + varint(len(payload)) + payload
    g = b""
    for _ in range(20000):
        attr = field(1, b"then_branch") + varint(20 << 3) + varint(5) + field(6, g)
        g = field(1, field(4, b"If") + field(5, attr))
    with open(os.path.join(OUT, "bad_deep_nesting.onnx"), "wb") as f:
        f.write(varint(1 << 3) + varint(7) + field(7, g))
    err("bad_deep_nesting", EINVAL, "messages nested deeper than 64")
    refuse_simple("bad_control_chars",
                  [helper.make_node("Transpose", ["x"], ["y"], name="t")],
                  x, [vi("y\nz\x1b", TensorProto.UINT8, None)], [], EINVAL,
                  "graph output 'y?z?' is not defined", check=False)
    refuse_simple("bad_float_ints",
                  [helper.make_node("Transpose", ["x"], ["y"], name="t",
                                    perm=[1.0, 0.0])],
                  x, u8y, [], EINVAL,
                  "node 't' (Transpose): attribute 'perm' is not a list of integers",
                  check=False)
    nodes = [helper.make_node("Transpose", ["x"], ["t0"], name="t0")]
    for i in range(1, 1100):
        nodes.append(helper.make_node("Transpose", ["t%d" % (i - 1)], ["t%d" % i],
                                      name="t%d" % i))
    nodes.append(helper.make_node("Identity", ["t1099"], ["y"], name="id"))
    refuse_simple("bad_too_many_ops", nodes, x, u8y, [], E2BIG,
                  "more than 1024 device", check=False)


malformed()

with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(LINES) + "\n")
print("%d cases" % sum(1 for ln in LINES if ln.split()[0] in ("ok", "err")))
