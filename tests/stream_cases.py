"""
The answers the stream tests share: chunks, a sentence that passes, one that fails, a tail.

The answers are written so that the default check's hold-back is known: a
sentence without a number is judged once the next one begins, and a number
is judged once 144 characters (``LOOK_AHEAD``) follow it, so the rejected
sentence is rejected while the stream still has more to say.
"""

from __future__ import annotations

DOCS = [
    "The Golden Gate Bridge opened to traffic in May 1937. Its main span is 1280 metres long."
    " The bridge was painted international orange."
]
#: A first sentence with no claim in it: judged once the next sentence begins.
FIRST = (
    "The Golden Gate Bridge is a suspension bridge over the strait at the entrance of the"
    " bay, and people walk across it every day of the year. "
)
#: A sentence whose number the chunks do not hold (FG001).
BAD = "It cost 35 million dollars to build. "
#: More than LOOK_AHEAD characters with no claim: the number above is judged within it.
TAIL = (
    "Visitors like to take pictures of it from the hills on the northern side, where the"
    " view of the whole city and of the water below is the finest of all, and many of them"
    " come back again and again over the years. "
)
#: Never generated when the stream is stopped at BAD.
REST = "Its main span is 1280 metres long."
GOOD = "It opened to traffic in May 1937. " + TAIL + REST


def words(text: str) -> list[str]:
    """``text`` as a stream would carry it: one piece per word, its space attached."""
    parts = text.split(" ")
    return [part + " " for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
