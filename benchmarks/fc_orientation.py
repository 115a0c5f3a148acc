"""FullyConnected's product ``x @ w.T`` in its two orientations on NumPy's BLAS: as written, and
weight first, ``(w @ x.T).T`` copied into the output. The planned and imperative kernels pick by
:func:`mxlab.ops.matrix._weight_first` (fewer rows than outputs, a product of at least 2**20
multiply-adds); this prints both times and the rule's choice per shape, so the rule can be checked
on another machine or BLAS.

Run: ``python -m benchmarks.fc_orientation [--repeats N]``
"""
import argparse

import numpy

from mxlab.ops.matrix import _weight_first

from .timing import Candidate, time_interleaved

#: (rows, width, outputs): the MLP's and ResNet-18's heads, wide layers, and rows > outputs.
SHAPES = ((64, 784, 256), (64, 256, 128), (64, 128, 10), (8, 512, 1000), (1, 784, 256),
          (128, 784, 256), (64, 1024, 1024), (256, 1024, 1024), (512, 256, 64))


def _candidates(rows, width, outputs):
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((rows, width)).astype("float32")
    w = rng.standard_normal((outputs, width)).astype("float32")
    out = numpy.empty((rows, outputs), "float32")
    as_written = Candidate("x @ w.T", lambda: lambda: numpy.matmul(x, w.T, out=out))
    weight_first = Candidate("(w @ x.T).T",
                             lambda: lambda: numpy.copyto(out, numpy.matmul(w, x.T).T))
    return [as_written, weight_first], _weight_first(numpy, x, w)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    print(f"{'rows x width x outputs':>24} {'x @ w.T':>10} {'(w @ x.T).T':>12}  faster  rule")
    for shape in SHAPES:
        candidates, rule = _candidates(*shape)
        rows = time_interleaved("fc", "x".join(map(str, shape)), candidates, repeats=args.repeats,
                                number=20, warmup=3)
        written, first = (row.value for row in rows)
        faster = "weight" if first < written else "x"
        chosen = "weight" if rule else "x"
        print(f"{' x '.join(map(str, shape)):>24} {written:8.1f}us {first:10.1f}us  {faster:>6}  "
              f"{chosen}")


if __name__ == "__main__":
    main()
