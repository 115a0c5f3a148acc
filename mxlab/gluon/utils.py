"""Gluon helpers: splitting batches over devices, global-norm clipping and a small ``fit`` loop.

Example
-------
>>> import mxlab as mx
>>> parts = mx.gluon.utils.split_and_load(mx.nd.arange(4), [mx.cpu(0), mx.cpu(1)])
>>> [p.asnumpy().tolist() for p in parts]
[[0.0, 1.0], [2.0, 3.0]]
"""
import hashlib
import itertools
import math
import os
import warnings

from .. import autograd
from ..atomic_file import atomic_write
from ..base import MXNetRuntimeError, MXNetValueError

__all__ = ["split_data", "split_and_load", "clip_global_norm", "fit", "split_rnn_params",
           "check_sha1", "download", "shape_is_known", "replace_file"]


def _get_repo_url():
    """MXNet's Gluon repository base URL (``MXNET_GLUON_REPO``), ending in ``/``; libraries build
    file URLs from it (mxlab itself downloads nothing)."""
    url = os.environ.get("MXNET_GLUON_REPO",
                         "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/")
    return url if url.endswith("/") else url + "/"


def _get_repo_file_url(namespace, filename):
    """The repository URL of ``namespace/filename`` (MXNet's helper)."""
    return f"{_get_repo_url()}{namespace}/{filename}"


def replace_file(src, dst):
    """MXNet's atomic rename of ``src`` over ``dst`` (``os.replace``)."""
    os.replace(src, dst)


def shape_is_known(shape):
    """MXNet 2.0's check: every dim known, unknown being -1 in NumPy shape mode and 0 outside it
    (where ``()`` is unknown too)."""
    from ..util import is_np_shape
    if shape is None:
        return False
    unknown = -1 if is_np_shape() else 0
    if len(shape) == 0:
        return unknown == -1
    for dim in shape:
        if dim == unknown:
            return False
        if dim < unknown:
            raise MXNetValueError(f"shape dimension size cannot be less than {unknown}, while "
                                  f"received {dim}")
    return True


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """``num_slice`` slices of ``data`` along ``batch_axis``.

    Uneven splits get ``numpy.array_split``'s sizes (the first slices one longer), in both array
    flavours, as MXNet 1.9.1 and 2.0 split them (MXNet 1.x before 1.9 put the rest in the last
    slice); more slices than rows give empty ones.
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise MXNetValueError(
            f"data with shape {data.shape} cannot be evenly split into {num_slice} slices along "
            f"axis {batch_axis}. Use a batch size that's multiple of {num_slice} or set "
            f"even_split=False to allow uneven partitioning of data."
        )
    step, extra = divmod(size, num_slice)
    sizes = [step + 1] * extra + [step] * (num_slice - extra)
    bounds = [sum(sizes[:i]) for i in range(num_slice + 1)]
    from ..ops.registry import F

    if getattr(data, "stype", "default") != "default" and batch_axis == 0:
        return [data[lo:hi] for lo, hi in itertools.pairwise(bounds)]   # NOTE: stays sparse
    return [F.slice_axis(data, axis=batch_axis, begin=lo, end=hi)
            for lo, hi in itertools.pairwise(bounds)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` into ``len(ctx_list)`` slices, each copied to its device."""
    if not hasattr(data, "asnumpy"):   # NOTE: as MXNet, through mx.nd.array (float32)
        from ..ndarray import array

        data = array(data)
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(ctx) for s, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scale ``arrays`` in place so their joint L2 norm is at most ``max_norm``; returns the norm
    before clipping."""
    if not arrays:
        raise MXNetValueError("clip_global_norm: arrays must not be empty")
    total = math.sqrt(sum(float((x.asnumpy().astype("float64") ** 2).sum()) for x in arrays))
    if check_isfinite and not math.isfinite(total):
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."),
                      stacklevel=2)
    scale = max_norm / (total + 1e-8)
    if scale < 1.0:
        with autograd.pause():
            for x in arrays:
                x[:] = x * scale
    return total


def fit(net, loader, loss_fn, trainer, epochs=1, progress=False):
    """Train ``net`` for ``epochs`` over ``loader`` of ``(data, label)`` batches.

    ``progress`` shows a tqdm bar per epoch (a dict passes tqdm options, e.g. ``file``). Returns
    the mean loss of each epoch.

    Example
    -------
    >>> import mxlab as mx
    >>> x = mx.nd.random.uniform(shape=(8, 2)); y = x.sum(axis=1, keepdims=True)
    >>> net = mx.gluon.nn.Dense(1); net.initialize()
    >>> loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(x, y), batch_size=4)
    >>> trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    >>> len(fit(net, loader, mx.gluon.loss.L2Loss(), trainer, epochs=2))
    2
    """
    history = []
    for epoch in range(epochs):
        batches = _with_progress(loader, progress, epoch)
        total, count = 0.0, 0
        for data, label in batches:
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(data.shape[0])
            total += float(loss.asnumpy().sum())
            count += data.shape[0]
            if hasattr(batches, "set_postfix"):
                batches.set_postfix(loss=total / count)
        history.append(total / max(count, 1))
    return history


def _with_progress(loader, progress, epoch):
    if not progress:
        return loader
    from tqdm.auto import tqdm

    options = dict(progress) if isinstance(progress, dict) else {}
    options.setdefault("desc", f"epoch {epoch}")
    return tqdm(loader, total=len(loader), **options)


def split_rnn_params(param, mode, num_layers, input_size, hidden_size, bidirectional=False,
                     projection_size=None):
    """The fused RNN op's flat ``param`` split into per-layer weights and biases (MXNet 2.0)."""
    from .rnn.rnn_layer import split_rnn_params as split
    return split(param, mode, num_layers, input_size, hidden_size, bidirectional,
                 projection_size)


def _indent(s_, num_spaces):
    """Indent every line of ``s_`` but the first by ``num_spaces`` (MXNet's block reprs)."""
    lines = s_.split('\n')
    if len(lines) == 1:
        return s_
    return '\n'.join([lines[0]] + [(num_spaces * ' ') + line for line in lines[1:]])


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of the file ``filename`` is ``sha1_hash`` (hexadecimal digits; a prefix,
    as MXNet compares, when shorter than 40)."""
    digest = hashlib.sha1()
    with open(filename, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return _sha1_matches(digest.hexdigest(), sha1_hash)


def _sha1_matches(found, sha1_hash):
    return found[:len(sha1_hash)] == sha1_hash if len(sha1_hash) < 40 else found == sha1_hash


def _fetch(url, target, sha1_hash, verify_ssl):
    """One try: stream ``url`` with requests (as MXNet does) into the atomic writer's temporary
    file and check it, so ``target`` only ever holds a complete, verified download."""
    import requests     # NOTE: imported when a download happens (it costs ~0.1 s at import)
    response = requests.get(url, stream=True, verify=verify_ssl, timeout=60)
    if response.status_code != 200:
        raise OSError(f"HTTP {response.status_code}")
    digest = hashlib.sha1()
    with atomic_write(target, "wb") as part:
        for chunk in response.iter_content(chunk_size=1 << 20):
            digest.update(chunk)
            part.write(chunk)
        if sha1_hash and not _sha1_matches(digest.hexdigest(), sha1_hash):
            raise MXNetRuntimeError(f"download: {url} does not match SHA-1 {sha1_hash}")


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Download ``url`` to ``path`` (a file, or a directory to put the URL's file name in; default
    the URL's file name here) and return the file's path. An existing file is kept unless
    ``overwrite`` or its SHA-1 differs from ``sha1_hash``; the file appears only once complete
    (written to a temporary name, then renamed). No network: an error naming the URL."""
    name = url.split("/")[-1]
    if path is None and not name:
        raise MXNetValueError(f"download: cannot name a file from {url!r}; pass path")
    target = name if path is None else os.path.expanduser(path)
    if os.path.isdir(target):
        target = os.path.join(target, name)
    if retries < 0:
        raise MXNetValueError(f"download: retries must be at least 0, got {retries}")
    if not verify_ssl:   # NOTE: MXNet warns before it looks for a kept file
        warnings.warn("Unverified HTTPS request is being made (verify_ssl=False). Adding "
                      "certificate verification is strongly advised.", stacklevel=2)
    if not overwrite and os.path.exists(target) and (
            sha1_hash is None or check_sha1(target, sha1_hash)):
        return target
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    error = None
    for _ in range(retries + 1):
        try:
            _fetch(url, target, sha1_hash, verify_ssl)
            return target
        except OSError as exc:   # network and HTTP errors (requests' errors are OSErrors)
            error = exc
    raise MXNetRuntimeError(f"download: could not fetch {url} after {retries + 1} tries "
                            f"({error})") from error
