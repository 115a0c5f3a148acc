"""MXNet 1.x's Module API (``mx.mod`` / ``mxnet.module``): symbolic training on bound executors.

``Module`` trains one Symbol; ``BucketingModule`` one Symbol per bucket key with shared
parameters; ``SequentialModule`` chains modules; ``PythonModule``/``PythonLossModule`` are
modules written in Python. The loops (``fit``, ``score``, ``predict``) live in ``BaseModule``.
"""
from .base_module import BaseModule, ModuleStateError
from .bucketing_module import BucketingModule
from .executor_group import DataParallelExecutorGroup
from .module import Module
from .python_module import PythonLossModule, PythonModule
from .sequential_module import SequentialModule

__all__ = ["BaseModule", "BucketingModule", "DataParallelExecutorGroup", "Module",
           "ModuleStateError", "PythonLossModule", "PythonModule", "SequentialModule"]
