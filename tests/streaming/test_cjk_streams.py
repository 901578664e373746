"""
A Chinese answer streamed with ``release="sentence"`` (issue 38, hostile test).

``。`` ended no sentence, so a Chinese answer was one sentence: nothing was
released before the stream's end, and one bad number withheld all of it.
Sentences now end at ``。`` with no space after, the stream releases them as
they pass, and a retry continues after them with no space put in between.
"""

from __future__ import annotations

from collections.abc import Iterator

import relapse

DOCS = ["北京有2154万人口。上海有2487万人口。长城长21196公里。"]
GOOD = "北京有2154万人口。"
BAD = "上海有3000万人口。"
#: More than LOOK_AHEAD (144) characters after the bad number: it is judged within them.
TAIL = "这是一个很长的句子，说的是城市里的公园和河流，" * 8 + "。"
RETRY = "上海有2487万人口。"


class TestChineseSentences:
    def test_sentences_are_released_as_they_pass_and_the_retry_follows(self) -> None:
        """The first sentence reaches the caller before the stream ends; the retry follows it."""
        answers = [GOOD + BAD + TAIL, RETRY]
        made: list[str] = []
        seen_when_made: list[str] = []

        @relapse.grounded(chunks_arg="docs", release="sentence", max_iterations=2)
        def answer(query: str, docs: list[str]) -> Iterator[str]:
            # One character a piece, as tokenizers give "。" a token of its own.
            for char in answers.pop(0):
                made.append(char)
                yield char

        read: list[str] = []
        with answer("人口是多少？", DOCS) as stream:
            for piece in stream:
                read.append(piece)
                seen_when_made.append("".join(made))
        # GOOD (11 characters) was released while attempt 1 was still streaming.
        assert "".join(read).startswith(GOOD)
        assert len(seen_when_made[0]) < len(GOOD + BAD + TAIL)
        # No space between the released sentence and the retry's.
        assert GOOD + RETRY == "".join(read)
        result = stream.result
        assert ("recovered", GOOD + RETRY) == (result.outcome, result.answer)
        assert [GOOD, RETRY] == [record.released for record in result.transcript]
