"""Multi-tensor, mixed-precision and NAG updates (``mx.nd.multi_sgd_update`` and friends,
``mx.nd.contrib.adamw_update`` and friends): NumPy transcriptions of MXNet's kernels and, opt-in,
MXNet 1.9.1 itself running the same script."""
import json
import os
import subprocess

import numpy
import pytest

import mxlab as mx

# NOTE: the same script runs on mxlab (exec) and on MXNet 1.9.1 (subprocess): one source of truth.
_SCRIPT = """
import numpy as np

def run(mx):
    rng = np.random.RandomState(0)
    shapes = [(3, 4), (5,)]
    def arr(shape, dtype='float32', lo=-1.0, hi=1.0):
        return mx.nd.array(rng.uniform(lo, hi, size=shape), dtype=dtype)
    res = {}
    kw = dict(rescale_grad=0.7, clip_gradient=0.5)
    w, g, m = arr((3, 4)), arr((3, 4)) * 3, arr((3, 4))
    mx.nd.nag_mom_update(w, g, m, lr=0.1, momentum=0.9, wd=0.02, out=w, **kw)
    res['nag'] = [w.asnumpy().tolist(), m.asnumpy().tolist()]
    w16, g16, m, w32 = arr((5,), 'float16'), arr((5,), 'float16'), arr((5,)), arr((5,))
    mx.nd.mp_nag_mom_update(w16, g16, m, w32, lr=0.1, momentum=0.9, wd=0.02, out=w16, **kw)
    res['mp_nag'] = [w16.asnumpy().tolist(), m.asnumpy().tolist(), w32.asnumpy().tolist()]
    w16, g16, w32 = arr((5,), 'float16'), arr((5,), 'float16'), arr((5,))
    mx.nd.mp_sgd_update(w16, g16, w32, lr=0.1, wd=0.02, out=w16, **kw)
    res['mp_sgd'] = [w16.asnumpy().tolist(), w32.asnumpy().tolist()]
    w16, g16, m, w32 = arr((5,), 'float16'), arr((5,), 'float16'), arr((5,)), arr((5,))
    mx.nd.mp_sgd_mom_update(w16, g16, m, w32, lr=0.1, momentum=0.8, wd=0.02, out=w16, **kw)
    res['mp_sgd_mom'] = [w16.asnumpy().tolist(), m.asnumpy().tolist(), w32.asnumpy().tolist()]
    for pre in ('', 'preloaded_'):
        for mom in (False, True):
            for mp in (False, True):
                name = pre + 'multi_' + ('mp_' if mp else '') + 'sgd_' + \\
                    ('mom_' if mom else '') + 'update'
                ws = [arr(s, 'float16' if mp else 'float32') for s in shapes]
                data, keep = [], []
                for wi, s in zip(ws, shapes):
                    group = [wi, arr(s, wi.dtype) * 3]
                    if mom:
                        group.append(arr(s))
                    if mp:
                        group.append(wi.astype('float32'))
                    data += group
                    keep.append(group)
                lrs, wds = [0.1, 0.2], [0.01, 0.03]
                extra = {'momentum': 0.9} if mom else {}
                if pre:
                    data += [mx.nd.array(lrs), mx.nd.array(wds)]
                    getattr(mx.nd, name)(*data, num_weights=2, out=ws, **kw, **extra)
                else:
                    getattr(mx.nd, name)(*data, lrs=lrs, wds=wds, num_weights=2, out=ws,
                                         **kw, **extra)
                res[name] = [[a.asnumpy().astype('float64').tolist() for a in grp]
                             for grp in keep]
    for mp in (False, True):
        for multi in (False, True):
            w = [arr(s) for s in shapes]
            g = [arr(s) * 5 for s in shapes]
            mean, var = [arr(s) for s in shapes], [arr(s, lo=0.0) for s in shapes]
            w16 = [x.astype('float16') for x in w]
            g_in = [x.astype('float16') for x in g] if mp else g
            out = w16 if mp else w
            scale = mx.nd.array([0.9])
            common = dict(beta1=0.8, beta2=0.95, epsilon=1e-6, clip_gradient=2.0)
            if multi:
                fn = mx.nd.contrib.multi_mp_adamw_update if mp else \\
                    mx.nd.contrib.multi_adamw_update
                lists = [w16, g_in, mean, var, w] if mp else [w, g_in, mean, var]
                fn(*lists, scale, lrs=[0.1, 0.05], wds=[0.01, 0.02], etas=[0.9, 0.7], out=out,
                   **common)
            else:
                fn = mx.nd.contrib.mp_adamw_update if mp else mx.nd.contrib.adamw_update
                args = [w16[0], g_in[0], mean[0], var[0], w[0]] if mp else \\
                    [w[0], g_in[0], mean[0], var[0]]
                fn(*args, scale, lr=0.1, eta=0.9, wd=0.01, out=out[0], **common)
            key = 'adamw' + ('_mp' if mp else '') + ('_multi' if multi else '')
            res[key] = [[a.asnumpy().astype('float64').tolist() for a in x]
                        for x in (w, mean, var, out)]
    w, g, m, v = arr((4,)), arr((4,)), arr((4,)), arr((4,), lo=0.0)
    before = w.asnumpy().tolist()
    mx.nd.contrib.adamw_update(w, g, m, v, mx.nd.array([float('nan')]), lr=0.1, eta=1.0,
                               out=w)
    res['adamw_skip'] = [before, w.asnumpy().tolist()]
    return res
"""


def _mxlab_results():
    namespace = {}
    exec(_SCRIPT, namespace)   # noqa: S102  (our own fixed script)
    return namespace["run"](mx)


def test_nag_matches_mxnet_191_kernel_formula():
    res = _mxlab_results()["nag"]
    rng = numpy.random.RandomState(0)
    w, g, m = (rng.uniform(-1, 1, (3, 4)).astype("float32") for _ in range(3))
    g = numpy.clip(0.7 * (g * 3), -0.5, 0.5)
    decayed = 0.9 * m
    new = w - decayed + 1.9 * (decayed - 0.1 * (g + 0.02 * w))
    numpy.testing.assert_allclose(res[0], new, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(res[1], decayed - 0.1 * (g + 0.02 * new), rtol=1e-5, atol=1e-6)


def test_multi_sgd_mom_updates_each_weight_with_its_own_lr_and_wd():
    w = [mx.nd.ones((2,)), mx.nd.ones((3,)) * 2]
    g = [mx.nd.ones((2,)), mx.nd.ones((3,))]
    mom = [mx.nd.zeros((2,)), mx.nd.ones((3,))]
    mx.nd.multi_sgd_mom_update(w[0], g[0], mom[0], w[1], g[1], mom[1], lrs=(0.1, 0.2),
                               wds=(0.0, 0.5), momentum=0.5, num_weights=2, out=w)
    numpy.testing.assert_allclose(w[0].asnumpy(), [0.9, 0.9], rtol=1e-6)
    # mom = 0.5 * 1 - 0.2 * (1 + 0.5 * 2) = 0.1; w = 2 + 0.1
    numpy.testing.assert_allclose(mom[1].asnumpy(), [0.1] * 3, rtol=1e-6)
    numpy.testing.assert_allclose(w[1].asnumpy(), [2.1] * 3, rtol=1e-6)
    with pytest.raises(ValueError, match="num_weights=2 needs 6 arrays"):
        mx.nd.multi_sgd_mom_update(w[0], g[0], mom[0], lrs=(0.1,), wds=(0.0,), num_weights=2)


def test_adamw_skips_the_update_for_a_nan_rescale():
    before, after = _mxlab_results()["adamw_skip"]
    assert before == after


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("MXLAB_MXNET_PYTHON"),
                    reason="oracle test: set MXLAB_MXNET_PYTHON to a python with mxnet==1.9.1")
def test_oracle_updates_equal_mxnet_191():
    code = _SCRIPT + "\nimport json, mxnet\nprint(json.dumps(run(mxnet)))\n"
    result = subprocess.run([os.environ["MXLAB_MXNET_PYTHON"], "-c", code], check=True,
                            capture_output=True, text=True, timeout=300)
    expected = json.loads(result.stdout.strip().splitlines()[-1])
    ours = _mxlab_results()
    assert sorted(ours) == sorted(expected)
    for key, want in expected.items():
        got, want = _flat(ours[key]), _flat(want)
        assert len(got) == len(want), key
        numpy.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-4, err_msg=key)


def _flat(nested):
    if isinstance(nested, list):
        return [x for item in nested for x in _flat(item)]
    return [nested]
