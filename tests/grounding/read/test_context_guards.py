"""
The cheap tests before the context rules' regex searches rule out only what the searches would.

Each guarded rule is compared with its reference twin: the same rule
without the guard (the regex searches alone, as the rule was written
before the guards), on texts drawn from the words the rules read, in any
case, with characters that case-insensitive matching relates to ASCII
letters (the Kelvin sign, the long s).
"""

# from test_context_guards.py, moved whole (issue 40's layout)
from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from relapse._read import quotation_marks
from relapse.grounding import _echo as echo
from relapse.grounding._read import context
from relapse.grounding._values import units

_WORDS = [
    # The reference words, the hedges and the words near them.
    "passage", "Passages", "DOC", "docs", "source", "chunk", "excerpt", "context", "reference",
    "Refs", "snippet", "search results", "result", "paragraph", "text", "article", "Step",
    "question", "option", "no.", "number", "#", "and", "or", "to", "about", "Above", "at least",
    "no more than", "up to", "upwards of", "over", "under", "fewer than", "as many as", "c.",
    "ca.", "circa", "approx.", "an estimated", "~", "\u2248", "\u223c", "nearly", "some",
    # Words the reference binding and the dates read.
    "page", "pp.", "Chapter", "ch.", "Section", "Fig.", "Table", "vol.", "No.", "Art.",
    "Paragraphs", "line", "clause", "Verse", "\u00a7", "May", "June", "Sept.", "December",
    "August", "March", "April", "Jan.",
    "at", "by", "since", "am", "p.m.", "'", "\u2019", "s",
    # Conversions: "58 degrees Fahrenheit (15 degrees Celsius)", "£10 ($13)".
    "degrees", "Celsius", "\u00b0F", "km", "miles", "kg", "(about", " )", "$", "\u00a3", "K",
    # Other words, and characters case-insensitive matching relates to ASCII.
    "the", "was", "etc.", "Inc.", "pa\u017f\u017fage", "\u212aelvin", "\u0130tem", "ste\u017f",
]  # fmt: skip
_PIECES = st.one_of(
    st.sampled_from(_WORDS),
    st.sampled_from(["1", "2", "3", "12", "2020", "30", "06", "8"]),
    st.sampled_from([" ", "  ", "\u00a0", "\n", ",", "-", "\u2013", "/", ".", ":", "(", ")"]),
    st.sampled_from(
        ["[", "]", "&", "\t", "\n", "\n- ", "\n**", "\u2462", "1. ", "2) ", '"', "\u201c", "\u201d"]
    ),
)
# Phrases of a word, what stands between it and a number, the number and what
# follows it: every number has a word of the rules before it.
_PHRASES = st.tuples(
    st.sampled_from(_WORDS),
    st.sampled_from(["", " ", "  ", "\u00a0", " # ", " no. ", "(", "[", "'", ": ", "-", "/"]),
    st.sampled_from(["1", "2", "3", "12", "2020", "30", "06", "8"]),
    st.sampled_from(
        [
            "",
            " ",
            ".",
            ". ",
            ")",
            "]",
            ",",
            "-",
            "/",
            ":30",
            ":30 am",
            " June",
            " km)",
            " km (",
            " degrees Celsius)",
        ]
    ),
).map("".join)
_TEXTS = st.lists(st.one_of(_PHRASES, _PIECES), max_size=12).map("".join)

#: The words the reference binding reads before a number: every reference
#: word's and month's last letter, in both cases (only some match).
_BINDING_WORDS = [
    "page", "Pages", "pp.", "p.", "Chapter", "chapters", "ch.", "Section", "sections",
    "figure", "Figs.", "Table", "Volume", "vol.", "No.", "nos.", "Article", "Art.", "paragraph",
    "Lines", "clause", "Verse", "\u00a7", "#", "January", "February", "March", "April", "May",
    "June", "July", "August", "September", "Oct.", "Sept.", "PAGE", "MAY", "age", "say", "at",
    "since", "to", "the", "'", "\u2019", "x", "1", "2020-06", "06/", "8:", "USD", "GBP", "EUR",
    "JPY", "INR", "Rs", "Rs.", "usd", "US$", "$", "xUSD",
]  # fmt: skip
_BINDING_TEXTS = st.lists(
    st.tuples(
        st.sampled_from(_BINDING_WORDS),
        st.sampled_from(["", " ", "\u00a0", "  ", "-", "/", ".", ":"]),
        st.sampled_from(["3", "30", "06", "2020", "45"]),
        st.sampled_from(
            ["", ".", ",", ";", ")", " 2020", "st,", "th of June", ":30", ":30 pm", "s"]
        ),
        st.sampled_from(["", " ", "/2020", "-01-02", ".2020"]),
    ).map("".join),
    min_size=1,
    max_size=4,
).map(" ".join)


def _reference_unguarded(text: str, start: int, end: int) -> bool:
    """:func:`context.is_reference` as its regex searches alone decide it."""
    low = max(0, start - context.REFERENCE_WINDOW)
    if context._REFERENCE_BEFORE.search(text, low, start) is not None:
        return True
    if context._REFERENCE_AFTER.match(text, end, end + context.AFTER_WINDOW) is not None:
        return True
    if (
        context._BRACKET_BEFORE.search(text, max(0, start - 12), start) is not None
        and context._BRACKET_AFTER.match(text, end, end + context.AFTER_WINDOW) is not None
    ):
        return True
    return context._PAREN_REFERENCE.search(text, low, start) is not None


def _hedge_unguarded(text: str, start: int) -> str | None:
    """:func:`context.hedge` as its regex search alone decides it."""
    low = max(0, start - context.HEDGE_WINDOW)
    return context.hedge_direction(context._HEDGE_BEFORE.search(text, low, start))


def _inline_unguarded(text: str, start: int, end: int) -> bool:
    """The inline-enumeration test with its look-behind before the digits, as first written."""
    digits = text[start:end]
    if len(digits) > 2 or not digits.isdecimal():
        return False
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] in ".,$€£"):
        return False
    if context._INLINE_AFTER.match(text, end, end + context.AFTER_WINDOW) is None:
        return False
    number = int(digits)
    if number < 2:
        return False
    previous = re.compile(rf"(?<![\w.,]){number - 1}[.)][ \t]+[^\W\d_]")
    return previous.search(text, max(0, start - context.INLINE_MARKER_WINDOW), start) is not None


def _binding_unguarded(text: str, start: int, end: int) -> str | None:
    """:func:`units.binding_of`'s reading of what precedes a number, its searches alone."""
    before = text[max(0, start - units._REFERENCE_WINDOW) : start]
    if units._REFERENCE_BEFORE.search(before) or (
        units._MONTH_BEFORE.search(before) and units._DATE_ENDS.match(text, end)
    ):
        return units.REFERENCE
    if units._MONTH_AFTER.match(text, end):
        return units.REFERENCE
    if units._CLOCK_AFTER.match(text, end) and (
        units._AT_TIME_BEFORE.search(before) or units._AM_PM_AFTER.match(text, end)
    ):
        return units.REFERENCE
    if units._CLOCK_BEFORE.search(before) or (
        before.endswith(":") and units._MINUTES_AM_PM.match(text, end)
    ):
        return units.REFERENCE
    if before.endswith(("'", "\u2019")) and (end - start == 2 or units._DECADE.match(text, end)):
        return units.REFERENCE
    if before.endswith(("/", ".", "-")) or text.startswith(("/", ".", "-"), end):
        for date in units._NUMERIC_DATE.finditer(text, max(0, start - 11), end + 11):
            if date.start() <= start and end <= date.end():
                return units.REFERENCE
    plural = units._PLURAL_AFTER.match(text, end)  # the plural noun it counts, read last
    if plural is not None:
        word = plural.group(1)
        if word not in units._NOT_PLURAL and not units._MAY_BE_UNIT_AFTER.fullmatch(word[:-1]):
            return units.PEOPLE
    return None


def _currency_unguarded(text: str, start: int) -> str | None:
    """:func:`units.currency_before` with its code search made at every number."""
    if start < len(text) and text[start] in units.CURRENCY_SYMBOLS:
        return text[start]
    prefixed = units._PREFIXED_SYMBOL.match(text, start)
    if prefixed is not None:
        return prefixed.group(1)
    code = units._CODE_BEFORE.search(text, max(0, start - 5), start)
    if code is not None:
        return units._CODE_SYMBOLS[code.group(1)]
    index = start - 1
    if index >= 1 and text[index] in " \u00a0-\u2212\u2013":
        index -= 1
    if index >= 0 and text[index] in units.CURRENCY_SYMBOLS:
        return text[index]
    return None


def _list_marker_unguarded(text: str, start: int, end: int) -> bool:
    """:func:`context.is_list_marker` with its line-opening search made at every number."""
    if end - start > 3:
        return False
    low = max(0, start - context.MARKER_WINDOW)
    if end - start == 1 and text[start] in context.ENCLOSED_NUMBERS:
        return context._MARKER_BEFORE.search(text, low, start) is not None
    if context._MARKER_BEFORE.search(text, low, start) is not None:
        return context._MARKER_AFTER.match(text, end, end + context.AFTER_WINDOW) is not None
    return _inline_unguarded(text, start, end)


def _conversion_unguarded(text: str, start: int, end: int) -> int | None:
    """:func:`context.converted_from` with its searches made at every number."""
    money = text[start : start + 1] in context.CURRENCY_SYMBOLS and (
        context._CLOSING_PARENTHESIS.match(text, end, end + context.AFTER_WINDOW)
    )
    if not money and context._CONVERSION_AFTER.match(text, end, end + context.AFTER_WINDOW) is None:
        return None
    low = max(0, start - context.CONVERSION_WINDOW)
    before = context._CONVERSION_BEFORE.search(text, low, start)
    return None if before is None else before.start() + 1


def _numbers(text: str) -> list[tuple[int, int]]:
    """Every digit run and circled number of ``text``, as the rules are asked about them."""
    return [match.span() for match in re.finditer(r"\d+|[\u2460-\u2473]", text)]


class TestGuardedRules:
    @settings(max_examples=1000, deadline=None)
    @given(text=_TEXTS)
    def test_reference_and_hedge_as_unguarded(self, text: str) -> None:
        for start, end in _numbers(text):
            assert context.is_reference(text, start, end) == _reference_unguarded(
                text, start, end
            ), (text, start)
            assert context.hedge(text, start) == _hedge_unguarded(text, start), (text, start)
            assert context.converted_from(text, start, end) == _conversion_unguarded(
                text, start, end
            ), (text, start)
            assert context.is_list_marker(text, start, end) == _list_marker_unguarded(
                text, start, end
            ), (text, start)
            assert context._is_inline_marker(text, start, end) == _inline_unguarded(
                text, start, end
            ), (text, start)

    @settings(max_examples=1500, deadline=None)
    @given(text=_BINDING_TEXTS)
    def test_binding_before_a_number_as_unguarded(self, text: str) -> None:
        for start, end in _numbers(text):
            assert units.currency_before(text, start) == _currency_unguarded(text, start), (
                text,
                start,
            )
            # Only the reading of what precedes and dates the number is guarded:
            # with no currency, unit or people after it, binding_of is that reading.
            if (
                units.currency_before(text, start) is not None
                or units._unit_written_after(text, end) is not None
                or units._PEOPLE_AFTER.match(text, end, end + units.UNIT_WINDOW)
            ):
                continue
            assert units.binding_of(text, start, end) == _binding_unguarded(text, start, end), (
                text,
                start,
            )

    @settings(max_examples=800, deadline=None)
    @given(
        window=st.one_of(
            st.from_regex(context._REFERENCE_BEFORE, fullmatch=True),
            st.from_regex(context._PAREN_REFERENCE, fullmatch=True),
        )
    )
    def test_every_reference_window_holds_a_stem(self, window: str) -> None:
        assert context.may_hold(window, context.REFERENCE_STEMS), window

    @settings(max_examples=800, deadline=None)
    @given(window=st.from_regex(context._HEDGE_BEFORE, fullmatch=True))
    def test_every_hedge_window_holds_a_stem(self, window: str) -> None:
        assert context.may_hold(window, context.HEDGE_STEMS), window

    def test_a_window_without_a_stem_is_ruled_out(self) -> None:
        assert not context.may_hold("the flag was designed by ", context.REFERENCE_STEMS)
        assert not context.may_hold("younger than age ", context.HEDGE_STEMS)
        # Case-insensitive matching relates the long s to "s": searched anyway.
        assert context.may_hold("pa\u017f\u017fage ", context.REFERENCE_STEMS)

    def test_the_rules_still_read_their_cases(self) -> None:
        assert context.is_reference("See Passage 3 for it.", 12, 13)
        assert context.is_reference("as stated (passage 1, step 6)", 26, 27)
        assert not context.is_reference("The flag has 3 stars.", 13, 14)
        assert context.hedge("at least 1,191 delegates", 9) == "above"
        assert context.hedge("cook for about 4-6 minutes", 15) == "about"
        assert context.hedge("younger than age 18.", 17) is None
        assert context._is_inline_marker("Causes: 1. hormones 2. genes", 20, 21)
        assert not context._is_inline_marker("Causes: 11. hormones 2. genes", 21, 22)
        assert units.binding_of("on May 30, 2020", 7, 9) == units.REFERENCE
        assert units.binding_of("see page 30 here", 9, 11) == units.REFERENCE
        assert units.binding_of("on 30/06/2020 it", 3, 5) == units.REFERENCE
        assert units.binding_of("younger than age 18.", 17, 19) is None


def _echo_hits_unfiltered(
    answer: str, patterns: tuple[tuple[str, re.Pattern[str]], ...]
) -> list[tuple[str, int, int]]:
    """:func:`echo.echo_hits` with every phrase looked for in the whole folded answer."""
    hits = [(match.group(), *match.span()) for match in echo.FINDING_CODE.finditer(answer)]
    folded = " ".join(answer.casefold().split())
    for phrase, pattern in patterns:
        if phrase in folded:
            hits.extend((phrase, *match.span()) for match in pattern.finditer(answer))
    return hits


_PHRASE_PATTERNS = tuple((phrase, echo.phrase_pattern(phrase)) for phrase in echo.ECHO_PHRASES)
_PHRASE_WORDS = sorted({word for phrase in echo.ECHO_PHRASES for word in phrase.split()})


class TestEchoPhraseFilter:
    """An echo phrase whose longest word the answer lacks is not searched: the same hits."""

    @settings(max_examples=800, deadline=None)
    @given(
        pieces=st.lists(
            st.one_of(
                st.sampled_from(echo.ECHO_PHRASES),
                # Glued to what stands before and after it, in capitals.
                st.sampled_from(echo.ECHO_PHRASES).map(lambda phrase: f"(**{phrase.upper()}**)"),
                st.sampled_from(echo.ECHO_PHRASES).map(lambda phrase: phrase.replace(" ", "\n")),
                st.sampled_from(_PHRASE_WORDS).map(lambda word: word.upper()),
                st.sampled_from(_PHRASE_WORDS),
                st.sampled_from([" ", "  ", "\n", "\u00a0", "(", "**", "FG001", ".", "x"]),
            ),
            max_size=30,
        )
    )
    def test_same_hits(self, pieces: list[str]) -> None:
        answer = " ".join(pieces)
        assert list(echo.echo_hits(answer, _PHRASE_PATTERNS)) == _echo_hits_unfiltered(
            answer, _PHRASE_PATTERNS
        )


class TestAsciiFastPaths:
    """The fast paths for ASCII texts rest on which ASCII characters the patterns know."""

    def test_the_straight_double_quote_is_the_only_ascii_quotation_mark(self) -> None:
        marks = quotation_marks.DELIMITERS
        assert [chr(code) for code in range(128) if marks.match(chr(code))] == ['"']

    @settings(max_examples=500, deadline=None)
    @given(text=_TEXTS)
    def test_delimiters_as_the_search_finds_them(self, text: str) -> None:
        openers: list[tuple[int, str]] = []
        closers: dict[str, list[int]] = {}
        for match in quotation_marks.DELIMITERS.finditer(text):
            index, char = match.start(), match.group()
            if quotation_marks.is_closer(text, index, char):
                closers.setdefault(char, []).append(index)
            if quotation_marks.is_opener(text, index, char):
                openers.append((index, char))
        assert quotation_marks.delimiters(text, len(text)) == (openers, closers)
