"""``mx.gluon.data``: datasets, samplers, batchify functions and the DataLoader."""
from . import batchify  # noqa: F401
from .dataloader import DataLoader  # noqa: F401
from .dataset import ArrayDataset, Dataset, RecordFileDataset, SimpleDataset  # noqa: F401
from .sampler import (BatchSampler, FilterSampler, IntervalSampler, RandomSampler,  # noqa: F401
                      Sampler, SequentialSampler)
from . import vision  # noqa: F401,E402
