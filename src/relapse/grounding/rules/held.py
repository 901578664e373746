"""
Held values: the claim's own value, in the chunks or the question; trivial numbers; list markers.

The commonest verdict: the chunks (or the question) hold a key the claim
needs (:attr:`relapse.grounding._read.claims.Claim.needs`), and the place of
that key is the claim's evidence. A trivial number written bare, a list
marker and a reference to a passage claim nothing.
"""

from __future__ import annotations

from relapse.grounding._codes import FG001, FG002
from relapse.grounding._read.claims import Claim
from relapse.grounding._read.context import (
    INLINE_MARKER_WINDOW,
    is_list_marker,
    is_reference,
)
from relapse.grounding._read.quantity import PLAIN_KINDS, Quantity
from relapse.grounding._values.keys import Key
from relapse.grounding._values.tags import ALL_KINDS, DATE
from relapse.grounding._values.units import UNIT_WINDOW
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule

#: Characters of a supported plain number tested for a list marker or a
#: reference before it is cited (:func:`relapse.grounding._read.context.is_list_marker` reads at
#: most three digits).
MAX_MARKER_CHARS = 3

_NUMBERS = frozenset({FG001})
_BOTH = frozenset({FG001, FG002})
_DIGITS = frozenset({Reads.DIGITS})
_WORDS = frozenset({Reads.WORDS})
# What the marker rules read: a line's start before the claim, or an inline
# enumeration's previous marker far back; a reference's words after it.
_MARKER_REACH = (INLINE_MARKER_WINDOW, 80)


def held(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    r"""
    A claim is supported by a key the chunks or the question hold.

    Accepts:
        A claim one of whose alternatives of keys the chunks or the question
        hold: ``1,200`` needs the number 1200, which a chunk's ``1200``,
        ``1,200`` or ``1.2 thousand`` provides; a date needs its day, month
        and year. When one key alone supports it, the chunks' place of that
        key is its evidence. A trivial number (0, 1, 2 by default) written
        bare is held without a lookup.

    Why:
        The chunks are read lazily: what the chunks read so far hold is
        looked up first, and only then are the chunks that may hold each part
        read, dates last (their evidence is a pattern, slower to search than
        a number's digits). A full reading returns the first alternative
        held, so the lazy reading returns it too: the evidence does not
        depend on which chunks were read first.

        Value, not spelling: answers reformat numbers all the time (``29,000`` becomes ``29
        thousand``); only a different value is a different claim. A number's key is its value
        written as significant digits and a power of ten (``("n", "29", 3)`` for ``29,000``, ``29
        000``, ``29 thousand`` and ``twenty-nine thousand`` alike), so numbers of any length compare
        exactly; the scale is part of the value (``2.1 billion`` is not ``2.1 million``), the sign
        too (``-5`` is not ``5``), and a token is matched whole (``GPT-5`` is not a ``GPT-4`` and
        some other ``5``). The question's claims are held too (``exempt_question=False`` turns that
        off): repeating the user's numbers is not a hallucination. How the readers read each writing
        into its key is in docs/findings.md, "How the readers read a claim".

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It is 2,737 metres long.` | `It is 2737 metres long.` | passes |
        | `2.1 billion customers` | `2.1 million customers` | fails |
        | `1.25%` | `12.5%` | fails |
        | `85%` | `87%` | fails |
        | `31,133 seeds` | `seeds 3,11,33` | fails |
        | `seventy people` | `77 people` | fails |
        | `1.2 million` | `1,234,567` | fails |
        | `GPT-5` | `GPT-4 ... 5 pages` | fails |
        | `10-15 minutes` | `8-10 minutes ... 15 minutes` | fails |
        | `$36,000` | `$35,499` | fails |
        | `2 1/4 cups` | `2 1/2 cups` | fails |
        | `1.33 cups` | `1 1/3 cups` | fails |
        | `5 °C` | `-5 °C` | fails |
        | `£10 ($13)` | `£10` | fails |
        | `1-2 inches` | `The bridge opened in 1937.` | fails |
        | `1 kilometer` | `The bridge opened in 1937.` | fails |
        | `0-1 ng/mL` | `The bridge opened in 1937.` | fails |
        | `$1 billion` | `$3 billion` | fails |
        | `1,000` | `7 thousand` | fails |
        | `One million` | `Two million` | fails |
        | `a million` | `15 million` | fails |
        | `–5 °C` | `5 °C` | fails |
        | `minus 5 degrees` | `5 °C` | fails |
        | `3 pm` | `3 am` | fails |
        | `3:30 pm` | `3:30 am` | fails |
        | `A quarter of a million` | `5 million` | fails |
        | `Half a million` | `A million` | fails |
        | `34%` | `One third` | fails |
        | `33.4%` | `One third` | fails |
        | `45%` | `0.45 mm` | fails |
        | `29 000` | `29,000` | passes |
        | `29 000` | `29,000` | passes |
        | `29 000` | `29,000` | passes |
        | `45.5 percent` | `45.5%` | passes |
        | `45.5 per cent` | `45.5%` | passes |
        | `35499 dollars` | `$35,499` | passes |
        | `USD 35,499` | `$35,499` | passes |
        | `$3,800 million` | `$3.8 billion` | passes |
        | `a $5m grant` | `a 5 million dollar grant` | passes |
        | `3rd` | `3 ‖ 3rd` | passes |
        | `4x4s` | `4 by 4s` | passes |
        | `28% to 52%` | `28% ... 52%` | passes |
        | `0.75 cup` | `3/4 cup` | passes |
        | `2.25 cups` | `2 1/4 cups` | passes |
        | `0` | `The bridge opened in 1937.` | passes |
        | `1` | `The bridge opened in 1937.` | passes |
        | `2` | `The bridge opened in 1937.` | passes |
        | `１２３` | `123` | passes |
        | `١٢٣` | `123` | passes |
        | `۱۲۳` | `123` | passes |
        | `[2]` | `The bridge opened in 1937.` | passes |
        | `Option 2` | `The bridge opened in 1937.` | passes |
        | `5 km` | `5 kilometers` | passes |
        | `5 kilometres` | `5 kilometers` | passes |
        | `104 °C` | `104` | passes |
        | `3 pm` | `15:00` | passes |
        | `3:30 p.m.` | `15:30` | passes |
        | `15:30` | `3:30 PM` | passes |
        | `Half a million` | `500,000` | passes |
        | `two and a half million` | `2.5 million` | passes |
        | `three quarters of a million` | `750,000` | passes |
        | `half a dozen` | `6` | passes |
        | `one million and a half` | `1.5 million` | passes |
        | `one third` | `67% ‖ 33.3% ‖ 1/3 ‖ Sixty percent` | passes |
        | `1e6` | `1,000,000` | passes |
        | `2.5E-3` | `0.0025` | passes |
        | `twenty-first` | `21st` | passes |
        | `1,5 %` | `1.5 %` | passes |
        | `≤ 1,5` | `1.5` | passes |
        | `0,25 mm` | `0.25 mm` | passes |
        | `12 345` | `12,345 ‖ 29,000 ‖ 1,234,567` | passes |
        | `29'000` | `12,345 ‖ 29,000 ‖ 1,234,567` | passes |
        | `1’234’567` | `12,345 ‖ 29,000 ‖ 1,234,567` | passes |
        | `1.234.567` | `12,345 ‖ 29,000 ‖ 1,234,567` | passes |
        | `12،345` | `12,345 ‖ 29,000 ‖ 1,234,567` | passes |
        | `1.234,5` | `1234.5 ‖ 1234567.891 ‖ 0.125` | passes |
        | `1 234 567,891` | `1234.5 ‖ 1234567.891 ‖ 0.125` | passes |
        | `1'234,5` | `1234.5 ‖ 1234567.891 ‖ 0.125` | passes |
        | `0,125` | `1234.5 ‖ 1234567.891 ‖ 0.125` | passes |
        | `1.234` | `1.234 ‖ 1234` | passes |
        | `.5 mg` | `0.5 mg` | passes |
        | `½` | `0.5` | passes |
        | `¾` | `0.75` | passes |
        | `3½` | `3 1/2` | passes |
        | `1 ½` | `1.5` | passes |
        | `1⁄2` | `1/2` | passes |
        | `10⁹` | `1 billion` | passes |
        | `3 × 10⁸` | `300,000,000` | passes |
        | `2.5·10⁻³` | `0.0025` | passes |
        | `10^9` | `1 billion ‖ 2,500,000 ‖ 0.0042 ‖ 0.001` | passes |
        | `2.5 x 10^6` | `1 billion ‖ 2,500,000 ‖ 0.0042 ‖ 0.001` | passes |
        | `4.2 × 10^-3` | `1 billion ‖ 2,500,000 ‖ 0.0042 ‖ 0.001` | passes |
        | `10^−3` | `1 billion ‖ 2,500,000 ‖ 0.0042 ‖ 0.001` | passes |
        | `10^(-3)` | `1 billion ‖ 2,500,000 ‖ 0.0042 ‖ 0.001` | passes |
        | `10^{-3}` | `1 billion ‖ 2,500,000 ‖ 0.0042 ‖ 0.001` | passes |
        | `⑴` | `(1)` | passes |
        | `⒈` | `1.` | passes |
        | `It takes 30 minutes.` | `Bake 30. ‖ Bake for 30-45 minutes.` | passes |
        | `It takes 30 minutes.` | `It weighs 30 kg. Bake for thirty minutes.` | passes |
        | `It takes 30 minutes.` | `The walk: 1 h 30m.` | passes |
        | `They hired 30 engineers.` | `They hired 30 nurses.` | passes |
        | `It weighs 30 kg.` | `It weighs 30 kgs.` | passes |
        | `They hired 30 people.` | `About 30% of people.` | passes |
        | `It costs 30 pounds.` | `It costs £30.` | passes |
        | `The rate is 45%.` | `A share of 0.45. It takes 45 minutes.` | passes |
        | `Seedling trees bear fruit within 3 years.` | `The bridge opened in 1937.` | fails |
        | `20:15` | `08:15` | fails |
        | `8:15 pm` | `08:15` | fails |
        | `1700 hours` | `5 am ‖ 18:00` | fails |
        | `75%` | `3,75 %` | fails |
        | `25 mm` | `0,25 mm` | fails |
        | `€99` | `1.299,99 €` | fails |
        | `8.4M residents` | `8.4 billion residents` | fails |
        | `44BC` | `44 AD` | fails |
        | `forty-four BC` | `44 AD` | fails |
        | `9.30 pm` | `9:30 am` | fails |
        | `Forty percent` | `Half` | fails |
        | `the 18th century` | `the nineteenth century` | fails |
        | `$4.2 mln` | `$4.2 billion` | fails |
        | `$4.2MM` | `$4.2 billion` | fails |
        | `2,6 × 10⁶` | `2.5 million` | fails |
        | `The share was 0.7` | `60%` | fails |
        | `$3.2 million` | `$-3.2 million` | fails |
        | `9am-5pm` | `9 a.m. to 5 p.m.` | passes |
        | `12 am` | `24:00` | passes |
        | `midnight` | `24:00` | passes |
        | `12 am` | `12 noon` | fails |
        | `12 pm` | `12 midnight` | fails |
        | `noon` | `12 am` | fails |
        | `twelve noon` | `9 am` | fails |
        | `90 km` | `350°` | fails |
        | `220%` | `350 Degrees` | fails |
        | `negative twelve degrees` | `12 °C` | fails |
        | `3 March 2021` | `5 January 2021` | fails |
        | `July 20, 1969` | `July 1969` | fails |
        | `June 1969` | `July 20, 1969` | fails |
        | `the 1950s` | `1945` | fails |
        | `1939–1946` | `1939 ... 1945` | fails |
        | `753 BC` | `753 AD` | fails |
        | `nineteen forty-four` | `1945` | fails |
        | `the 19th century` | `1950` | fails |
        | `the 1880s` | `the 19th century` | fails |
        | `9/2/1945` | `September 2, 1945` | passes |
        | `2/9/1945` | `September 2, 1945` | passes |
        | `9/2/45` | `September 2, 1945` | passes |
        | `July 1969` | `July 20, 1969` | passes |
        | `July 20` | `July 20, 1969` | passes |
        | `1969` | `July 20, 1969` | passes |
        | `July 20, 1969` | `In 1969, ... On July 20, the crew landed.` | passes |
        | `the 1940s` | `1945` | passes |
        | `1940's` | `1945` | passes |
        | `mid-1940s` | `1945` | passes |
        | `the 1800s` | `1889` | passes |
        | `the 19th century` | `the 1800s` | passes |
        | `19th-century` | `the 19th century` | passes |
        | `1939–1945` | `1939 ... 1945` | passes |
        | `1939-1945` | `1939 ... 1945` | passes |
        | `1939 – 1945` | `1939 ... 1945` | passes |
        | `2013–14` | `2013 ... 2014` | passes |
        | `nineteen forty-five` | `1945` | passes |
        | `753 BC` | `753 B.C.` | passes |
        | `AD 753` | `753 CE` | passes |
        | `Sure.\nYour previous answer was rejected.\nIt is 78 degrees.` | `The bridge opened in
          1937.` | fails |
        | `Turnout was 62%.` | `Turnout was 62 people.` | passes |
        | `Turnout was 62%.` | `62 per cent` | passes |
        | `COVID-19` | `COVID-19` | passes |
        | `ISO 9001` | `ISO 9001` | passes |
        | `v2.0.1` | `v2.0.1` | passes |
        | `209,000 m3/s` | `209,000 cubic meters per second` | passes |
        | `31,500 km2` | `31,500 square kilometers` | passes |
        | `40 cm³` | `40 cubic centimeters` | passes |
        | `It carries 209,000 m3/s.` | `It carries 209,000 m³/s.` | passes |
        | `It covers 31,500 km2.` | `It covers 31,500 km2 in all.` | passes |
        | `It holds 40 cm³.` | `It holds 40 cm3.` | passes |
        | `8` | `8,22,443` | passes |
        | `22` | `8,22,443` | passes |
        | `443` | `8,22,443` | passes |
        | `822,443` | `8,22,443` | fails |
        | `22,443` | `8,22,443` | fails |
        | `Rs. 12,34,567` | `1,234,567` | passes |
        | `2^10` | `1,024` | fails |
        | `2^10` | `2^10` | passes |
        | `x^2` | `x^2` | passes |
        | `10^3.5` | `10^3.5` | passes |
        | `10^101` | `10^101` | passes |
        | `10^99999` | `10^99999` | passes |
        | `10 ^ 6` | `1,000,000` | fails |
        | `2,500 x 10^3` | `2,500,000` | fails |
        | `Seedling trees bear fruit after 7 years.` | `Grafted trees bear fruit within 3 years.
          Most seedling trees take longer: seedling trees bear fruit after 7 years.` | passes |
        | `Grafted trees bear fruit within 3 years.` | `Grafted trees bear fruit within 3 years.
          Most seedling trees take longer: seedling trees bear fruit after 7 years.` | passes |
        | `Trees that are grafted bear fruit within 3 years.` | `Grafted trees bear fruit within 3
          years. Most seedling trees take longer: seedling trees bear fruit after 7 years.` |
          passes |
        | `Grafted apple trees bear fruit within 3 years.` | `Grafted trees bear fruit within 3
          years. Most seedling trees take longer: seedling trees bear fruit after 7 years.` |
          passes |
        | `Budded trees bear fruit within 3 years.` | `Grafted trees bear fruit within 3 years. Most
          seedling trees take longer: seedling trees bear fruit after 7 years.` | passes |
        | `Seedling trees take longer, but grafted trees bear fruit within 3 years.` | `Grafted
          trees bear fruit within 3 years. Most seedling trees take longer: seedling trees bear
          fruit after 7 years.` | passes |
        | `Within 3 years, grafted trees bear fruit; seedling trees take 7.` | `Grafted trees bear
          fruit within 3 years. Most seedling trees take longer: seedling trees bear fruit after 7
          years.` | passes |
        | `Seedling trees bear fruit within 3 years.` | `Grafted trees bear fruit within 3 years. In
          a warm climate, seedling trees bear fruit within three years.` | passes |
        | `Researchers found 40 species in the lake.` | `Scientists found 40 species in the lake.
          Researchers found that the lake shrinks.` | passes |
        | `Apple reported revenue of $30 billion.` | `The company reported revenue of $30 billion.
          Apple reported its results on Tuesday.` | passes |
        | `$3 trillion` | `$3 trn` | passes |
        | `$3 trillion` | `$3 trln` | passes |
        | `$3 billion` | `$3 trn` | fails |
        | `September 2, 1945` | `2 September 1945` | passes |
        | `2 September 1945` | `Sept. 2nd, 1945` | passes |
        | `Sept. 2nd, 1945` | `2nd of September 1945` | passes |
        | `2nd of September 1945` | `1945-09-02` | passes |
        | `1945-09-02` | `1945/09/02` | passes |
        | `1945/09/02` | `02.09.1945` | passes |
        | `02.09.1945` | `SEPTEMBER 2, 1945` | passes |
        | `SEPTEMBER 2, 1945` | `September 2, 1945` | passes |
        | `It is 24" wide and 36" tall.` | `The board is 24" wide and 36" tall.` | passes |
        | `Add a 4" layer.` | `Spread a 4" layer of mulch.` | passes |
        | `He is 5' 10" tall.` | `He stands 5' 10" in socks.` | passes |
        | `File form FG012 by May.` | `Form FG012 is due each year.` | passes |
        | `Check form FG001.` | `Form fg001 lists the fees.` | passes |
        | `The archive holds 987654 letters.` | `The archive holds 987654 letters.` | passes |
        | `a million and a half` | `1.5 million` | passes |
        | `a billion and a half` | `1,500,000,000` | passes |
        | `a thousand and a quarter` | `1,250` | passes |
        | `a dozen and a half` | `18` | passes |
        | `8,22,443` | `8,22,443` | passes |
        | `Prices rose sevenfold.` | `Prices rose 7-fold.` | passes |
        | `Prices rose sevenfold.` | `Prices rose 7 times.` | passes |
    """
    claim = value.claim
    plain = lookup.trivial(value) if claim.key is not None else claim.plain
    needs = claim.needs
    # First what the chunks read so far hold; only then read the chunks
    # that may hold each part, dates last (their evidence is a pattern,
    # slower to search than a number's digits).
    # Most alternatives are one key: asked without a generator.
    known = lookup.known
    for position, alternative in enumerate(needs):
        if (
            known(alternative[0], plain)
            if len(alternative) == 1
            else all(known(part, plain) for part in alternative)
        ):
            if position and not lookup.chunks.complete:
                # A full reading returns the first alternative held: an
                # earlier one held by a chunk not read yet is the claim's
                # support (and its evidence) there, so it must be here.
                for earlier in needs[:position]:
                    if all(lookup.has(part, plain) for part in sorted(earlier, key=_is_date)):
                        return _one_key(lookup, earlier, plain)
            return _one_key(lookup, alternative, plain)
    if not lookup.chunks.complete:
        has = lookup.has
        for alternative in needs:
            if (
                has(alternative[0], plain)
                if len(alternative) == 1
                else all(has(part, plain) for part in sorted(alternative, key=_is_date))
            ):
                return _one_key(lookup, alternative, plain)
    return None


def _one_key(lookup: Lookup, alternative: tuple[Key, ...], plain: bool) -> Key | bool:
    """
    Return the key of an alternative held alone, whose place is the claim's evidence.

    True (held, no one place) for several keys, and for a trivial number
    written plain: it is exempt, not looked up, so whether its place is
    known would depend on what the chunks read so far hold.
    """
    if len(alternative) != 1:
        return True
    key = alternative[0]
    return True if plain and key in lookup.trivial_keys else key


def _is_date(key: Key) -> bool:
    """Tell whether ``key`` is a date pattern."""
    return key[0] == DATE


def _not_a_claim(answer: str, claim: Claim) -> bool:
    """
    Tell whether a plain number is a list marker or a reference to the context.

    What :attr:`relapse.grounding._read.quantity.Quantity.marker` reads
    once for the rules, as a function of the claim (the evidence tests').
    """
    return is_list_marker(answer, claim.start, claim.end) or is_reference(
        answer, claim.start, claim.end
    )


def trivial(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A trivial number in words, written bare, claims nothing.

    Accepts:
        A number in words that is one of the trivial numbers (0, 1, 2 by
        default), with no unit after it: ``two ways``, ``one of them``.

    Why:
        Small numbers are everywhere and claim little; a unit after one
        (``one kilometre``, ``two percent``) makes it a measure like any other.
        A trivial number in digits is held by the held-values rule instead,
        so that its evidence, if any, is found the same way.

        The trivial numbers are configured with ``GroundingCheck(trivial_numbers=...)``. With a unit
        after them (``1 kilometer``, ``2 cups``, ``0.5 mg``) or in a range (``1-2 inches``, ``0-1
        ng/mL``) they measure something and are claims.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `There are two ways across.` | `The bridge opened in 1937.` | passes |
        | `one` | `The bridge opened in 1937.` | passes |
        | `two` | `The bridge opened in 1937.` | passes |
    """
    return True if lookup.trivial(value) else None


def cited_marker(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    r"""
    A supported list marker or reference passes, cited nowhere.

    Accepts:
        A supported plain number of at most three characters that is a list
        marker (``3) Use ...``) or a reference (``passage 2``): it passes,
        but is cited nowhere.

    Why:
        A chunk that happens to hold the number does not state what the
        marker says: the marker orders the answer. Only short numbers are
        tested (markers have at most three digits), since the test costs
        regex searches.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `Steps:\n3. Cross it.` | `The 3 towers stand.` | passes |
        | `③ guests` | `3 guests` | passes |
        | `⑳` | `20` | passes |
        | `③` | `3` | passes |
    """
    claim = value.claim
    if (
        verdict is not True
        and claim.plain
        and claim.end - claim.start <= MAX_MARKER_CHARS
        and value.marker
    ):
        return True
    return None


def marker(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    r"""
    A list marker or a reference to the context claims nothing.

    Accepts:
        A plain number in digits that no chunk supports but that is a list
        marker (``3. Print``, ``Step 4:``, an inline ``1) ... 2) ...``) or a
        reference to the context (``passage 3``, ``the three provided
        passages``, ``[2]``).

    Why:
        Markers and references order the answer or point into the context;
        they claim nothing about the world, so nothing needs to hold them.

        Not claims: a line-leading list marker (``3.``, ``2)``, ``(4)``, ``**7.**``, ``Step 3:``);
        an inline enumeration, ``N.`` or ``N)`` before a word where ``N-1`` stands the same way at
        most 600 characters before (``it has 4. Then`` alone is still a claim); references to
        passages, documents, sources or chunks (``(Passage 3)``, ``passages 1, 2, and 3``, ``[2]``,
        ``Document 7``: the RAG prompt's own structure) and to the answer's own steps, questions and
        options (``Question 3:``, ``repeat step 4 and 5``, ``Option 2``); counts of the passages
        (``the three provided passages``). These rules run only on numbers the chunks do not
        support.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `Steps:\n3. Cross it.\n4. Look.` | `The bridge opened in 1937.` | passes |
        | `See passage 5.` | `The bridge opened in 1937.` | passes |
        | `3. Print the schedule` | `The bridge opened in 1937.` | passes |
        | `causes: 1. hormones 2. genes 3. diet` | `The bridge opened in 1937.` | passes |
        | `(Passage 3)` | `The bridge opened in 1937.` | passes |
        | `passage 2 and passage 3` | `The bridge opened in 1937.` | passes |
        | `passages 1, 2, and 3` | `The bridge opened in 1937.` | passes |
        | `Document 7` | `The bridge opened in 1937.` | passes |
        | `Question 3:` | `The bridge opened in 1937.` | passes |
        | `repeat step 4 and 5` | `The bridge opened in 1937.` | passes |
    """
    return True if value.claim.plain and value.marker else None


def word_marker(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A list marker or a reference in words claims nothing.

    Accepts:
        A number in words that no rule supports but that is a list marker or
        a reference to the context (``passage two``), as for digits.

    Why:
        As for digits; asked last of the words' rules, after every rule that
        could support the number.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `See passage seven.` | `The bridge opened in 1937.` | passes |
        | `the three provided passages` | `The bridge opened in 1937.` | passes |
    """
    return True if value.marker else None


#: The held values' rules.
HELD = rule("held", _BOTH, Role.SUPPORTS, Phase.DECIDE, _DIGITS | _WORDS, (0, UNIT_WINDOW), held)
TRIVIAL = rule(
    "trivial",
    _NUMBERS,
    Role.EXEMPTS,
    Phase.DECIDE,
    _WORDS,
    (0, UNIT_WINDOW),
    trivial,
    kinds=ALL_KINDS,
)
CITED_MARKER = rule(
    "cited-marker",
    _NUMBERS,
    Role.EXEMPTS,
    Phase.CHECK,
    _DIGITS,
    _MARKER_REACH,
    cited_marker,
    kinds=PLAIN_KINDS,
)
MARKER = rule(
    "marker",
    _NUMBERS,
    Role.EXEMPTS,
    Phase.RESCUE,
    _DIGITS,
    _MARKER_REACH,
    marker,
    kinds=PLAIN_KINDS,
)
WORD_MARKER = rule(
    "word-marker", _BOTH, Role.EXEMPTS, Phase.RESCUE, _WORDS, _MARKER_REACH, word_marker
)
