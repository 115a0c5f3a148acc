"""Imported first by every D2L section script: turns the alias on, gives the cells d2lbook's
``tab`` object, and replaces D2L's dataset downloads with small generated files of the same format
(shapes, dtypes, columns), so the sections run offline. ``d2l.plt.plot`` takes ragged lists as
NumPy < 1.24 (which MXNet 1.9.1 needs) did: see :func:`_plot_ragged_as_numpy_123`.

One more change keeps the sections within their timeout on a small CPU: ``d2l.Trainer.fit`` trains
for at most ``MXLAB_D2L_MAX_EPOCHS`` epochs (default 1; the text asks for 3 to 100). Every model,
batch and printed shape stays as the text has it; only the number of passes over the (small,
generated) data shrinks, so the losses and accuracies plotted are not the book's.

The module imports nothing of mxlab at module level, so the oracle run (``--python`` naming an
interpreter with real MXNet 1.9.1) imports it as a plain file and calls ``install(alias=False)``:
both runs then see the same generated data."""
import io
import os
import warnings
import zipfile

import numpy

__all__ = ["GENERATORS", "install", "tab"]


class tab:
    """d2lbook's ``tab``: the MXNet tab is the selected one."""

    @staticmethod
    def selected(*names):
        return "mxnet" in names

    @staticmethod
    def interact_select(*names):
        return None


_WORDS = ["the", "time", "traveller", "was", "a", "man", "of", "science", "and", "he", "said",
          "that", "we", "could", "travel", "in", "time", "as", "easily", "as", "in", "space",
          "but", "the", "others", "laughed", "at", "him", "and", "went", "home"]


def _time_machine(rng):
    lines = [" ".join(rng.choice(_WORDS, size=rng.integers(5, 15))) for _ in range(600)]
    return ("\n".join(lines) + "\n").encode()


def _fra_eng(rng):
    pairs = [(" ".join(rng.choice(_WORDS, size=rng.integers(2, 6))) + " .",
              " ".join(rng.choice(_WORDS, size=rng.integers(2, 7))) + " !")
             for _ in range(700)]   # NOTE: MTFraEng reads 512 + 128 pairs by default
    # NOTE: two tab-separated columns, as D2L's copy of the file (MTFraEng skips other lines)
    text = "".join(f"{en}\t{fr}\n" for en, fr in pairs)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("fra-eng/fra.txt", text)
    return buffer.getvalue()


def _kaggle_house(rng, train):
    n = 120
    cols = {"Id": numpy.arange(1, n + 1), "MSSubClass": rng.integers(20, 190, n),
            "LotArea": rng.integers(1300, 20000, n),
            "MSZoning": rng.choice(["RL", "RM", "FV", "C (all)"], n),
            "LotFrontage": numpy.where(rng.random(n) < 0.1, numpy.nan, rng.uniform(20, 120, n))}
    header = list(cols) + (["SalePrice"] if train else [])
    rows = [",".join("" if isinstance(v, float) and numpy.isnan(v) else str(v)
                     for v in (cols[c][i] for c in cols))
            + (f",{int(rng.integers(50000, 400000))}" if train else "") for i in range(n)]
    return (",".join(header) + "\n" + "\n".join(rows) + "\n").encode()


def _airfoil(rng):
    data = rng.uniform(0.0, 1.0, size=(1503, 5)) * [20000, 22, 0.3, 71, 0.06]
    return "".join("\t".join(f"{v:.6f}" for v in row) + "\n" for row in data).encode()


GENERATORS = {
    "timemachine.txt": _time_machine,
    "fra-eng.zip": _fra_eng,
    "kaggle_house_pred_train.csv": lambda rng: _kaggle_house(rng, True),
    "kaggle_house_pred_test.csv": lambda rng: _kaggle_house(rng, False),
    "airfoil_self_noise.dat": _airfoil,
}


def offline_download(url, folder="../data", sha1_hash=None):
    """D2L's ``download`` with generated content: same file name and format, small."""
    import d2l.mxnet as d2l
    if not url.startswith("http"):
        url = d2l.DATA_HUB[url][0]
    fname = os.path.join(folder, url.split("/")[-1])
    base = os.path.basename(fname)
    if base not in GENERATORS:
        raise RuntimeError(f"offline D2L harness: no generated data for {base} ({url})")
    os.makedirs(folder, exist_ok=True)
    with open(fname, "wb") as f:
        f.write(GENERATORS[base](numpy.random.default_rng(0)))
    return fname


def _fashion_mnist_class(mx):
    """``gluon.data.vision.FashionMNIST`` with generated 28x28x1 uint8 images, int32 labels."""
    class FashionMNIST(mx.gluon.data.ArrayDataset):
        def __init__(self, root=None, train=True, transform=None):
            rng = numpy.random.default_rng(0 if train else 1)
            n = 256 if train else 64
            images = rng.integers(0, 256, size=(n, 28, 28, 1), dtype=numpy.uint8)
            labels = rng.integers(0, 10, size=(n,)).astype(numpy.int32)
            if mx.util.is_np_array():   # NOTE: as MXNet's MNIST: np arrays under npx.set_np()
                super().__init__(mx.np.array(images, dtype=numpy.uint8),
                                 mx.np.array(labels, dtype=numpy.int32))
            else:
                super().__init__(mx.nd.array(images, dtype=numpy.uint8), labels)
    return FashionMNIST


def _cap_epochs(d2l):
    """``d2l.Trainer.fit`` with ``max_epochs`` capped (module docstring; D2L before 1.0 has no
    Trainer)."""
    if not hasattr(d2l, "Trainer"):
        return
    fit, cap = d2l.Trainer.fit, int(os.environ.get("MXLAB_D2L_MAX_EPOCHS", "1"))

    def capped_fit(self, model, data):
        self.max_epochs = min(self.max_epochs, cap)
        return fit(self, model, data)

    d2l.Trainer.fit = capped_fit


def _pandas_as_d2l_knows_it():
    """D2L finds text columns by ``dtype == 'object'``, which pandas >= 3 no longer gives them."""
    try:
        import pandas
    except ImportError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            pandas.set_option("future.infer_string", False)
        except (KeyError, AttributeError):   # NOTE: pandas < 2.1 has no such option
            pass


def as_numpy_123(seq):
    """``seq`` as NumPy < 1.24 made it: an array, or, where the items' shapes differ (ragged), a
    1-d object array of the items; NumPy >= 1.24 raises ValueError there instead."""
    if not isinstance(seq, (list, tuple)):
        return seq
    try:
        return numpy.asanyarray(seq)
    except ValueError:
        out = numpy.empty(len(seq), dtype=object)
        for i, item in enumerate(seq):
            out[i] = item
        return out


def _plot_ragged_as_numpy_123(d2l):
    """``d2l.plt.plot`` takes ragged coordinate lists again. D2L's ``train_2d`` starts its trace
    with Python ints and goes on with shape-(1,) arrays (the sgd section's noisy gradient); MXNet
    1.9.1 needs NumPy < 1.24, where matplotlib got an object array of them (with a
    VisibleDeprecationWarning), and NumPy >= 1.24 refuses such lists whatever the arrays are."""
    plt = getattr(d2l, "plt", None)
    if plt is None or getattr(plt.plot, "_mxlab_ragged", False):
        return
    plot = plt.plot

    def plot_ragged_too(*args, **kwargs):
        return plot(*(as_numpy_123(a) for a in args), **kwargs)

    plot_ragged_too._mxlab_ragged = True
    plt.plot = plot_ragged_too


def install(alias=True):
    """Alias on (real MXNet when not ``alias``); D2L's downloads replaced (when ``d2l.mxnet``
    imports at all)."""
    if alias:
        from mxlab import compat
        mx = compat.install()
    else:
        import mxnet as mx
    _pandas_as_d2l_knows_it()
    try:
        import d2l.mxnet as d2l
    except ImportError:
        return   # NOTE: the section's own `from d2l import mxnet` then shows the real error
    d2l.download = offline_download
    _cap_epochs(d2l)
    _plot_ragged_as_numpy_123(d2l)
    vision = getattr(getattr(getattr(mx, "gluon", None), "data", None), "vision", None)
    if vision is not None:
        vision.FashionMNIST = _fashion_mnist_class(mx)
