"""SVRG (stochastic variance reduced gradient) training for 1.x modules
(``mx.contrib.svrg_optimization``): :class:`SVRGModule` and its optimizer."""
from .svrg_module import SVRGModule
from .svrg_optimizer import _AssignmentOptimizer, _SVRGOptimizer

__all__ = ["SVRGModule", "_AssignmentOptimizer", "_SVRGOptimizer"]
