"""
Adapters to the frameworks people build RAG with.

Each module needs its framework, installed through an optional extra, and is
imported only when you import it:

* :mod:`relapse.integrations.langchain` (``pip install 'relapse[langchain]'``):
  a Runnable that grounds another Runnable (an LCEL chain).
* :mod:`relapse.integrations.llamaindex` (``pip install 'relapse[llamaindex]'``):
  a query engine that grounds another query engine, and relapse's check as
  a LlamaIndex evaluator.

The OpenAI-compatible LLM call is :mod:`relapse.llms.openai`.
"""
