"""The finding codes of the default check and the messages its findings carry."""

from __future__ import annotations

FG001 = "FG001"
FG002 = "FG002"
FG003 = "FG003"
FG004 = "FG004"
#: Every finding code the check can report.
ALL_CODES = frozenset({FG001, FG002, FG003, FG004})
#: The codes reported unless ``codes=`` says otherwise.
DEFAULT_CODES = ALL_CODES

#: Message templates, filled with ``count`` and ``spans``.
MESSAGES = {
    FG001: "{count} number(s) not in the retrieved chunks: {spans}",
    FG002: "{count} date(s) not in the retrieved chunks: {spans}",
    FG003: "{count} quotation(s) not found verbatim in the retrieved chunks: {spans}",
    FG004: "the answer repeats the grounding check's retry instructions instead of answering:"
    " {spans}",
}
#: The message of an empty answer's FG004 finding.
EMPTY_MESSAGE = "the answer is empty: it answers nothing"
