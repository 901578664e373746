"""Units and bindings: a supported number's unit, and what it counts, agree with the chunks'."""

from __future__ import annotations

from relapse.grounding._codes import FG001
from relapse.grounding._index.unit_lookup import AGREE, CONFLICT, FOREIGN, UNRELATED
from relapse.grounding._read.context import CONTEXT_BEFORE
from relapse.grounding._read.quantity import VALUED_KINDS, Binding, Quantity
from relapse.grounding._values.keys import key_value
from relapse.grounding._values.tags import PERCENT_MARK, REFERENCE
from relapse.grounding._values.units import UNIT_WINDOW
from relapse.grounding.rules._lookup import Lookup
from relapse.grounding.rules._rule import Phase, Reads, Role, Support, rule
from relapse.grounding.rules.ratios import ratio


def units_agree(lookup: Lookup, value: Quantity, verdict: Support | None) -> Support | None:
    """
    A supported number fails when the chunks write it with another unit, or bound to something else.

    Accepts:
        Nothing: it vetoes a supported number. ``104 °C`` is not supported by
        ``104 °F``: when the answer and the texts both give the number a unit
        of one dimension (temperature, length, money...), some occurrence
        must give the same unit, or none. A number bound to what it counts
        fails when every occurrence of it in the chunks is bound to something
        plainly else (``page 30``, ``May 30``, ``30 people`` or ``30 kg`` for
        ``30 minutes``), unless a chunk spells it out (``thirty minutes``),
        the question states it bound to the same or to nothing, or (a
        percent) a chunk states it as a ratio (``a share of 0.45``).

    Why:
        The digits are the chunk's, the quantity is not. A number the texts
        do not write in digits is not compared; an answer's number bound by
        an ambiguous spelling (``30m``) or to nothing the check reads is
        never judged foreign: when in doubt, pass.

        Units are compared within a dimension: temperature (°C, °F, kelvin, ``K`` after a space),
        length (nm to miles, inches, feet, yards), area (m², km², ft², mi², acres, hectares), volume
        (ml to m³, gallons, quarts, pints, cups, tablespoons, teaspoons, fluid ounces), mass (µg to
        tonnes, pounds, ounces, stone), time (milliseconds to years), speed (km/h, mph, m/s, knots),
        flow (m³/s, cfs), percent, money and concentration (``ng/mL``, ``mmol/L``). Spellings of a
        unit share one name (``km``, ``kilometres``, ``kilometers``; ``°C``, ``degrees Celsius``;
        ``$``, ``dollars``, ``USD``). Currency symbols and words are units (``$``, ``€``, ``£``,
        ``¥``, ``₹`` and the others before a number; the codes ``USD``, ``GBP``, ``EUR``, ``JPY``,
        ``INR`` before or after it; ``Rs`` and ``Rs.`` before it; currencies named in words,
        ``yuan``, ``baht``, ``rand``, ``kronor``, ``francs``, ``rubles``, ``reais``, ``zloty``...).
        Cents (``¢``, ``85c`` glued, ``euro cents``, German ``Cent``), pence (``50p``) and paise are
        units of their own: ``50 cents`` is not ``$50`` (the minor-money rule finds ``$0.50``), and
        a cent of any currency is one unit. A capital ``F`` or ``C`` glued to the digits (``350F``)
        is the temperature scale, and so ambiguous: it agrees with ``350 °F`` and conflicts with
        ``350 °C``, and is never foreign to another kind. Degrees whose scale is not said (``350
        degrees``, ``350°``, ``deg``) are Celsius or Fahrenheit (or an angle): they agree with
        either, conflict with kelvin, and are foreign to a length or a percent. A unit written as a
        word is read in any case where a capital follows the number (``5 Miles``, ``99 CENTS``);
        abbreviations of one or two letters keep their case (``5 MM`` is no millimetre). A unit
        after a hyphen binds as one after a space (``a 30-minute drive``).

        Each occurrence of a number in a chunk (in digits, as the unit lookup reads it, sign and
        all) is bound to what the text around it says it counts, read in this order:

        1. its unit: a currency before it, or a unit right after it (``30 minutes``, ``30 kg``,
           ``$30``); a unit spelled with one letter or a short spelling that means something else
           too (``30m``: metres, minutes or million; ``1 h``, ``2 L``, ``300 K``, ``6'``, ``ha``,
           ``mi``, ``in.``, ``ms``, ``cc``) is ambiguous: it agrees and conflicts as its unit does
           but never binds the number elsewhere;
        2. people right after it (``30 people``, ``patients``, ``participants``, ``students``,
           ``employees``, ``children``, ``women``, ``residents``, ``members``, ``victims``,
           ``soldiers`` and a few more);
        3. a reference or a month right before it: ``page``, ``p.``, ``pp.``, ``chapter``,
           ``section``, ``figure``, ``table``, ``volume``, ``No.``, ``article``, ``paragraph``,
           ``line``, ``clause``, ``verse``, ``§``, ``#``; or a month's name or its abbreviation
           before it where a date ends after it (``May 30, 2020``, ``May 30.``; not ``In May 30 were
           arrested``); a number that is the day, the year, the hour or the minutes of a date or a
           time of day is bound the same way;
        4. in a chunk (and the question), a plural noun right after it, which it counts as it counts
           people (``30 cows``, ``3 decades``): a lower-case word of three letters or more ending in
           ``s``, but not in ``ss``, ``us`` or ``is`` (``glass``, ``bonus``, ``basis``), nor a few
           words of that shape that count nothing (``was``, ``has``, ``its``, ``always``...), nor a
           unit's abbreviation made plural (``30 kgs`` binds nothing); count nouns whose plural has
           no ``s`` (``head``, ``sheep``, ``cattle``, ``aircraft``, ``mice``...) count what they
           name;
        5. otherwise nothing.

        The answer's number is bound the same way, but for plural nouns (its unit or people; a
        trivial number bare of a unit is not bound): a plural after an answer's number would make
        every such number a lookup of the chunks, 7% of a check's time on RAGTruth passages, for the
        rare ``50 cows`` a chunk writes as ``50 litres``. A percent (``62%``, ``62 percent``, ``62
        pct``, ``62٪``) is bound to percent; a chunk's number before a scale word (the ``62`` of
        ``62 million``, ``62 mln``, ``62m users``) is bound to that scale, which is foreign to a
        percent and to people, and to nothing else; a multiplier (``4x``, ``4-fold``, ``fourfold``)
        is foreign to a percent, a unit, a reference and a scale word's mantissa, not to people (``7
        times`` also counts occasions). A number the answer binds fails when the chunks write it and
        every occurrence is bound to something plainly else: a reference, people for a unit (or a
        unit for people), or a unit of another dimension.

        When in doubt, pass: kinds that one reading may stand for are never foreign to each other
        (mass and money, ``pounds``; length, area and volume; speed with length and time; flow with
        volume and time; concentration with mass, volume and time; a percent and people); an
        occurrence not read in digits (a number in words, ``12 345`` grouped by a space) binds
        nothing, and a number with no occurrence in digits is not judged. Limits: counted nouns are
        not compared with each other (``30 engineers`` against ``30 nurses`` passes: synonyms,
        ``staff``, ``employees``, ``workers``, would make such a rule wrong on common text); only
        the word right after a number binds it (``30 new patients`` binds nothing); ``won`` and
        ``real`` bind nothing (English words: only ``KRW`` and ``reais`` do), nor ``peso`` (written
        with ``$`` too); a chunk's multiplier in words binds nothing, so its ``sevenfold`` still
        grounds an answer's ``7%``; a dotted date (``30.06.2020``) reads as the decimal 30.06 and
        binds nothing.

        A percent is never made foreign by people (``62 people`` grounds ``62%``: 62 of 100 people)
        nor by a bare number (a table's ``62``); only what binds other units binds it, so a chunk's
        ``62 points`` (a count) or ``62 new voters`` (nothing bound) still grounds ``62%``, while
        ``a 62-mph wind`` does not. A number bound elsewhere still grounds a percent it is the ratio
        of (``0.45`` beside ``45 minutes`` for ``45%``). A chunk's sign in words before a currency
        symbol (``minus $30``) is read, and so is a minus after it (``$-30``, ``$ −30``). An
        answer's ``$0%`` (a currency and a percent) stays ambiguous and is never judged foreign; a
        scale word binds its mantissa only right after it (``62 million``, ``62-million``; not ``62
        (million)``); letters glued to a number are read as the scanner reads them (``62m users``,
        ``3M users``, ``5k``, ``$3m``); and an answer's plural noun other than people is not read,
        so ``5k runners`` still grounds ``5 runners``.

    Examples:
        | answer | chunks | verdict |
        | --- | --- | --- |
        | `It is 2,737 km long.` | `It is 2,737 metres long.` | fails |
        | `It took 30 minutes.` | `Page 30: the tour.` | fails |
        | `104 °C` | `104 °F` | fails |
        | `104 °C (203 °F)` | `40 °C (104 °F)` | fails |
        | `50 cents` | `50 dollars` | fails |
        | `50p` | `£50` | fails |
        | `300 °C` | `300 K` | fails |
        | `85 cents` | `USD 85 ‖ US$85 ‖ 85 USD ‖ €50 ‖ GBP 75` | fails |
        | `50 euro cents` | `USD 85 ‖ US$85 ‖ 85 USD ‖ €50 ‖ GBP 75` | fails |
        | `50 Cent` | `USD 85 ‖ US$85 ‖ 85 USD ‖ €50 ‖ GBP 75` | fails |
        | `75p` | `USD 85 ‖ US$85 ‖ 85 USD ‖ €50 ‖ GBP 75` | fails |
        | `350 °C` | `350F` | fails |
        | `It takes 30 minutes.` | `See page 30 for details.` | fails |
        | `It takes 30 minutes.` | `On May 30, it rained.` | fails |
        | `It takes 30 minutes.` | `The dish serves 30 people.` | fails |
        | `It takes 30 minutes.` | `It weighs 30 kg.` | fails |
        | `They hired 30 people.` | `The trial lasted 30 days.` | fails |
        | `It takes 30 minutes.` | `The farm keeps 30 cows. ‖ It lasted 30 decades.` | fails |
        | `It costs 50 cents.` | `It costs 50 apples.` | fails |
        | `Turnout was 62%.` | `See page 62. ‖ The car reached 62 mph. ‖ It costs $62.` | fails |
        | `Turnout was 62%.` | `Turnout was 62 million voters.` | fails |
        | `The fee is 45 percent.` | `The fee is 45 kg.` | fails |
        | `It fell to −5 °F.` | `It fell to -5 °C.` | fails |
        | `62%` | `62 mln units ‖ 62 Million units ‖ 5 mln tonnes` | fails |
        | `5 million kg` | `62 mln units ‖ 62 Million units ‖ 5 mln tonnes` | fails |
        | `62 Percent` | `See page 62. ‖ 62 mph` | fails |
        | `62 PER CENT` | `See page 62. ‖ 62 mph` | fails |
        | `62 pct` | `See page 62. ‖ 62 mph` | fails |
        | `62٪` | `See page 62. ‖ 62 mph` | fails |
        | `30 minutes` | `30 June 2020 ‖ 2020-06-30 ‖ 30/06/2020 ‖ June 30th ‖ at 8:30 ‖ 8:30 am ‖
          in '30 ‖ the '30s` | fails |
        | `₹99` | `99 paise` | fails |
        | `Rs 99` | `99 paise` | fails |
        | `$99` | `99 CENTS` | fails |
        | `£50` | `50 Pence` | fails |
        | `5 km` | `5 Miles` | fails |
        | `a 30-minute drive` | `30 km` | fails |
        | `a 45-degree angle` | `45 K` | fails |
        | `350 K` | `350 degrees` | fails |
        | `$85` | `85c` | fails |
        | `85 dollars` | `85c` | fails |
        | `eighty-five dollars` | `85 cents` | fails |
        | `Prices rose sevenfold.` | `Prices rose 7 percent.` | fails |
        | `Prices rose 7x.` | `Prices rose 7 percent.` | fails |
        | `85 dollars` | `eighty-five cents` | passes |
    """
    return None if _units_agree(lookup, value) else False


def _units_agree(lookup: Lookup, value: Quantity) -> bool:
    """Tell whether a supported number's unit agrees with the chunks' writing of it."""
    claim = value.claim
    key = claim.key
    if key is None or claim.code != FG001 or claim.parts:
        return True
    # A signed number ("-5", "−$30", "minus 5") is bound as its digits
    # are (the quantity's bindings read from its unsigned start); the
    # lookup reads the chunks' signs as the scanner does.
    percent = claim.unit == PERCENT_MARK
    binding: Binding | None
    if percent:
        # The scanner's percent, its sign or word read after the digits;
        # one the binding does not read the same way ("$0%1") is judged
        # as before, never foreign.
        binding = value.percent_binding
    elif lookup.trivial(value):
        # "2 people": a trivial number bare of a unit claims little.
        unit = value.unit
        binding = None if unit is None else Binding(unit, False)
    else:
        binding = value.binding
    if binding is None or binding.name == REFERENCE:
        return True
    unit = binding.name
    question = lookup.question
    verdicts = [lookup.chunks.units.verdict(key, unit)]
    if verdicts[0] == AGREE:
        return True
    verdicts.append(question.units.verdict(key, unit) if question is not None else UNRELATED)
    if verdicts[1] == AGREE:
        return True
    if CONFLICT in verdicts:
        return False
    if verdicts[0] != FOREIGN or binding.ambiguous:
        return True
    # Bound elsewhere in every chunk occurrence in digits: still supported
    # when a chunk spells it out, or the question states it unbound by
    # anything the lookup reads (in words, say).
    number = key_value(key)
    return (
        (number is not None and lookup.chunks.words.has(number))
        or (question is not None and verdicts[1] == UNRELATED and key in question.keys)
        # "45%" of a chunk's "a share of 0.45", beside its "45 minutes".
        or (percent and ratio(lookup, key, PERCENT_MARK))
    )


#: The units' rule.
UNITS_AGREE = rule(
    "units-agree",
    frozenset({FG001}),
    Role.VETOES,
    Phase.CHECK,
    frozenset({Reads.DIGITS, Reads.WORDS}),
    (CONTEXT_BEFORE, UNIT_WINDOW),
    units_agree,
    kinds=VALUED_KINDS,
)
