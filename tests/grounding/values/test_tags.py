"""
Every tag of the default check's values is listed in one place (issue 40).

``relapse.grounding._values.tags`` lists the tags of value keys, of
bindings and of claim marks, and the kinds of claim. A reader that made a
key or a mark with a tag not listed there would compare by a name no rule
knows; these tests read every key the readers and the indexes make from the
RAGTruth sample and from generated texts.
"""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grounding_texts import DENSE_TEXT, TEXT
from property_budget import examples
from relapse.grounding._index.text_index import TextIndex
from relapse.grounding._read.quantity import Binding, Quantity, kind_of
from relapse.grounding._read.scan import scan
from relapse.grounding._read.word_claims import word_claims
from relapse.grounding._values import tags
from relapse.grounding._values.units import binding_of

SAMPLE = (
    Path(__file__).resolve().parents[3]
    / ".."
    / "shared"
    / "data"
    / "ragtruth-sample"
    / "ragtruth_sample.jsonl"
)


def test_the_key_tags_are_the_literal_s() -> None:
    assert set(typing.get_args(tags.KeyTag)) == set(tags.KEY_TAGS)


def test_the_tags_are_distinct() -> None:
    assert len(set(tags.KEY_TAGS)) == len(tags.KEY_TAGS) == 15
    assert not set(tags.BINDING_TAGS) & set(tags.KEY_TAGS)
    assert tags.AMBIGUOUS not in tags.BINDING_TAGS
    assert set(tags.CLAIM_MARKS) == {"", "%", "$", "/", "#ordinal"}


def _keys_of(text: str) -> set[str]:
    """The tags of every key a claim of ``text`` needs or provides, digits and words."""
    found: set[str] = set()
    for claim in [*scan(text), *word_claims(text)]:
        assert claim.unit in tags.CLAIM_MARKS
        for alternative in (*claim.needs, claim.provides, claim.parts):
            found |= {str(key[0]) for key in alternative}
        if claim.key is not None:
            found.add(str(claim.key[0]))
    return found


def test_every_key_of_the_ragtruth_sample_has_a_listed_tag() -> None:
    if not SAMPLE.exists():
        pytest.skip(f"the RAGTruth sample is not at {SAMPLE}")
    found: set[str] = set()
    with SAMPLE.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            for text in (record["response"], *record["passages"]):
                found |= _keys_of(text)
            index = TextIndex(list(record["passages"]))
            found |= {str(key[0]) for key in index.keys}
    assert found <= tags.KEY_TAGS.keys()
    # The sample exercises most of them.
    assert {"n", "s", "t", "d", "tod", "r"} <= found


@settings(max_examples=examples(200), deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.one_of(TEXT, DENSE_TEXT))
def test_every_key_of_a_generated_text_has_a_listed_tag(text: str) -> None:
    assert _keys_of(text) <= tags.KEY_TAGS.keys()


@pytest.mark.parametrize(
    ("answer", "binding"),
    [
        ("It is 30 km long.", Binding("km", False)),
        ("It took 30m.", Binding("m", True)),
        ("See page 30 of it.", Binding(tags.REFERENCE, False)),
        ("There were 30 people.", Binding(tags.PEOPLE, False)),
        ("It grew sevenfold.", Binding(tags.MULTIPLIER, False)),
        ("It cost $30.", Binding("$", False)),
        ("It was 30 then.", None),
    ],
)
def test_a_quantity_s_binding_is_typed(answer: str, binding: Binding | None) -> None:
    (claim,) = [*scan(answer), *word_claims(answer)][:1]
    value = Quantity(answer, claim, kind_of(claim))
    assert binding == value.binding
    written = binding_of(answer, claim.start, claim.end, plurals=False)
    assert written == (
        None if binding is None else (tags.AMBIGUOUS if binding.ambiguous else "") + binding.name
    )


@pytest.mark.parametrize(
    ("answer", "hedge"),
    [
        ("About 45 came.", "about"),
        ("At least 200 came.", "above"),
        ("Up to 30 came.", "below"),
        ("Then 30 came.", None),
    ],
)
def test_a_quantity_reads_its_hedge_once(answer: str, hedge: str | None) -> None:
    (claim,) = scan(answer)
    value = Quantity(answer, claim, kind_of(claim))
    assert hedge == value.hedge
    # Read once: the reading is kept, not made again.
    assert value.hedge is value.hedge


def test_a_signed_quantity_is_bound_from_its_digits() -> None:
    answer = "It fell to −$30 that day."
    (claim,) = scan(answer)
    value = Quantity(answer, claim, kind_of(claim))
    assert "-n" == claim.key[0] if claim.key else False
    assert answer.index("$") == value.unsigned_start
    assert Binding("$", False) == value.binding
