"""Test-session set-up shared by every test in tests/.

Only the pytest process itself is configured here.  The chapter notebooks that nbval
runs execute in their own kernels, which draw figures inline exactly as when the book is
built, so nothing here may leak into their environment (no MPLBACKEND variable: it would
replace the inline backend and change the notebooks' stored outputs).
"""

import os

import matplotlib
from hypothesis import HealthCheck, settings

# tests that plot must never need a display
matplotlib.use("Agg")

# No per-example deadline: two pytest workers on a 2-core machine make timings noisy.
# On CI (CI=true) the examples are also derandomized, so a failure there repeats here.
settings.register_profile("reflib-dev", deadline=None)
settings.register_profile(
    "reflib-ci", deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get(
    "HYPOTHESIS_PROFILE", "reflib-ci" if os.environ.get("CI") else "reflib-dev"))

# REFLIB_TEST_DEVICE=strict|gpu (tests/device.py): gpu(0) becomes the tests' default context,
# as MXNet's GPU test files make it with set_default_context
import device  # noqa: E402  (installs the strict cupy stand-in before any test imports cupy)


def pytest_configure(config):
    if device.ON_DEVICE:
        from reflib.test_utils import set_default_context
        set_default_context(device.CTX)


def pytest_report_header(config):
    return 'reflib test device: %s (%s)' % (device.CTX, device.MODE)
