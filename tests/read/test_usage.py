"""``relapse.Usage`` and the default ``usage_of``: tokens of each response shape."""

from __future__ import annotations

from typing import Any

import pytest

from relapse import Usage, default_usage_of
from relapse._results import total_usage
from sdk_shapes import (
    AIMessage,
    AnthropicUsage,
    Completion,
    CompletionChoice,
    CompletionUsage,
    LlamaResponse,
    Message,
    TextBlock,
    chat_completion,
    responses_response,
)


class TestUsage:
    def test_total_is_input_plus_output(self) -> None:
        """``total_tokens`` is the sum of the two counts."""
        assert 57 == Usage(input_tokens=45, output_tokens=12).total_tokens

    def test_addition_sums_each_field(self) -> None:
        """``a + b`` adds input to input and output to output."""
        assert Usage(130, 21) == Usage(100, 20) + Usage(30, 1)

    def test_sum_starts_from_zero(self) -> None:
        """``sum()`` of usages works (it starts from the int 0)."""
        assert Usage(6, 15) == sum([Usage(1, 5), Usage(2, 5), Usage(3, 5)])

    def test_adding_something_else_is_a_type_error(self) -> None:
        """Only usages and the 0 of ``sum()`` add up with a usage."""
        with pytest.raises(TypeError):
            Usage(1, 1) + 5  # type: ignore[operator]
        with pytest.raises(TypeError):
            3 + Usage(1, 1)  # type: ignore[operator]

    @pytest.mark.parametrize(
        ("fields", "error", "message"),
        [
            ({"input_tokens": -1}, ValueError, r"^Usage\.input_tokens must be >= 0, got -1$"),
            ({"output_tokens": 2.5}, TypeError, r"^Usage\.output_tokens must be an int, got float"),
            ({"input_tokens": True}, TypeError, r"^Usage\.input_tokens must be an int, got bool"),
        ],
    )
    def test_refuses_bad_counts(
        self, fields: dict[str, Any], error: type[Exception], message: str
    ) -> None:
        """Counts are non-negative ints; the message names the field."""
        with pytest.raises(error, match=message):
            Usage(**fields)


class TestDefaultUsageOf:
    @pytest.mark.parametrize(
        ("result", "expected"),
        [
            (chat_completion("a", prompt=45, completion=12), Usage(45, 12)),
            (
                Completion([CompletionChoice("a")], CompletionUsage(30, 7, 37)),
                Usage(30, 7),
            ),
            (responses_response("a", given=80, made=9), Usage(80, 9)),
            (Message([TextBlock("a")], AnthropicUsage(25, 14)), Usage(25, 14)),
            (
                AIMessage("a", {"input_tokens": 11, "output_tokens": 3, "total_tokens": 14}),
                Usage(11, 3),
            ),
            (
                {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2}},
                Usage(5, 2),
            ),
            ({"answer": chat_completion("a", prompt=9, completion=4)}, Usage(9, 4)),
        ],
        ids=[
            "openai-chat",
            "openai-completions",
            "openai-responses",
            "anthropic",
            "langchain-usage-metadata",
            "openai-json",
            "response-under-answer-key",
        ],
    )
    def test_reads_the_tokens_of(self, result: object, expected: Usage) -> None:
        """Each provider's names for the two counts are read."""
        assert expected == default_usage_of(result)

    def test_anthropic_cache_tokens_count_as_input(self) -> None:
        """Anthropic's cache writes and reads are input tokens too (its total is their sum)."""
        usage = AnthropicUsage(10, 5, cache_creation_input_tokens=200, cache_read_input_tokens=300)
        assert Usage(510, 5) == default_usage_of(Message([TextBlock("a")], usage))

    @pytest.mark.parametrize(
        "result",
        [
            "a plain string",
            chat_completion("no usage"),
            LlamaResponse("a"),
            {"answer": "a", "sources": []},
            {"usage": {"prompt_tokens": "many"}},
            None,
        ],
        ids=["str", "no-usage", "llamaindex", "dict", "not-counts", "none"],
    )
    def test_none_when_nothing_is_reported(self, result: object) -> None:
        """No usage reported is None, never a made-up zero and never an error."""
        assert default_usage_of(result) is None


def test_total_usage_sums_what_was_reported() -> None:
    """The sum skips attempts that reported nothing; None when none reported."""
    assert Usage(3, 7) == total_usage([Usage(1, 3), None, Usage(2, 4)])
    assert total_usage([None, None]) is None
    assert total_usage([]) is None
