"""``python -m benchmarks``: see :mod:`benchmarks.run`."""
from . import pin_threads

pin_threads()   # before run imports NumPy

from .run import main  # noqa: E402

main()
