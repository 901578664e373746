"""
The generated texts the grounding property tests share, and the two readings of the lazy index.

``SENTENCES`` mix the formats the check reads; ``DENSE_TEXT`` is dense in
claims, delimiters and keywords; ``TEXT`` is made of the pieces every writing
the scanner reads is built from. ``lazily`` and ``fully_read`` check an answer
with the lazy chunk index forced on, and with every chunk read up front: the
reference twin the lazy index is proved against.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

import relapse.grounding._check as check_module
import relapse.grounding._index.text_index as index_module
from relapse._results import GroundingResult
from relapse.grounding import default_grounding_check
from relapse.grounding._index.text_index import TextIndex

# Sentences mix the formats the check reads: numbers with separators,
# decimals, units and scales, number words, dates, decades, ranges, tokens
# and quotations. Sentences end with a period and never with a month name,
# so that copying some of them next to each other creates no new claim.
WORDS = st.sampled_from(
    ["the", "report", "says", "about", "in", "costs", "rose", "people", "were", "counted", "and"]
)
NUMBERS = st.one_of(
    st.integers(0, 10**6).map(str),
    st.integers(1000, 10**9).map(lambda n: f"{n:,}"),
    st.integers(1000, 10**6).map(lambda n: f"{n:,}".replace(",", "\u202f")),
    st.decimals(0, 1000, places=2, allow_nan=False).map(str),
    st.integers(0, 100).map(lambda n: f"{n}%"),
    st.integers(1, 999).map(lambda n: f"${n}.{n % 10} billion"),
    st.integers(0, 99).map(lambda n: f"{n} per cent"),
    st.integers(1, 31).map(lambda n: f"{n}th"),
)
FORMS = st.one_of(
    NUMBERS,
    st.sampled_from(["seventy-seven", "a dozen", "twelve", "three hundred and five", "ninety"]),
    st.builds(
        "{} {}, {}".format,
        st.sampled_from(["January", "Sept.", "July", "MAY"]),
        st.integers(1, 28),
        st.integers(1500, 2099),
    ),
    st.builds(
        "{}-{:02d}-{:02d}".format, st.integers(1500, 2099), st.integers(1, 12), st.integers(1, 28)
    ),
    st.builds("{}/{}/{}".format, st.integers(1, 12), st.integers(1, 28), st.integers(1500, 2099)),
    st.integers(150, 209).map(lambda n: f"the {n}0s"),
    st.builds("{}–{}".format, st.integers(1500, 1999), st.integers(2000, 2099)),
    st.builds("{}-{}".format, st.integers(3, 50), st.integers(51, 99)),
    st.sampled_from(["COVID-19", "GPT-4", "ISO 9001", "v2.0.1", "4x4s", "10:30"]),
    st.builds("{} {}/{}".format, st.integers(1, 12), st.integers(1, 7), st.sampled_from([3, 4, 8])),
    st.sampled_from(["3/4", "the 19th century", "a 20th-century house", "the 1800s"]),
    st.builds('"{} {}"'.format, WORDS, WORDS),
    st.builds("\u201c{} {} {}\u201d".format, WORDS, WORDS, WORDS),
)
SENTENCES = st.lists(st.one_of(WORDS, FORMS), min_size=1, max_size=8).map(
    lambda parts: " ".join(parts).capitalize() + " done."
)
# The check's own delimiters and keywords, "|"-separated (some are spaces).
TRICKY_TEXT = (
    "1|12|2019|,|.|-|–|/|:| |\u00a0|%|$|'|\"|“|”|‘|’|«|»|„|x|by|s|th|k|m|bn|million|Sept.|July"
    "|of|the|seventy|-seven|a dozen|and|about|passage|[|]|(|)|\n|FG001|GPT|١٢|１２|…|...|between|to"
    "|May|MARCH|Aug|5May|US$"
    "|pm|a.m.|3pm|minus|–5|BC|B.C.|years BC|AD|CE|1e6|2.5E-3|29'000|1’234|1.234.567|1.234,5"
    "|12\u2009345|8,22,443|③|①②|half a million|a quarter of a|two thirds|third|twenty-first"
    "|nineteen forty-five|15:00|3:30 pm|50 cents|50p|300 K|「|」|\u200e"
    "|10^6|10^-3|2.5 x 10^8|10^(−3)|x^2|^"
)
TRICKY = TRICKY_TEXT.split("|")
# Texts dense in claims, delimiters and keywords, for the scanner's properties.
DENSE_TEXT = st.lists(
    st.one_of(st.sampled_from(TRICKY), FORMS, st.text(max_size=3)), max_size=40
).map(" ".join)

# Pieces that make every writing the scanner reads, and the ones the
# evidence rules single out: scales, fractions, year ranges, other scripts.
PIECES = st.sampled_from(
    [
        *("0123456789" * 3),
        *" ,./-:%$'–",
        *["March ", "Sept. ", "MAY ", "th ", "rd ", "of ", "the ", "million", "k", "bn"],
        *["s", "x", "between ", " and ", " to ", "about ", "at least ", "up to ", "COVID-", "v"],
        *["1/4", "'90s", "20th century", "\u00a0", "\u202f", "١", "½", "10⁹", "\u200b", '"'],
        *["seventy ", "°C ", "km ", " hundred", " thousand", "tn", "mn", "b", "m", "K", "0"],
        *["0.0", "-"],
        # Issue 21's quantities: times, signs, eras, powers, separators, words.
        *[" pm", " a.m.", "AM", "minus ", "\u2013", " BC", " years BC", "AD ", " CE", "e6", "E-3"],
        *["'", "\u2019", "\u2009", "\u2462", "half a ", "a quarter of a ", " thirds", "third"],
        *["nineteen ", "forty-five", ",22,", "\u200e", " cents", "p ", " K"],
        # Powers of ten with a caret.
        *["10^", "^", "^-", "^(", "{", ")", " × "],
    ]
)
TEXT = st.lists(PIECES, max_size=40).map("".join)


# Pieces of text dense in number words, their separators and their look-alikes.
WORD_PIECES = st.sampled_from(
    [
        *("one ", "two ", "three ", "seven", "twelve ", "nineteen ", "twenty", "seventy "),
        *("forty-five ", "hundred ", "thousand", "million ", "dozen ", "oh ", "five "),
        *("half ", "a ", "an ", "quarter ", "quarters ", "third ", "thirds ", "eighth "),
        *("first ", "twentieth ", "twenty-first ", "of ", " and ", ", ", "-", " ", "."),
        *("One ", "TWO ", "Half a million ", "someone ", "3 ", "the ", "\x00", "seventy-"),
        *("and a half ", "ten ", "oh-five ", "trillion ", "billion ", "hundredth ", "six "),
        # Characters of two, three and four bytes in UTF-8, a lone surrogate,
        # and capitals whose lower case is ASCII or longer: the lookup finds
        # words by byte offsets, and must map them back to characters.
        *("\u00e9", "na\u00efve ", "\u2019", "\U0001f600 ", "\ud800", "\u0130", "\u212aeventy "),
        *("SEVENTY ", "Seventy ", "sEventy ", "\u00df "),
    ]
)

#: A memo whose dashes and ellipsis quotations fold through (FG003).
MEMO = "The memo said: the plan — reviewed twice — was approved... by the board."

#: Two RAGTruth-like passages (MS MARCO): 46 words (233 characters) and 16 (82).
MICE = (
    "Whatever your situation is, the best way to get rid of the mice is do it fast. You"
    " need to take immediate action. This is a critical step to getting rid of mice. Mice"
    " can very quickly take up residence in your home and start nesting."
)
WOOL = "Steel wool pads will prevent mice from using the hole to get back into your house."
MICE_QUESTION = "how to quickly get rid of mice"


class FullReading(TextIndex):
    """An index that reads every chunk at once, as before the lazy index: ``lazy`` is ignored."""

    def __init__(self, texts: list[str], **options: Any) -> None:
        super().__init__(texts, **{**options, "lazy": False})


def lazily(query: str, chunks: list[str], answer: str) -> GroundingResult:
    """Check with the lazy index whatever the chunks' size and digits."""
    saved = index_module.LAZY_FROM, index_module.LAZY_DIGIT_SHARE
    index_module.LAZY_FROM, index_module.LAZY_DIGIT_SHARE = 0, 0.0
    try:
        return default_grounding_check(query, chunks, answer)
    finally:
        index_module.LAZY_FROM, index_module.LAZY_DIGIT_SHARE = saved


def same(lazy: GroundingResult, full: GroundingResult) -> bool:
    """
    Tell whether two readings agree: the same verdict, and evidence for the same claims.

    The chunk an evidence names may differ: a lazy index cites the first
    chunk it read that supports the claim, a full reading the first of all.
    """
    claims = [(e.kind, e.answer_span) for e in lazy.evidence]
    return (lazy.ok, lazy.findings, claims) == (
        full.ok,
        full.findings,
        [(e.kind, e.answer_span) for e in full.evidence],
    )


def fully_read(query: str, chunks: list[str], answer: str) -> GroundingResult:
    """Check with every chunk read up front."""
    original = check_module.TextIndex
    check_module.TextIndex = FullReading  # type: ignore[misc]
    try:
        return default_grounding_check(query, chunks, answer)
    finally:
        check_module.TextIndex = original  # type: ignore[misc]


# The bundled RAGTruth dev questions: real passages and real answers.
_DATA = Path(__file__).resolve().parents[1] / "src" / "relapse" / "data"


def real_texts() -> Iterator[str]:
    """The passages and questions of the bundled RAGTruth questions."""
    for name in ("dev.jsonl", "demo.jsonl"):
        for line in (_DATA / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            yield from row["passages"]
            yield row["question"]
