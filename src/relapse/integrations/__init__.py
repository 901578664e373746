"""
Adapters to the frameworks people build RAG with.

Each module needs its framework, installed through an optional extra, and is
imported only when you import it:

* :mod:`relapse.integrations.langchain` (``pip install 'relapse[langchain]'``):
  a Runnable that grounds another Runnable (an LCEL chain).
  Its ``GroundingMiddleware`` grounds LangChain 1.x agents (``create_agent``).
* :mod:`relapse.integrations.llamaindex` (``pip install 'relapse[llamaindex]'``):
  a query engine that grounds another query engine, and relapse's check as
  a LlamaIndex evaluator.
* :mod:`relapse.integrations.pydantic_ai` (``pip install 'relapse[pydantic-ai]'``):
  an output validator and a capability re-asking through ``ModelRetry``.
* :mod:`relapse.integrations.haystack` (``pip install 'relapse[haystack]'``):
  a component re-asking inside a pipeline loop, and hooks for the ``Agent``.
* :mod:`relapse.integrations.mcp` (``pip install 'relapse[mcp]'``): the MCP
  server of ``relapse mcp``.

The frameworks that re-ask by themselves drive the loop one answer at a time
(``relapse.integrations._stepper``): the same options, outcomes and spans.

The OpenAI-compatible LLM call is :mod:`relapse.llms.openai`.
"""
