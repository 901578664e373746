"""The finding codes of the default check and the messages its findings carry."""

from __future__ import annotations

FG001 = "FG001"
FG002 = "FG002"
FG003 = "FG003"
FG004 = "FG004"
FG005 = "FG005"
#: Every finding code the check can report.
ALL_CODES = frozenset({FG001, FG002, FG003, FG004, FG005})
#: The codes reported unless ``codes=`` says otherwise: FG005 (names) is
#: opt-in, since it raises too many false alarms to be on by default (see
#: ``docs/findings.md``).
DEFAULT_CODES = frozenset({FG001, FG002, FG003, FG004})

#: Message templates, filled with ``count`` and ``spans``.
MESSAGES = {
    FG001: "{count} number(s) not in the retrieved chunks: {spans}",
    FG002: "{count} date(s) not in the retrieved chunks: {spans}",
    FG003: "{count} quotation(s) not found verbatim in the retrieved chunks: {spans}",
    FG005: "{count} name(s) not in the retrieved chunks or the question: {spans}",
    FG004: "the answer repeats the grounding check's retry instructions instead of answering:"
    " {spans}",
}
#: Message templates of failing spans a rule failed for another reason than
#: that no chunk holds them, by the rule's name (``relapse.grounding.rules``),
#: filled with ``count`` and ``spans``. A finding's message gives each reason
#: its part, after the code's own message for the spans no chunk holds.
REASON_MESSAGES = {
    "units-agree": "{count} number(s) the retrieved chunks state with another unit or bound"
    " to something else: {spans}",
    "subject": "{count} number(s) the retrieved chunks state only of another subject: {spans}",
    "ordinal-slot": "{count} ordinal(s) the retrieved chunks rank otherwise: {spans}",
}
#: Added to every message when the answer holds more failing spans than a
#: check reports (see ``MAX_FAILING_SPANS`` in ``._check``).
STOPPED_MESSAGE = (
    " (the check stopped after the answer's first {limit:,} failing spans,"
    " at character {cut:,} of {length:,})"
)
#: The message of an empty answer's FG004 finding.
EMPTY_MESSAGE = "the answer is empty: it answers nothing"
#: The message of the FG004 finding of an answer that only copies the
#: retrieved chunks or the question back (filled with ``spans``).
COPY_MESSAGE = (
    "the answer copies the retrieved chunks or the question back instead of answering: {spans}"
)
