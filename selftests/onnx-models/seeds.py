#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""seeds.py - fuzzing seeds for the ONNX importer from the node vectors.

For every DATA/NAME/model.onnx of libonnx-testdata, writes OUT/NAME.onnx
with the values of graph inputs 1.. (test_data_set_0/input_K.pb) moved
into initializers: the importer's constants (weights, scales, zero
points, shapes) are then part of the file, so that a fuzzer mutating it
reaches the compiler and not only the refusal of non-constant weights.
Input 0, the data, stays a graph input.

Usage: seeds.py DATA_DIR OUT_DIR
"""

import os
import sys

import onnx


def main():
    data, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    n = 0
    for name in sorted(os.listdir(data)):
        d = os.path.join(data, name)
        try:
            m = onnx.load(os.path.join(d, "model.onnx"))
        except Exception:		# not every directory holds a vector
            continue
        g = m.graph
        inits = {t.name for t in g.initializer}
        inputs = [i for i in g.input if i.name not in inits]
        keep = inputs[:1]
        for k, i in enumerate(inputs[1:], 1):
            pb = os.path.join(d, "test_data_set_0", "input_%d.pb" % k)
            if not os.path.exists(pb):
                keep.append(i)
                continue
            t = onnx.TensorProto()
            with open(pb, "rb") as f:
                t.ParseFromString(f.read())
            t.name = i.name
            g.initializer.append(t)
        del g.input[:]
        g.input.extend(keep)
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())
        n += 1
    print("# %d seeds in %s" % (n, out))
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
