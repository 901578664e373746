"""
Subjects: what a sentence opens with, and when a chunk's number is about another kind of it.

A number moved from one subject to another keeps its digits and its unit:
``Conjoined twins: ... it is within 8 days of fertilization`` in a chunk,
``Monozygotic (identical) twins occur ... within 8 days of fertilization``
in the answer. The sentences differ in the words they open with: the same
noun (``twins``), told apart by other modifiers (``conjoined`` against
``monozygotic``, ``identical``). :func:`subject` reads that opening run of
content words; :func:`other_kind` compares an answer sentence's run with a
chunk sentence's and says when the chunk's is another kind of the same
thing, in words the answer's sentence does not use and the answer's
modifiers absent from the chunk's sentence.

Every reading is bounded: a sentence is read within :data:`SENTENCE_WINDOW`
characters of the number, and one longer than that has no subject here
(when in doubt, the rule passes).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from relapse.grounding._text import fold

#: Characters before and after a number within which its sentence is read.
#: A longer sentence (a table row, a run-on list) has no subject here.
SENTENCE_WINDOW = 320

#: Words of an opening run read at most: a subject's modifiers and noun,
#: and the verb after them.
MAX_RUN = 6

# A word (letters, then letters or digits, an apostrophe or a hyphen inside:
# "Bergen-Belsen", "O'Brien"), or any other character that is not a space.
_TOKEN = re.compile(r"[^\W\d_](?:[^\W_]|['\u2019\-](?=[^\W\d_]))*|\S")
_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['\u2019\-](?=[^\W\d_]))*")

# What may open a line before its first word: bullets, markdown, a list
# marker ("3. ", "2) ", "**1.**").
_LEAD = re.compile(r"(?:[\s>#*\u2022\u00b7\-\u2013\u2014_]|\d{1,3}[.)](?=\s))*")

#: Words that open a noun phrase without telling its kind: skipped before a run.
DETERMINERS = frozenset(
    {"the", "a", "an", "this", "that", "these", "those", "its", "their", "his", "her", "our"}
    | {"my", "your"}
)

#: Words that end a run: function words (prepositions, conjunctions,
#: pronouns, auxiliaries, wh-words), quantifiers and comparatives, words of
#: order or of degree, and numbers in words. None of them tells one kind of a
#: thing from another, and each may open or close a clause.
FUNCTION_WORDS = DETERMINERS | frozenset(
    {
        *("of", "in", "on", "at", "by", "for", "to", "from", "with", "without", "into", "onto"),
        *("about", "after", "before", "during", "since", "until", "within", "between", "among"),
        *("over", "under", "above", "below", "through", "per", "via", "than", "as", "like"),
        *("and", "or", "but", "nor", "so", "yet", "if", "then", "because", "while", "although"),
        *("though", "whereas", "unless", "when", "where", "which", "who", "whom", "whose"),
        *("what", "how", "why", "whether", "there", "here", "it", "they", "he", "she", "we"),
        *("you", "i", "them", "him", "us", "me", "is", "are", "was", "were", "be", "been"),
        *("being", "am", "has", "have", "had", "do", "does", "did", "can", "could", "may"),
        *("might", "will", "would", "shall", "should", "must", "not", "no", "also", "only"),
        *("just", "even", "very", "more", "most", "less", "least", "much", "many", "few"),
        *("fewer", "some", "any", "all", "both", "each", "every", "either", "neither", "other"),
        *("another", "such", "same", "own", "several", "various", "certain", "first", "second"),
        *("third", "last", "next", "new", "old", "main", "total", "overall", "average"),
        *("around", "approximately", "nearly", "almost", "roughly", "up", "out", "off"),
        *("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
        *("based", "according", "however", "therefore", "thus", "generally", "typically"),
        *("usually", "often", "sometimes", "specifically", "finally", "additionally"),
        *("once", "now", "today", "still", "already", "again", "later", "earlier", "currently"),
        *("recently", "instead", "indeed", "meanwhile", "furthermore", "moreover", "hence"),
    }
)


def singular(word: str) -> str:
    """Return a folded word without a plural ending: ``twins``, ``twin``; ``babies``, ``baby``."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _plural(word: str) -> bool:
    """Tell whether a folded word ends as a plural noun does (``scientists``, not ``glass``)."""
    return singular(word) != word and not word.endswith("ous")


#: What ends a sentence for this rule: a full stop, question or exclamation
#: mark (and a closing quote or parenthesis) before a space, or a line break.
SENTENCE_ENDS = (
    *(". ", "? ", "! ", '." ', '?" ', '!" ', ".\u201d ", "?\u201d ", "!\u201d ", ".) "),
    "\n",
)


# Every mark of SENTENCE_ENDS, found in one pass. No two marks overlap (each
# but the line break ends in a space, and none starts with one, a quote or a
# parenthesis), so the matches left to right are every occurrence of each.
# Written to open with the class of the marks' first characters, which the
# matcher tests at each offset before entering the pattern (three times
# faster than an alternation of the marks on an answer of RAGTruth's); the
# marks it matches are those of "(?:[.?!]["\u201d]?|\.\)) |\n".
_SENTENCE_END = re.compile(r"[.?!\n](?:(?<=\n)|[\"\u201d]? |(?<=\.)\) )")


class Sentences:
    """
    The sentence ends of one text, found once, for :meth:`at` lookups by bisection.

    Built in one regular-expression pass over the text (linear in it); each
    lookup then costs two bisections, where searching for every mark of
    :data:`SENTENCE_ENDS` around each number cost a search per mark and side.
    """

    __slots__ = ("_ends", "_starts", "_text")

    def __init__(self, text: str) -> None:
        """
        Find the sentence ends of ``text``.

        Args:
            text: An answer or a chunk.
        """
        self._text = text
        spans = [match.span() for match in _SENTENCE_END.finditer(text)]
        #: Where each mark starts, and where it ends (after its space), in order.
        self._starts = [start for start, _ in spans]
        self._ends = [end for _, end in spans]

    def at(self, start: int, end: int) -> tuple[int, int] | None:
        """
        Return the sentence holding ``start:end``, read within :data:`SENTENCE_WINDOW`.

        A sentence here runs from just after the last of :data:`SENTENCE_ENDS`
        before the number to just after the first one after it (its closing
        mark kept, its space not): a reading by two bisections, so that the
        rule costs next to nothing on the numbers it lets pass. It is coarser
        than :func:`relapse._read.sentences.sentence_spans` (``Dr.
        Smith`` is cut after ``Dr.``): a cut inside a sentence makes its
        subject a later run of words, which tells the kind of a thing less
        often, not more.

        Args:
            start: The number's start offset.
            end: The number's end offset.

        Returns:
            The sentence's ``(start, end)`` offsets in the text, edge white
            space excluded; None when no sentence end lies within
            :data:`SENTENCE_WINDOW` characters on a side that is not the
            text's start or end.
        """
        text, starts, ends = self._text, self._starts, self._ends
        low = max(0, start - SENTENCE_WINDOW)
        # The last mark wholly inside text[low:start]: marks do not overlap,
        # so the one ending last before start is the last to start there.
        before = bisect_right(ends, start) - 1
        if before >= 0 and starts[before] >= low:
            first = ends[before]
        elif low:
            return None  # the sentence may start before the window
        else:
            first = 0
        high = min(len(text), end + SENTENCE_WINDOW)
        # The first mark wholly inside text[end:high]; its space is not the sentence's.
        after = bisect_left(starts, end)
        if after < len(starts) and ends[after] <= high:
            last = ends[after] - 1 if text[ends[after] - 1] == " " else starts[after]
        elif high < len(text):
            return None  # the sentence may end after the window
        else:
            last = high
        while first < start and text[first].isspace():
            first += 1
        while last > end and text[last - 1].isspace():
            last -= 1
        return first, last


def subject(text: str, start: int, end: int) -> tuple[str, ...]:
    """
    Return the run of content words that ``text[start:end]``, a sentence, opens with.

    Bullets, list markers and determiners before it are skipped; a word in
    parentheses inside it is part of it (``Monozygotic (identical) twins``);
    a function word (:data:`FUNCTION_WORDS`), a digit or any other mark ends
    it, and it holds at most :data:`MAX_RUN` words.

    Args:
        text: The text.
        start: The sentence's start offset.
        end: The sentence's end offset.

    Returns:
        The run's words, folded (:func:`relapse.grounding._text.fold`), in order;
        empty when the sentence opens with a function word or a mark.
    """
    lead = _LEAD.match(text, start, end)
    position = lead.end() if lead is not None else start
    run: list[str] = []
    opened = False
    skipping = True
    for token in _TOKEN.finditer(text, position, end):
        word = token.group()
        if word == "(" and run and not opened:
            opened = True
            continue
        if word == ")" and opened:
            opened = False
            continue
        if not word[0].isalpha():
            break
        # A plain ASCII word folds to its lower case; fold() the others
        # (apostrophes, accents), as words_of() folds the whole sentence.
        folded = word.casefold() if word.isascii() and word.isalpha() else fold(word)
        if skipping and folded in DETERMINERS:
            continue
        skipping = False
        if folded in FUNCTION_WORDS:
            break
        run.append(folded)
        if len(run) == MAX_RUN:
            break
    return tuple(run)


def words_of(text: str, start: int, end: int) -> frozenset[str]:
    """Return the folded words of ``text[start:end]``, without plural endings."""
    return frozenset(singular(word) for word in _WORD.findall(fold(text[start:end])))


def may_tell_kind(run: tuple[str, ...]) -> bool:
    """
    Tell whether a run may tell a kind (:func:`other_kind`): a plural noun after modifiers.

    Some word after the first ends as a plural and none before it does: the
    cheap test that spares reading a sentence's words and a chunk's
    occurrences for most sentences (``The depot reported``, ``Revenue rose``).
    """
    for position, word in enumerate(run):
        if _plural(word):
            return position > 0
    return False


def _shared(
    answer_run: tuple[str, ...], chunk_run: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...], str] | None:
    """The modifiers of each run before the plural noun they share, and that noun; or None."""
    chunk_heads = [singular(word) for word in chunk_run]
    for position, word in enumerate(answer_run):
        head = singular(word)
        if head not in chunk_heads:
            continue
        where = chunk_heads.index(head)
        if not (_plural(word) and _plural(chunk_run[where])):
            # Kinds of things are told of a plural noun ("conjoined twins");
            # a shared past-tense verb or a singular noun ("The company
            # reported", "Apple reported") may be one subject named twice.
            return None
        answer_mods = answer_run[:position]
        chunk_mods = chunk_run[:where]
        if not answer_mods or not chunk_mods:
            return None
        if any(_plural(mod) for mod in (*answer_mods, *chunk_mods)):
            return None
        return answer_mods, chunk_mods, head
    return None


def shares_kind(answer_run: tuple[str, ...], chunk_run: tuple[str, ...]) -> bool:
    """Tell whether two runs name kinds of one plural noun: :func:`other_kind` on runs alone."""
    return _shared(answer_run, chunk_run) is not None


def other_kind(
    answer_run: tuple[str, ...],
    answer_words: frozenset[str],
    chunk_run: tuple[str, ...],
    chunk_words: frozenset[str],
) -> tuple[tuple[str, ...], str] | None:
    """
    Tell whether a chunk sentence is about another kind of the thing an answer sentence is about.

    The runs (:func:`subject`) share a word, the first of the answer's run
    that the chunk's holds (``twins``), and each puts modifiers before it
    (``monozygotic identical``; ``conjoined``): words that tell the kind.
    The shared word must end as a plural noun in both (a kind of things:
    ``twins``, ``patients``). It is another kind when no modifier of the
    answer's is a word of the chunk's sentence and no modifier of the
    chunk's a word of the answer's: a sentence that names both kinds
    (``identical twins, unlike conjoined twins``) or repeats a modifier
    elsewhere is no other kind. A modifier that ends as a plural noun
    (``Scientists found``) is the subject itself and the shared word its
    verb: no kind is told then.

    Args:
        answer_run: The answer sentence's run.
        answer_words: The answer sentence's words (:func:`words_of`).
        chunk_run: The chunk sentence's run.
        chunk_words: The chunk sentence's words.

    Returns:
        The answer's modifiers and the shared word (without plural
        endings) when the chunk's sentence is about another kind; None
        otherwise.
    """
    shared = _shared(answer_run, chunk_run)
    if shared is None:
        return None
    answer_mods, chunk_mods, head = shared
    mods = tuple(singular(mod) for mod in answer_mods)
    if any(mod in chunk_words for mod in mods):
        return None
    if any(singular(mod) in answer_words for mod in chunk_mods):
        return None
    return mods, head
