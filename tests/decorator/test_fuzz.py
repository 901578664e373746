"""
Property tests: random text and random call shapes never break relapse.

The check, the prompt builders and the decorator's argument binding are
driven with arbitrary Unicode (lone surrogates included) and arbitrary
signatures. Nothing may raise except the documented ``TypeError`` and
``ValueError``, and the structural promises (one-line retry queries, exact
context sections, the query replaced and nothing else) hold on every input.
The long-running variant is ``fuzz/fuzz_check.py`` (atheris).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import relapse
from property_budget import examples
from relapse.prompts import (
    MAX_QUOTED_ANSWER_CHARS,
    MAX_QUOTED_FINDINGS_CHARS,
    MAX_SPAN_CHARS,
    _problems,
    compact_retry,
    context_prompt,
    fence_marker,
    inline,
    instruction_retry,
    parse_context_prompt,
    quote_answer,
    spans_only_retry,
)
from relapse.testing import attempt_after

#: Any code point, lone surrogates included: chunks are not always valid UTF-8.
ANY_TEXT = st.text(st.characters(codec=None, categories=None), max_size=80)
#: Text biased towards what the check and the prompts parse.
_PIECES = [
    *"0123456789.,%$€-/: \"'\n\u201c\u201d\u2028",
    *("\u0661", "\uff13", "\u0301", "\u202e", "\ud800", "Question:", "</context-", "FG001"),
    *("1987", "January", "12 March 2020", "1,000", "3.5", "million", "\u2013"),
]
PROSE = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)
#: Digit runs longer than the 4,300 digits ``int()`` reads from a string,
#: glued to what the scanner reads around a number (month names, pairs).
LONG_DIGITS = st.builds(
    lambda digit, length: digit * length,
    st.sampled_from("19\u0661\uff13"),
    st.integers(4_200, 6_000),
)
_GLUED = st.sampled_from(["", " ", "/", ":", "May ", "Sept. ", ",", ".", "-", "$", " 1/", "th"])
LONG_RUNS = st.lists(st.one_of(_GLUED, LONG_DIGITS, st.sampled_from(_PIECES)), max_size=6).map(
    "".join
)
TEXT = st.one_of(ANY_TEXT, PROSE, LONG_RUNS)

FINDINGS = st.lists(
    st.builds(
        relapse.GroundingFinding,
        code=st.sampled_from(["FG001", "FG002", "FG003", "FG004"]),
        message=TEXT,
        spans=st.lists(TEXT, max_size=3).map(tuple),
    ),
    max_size=4,
).map(tuple)

FUZZ = settings(
    max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


class TestCheck:
    @FUZZ
    @given(query=TEXT, chunks=st.lists(TEXT, max_size=5), answer=TEXT)
    def test_default_check_never_raises(self, query: str, chunks: list[str], answer: str) -> None:
        """Any text gives a verdict whose findings cite substrings of the answer."""
        verdict = relapse.default_grounding_check(query, chunks, answer)
        assert isinstance(verdict, relapse.GroundingResult)
        assert verdict.ok == (not verdict.findings)
        for finding in verdict.findings:
            assert all(span in answer for span in finding.spans)

    @FUZZ
    @given(chunks=st.lists(TEXT, max_size=5), answer=TEXT)
    # Found by this test: a minus after a space at the answer's start was no
    # sign there, and a sign in the chunk (after the index's separator).
    @example(chunks=[""], answer=" \u20133")
    def test_answer_copied_from_a_chunk_is_grounded(self, chunks: list[str], answer: str) -> None:
        """An answer that is a chunk, verbatim, never fails the number and date checks."""
        verdict = relapse.default_grounding_check("q", [*chunks, answer], answer)
        assert not [f for f in verdict.findings if f.code in ("FG001", "FG002")]


class TestPrompts:
    @FUZZ
    @given(question=TEXT, chunks=st.lists(TEXT, max_size=6))
    def test_context_prompt_parses_into_exactly_its_sections(
        self, question: str, chunks: list[str]
    ) -> None:
        """Whatever the chunks hold, the prompt splits back into them and the question."""
        sections = parse_context_prompt(context_prompt(question, chunks))
        assert "\n\n".join(f"[chunk {i}] {c}" for i, c in enumerate(chunks, 1)) == (
            sections.context
        )
        assert inline(question, keep_quotes=True) == sections.question
        assert sections.marker == fence_marker(question, *chunks)

    @FUZZ
    @given(query=TEXT, answer=TEXT, findings=FINDINGS)
    def test_retry_queries_are_one_paragraph(
        self, query: str, answer: str, findings: tuple[relapse.GroundingFinding, ...]
    ) -> None:
        """compact and spans-only retries never contain a line break."""
        for rewrite in (compact_retry, spans_only_retry):
            retry = rewrite(attempt_after(query, answer, findings))
            assert len(retry.splitlines()) == 1

    @FUZZ
    @given(query=TEXT, answer=TEXT, findings=FINDINGS)
    def test_quotation_marks_are_only_relapses_own(
        self, query: str, answer: str, findings: tuple[relapse.GroundingFinding, ...]
    ) -> None:
        """Two quotes around the answer and two per quoted span: quoted text cannot close them."""
        retry = compact_retry(attempt_after(query, answer, findings))
        pieces = retry.split('"')
        assert 1 == len(pieces) % 2  # every quotation closed
        assert quote_answer(answer, findings) == pieces[1]
        # The spans quoted are the first ones, in order, each folded onto one line.
        spans = [inline(span, MAX_SPAN_CHARS) for f in findings for span in f.spans]
        quoted = pieces[3::2]
        assert spans[: len(quoted)] == quoted
        instruction_retry(attempt_after(query, answer, findings))  # must not raise

    @FUZZ
    @given(query=TEXT, answer=TEXT, findings=FINDINGS)
    def test_retry_queries_are_bounded(
        self, query: str, answer: str, findings: tuple[relapse.GroundingFinding, ...]
    ) -> None:
        """Whatever the answer and findings, the quoted parts keep their bounds."""
        assert len(quote_answer(answer, findings)) <= MAX_QUOTED_ANSWER_CHARS
        assert len(_problems(findings)) <= MAX_QUOTED_FINDINGS_CHARS
        # 192: compact_retry's fixed words (tests/engine/test_retry_excerpt.py counts them).
        bound = len(inline(query)) + 192 + MAX_QUOTED_ANSWER_CHARS + MAX_QUOTED_FINDINGS_CHARS
        assert len(compact_retry(attempt_after(query, answer, findings))) <= bound

    @FUZZ
    @given(text=TEXT, limit=st.none() | st.integers(0, 50))
    def test_inline_is_one_line_without_double_quotes(self, text: str, limit: int | None) -> None:
        """inline's output has no line break, no double quote, and respects limit (>= 3)."""
        folded = inline(text, limit)
        assert len(folded.splitlines()) <= 1
        assert '"' not in folded
        assert "\u201c" not in folded
        if limit is not None:
            assert len(folded) <= max(limit, 3)


@dataclass(frozen=True)
class Shape:
    """A random signature and which of its parameters hold the query and chunks."""

    params: tuple[inspect.Parameter, ...]
    query: str
    chunks: str
    explicit_query: bool

    @property
    def signature(self) -> inspect.Signature:
        """The signature to give the generated function."""
        return inspect.Signature(list(self.params))


_KINDS = [
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
]


@st.composite
def shapes(draw: st.DrawFn) -> Shape:
    """Signatures of 2-5 named parameters (+ optional *args/**kwargs), kinds in order."""
    count = draw(st.integers(2, 5))
    kinds = sorted(draw(st.lists(st.sampled_from(_KINDS), min_size=count, max_size=count)))
    params: list[inspect.Parameter] = []
    defaulted = False
    var_args = draw(st.booleans())
    for i, kind in enumerate(kinds):
        if (
            kind is inspect.Parameter.KEYWORD_ONLY
            and var_args
            and not any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
        ):
            params.append(inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL))
        # Positional parameters after a defaulted one must have defaults too.
        has_default = draw(st.booleans()) or (defaulted and kind is not _KINDS[2])
        if has_default and kind is not _KINDS[2]:
            defaulted = True
        params.append(
            inspect.Parameter(
                f"p{i}", kind, default=f"default{i}" if has_default else inspect.Parameter.empty
            )
        )
    if draw(st.booleans()):
        params.append(inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD))
    names = [p.name for p in params if p.name.startswith("p")]
    chunks = draw(st.sampled_from(names))
    explicit = draw(st.booleans())
    query = draw(st.sampled_from([n for n in names if n != chunks])) if explicit else ""
    if not explicit:
        query = next(n for n in names if n != chunks)
    return Shape(tuple(params), query, chunks, explicit)


@st.composite
def calls(draw: st.DrawFn, shape: Shape) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """A valid call of ``shape``: each parameter positional or keyword where allowed."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    positional_open = True
    for param in shape.params:
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if param.name == shape.chunks:
            value: Any = ["chunk text"]
        elif param.name == shape.query:
            value = "the query"
        else:
            value = f"value of {param.name}"
        required = param.default is inspect.Parameter.empty or param.name in (
            shape.chunks,
            shape.query,
        )
        # Leaving an optional parameter out closes the positional run after it.
        if not required and draw(st.booleans()):
            if param.kind is not inspect.Parameter.KEYWORD_ONLY:
                positional_open = False
            continue
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            if not positional_open:
                # A positional-only parameter after a gap cannot be passed; use
                # its default unless that is the query/chunks (then fill the gap).
                return draw(calls(shape))
            args.append(value)
        elif (
            param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
            and positional_open
            and draw(st.booleans())
        ):
            args.append(value)
        else:
            if param.kind is not inspect.Parameter.KEYWORD_ONLY:
                positional_open = False
            kwargs[param.name] = value
    return tuple(args), kwargs


def make_function(shape: Shape, seen: list[inspect.BoundArguments]) -> Callable[..., str]:
    """A function with ``shape``'s signature that records how it was called."""

    def function(*args: Any, **kwargs: Any) -> str:
        bound = shape.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        seen.append(bound)
        return "WRONG" if len(seen) == 1 else "fine"

    function.__signature__ = shape.signature  # type: ignore[attr-defined]
    return function


def reject_wrong(query: str, chunks: Any, answer: str) -> relapse.GroundingResult:
    """Fail 'WRONG', pass anything else."""
    if answer == "WRONG":
        return relapse.GroundingResult(False, (relapse.GroundingFinding("FG001", "x", ("W",)),))
    return relapse.GroundingResult(True)


def decoration_error(options: dict[str, Any], shape: Shape) -> str:
    """Decorate a ``shape`` function; return ``""`` or the bad name a ValueError names."""
    try:
        relapse.grounded(**options)(make_function(shape, []))
    except ValueError as error:
        names = [n for n in options.values() if f"={n!r}" in str(error) or f"{n!r}" in str(error)]
        return str(names[0]) if names else str(error)
    return ""


class TestBinding:
    @settings(max_examples=examples(300), deadline=None)
    @given(data=st.data(), shape=shapes())
    def test_random_call_shapes_replace_only_the_query(self, data: Any, shape: Shape) -> None:
        """Iteration 2 gets the retry query in the query slot and every other value unchanged."""
        seen: list[inspect.BoundArguments] = []
        decorated = relapse.grounded(
            chunks_arg=shape.chunks,
            query_arg=shape.query if shape.explicit_query else None,
            grounding_check=reject_wrong,
        )(make_function(shape, seen))
        args, kwargs = data.draw(calls(shape))
        result = decorated.run(*args, **kwargs)
        assert (True, 2) == (result.grounded, result.iterations)
        first, second = (dict(b.arguments) for b in seen)
        assert "the query" == first[shape.query]
        assert second[shape.query].startswith("the query (Your previous answer")
        assert ["chunk text"] == first[shape.chunks]
        del first[shape.query], second[shape.query]
        assert first == second

    @settings(max_examples=examples(200), deadline=None)
    @given(shape=shapes(), name=st.sampled_from(["p0", "p1", "p9", "args", "kwargs", "self"]))
    def test_decoration_raises_only_value_error(self, shape: Shape, name: str) -> None:
        """Any chunks_arg/query_arg pair either decorates or raises ValueError naming it."""
        for options in ({"chunks_arg": name}, {"chunks_arg": shape.chunks, "query_arg": name}):
            assert decoration_error(options, shape) in ("", name)

    @settings(max_examples=examples(200), deadline=None)
    @given(
        query=st.one_of(TEXT, st.none(), st.integers(), st.binary(max_size=4)),
        chunks=st.one_of(
            st.lists(TEXT, max_size=3),
            st.lists(st.fixed_dictionaries({"text": TEXT}), max_size=3),
            TEXT,
            st.none(),
            st.binary(max_size=4),
            st.integers(),
            st.dictionaries(TEXT, TEXT, max_size=2),
            st.lists(st.one_of(st.integers(), st.none(), st.dictionaries(TEXT, TEXT)), min_size=1),
        ),
        by_keyword=st.booleans(),
    )
    def test_arbitrary_arguments_raise_only_type_error(
        self, query: Any, chunks: Any, by_keyword: bool
    ) -> None:
        """A call with any query and chunks values either works or raises TypeError."""

        @relapse.grounded(chunks_arg="docs", max_iterations=2)
        def answer(query: Any, docs: Any) -> str:
            return "It has 12 rooms."

        try:
            result = answer.run(query, docs=chunks) if by_keyword else answer.run(query, chunks)
        except TypeError as error:
            message = str(error)
        else:
            assert isinstance(query, str)
            assert 1 <= result.iterations <= 2
            return
        assert message.startswith(("docs", "query")), message


@pytest.mark.parametrize("bad", [None, 3, b"x", ["x"]])
@settings(max_examples=examples(20), deadline=None)
@given(query=TEXT)
def test_run_with_a_bad_llm_raises_type_error(bad: Any, query: str) -> None:
    """run() with a call_llm returning no readable answer raises TypeError, whatever the query."""
    with pytest.raises(TypeError, match=r"^cannot read the answer text of a .*answer_of="):
        relapse.run(query, ["c"], call_llm=lambda prompt: bad)
