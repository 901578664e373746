"""``FoldedChunks`` and ``fold``: the verdicts and foldings a full folding gives."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from grounding_texts import MICE, MICE_QUESTION, WOOL
from grounding_verdicts import COPY, copy_verdict
from relapse.grounding import _echo
from relapse.grounding._index.digests import Digests
from relapse.grounding._index.folded import FOLDS_TO_ASCII, FoldedChunks
from relapse.grounding._index.prefilter import digest, encode
from relapse.grounding._text import CHUNK_SEPARATOR, fold, fold_map

# The fast path of the copy rule and its twin (every chunk folded).
_PIECES = st.sampled_from(
    [
        MICE[:60],
        WOOL,
        "Straße",
        "STRASSE",
        "\u212aelvin",
        "o\ufb03ce",
        "don\u2019t",
        "a \u2014 b",
        "x\x00y",
        "  \n\t",
        "...",
        "\u0130stanbul",
        "caf\u00e9",
        "FG004",
        # A prompt's labels, before a chunk's start or not (issue 38).
        "Context: ",
        "[chunk 1] ",
        "Question:",
        "<context-0123456789ab>\n",
    ]
)


_TEXTS = st.lists(_PIECES | st.text(max_size=12), max_size=4).map("".join)


#: Thirty distinct words, enough for a copy of them to be no answer (MIN_COPY_WORDS is 20).
_THIRTY_WORDS = " ".join(f"w{i}" for i in range(30))


# from test_echo.py
class TestFoldedChunks:
    """``copies`` through ``FoldedChunks`` gives the verdict every chunk folded gives."""

    def test_the_characters_folded_into_ascii_are_every_such_code_point(self) -> None:
        """Derived from every code point: those whose case folding changes the digest."""
        derived = "".join(
            char
            for char in map(chr, range(0x80, sys.maxunicode + 1))
            if digest(char.casefold()) != digest(char)
        )
        assert FOLDS_TO_ASCII == derived

    @given(st.lists(_TEXTS, max_size=5), _TEXTS, st.lists(_TEXTS, max_size=3), st.integers(0, 6))
    @settings(max_examples=400)
    def test_candidates_hold_every_piece_a_fragment_is_in(
        self, texts: list[str], answer: str, extra: list[str], start: int
    ) -> None:
        pieces, joined = FoldedChunks(texts).every()
        raw = CHUNK_SEPARATOR.join(texts)
        # Digesting the texts, or reusing a lazy index's digests of them.
        for folded in (
            FoldedChunks(texts),
            FoldedChunks(texts, raw, Digests(texts, raw, encode(raw))),
        ):
            for fragment in [fold(answer), *map(fold, extra)]:
                found = list(folded.candidates(fragment, start))
                # Increasing, from start on, and among them every piece holding it.
                assert found == sorted(set(found))
                assert all(start <= position < len(pieces) for position in found)
                holders = [p for p in range(start, len(pieces)) if fragment in pieces[p]]
                assert set(holders) <= set(found)
            assert [folded.folded(p) for p in range(len(pieces))] == pieces
        assert CHUNK_SEPARATOR.join(pieces) == joined
        if texts and CHUNK_SEPARATOR not in joined:
            assert [fold(text) for text in texts] == pieces

    @given(st.lists(_TEXTS, max_size=5), _TEXTS, st.sampled_from(["", MICE_QUESTION]))
    @settings(max_examples=400)
    @example(  # chunks holding the separator: an empty piece (found by this test under CI)
        [_THIRTY_WORDS + CHUNK_SEPARATOR, CHUNK_SEPARATOR + _THIRTY_WORDS],
        CHUNK_SEPARATOR * 2 + _THIRTY_WORDS + " " + _THIRTY_WORDS,
        "",
    )
    def test_copies_agree_with_every_chunk_folded(
        self, texts: list[str], noise: str, question: str
    ) -> None:
        every_texts, every_joined = FoldedChunks(texts).every()
        asked = _echo.asked_text(question)
        # Repeated, the chunks give answers of which only some probes are
        # found; the longest cut, a piece of one chunk.
        repeated = " ".join(texts * 3)
        longest = max(texts, key=len, default="")
        cut = longest[: len(longest) * 9 // 10]
        framed = "Context: " + " ".join(texts)[: len(" ".join(texts)) * 6 // 10]
        answers = (
            *(noise, "".join(texts), "".join(texts) + noise, MICE + noise, repeated, cut),
            *(framed, noise + framed, "[chunk 1] " + cut),
        )
        for answer in answers:
            assert _echo.is_copy(answer, asked, every_texts, every_joined) == _echo.copies(
                answer, asked, FoldedChunks(texts)
            )

    def test_a_copy_with_the_fewest_probes_found(self) -> None:
        """
        Exactly MIN_PROBES_FOUND probes in the chunks: the copy is found.

        ``A`` is w0 to w14: 10 words of 2 characters, 5 of 3, 14 spaces, 49
        characters. Six copies of it joined by spaces are 6 * 49 + 5 = 299
        characters; the probes (40 characters) start every (299 - 40) // 9
        = 28: at 0, 28, 56, ..., 252. The copies start every 50, so a probe
        lies in one when it starts at most 49 - 40 = 9 past a copy's start:
        those at 0, 56 (6) and 252 (2), 3 probes. The copies cover 294 of
        the 299 characters, over 0.8: a copy.
        """
        chunk = " ".join(f"w{i}" for i in range(15))
        answer = " ".join([chunk] * 6)
        probes = _echo._probes(fold(answer))
        assert [0, 2, 9] == [k for k, probe in enumerate(probes) if probe in chunk]
        assert 3 == _echo.MIN_PROBES_FOUND
        chunks = [WOOL, chunk]
        assert _echo.is_copy(answer, "", *FoldedChunks(chunks).every())
        assert _echo.copies(answer, "", FoldedChunks(chunks))

    def test_too_few_probes_found_decide_before_any_chunk_is_folded(self) -> None:
        """
        Two probes in the chunks: no copy, and no chunk folded; a third in the question: a copy.

        ``A`` is w0 to w12: 10 words of 2 characters, 3 of 3, 12 spaces, 41
        characters. Five copies of it are 5 * 41 + 4 = 209 characters; the
        probes start every (209 - 40) // 9 = 18, from 0 to 162, and the
        copies every 42, so a probe lies in one when it starts at most 1
        past a copy's start: at 0 and 126 (0). Two probes, fewer than
        MIN_PROBES_FOUND, though the copies cover 205 of 209 characters.
        The question w6 to w5 holds the probe at 18, ``w6 ... w4 w``: then
        three are found, and the copy is one.
        """
        chunk = " ".join(f"w{i}" for i in range(13))
        answer = " ".join([chunk] * 5)
        probes = _echo._probes(fold(answer))
        assert [0, 7] == [k for k, probe in enumerate(probes) if probe in chunk]
        chunks = [WOOL, chunk]
        folded = FoldedChunks(chunks)
        assert not _echo.is_copy(answer, "", *FoldedChunks(chunks).every())
        assert not _echo.copies(answer, "", folded)
        assert {} == folded._folded  # decided from the digests alone
        asked = _echo.asked_text(" ".join(f"w{i}" for i in [*range(6, 13), *range(6)]))
        assert probes[1] in asked
        assert _echo.is_copy(answer, asked, *FoldedChunks(chunks).every())
        assert _echo.copies(answer, asked, FoldedChunks(chunks))

    def test_a_cut_copy_is_judged_against_the_first_chunk_holding_it(self) -> None:
        """
        An answer cut from a chunk is compared with the first chunk holding it, as in the reference.

        ``MICE[:200]`` is 200 characters: 86 % of MICE (233), but 44 % of
        MICE with WOOL twice after it (233 + 2 * 83 = 399), which holds it
        first: no copy, though the later chunk would make it one. Alone,
        MICE holds it: a copy.
        """
        answer = MICE[:200]
        chunks = [f"{MICE} {WOOL} {WOOL}", MICE]
        assert 399 == len(chunks[0])
        assert not _echo.is_copy(answer, "", *FoldedChunks(chunks).every())
        assert not _echo.copies(answer, "", FoldedChunks(chunks))
        assert _echo.is_copy(answer, "", *FoldedChunks([WOOL, MICE]).every())
        assert _echo.copies(answer, "", FoldedChunks([WOOL, MICE]))

    def test_a_copy_found_through_the_digest_of_a_folded_chunk(self) -> None:
        """``ß`` folds to ``ss``: the chunk written ``Straße`` holds the answer's ``strasse``."""
        chunk = "Die Straße " + MICE
        answer = "DIE STRASSE " + MICE.upper()
        assert [1] == list(FoldedChunks([WOOL, chunk]).candidates(fold(answer)[:40]))
        assert [COPY] == copy_verdict(answer, (WOOL, chunk))

    def test_chunks_holding_the_separator_cost_bounded_memory(self) -> None:
        """
        Chunks split at a separator they hold give empty pieces; an empty piece covers nothing.

        ``find("")`` matches at every offset without moving on, so counting
        an empty piece's occurrences never ended: the check took memory until
        the machine ran out. Run in a child capped at 1 GB of address space,
        so that a regression fails here instead of taking the test run down.
        The answer repeats the chunks' 30 words twice after two separators:
        ``W`` (the words, folded) covers both copies, 2 * len(W) of
        2 * len(W) + 3 characters, over 0.8: a copy.
        """
        code = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from relapse.grounding import _echo
from relapse.grounding._index.folded import FoldedChunks
words = " ".join(f"w{i}" for i in range(30))
texts = [words + "\\x00", "\\x00" + words]
answer = "\\x00\\x00" + words + " " + words
print(_echo._covered("abcabc", ["", "bc"]), _echo.copies(answer, "", FoldedChunks(texts)))
"""
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
        )
        assert (0, "4 True\n") == (done.returncode, done.stdout), done.stderr[-2000:]


# from test_echo.py
class TestFoldFastPath:
    """fold() collapses white space without splitting when only single spaces occur."""

    @given(_TEXTS)
    def test_fold_is_its_reference(self, text: str) -> None:
        assert fold_map(text)[0] == fold(text)

    def test_single_spaces_and_ends(self) -> None:
        assert "a b c" == fold(" A B C ")
        assert "a b c" == fold("A  B\nC")
        assert "a b" == fold("A\u00a0B")
