"""
Ground a LangChain retrieval chain: runs offline, no API key.

The chain retrieves from an in-memory vector store and answers with a chat
model; here langchain-core's fake chat model stands in for yours (its first
answer states a year the documents do not hold, its second is right). Swap in
any chat model: nothing else changes::

    pip install 'relapse[langchain]'
    python examples/integrations/langchain_rag.py
"""

from __future__ import annotations

from operator import itemgetter

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore

from relapse.integrations.langchain import GroundedRunnable

store = InMemoryVectorStore(DeterministicFakeEmbedding(size=64))
store.add_texts(
    [
        "The Golden Gate Bridge opened to traffic on May 27, 1937.",
        "Its main span is 1,280 metres long.",
    ]
)
retriever = store.as_retriever(search_kwargs={"k": 2})
llm = FakeListChatModel(responses=["It opened in 1950.", "It opened on May 27, 1937."])

prompt = ChatPromptTemplate.from_template(
    "Answer from the context only.\nContext: {context}\n{feedback}\nQuestion: {question}"
)


def format_docs(docs: list[Document]) -> str:
    """The documents' texts for the prompt, one paragraph each (not their reprs)."""
    return "\n\n".join(doc.page_content for doc in docs)


# A chain that retrieves inside itself and returns its documents with the answer.
# The prompt gets the documents' texts; the output's "context" keeps the
# Documents themselves, which relapse checks the answer against.
answer_from_docs = (
    RunnablePassthrough.assign(context=itemgetter("context") | RunnableLambda(format_docs))
    | prompt
    | llm
    | StrOutputParser()
)
rag = RunnablePassthrough.assign(context=itemgetter("question") | retriever) | (
    RunnablePassthrough.assign(answer=answer_from_docs)
)

# The chunks are the chain's output "context"; retries keep the question (so
# the retriever searches for it) and put relapse's note under "feedback".
grounded_rag = GroundedRunnable(rag, context_key="context", feedback_key="feedback")


def main() -> None:
    result = grounded_rag.run({"question": "When did the Golden Gate Bridge open?"})
    for record in result.transcript:
        codes = ",".join(f.code for f in record.findings) or "-"
        print(f"attempt {record.iteration}: {record.answer!r} [{codes}]")
    output = result.response  # the chain's own output: a dict
    print(f"answer: {output['answer']}")
    print(f"grounded: {result.grounded} ({result.outcome})")


if __name__ == "__main__":
    main()
