"""``mx.runtime``: which build features this MXNet has (MXNet's ``Features``), answered for mxlab:
what the Python environment provides (CuPy for CUDA, mpi4py for the dist kvstore), and ``False``
for parts of MXNet's C++ build that mxlab has no counterpart of."""
import collections
import importlib.util

from .base import MXNetRuntimeError

__all__ = ["Feature", "Features", "feature_list"]

# MXNet's feature names (src/libinfo.cc), in its order: 2.0's, with 1.9's CUDA_RTC, MKLDNN,
# CAFFE, PROFILER and CXX14 where 1.9 lists them.
_NAMES = ("CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CUTENSOR", "CPU_SSE", "CPU_SSE2",
          "CPU_SSE3", "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP",
          "SSE", "F16C", "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE",
          "LAPACK", "MKLDNN", "ONEDNN", "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14",
          "INT64_TENSOR_SIZE", "SIGNAL_HANDLER", "DEBUG", "TVM_OP")


def _has(module):
    return importlib.util.find_spec(module) is not None


def _enabled():
    """The features mxlab has: CUDA through CuPy, LAPACK through NumPy, 64-bit sizes (NumPy
    indexes with int64), the dist kvstore through mpi4py, the profiler (``mx.profiler``)."""
    return {"CUDA": _has("cupy"), "LAPACK": True, "INT64_TENSOR_SIZE": True,
            "DIST_KVSTORE": _has("mpi4py"), "PROFILER": True}


class Feature(collections.namedtuple("Feature", ["name", "enabled"])):
    """One build feature and whether it is on."""

    def __repr__(self):
        return ("✔ " if self.enabled else "✖ ") + self.name


def feature_list():
    """Every :class:`Feature`, in MXNet's order."""
    enabled = _enabled()
    return [Feature(name, enabled.get(name, False)) for name in _NAMES]


class Features(collections.OrderedDict):
    """``{name: Feature}``, one shared instance (as MXNet's)."""

    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super().__init__(cls.instance, [(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):  # NOTE: filled once in __new__
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether ``feature_name`` (case-insensitive) is on; unknown names are an error."""
        name = feature_name.upper()
        if name not in self:
            raise MXNetRuntimeError(f"Feature '{feature_name}' is unknown, known features are: "
                                    f"{list(self)}")
        return self[name].enabled
