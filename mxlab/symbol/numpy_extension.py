"""``mx.sym.npx``: MXNet operators on NumPy-flavoured symbols, generated from the registry."""

from .frontend import populate_flavour
from .np_call import fill_namespace
from .numpy import _Symbol

populate_flavour(globals(), "npx_name", _Symbol)
fill_namespace(globals(), "npx.", _Symbol)
