"""Sparse storage against real MXNet 1.9.1 (opt-in ``oracle`` tests): one code string runs under
both, comparing values, components and output storage types; and MXNet's own sparse ``.params``
files load here, and ours load there."""
import pathlib
import sys

import numpy
import pytest


sys.path.insert(0, str(pathlib.Path(__file__).parent.parent / "oracle"))
from mxnet_oracle import requires_mxnet, run_mxlab, run_mxnet  # noqa: E402

_STYPE_ID = {"default": 0, "row_sparse": 1, "csr": 2}

_CODE = """
ids = {'default': 0, 'row_sparse': 1, 'csr': 2}
a = mx.nd.array(inputs['a'])
b = mx.nd.array(inputs['b'])
w = mx.nd.array(inputs['w'])
csr, rsp = a.tostype('csr'), a.tostype('row_sparse')
outputs['csr_data'], outputs['csr_indices'] = csr.data.asnumpy(), csr.indices.asnumpy()
outputs['csr_indptr'], outputs['rsp_indices'] = csr.indptr.asnumpy(), rsp.indices.asnumpy()
results = {
    'dot': mx.nd.dot(csr, w),
    'dot_t': mx.nd.dot(csr, mx.nd.array(inputs['wt']), transpose_a=True),
    'dns_dot_csr': mx.nd.sparse.dot(mx.nd.array(inputs['wt']).T, csr),
    'add_rsp': mx.nd.elemwise_add(rsp, b.tostype('row_sparse')),
    'sub_csr': mx.nd.elemwise_sub(csr, b.tostype('csr')),
    'mul_rsp_dns': mx.nd.elemwise_mul(rsp, b),
    'add_csr_dns': mx.nd.elemwise_add(csr, b),
    'add_n': mx.nd.add_n(rsp, b.tostype('row_sparse'), rsp),
    'scalar_mul': rsp * 3,
    'scalar_add': csr + 1,
    'abs': mx.nd.abs(csr),
    'sqrt_abs': mx.nd.sqrt(mx.nd.abs(rsp)),
    'retain': mx.nd.sparse.retain(rsp, indices=mx.nd.array([0, 2, 3])),
    'csr_rows': csr[1:3],
    'sum0': mx.nd.sum(csr, axis=0),
    'sigmoid': mx.nd.sigmoid(rsp),
}
for name, value in results.items():
    outputs[name] = value.asnumpy()
    outputs[name + '_stype'] = np.array(ids[value.stype])
weight = mx.nd.array(inputs['w'])
mom = mx.nd.zeros(weight.shape)
grad = mx.nd.sparse.row_sparse_array((inputs['g'], [1, 3]), shape=weight.shape)
mx.nd.sgd_mom_update(weight, grad, mom, lr=0.1, wd=0.05, momentum=0.9, out=weight)
outputs['sgd_lazy'], outputs['sgd_mom'] = weight.asnumpy(), mom.asnumpy()
weight = mx.nd.array(inputs['w'])
mx.nd.sgd_update(weight, grad, lr=0.1, wd=0.05, lazy_update=False, out=weight)
outputs['sgd_std'] = weight.asnumpy()
"""


def _inputs():
    rng = numpy.random.default_rng(3)
    a = (rng.uniform(-1, 1, (4, 5)) * (rng.uniform(size=(4, 5)) < 0.5)).astype("float32")
    a[1] = 0
    b = (rng.uniform(-1, 1, (4, 5)) * (rng.uniform(size=(4, 5)) < 0.5)).astype("float32")
    return {"a": a, "b": b, "w": rng.normal(size=(5, 2)).astype("float32"),
            "wt": rng.normal(size=(4, 2)).astype("float32"),
            "g": rng.normal(size=(2, 2)).astype("float32")}


@requires_mxnet
@pytest.mark.oracle
def test_sparse_ops_match_mxnet():
    inputs = _inputs()
    ours, theirs = run_mxlab(_CODE, inputs), run_mxnet(_CODE, inputs)
    assert sorted(ours) == sorted(theirs)
    for name, value in ours.items():
        if name.endswith("_stype"):
            assert int(value) == int(theirs[name]), name
        else:
            numpy.testing.assert_allclose(value, theirs[name], rtol=1e-5, atol=1e-6,
                                          err_msg=name)


_SAVE = """
csr = mx.nd.array(inputs['a']).tostype('csr')
rsp = mx.nd.array(inputs['a']).tostype('row_sparse')
mx.nd.save(inputs['path'].item(), {'csr': csr, 'rsp': rsp, 'dense': mx.nd.ones(3)})
outputs['ok'] = np.array(1)
"""

_LOAD = """
loaded = mx.nd.load(inputs['path'].item())
for name in ('csr', 'rsp', 'dense'):
    outputs[name] = loaded[name].asnumpy()
    outputs[name + '_stype'] = np.array(loaded[name].stype)
"""


@requires_mxnet
@pytest.mark.oracle
@pytest.mark.parametrize("writer", ["mxnet", "mxlab"])
def test_sparse_params_files_interchange_with_mxnet(tmp_path, writer):
    path = tmp_path / f"{writer}.params"
    inputs = {"a": _inputs()["a"], "path": numpy.array(str(path))}
    (run_mxnet if writer == "mxnet" else run_mxlab)(_SAVE, inputs)
    for reader in (run_mxnet, run_mxlab):
        out = reader(_LOAD, inputs)
        assert str(out["csr_stype"]) == "csr" and str(out["rsp_stype"]) == "row_sparse"
        numpy.testing.assert_array_equal(out["csr"], inputs["a"])
        numpy.testing.assert_array_equal(out["rsp"], inputs["a"])
