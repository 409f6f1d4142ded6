# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""npu: run models on the NPU from Python, over libnpu.

    import numpy as np
    import npu

    with npu.Session("mnist.nmdl") as sess:
        print(sess.inputs(), sess.outputs())
        x = np.zeros(sess.inputs()[0].shape, np.float32)
        (y,) = sess.run(x)                 # float32 in, float32 out
        fut = sess.submit([x])             # several in flight, any thread
        (y,) = fut.wait(timeout=5.0)

npu.Model(path) loads and validates a model file with no device;
Model.layers lists the source model's layers from the file's layer table
(name, op_type, in_shapes, out_shapes, macs, weight_bytes, ops: the
program operators that carry it), [] for a file without one;
npu.Session(model, device=None, pes=None, contexts=0, timeout=None,
output_dtype=numpy.float32) prepares it on /dev/npuN. Inputs are numpy
arrays of the input's shape, float32 (Quantized by the runtime) or uint8
(already quantized); outputs are Dequantized float32 arrays, or with
output_dtype=numpy.uint8 the device's quantized values (the dtype
Model.outputs() reports); Session.outputs() reports the dtype run()
returns. npu.reference_run(model, inputs, output_dtype=numpy.float32)
computes the same outputs on the host CPU with libnpuref, the reference
implementation of the NPU's operators: a device's outputs equal them bit
for bit.

Errors raise npu.Error, a subclass of OSError (errno, strerror, filename):
ETIMEDOUT when run() or wait() times out; inputs that do not fit the model
raise npu.InputError, both an npu.Error (EINVAL) and a ValueError.
"""
from ._npu import (Error, Future, InputError, Model, Session, TensorDesc,
                   reference_run)

__all__ = ["Error", "Future", "InputError", "Model", "Session", "TensorDesc",
           "reference_run"]
