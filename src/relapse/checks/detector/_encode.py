"""
Tokenizing (context, answer) pairs the way LettuceDetect does, with the ``tokenizers`` package.

LettuceDetect (``HallucinationDataset.prepare_tokenized_input``) encodes the
prompt and the answer as a pair, ``[CLS] prompt [SEP] answer [SEP]``, truncating
only the prompt to the window (``truncation="only_first"``), and labels only the
answer's tokens. A Hugging Face fast tokenizer is a ``tokenizers.Tokenizer``
loaded from ``tokenizer.json`` with those settings, so this module loads the
same file and sets the same truncation: the token ids and offsets are the ones
the model was trained on, without ``transformers``.

The answer's tokens are read from the encoding's sequence ids (sequence 1),
and their character offsets are into the answer itself, for WordPiece and
byte-level BPE alike: the fast tokenizer records, for every token, the span of
the original text it came from (for a byte-level BPE token the span of the
characters whose bytes it holds, its leading space included).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from relapse.checks.detector._errors import DetectorInputError
from relapse.checks.detector._prompt import format_context, passage_line

__all__ = ["Encoded", "PairEncoder"]


@dataclass(frozen=True)
class Encoded:
    """
    One window: the prompt (possibly truncated) and the whole answer, as token ids.

    Attributes:
        ids: The token ids, shape ``(tokens,)``, int64.
        answer_positions: Where the answer's tokens are in ``ids``, shape
            ``(answer_tokens,)``: the tokens of sequence 1 with a non-empty span.
        answer_offsets: ``(start, end)`` character offsets of each of those
            tokens in the answer (end exclusive), parallel to ``answer_positions``.
        truncated: Whether the prompt was cut to fit the window.
    """

    ids: npt.NDArray[np.int64]
    answer_positions: npt.NDArray[np.int64]
    answer_offsets: tuple[tuple[int, int], ...]
    truncated: bool


def _pad_id(tokenizer: Tokenizer) -> int:
    """The padding token's id (the masked positions' filler): the tokenizer's own, else 0."""
    padding = tokenizer.padding
    if padding is not None:
        return int(padding["pad_id"])
    for token in ("[PAD]", "<pad>", "<|padding|>"):
        found = tokenizer.token_to_id(token)
        if found is not None:
            return int(found)
    return 0


class PairEncoder:
    """
    Encodes (prompt, answer) pairs into windows of at most ``max_length`` tokens.

    Thread-safe: the two tokenizers are configured once here and only read after.

    Args:
        tokenizer_json: The contents of the model's ``tokenizer.json``.
        max_length: The window, in tokens, special tokens included.

    Raises:
        ValueError: ``max_length`` leaves no room for the special tokens, or
            ``tokenizer_json`` is not a tokenizer (the message is the tokenizer's).
    """

    def __init__(self, tokenizer_json: str, max_length: int) -> None:
        # Two copies: counting tokens must not be truncated; the pair encoding must be.
        self._plain = Tokenizer.from_str(tokenizer_json)
        self._plain.no_truncation()
        self._plain.no_padding()
        self._pair = Tokenizer.from_str(tokenizer_json)
        self._pair.no_padding()
        self.specials = self._plain.num_special_tokens_to_add(is_pair=True)
        if max_length <= self.specials:
            raise ValueError(
                f"max_length must be more than the {self.specials} special tokens of a pair,"
                f" got {max_length}"
            )
        self._pair.enable_truncation(max_length, strategy="only_first")
        self.max_length = max_length
        self.pad_id = _pad_id(self._plain)

    def count(self, text: str) -> int:
        """The number of tokens of ``text`` alone, without special tokens."""
        return len(self._plain.encode(text, add_special_tokens=False).ids)

    def prompts(
        self, passages: Sequence[str], question: str | None, answer_tokens: int, lang: str
    ) -> list[str]:
        """
        The prompts of the windows for one answer: LettuceDetect's passage grouping.

        The whole prompt when it fits beside the answer; otherwise the passages
        grouped greedily, in order, so that each group's prompt (the full
        instruction, the question, the group's passages numbered from 1) fits
        in what the answer leaves. A passage too long for any window gets a
        window of its own and is truncated there, as is the only window when
        the instruction alone leaves no room for passages. The budget counts
        are LettuceDetect's (``TransformerDetector._group_passages_into_chunks``),
        so the windows are the same.

        Args:
            passages: The chunk texts.
            question: The question, or None for the summary prompt.
            answer_tokens: The answer's token count (:meth:`count`).
            lang: The prompt language.

        Returns:
            One prompt per window, at least one.
        """
        budget = self.max_length - answer_tokens - self.specials
        whole = format_context(passages, question, lang)
        if self.count(whole) <= budget:
            return [whole]
        passage_budget = budget - self.count(format_context([""], question, lang))
        if passage_budget <= 0:
            return [whole]
        groups: list[list[str]] = []
        group: list[str] = []
        used = 0
        for index, passage in enumerate(passages):
            # Counted with the passage's number in the whole prompt, +1 for the
            # newline between passages: LettuceDetect's estimate, kept so the
            # windows are its windows.
            tokens = self.count(passage_line(passage, index + 1, lang))
            needed = tokens + (1 if group else 0)
            if used + needed > passage_budget and group:
                groups.append(group)
                group, used, needed = [], 0, tokens
            group.append(passage)
            used += needed
        if group:
            groups.append(group)
        return [format_context(g, question, lang) for g in groups] or [whole]

    def encode(self, prompt: str, answer: str) -> Encoded:
        """
        Encode one window: ``prompt`` truncated so that the whole ``answer`` fits.

        Raises:
            DetectorInputError: the answer alone does not fit in the window.
        """
        try:
            encoding = self._pair.encode(prompt, answer)
        except Exception as error:
            # tokenizers raises a bare Exception when only_first cannot make room.
            raise DetectorInputError(
                f"the answer is {self.count(answer)} tokens: with the prompt's first token and"
                f" {self.specials} special tokens it does not fit in the model's window of"
                f" {self.max_length} tokens ({error})"
            ) from error
        positions: list[int] = []
        offsets: list[tuple[int, int]] = []
        for position, (sequence, (start, end)) in enumerate(
            zip(encoding.sequence_ids, encoding.offsets, strict=True)
        ):
            # A zero-width token (a special token) can neither open nor close a
            # span; LettuceDetect skips it the same way.
            if sequence == 1 and start < end:
                positions.append(position)
                offsets.append((start, end))
        return Encoded(
            np.asarray(encoding.ids, dtype=np.int64),
            np.asarray(positions, dtype=np.int64),
            tuple(offsets),
            bool(encoding.overflowing),
        )
