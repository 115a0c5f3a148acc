"""``mx.io``: MXNet's data iterators (``DataIter``, ``NDArrayIter``, ``CSVIter``, ``MNISTIter``,
``ResizeIter``, ``PrefetchingIter``, ``ImageRecordIter``) and the batch descriptions ``DataDesc`` /
``DataBatch``."""
from .io import *  # noqa: F401,F403
from .files import *  # noqa: F401,F403
from .image_record import *  # noqa: F401,F403
