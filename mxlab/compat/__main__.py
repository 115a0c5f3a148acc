"""``python -m mxlab.compat script.py [args]`` / ``python -m mxlab.compat -m module [args]``: run
MXNet code with ``import mxnet`` resolving to mxlab."""
import os
import runpy
import sys

from . import install

USAGE = "usage: python -m mxlab.compat (script.py | -m module) [args ...]"


def main(argv):
    """Install the alias, then run the script or module as ``__main__`` with ``argv`` after it."""
    if not argv or argv[0] in ("-h", "--help") or (argv[0] == "-m" and len(argv) < 2):
        print(USAGE, file=sys.stderr)
        return 2
    install()
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(argv)
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
