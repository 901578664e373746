"""
Adapters to the frameworks people build RAG with.

Each module needs its framework, installed through an optional extra, and is
imported only when you import it:

* :mod:`relapse.integrations.llamaindex` (``pip install 'relapse[llamaindex]'``):
  relapse's check as a LlamaIndex evaluator.
"""
