# SPDX-License-Identifier: GPL-2.0
"""A project script loaded as a module, for its unit tests (the scripts are
not a package: scripts/demo_plot.py, selftests/vm/lib/incast_report.py).

    sys.path.insert(0, os.path.join(TOP, "selftests/lib"))
    from srcmod import load
    ir = load("selftests/vm/lib/incast_report.py")
"""
import importlib.util
import os

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "../.."))


def load(path):
    """The module of @path, relative to the tree's top, named after it."""
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, os.path.join(TOP, path))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
