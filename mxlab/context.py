"""MXNet 1.x name for the device module (``mx.context.current_context()``,
``mx.context.Context``)."""
from .device import Context, Device, cpu, cpu_pinned, current_context, current_device, gpu, num_gpus  # noqa: F401
