"""``mx.contrib.svrg_optimization``: training with stochastic variance-reduced gradients (SVRG).

svrg_module     SVRGModule, a Module whose update steps along ``g_i(w) - g_i(w~) + mu``
svrg_optimizer  _SVRGOptimizer and _AssignmentOptimizer, the optimizers SVRGModule installs
                (registered: ``mx.optimizer.create('_SVRGOptimizer', default_optimizer='sgd')``)
"""

from . import svrg_module
from . import svrg_optimizer
from .svrg_module import SVRGModule, SVRGError

__all__ = ['svrg_module', 'svrg_optimizer', 'SVRGModule', 'SVRGError']
