"""What a rule may ask of the prepared chunks and question, and what they cache per prepare."""

from __future__ import annotations

import re

from relapse.grounding._echo import asked_text
from relapse.grounding._index.folded import FoldedChunks
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._names import vocabulary
from relapse.grounding._read.quantity import Quantity
from relapse.grounding._read.subjects import Sentences
from relapse.grounding._read.word_claims import percents_in_words
from relapse.grounding._read.words import Value
from relapse.grounding._values.keys import Key


class Lookup:
    """
    The chunks and the question as the rules see them, indexed once per prepare.

    Attributes:
        chunks: The chunks' index.
        question: The question's index, or None when the question exempts
            nothing (``exempt_question=False``).
        question_text: The question as given.
        indexes: ``chunks`` and ``question`` (when there is one), in that order.
        trivial_keys: The keys of the configured trivial numbers.
        refusals: The configured refusal phrases, folded.
        min_quote_words: Fewest words of a quotation that is checked.
        echo_patterns: ``(phrase, pattern)`` of each echo phrase.
    """

    __slots__ = (
        "_chunk_sentences",
        "_copy_context",
        "_known_words",
        "_percents_in_words",
        "chunks",
        "echo_patterns",
        "indexes",
        "min_quote_words",
        "question",
        "question_text",
        "refusals",
        "trivial_keys",
    )

    def __init__(
        self,
        chunks: TextIndex,
        question: TextIndex | None,
        question_text: str,
        trivial_keys: frozenset[Key],
        refusals: tuple[str, ...],
        min_quote_words: int,
        echo_patterns: tuple[tuple[str, re.Pattern[str]], ...],
    ) -> None:
        self.chunks = chunks
        self.question = question
        self.question_text = question_text
        self.indexes: tuple[TextIndex, ...] = (chunks,) if question is None else (chunks, question)
        self.trivial_keys = trivial_keys
        self.refusals = refusals
        self.min_quote_words = min_quote_words
        self.echo_patterns = echo_patterns
        self._known_words: frozenset[str] | None = None
        # The folded question and chunks FG004's copy rule compares (built on first use).
        self._copy_context: tuple[str, FoldedChunks] | None = None
        # The percents the chunks and the question write in words ("sixty
        # percent"), read when a fraction first asks for them.
        self._percents_in_words: frozenset[Value] | None = None
        # The sentence ends of the chunks the subject rule reads, by position
        # (each found on first use, once).
        self._chunk_sentences: dict[int, Sentences] = {}

    def has(self, key: Key, plain: bool) -> bool:
        """Tell whether the chunks (or the question, or the trivial set) hold ``key``."""
        if self.known(key, plain):
            return True
        return self.chunks.has(key)

    def known(self, key: Key, plain: bool) -> bool:
        """Tell whether ``key`` is held without reading more chunks."""
        if key in self.chunks.keys:
            return True
        if self.question is not None and key in self.question.keys:
            return True
        return plain and key in self.trivial_keys

    def trivial(self, value: Quantity) -> bool:
        """
        Tell whether a claim is a trivial number written bare (``2 ways``).

        A trivial number measures something when a unit follows it (``1
        kilometer``, ``2%``): then it is a claim like any other.
        """
        claim = value.claim
        return claim.plain and claim.key in self.trivial_keys and value.unit_after is None

    def sentence_in_chunk(self, position: int, start: int, end: int) -> tuple[int, int] | None:
        """Return the sentence of chunk ``position`` holding ``start:end`` (``Sentences.at``)."""
        sentences = self._chunk_sentences.get(position)
        if sentences is None:
            sentences = self._chunk_sentences[position] = Sentences(self.chunks.texts[position])
        return sentences.at(start, end)

    def percents_in_words(self) -> frozenset[Value]:
        """Return the percents the chunks and the question write in words, read once per prepare."""
        found = self._percents_in_words
        if found is None:
            found = self._percents_in_words = frozenset(
                value for index in self.indexes for value in percents_in_words(index.joined)
            )
        return found

    def names(self) -> frozenset[str]:
        """Return the folded words of the chunks and the question (FG005; built on first use)."""
        known = self._known_words
        if known is None:
            known = self._known_words = vocabulary([*self.chunks.texts, self.question_text])
        return known

    def copy_context(self) -> tuple[str, FoldedChunks]:
        """
        Return what FG004's copy rule compares an answer with (built on first use).

        Returns:
            ``(asked, chunks)``: the question as
            :func:`relapse.grounding._echo.asked_text` gives it, and the
            chunk texts, folded when asked for (one
            :class:`~relapse.grounding._index.folded.FoldedChunks` per
            prepare, shared by every answer checked and by the streaming
            copy watch, so a chunk is folded once).
        """
        context = self._copy_context
        if context is None:
            # Once per prepare; the chunks are folded as the answers' probes
            # need them, once each. Their UTF-8 is the index's, which the
            # word numbers' lookup also searches.
            chunks = self.chunks
            context = self._copy_context = (
                asked_text(self.question_text),
                FoldedChunks(chunks.texts, chunks.joined, chunks.digests, lambda: chunks.encoded),
            )
        return context
