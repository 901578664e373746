"""
An LLM call for any OpenAI-compatible endpoint: OpenAI, vLLM, Ollama, llama.cpp.

:class:`OpenAICompatible` and :class:`AsyncOpenAICompatible` wrap the official
``openai`` SDK (optional extra ``openai``) into the two shapes relapse uses:

* ``llm(prompt) -> str`` (``await llm(prompt)`` for the async one), the
  ``call_llm`` of :func:`relapse.run` / :func:`relapse.arun`: the answer
  text, an :class:`Answer` (a ``str``) that also carries the SDK's response
  and its ``usage``, so ``result.usage`` counts every request;
* ``llm.create(prompt)``, the SDK's own response object (``ChatCompletion``
  or ``Completion``) with its ``usage``, for a decorated function that wants
  the whole response.

``api="chat"`` sends the prompt as one user message to
``/chat/completions``; ``api="completions"`` sends it as is to
``/completions``, which is what a base (non-chat) model needs::

    from relapse.llms.openai import OpenAICompatible

    llm = OpenAICompatible(base_url="http://127.0.0.1:8000/v1", model="gemma",
                           api="completions", sampling=Sampling(temperature=0.0))
    result = relapse.run(question, chunks, call_llm=llm)

``stream=True`` sends every request streaming and returns the SDK's
``Stream`` (``AsyncStream``) from both ``llm(prompt)`` and ``llm.create``: a
grounded function returning it streams with ``release="sentence"``::

    llm = OpenAICompatible(model="gpt-4o-mini", stream=True)

    @relapse.grounded(chunks_arg="docs", release="sentence")
    def answer(query: str, docs: list[str]):
        return llm(relapse.prompts.context_prompt(query, docs))

``on_retry=resample(0.7)`` samples the retries of a grounded call (read
through :func:`relapse.current_attempt`) instead of sending the rejected
prompt's greedy settings again.

Exceptions the SDK raises (``openai.APIConnectionError``, ``openai.APIStatusError``
...) are never caught or wrapped here: inside relapse's loop they propagate
unchanged with the transcript attached. A reply with no answer to read (no
choices, a choice without a message) is a
:class:`relapse.exceptions.MalformedResponseError`, which keeps the paid
response, and its usage, on the transcript.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Literal

from relapse._read.answers import default_answer_of
from relapse._read.shapes import member
from relapse._read.usage import default_usage_of
from relapse._results import Usage
from relapse._state import Attempt, current_attempt
from relapse.exceptions import MalformedResponseError

if TYPE_CHECKING:
    import openai

__all__ = [
    "INSTALL_COMMAND",
    "Answer",
    "Api",
    "AsyncOpenAICompatible",
    "OnRetry",
    "OpenAICompatible",
    "Sampling",
    "resample",
    "text_of",
]

#: The command that installs the ``openai`` SDK this module needs.
INSTALL_COMMAND = "pip install 'relapse[openai]'"

#: Which OpenAI endpoint to call: ``/chat/completions`` or ``/completions``.
Api = Literal["chat", "completions"]
_APIS: tuple[str, ...] = ("chat", "completions")

# Servers that do not check keys (llama.cpp, vLLM, Ollama) still need the SDK
# to send one; the SDK refuses to start without any.
_NO_KEY = "no-key"


@dataclass(frozen=True)
class Sampling:
    """
    Sampling options sent with every request; None leaves the server's default.

    Attributes:
        temperature: Sampling temperature, 0 for greedy decoding.
        top_p: Nucleus-sampling probability mass.
        max_tokens: Upper bound on the answer's length, in tokens.
        seed: Sampling seed, for servers that honour it.
        stop: Strings that end the answer.
    """

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("temperature", "top_p"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                raise TypeError(f"{name} must be a number or None, got {type(value).__name__}")
        for name in ("max_tokens", "seed"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"{name} must be an int or None, got {type(value).__name__}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if self.stop is not None and (
            isinstance(self.stop, str) or not all(isinstance(s, str) for s in self.stop)
        ):
            raise TypeError("stop must be a tuple of str or None")

    def options(self) -> dict[str, Any]:
        """The set options as SDK keyword arguments (``stop`` as a list)."""
        chosen: dict[str, Any] = {}
        for field in fields(self):
            value = getattr(self, field.name)
            if value is not None:
                chosen[field.name] = list(value) if field.name == "stop" else value
        return chosen

    def but(self, **changes: Any) -> Sampling:
        """A copy with ``changes`` applied (validated like the constructor)."""
        return replace(self, **changes)


#: ``on_retry(attempt, sampling) -> sampling``: the options of a retry (iteration 2+).
OnRetry = Callable[[Attempt, Sampling], Sampling]


def resample(temperature: float = 0.7, seed_step: int = 1) -> OnRetry:
    """
    An ``on_retry`` that samples retries instead of repeating the rejected answer.

    At temperature 0 a model answers a retry query much like the first query,
    often byte for byte; a retry then pays for the same rejected answer. From
    iteration 2 on this policy sends ``temperature`` and a seed that moves by
    ``seed_step`` per iteration (``seed + seed_step * (iteration - 1)``, from
    the configured seed or 0), so each retry is a different, reproducible draw.
    The same rule as :class:`relapse.llms.local.LocalModel`'s ``retry_temperature``.

    Args:
        temperature: The retries' temperature, >= 0.
        seed_step: How far the seed moves per iteration.

    Returns:
        ``on_retry(attempt, sampling) -> sampling``.

    Raises:
        ValueError: ``temperature`` is negative.
    """
    if not temperature >= 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")

    def on_retry(attempt: Attempt, sampling: Sampling) -> Sampling:
        seed = (sampling.seed or 0) + seed_step * (attempt.iteration - 1)
        return sampling.but(temperature=temperature, seed=seed)

    return on_retry


def _import_openai() -> Any:
    try:
        import openai
    except ImportError as error:
        raise ImportError(
            f"relapse.llms.openai needs the openai package; run: {INSTALL_COMMAND}"
        ) from error
    return openai


@dataclass(frozen=True)
class _Request:
    """What both clients validate once and send on every call."""

    model: str
    api: Api
    sampling: Sampling
    system: str | None
    on_retry: OnRetry | None
    stream: bool = False

    @classmethod
    def of(
        cls,
        model: object,
        api: object,
        sampling: object,
        system: object,
        on_retry: object,
        stream: object = False,
    ) -> _Request:
        if not isinstance(model, str) or not model:
            raise TypeError(f"model must be a non-empty str, got {model!r}")
        if api not in _APIS:
            raise ValueError(f"api must be 'chat' or 'completions', got {api!r}")
        if not isinstance(sampling, Sampling):
            raise TypeError(
                f"sampling must be relapse.llms.openai.Sampling, got {type(sampling).__name__}"
            )
        if system is not None and not isinstance(system, str):
            raise TypeError(f"system must be a str or None, got {type(system).__name__}")
        if on_retry is not None and not callable(on_retry):
            raise TypeError("on_retry must be callable(attempt, sampling) -> Sampling")
        if not isinstance(stream, bool):
            raise TypeError(f"stream must be a bool, got {type(stream).__name__}")
        return cls(model, api, sampling, system, on_retry, stream)  # type: ignore[arg-type]

    def current_sampling(self) -> Sampling:
        """The options of the request about to be sent: ``on_retry``'s on a retry."""
        attempt = current_attempt()
        if self.on_retry is None or attempt is None or attempt.iteration < 2:
            return self.sampling
        chosen = self.on_retry(attempt, self.sampling)
        if not isinstance(chosen, Sampling):
            raise TypeError(f"on_retry returned {type(chosen).__name__}; expected Sampling")
        return chosen

    def arguments(self, prompt: object) -> dict[str, Any]:
        """The keyword arguments of ``create()`` for ``prompt``."""
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be str, got {type(prompt).__name__}")
        arguments = {"model": self.model, **self.current_sampling().options()}
        if self.api == "completions":
            prompt_text = prompt if self.system is None else f"{self.system}\n\n{prompt}"
            arguments["prompt"] = prompt_text
        else:
            messages: list[dict[str, str]] = []
            if self.system is not None:
                messages.append({"role": "system", "content": self.system})
            messages.append({"role": "user", "content": prompt})
            arguments["messages"] = messages
        if self.stream:
            # The last chunk then reports the stream's usage (a stream
            # stopped at a failing sentence never reaches it).
            arguments["stream"] = True
            arguments["stream_options"] = {"include_usage": True}
        return arguments


class Answer(str):
    """
    The answer text of one request, as ``llm(prompt)`` returns it.

    It is a ``str`` (the stripped text; string methods return plain ``str``)
    that also carries the request's response: relapse reads its ``usage`` by
    duck typing, like any response's, so ``relapse.run(call_llm=llm)``
    reports the tokens of every request in ``result.usage`` and on the spans.
    Built as ``Answer(text, response)``.

    Attributes:
        response: ``openai.types.chat.ChatCompletion`` or
            ``openai.types.Completion``, as received.
        usage: The tokens the response reports (:class:`relapse.Usage`), or
            None when it reports none.

    .. versionadded:: 0.2.0
    """

    response: Any
    usage: Usage | None

    def __new__(cls, text: str, response: Any = None) -> Answer:
        """
        Return the :class:`Answer` ``text`` read from ``response``, its usage read once.

        Args:
            text: The answer text.
            response: The SDK's response it was read from.
        """
        answer = super().__new__(cls, text)
        answer.response = response
        answer.usage = default_usage_of(response)
        return answer


def _choices_checked(response: Any) -> None:
    """
    Refuse a response with no choice to read an answer from.

    Raises:
        MalformedResponseError: ``choices`` is missing, empty or not a list,
            or its first item has neither a ``message`` nor a ``text``.
    """
    name = type(response).__name__
    choices = member(response, "choices")
    if isinstance(choices, (str, bytes, bytearray)) or (
        choices is not None and not isinstance(choices, Sequence)
    ):
        raise MalformedResponseError(
            f"the {name}'s choices is {type(choices).__name__}, expected a list of choices",
            response,
        )
    if not choices:
        raise MalformedResponseError(f"the {name} has no choices", response)
    first = choices[0]
    if member(first, "message") is None and member(first, "text") is None:
        raise MalformedResponseError(
            f"the {name}'s choices[0] has neither a message nor a text", response
        )


def text_of(response: Any) -> str:
    """
    The answer text of a ``ChatCompletion`` or ``Completion``, stripped.

    Read by :func:`relapse.default_answer_of`, so every shape it reads is read
    here: a message content of text parts (``[{"type": "text", "text": ...}]``,
    as some OpenAI-compatible servers send), a refusal (its text), the JSON
    form. A chat message with no text at all (no content and no refusal, a
    tool call only) reads as ``""``, which the loop then judges like any
    other answer.

    Raises:
        MalformedResponseError: (a ``ValueError``) the response has no
            choices, ``choices`` is not a list, or its first choice has
            neither a ``message`` nor a ``text``; the message names what is
            missing and the error carries the response.
    """
    _choices_checked(response)
    try:
        text = default_answer_of(response)
    except TypeError:
        # A choice default_answer_of finds no text in: a tool call, no content.
        return ""
    return text.strip()


def _client_options(base_url: str | None, api_key: str | None, **extra: Any) -> dict[str, Any]:
    if base_url is not None and not isinstance(base_url, str):
        raise TypeError(f"base_url must be a str or None, got {type(base_url).__name__}")
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", _NO_KEY)
    options = {"base_url": base_url, "api_key": key}
    options.update({name: value for name, value in extra.items() if value is not None})
    return options


class _Endpoint:
    """What the sync and async clients share: the request options and the SDK client."""

    #: The name of the SDK's client class this endpoint builds.
    _sdk_client: str

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        api: Api = "chat",
        sampling: Sampling | None = None,
        system: str | None = None,
        on_retry: OnRetry | None = None,
        stream: bool = False,
        timeout: float | None = None,
        max_retries: int | None = None,
        client: Any = None,
    ) -> None:
        self._request = _Request.of(model, api, sampling or Sampling(), system, on_retry, stream)
        if client is not None:
            given = [
                name
                for name, value in (
                    ("base_url", base_url),
                    ("api_key", api_key),
                    ("timeout", timeout),
                    ("max_retries", max_retries),
                )
                if value is not None
            ]
            if given:
                # The client was built with its own; ignoring these would
                # send requests somewhere the caller did not ask for.
                named = ", ".join(f"{name}=" for name in given)
                raise TypeError(
                    f"{named} and client= conflict: a client has its own {', '.join(given)};"
                    " set them when building the client, or pass no client"
                )
        else:
            sdk = _import_openai()
            client = getattr(sdk, self._sdk_client)(
                **_client_options(base_url, api_key, timeout=timeout, max_retries=max_retries)
            )
        self.client = client

    @property
    def sampling(self) -> Sampling:
        """The sampling options sent with every request (``on_retry`` aside)."""
        return self._request.sampling


class OpenAICompatible(_Endpoint):
    """
    A synchronous LLM call to an OpenAI-compatible server.

    Args:
        model: The model name the server knows (``"gpt-4o-mini"``, a vLLM
            model id, a llama.cpp ``--model_alias``).
        base_url: The API root, for example ``"http://127.0.0.1:8000/v1"``;
            the SDK's default (``OPENAI_BASE_URL`` or OpenAI) when None.
        api_key: The key; ``OPENAI_API_KEY`` when None, else a placeholder
            (servers on your own machine usually ignore it).
        api: ``"chat"`` (``/chat/completions``, the prompt as one user
            message) or ``"completions"`` (``/completions``, for base models).
        sampling: Options sent with every request.
        system: A system message (chat) or a preamble line (completions).
        on_retry: ``on_retry(attempt, sampling) -> Sampling``, consulted on
            iterations 2+ of a grounded call (read through
            :func:`relapse.current_attempt`); :func:`resample` samples the
            retries. None sends ``sampling`` on every iteration.
        stream: Send every request with ``stream=True`` and
            ``stream_options={"include_usage": True}``: :meth:`create` and
            ``llm(prompt)`` return the SDK's ``Stream`` of chunks, which a
            grounded function returns as it is, so ``release="sentence"``
            hands its caller the chunks as their sentences pass and closes
            the HTTP response at the first failing sentence.
        timeout: Seconds per request; the SDK's default when None.
        max_retries: Transport-level retries of the SDK; its default when None.
        client: An ``openai.OpenAI`` to use instead of building one; it has
            its own ``base_url``, ``api_key``, ``timeout`` and ``max_retries``,
            so none of these may be given with it.

    Raises:
        ImportError: the ``openai`` package is missing (names the extra).
        TypeError: ``client`` with any of ``base_url``, ``api_key``,
            ``timeout``, ``max_retries`` (the message names them).
        TypeError, ValueError: a bad argument, named in the message.
    """

    _sdk_client = "OpenAI"
    client: openai.OpenAI

    def create(self, prompt: str, **overrides: Any) -> Any:
        """
        Send ``prompt`` and return the SDK's response object.

        Inside a grounded call's retry, the sampling options are ``on_retry``'s.

        Args:
            prompt: The whole prompt text.
            overrides: Extra or replacing keyword arguments of the SDK's
                ``create()`` for this request (``temperature=0.7``, ``seed=3``).

        Returns:
            ``openai.types.chat.ChatCompletion`` or ``openai.types.Completion``,
            with ``usage`` when the server reports it; with ``stream=True``,
            the SDK's ``Stream`` of their chunks, unread.

        Raises:
            TypeError: ``prompt`` is not a ``str``.
            openai.OpenAIError: whatever the SDK raises, unchanged.
        """
        arguments = self._request.arguments(prompt) | overrides
        if self._request.api == "completions":
            return self.client.completions.create(**arguments)
        return self.client.chat.completions.create(**arguments)

    def __call__(self, prompt: str) -> Any:
        """
        ``call_llm(prompt) -> answer``: :meth:`create`, then the answer text.

        Returns:
            The :class:`Answer`: the text (:func:`text_of`), a ``str``
            carrying the response and its usage. With ``stream=True``, the
            SDK's ``Stream``, unread (relapse reads its chunks).

        Raises:
            MalformedResponseError: the reply holds no choice to read (see
                :func:`text_of`); inside relapse's loop the response and its
                usage stay on the transcript.
            TypeError, openai.OpenAIError: as :meth:`create`.
        """
        response = self.create(prompt)
        if self._request.stream:
            return response
        return Answer(text_of(response), response)


class AsyncOpenAICompatible(_Endpoint):
    """
    :class:`OpenAICompatible` with ``openai.AsyncOpenAI``: ``await llm(prompt)``.

    Arguments and exceptions are those of :class:`OpenAICompatible`; ``client``
    is an ``openai.AsyncOpenAI``. Calls from concurrent tasks run concurrently
    (the SDK's connection pool); the server decides how many it serves at once.
    """

    _sdk_client = "AsyncOpenAI"
    client: openai.AsyncOpenAI

    async def create(self, prompt: str, **overrides: Any) -> Any:
        """The async :meth:`OpenAICompatible.create`."""
        arguments = self._request.arguments(prompt) | overrides
        if self._request.api == "completions":
            return await self.client.completions.create(**arguments)
        return await self.client.chat.completions.create(**arguments)

    async def __call__(self, prompt: str) -> Any:
        """
        ``call_llm(prompt) -> answer`` for :func:`relapse.arun`; see ``OpenAICompatible``'s.

        With ``stream=True``, the SDK's ``AsyncStream``, unread.
        """
        response = await self.create(prompt)
        if self._request.stream:
            return response
        return Answer(text_of(response), response)
