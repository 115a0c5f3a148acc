"""Zero states of the active array flavour, shared by the recurrent layers and cells."""
from ...util import is_np_array

__all__ = ["default_zeros", "zeros_like_input"]


def zeros_like_input(x, shape, dtype=None):
    """Zeros of ``shape`` in ``x``'s flavour (``mx.nd`` / ``mx.np``) and device."""
    from ... import ndarray, numpy
    make = numpy.zeros if x._flavour == "np" else ndarray.zeros
    return make(shape, dtype=dtype or x.dtype, ctx=x.device)


def default_zeros():
    """``mx.np.zeros`` in NumPy mode (``npx.set_np``), else ``mx.nd.zeros``: MXNet's default
    ``begin_state`` function for each generation."""
    from ... import ndarray, numpy
    return numpy.zeros if is_np_array() else ndarray.zeros
