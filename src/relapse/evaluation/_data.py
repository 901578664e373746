"""Reading annotated RAG answers (the RAGTruth sample's JSON Lines format), strictly."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from relapse.exceptions import RelapseError

__all__ = [
    "AnnotatedRecord",
    "DatasetError",
    "QuestionRecord",
    "load_annotated",
    "load_questions",
    "select_split",
]

#: Value of ``task_type`` for a record that has none.
NO_TASK_TYPE = "unspecified"


class DatasetError(RelapseError, ValueError):
    """
    A dataset line is not a record of the expected shape.

    The message starts with ``PATH:LINE:`` and names the field and what was
    expected, for example ``data.jsonl:7: hallucinated_spans[1]: end 512 is
    past the end of response (480 characters)``.

    Attributes:
        path: The file.
        line: The 1-based line number, or None for a problem with the whole
            file (no records, no record of the chosen split).
    """

    def __init__(self, path: Path, line: int | None, message: str) -> None:
        self.path = path
        self.line = line
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class QuestionRecord:
    """
    A question and its retrieved passages: what the loop evaluation needs.

    Attributes:
        line: The 1-based line of the record in its file.
        id: The record's ``id`` (``"line N"`` when it has none).
        question: The question, or None (RAGTruth's Summary and Data2txt
            tasks have none).
        passages: The retrieved passages, in order.
        task_type: ``task_type`` (``"QA"``, ``"Summary"``, ...), or
            ``"unspecified"``.
        split: ``split``, else ``meta.split``, else None.
    """

    line: int
    id: str
    question: str | None
    passages: tuple[str, ...]
    task_type: str
    split: str | None


@dataclass(frozen=True, kw_only=True)
class AnnotatedRecord(QuestionRecord):
    """
    A :class:`QuestionRecord` with a response and its annotated hallucinations.

    Attributes:
        response: The answer that was annotated.
        hallucinated: ``(start, end)`` character offsets into ``response``
            (end exclusive) of every annotated hallucinated span, in file
            order; empty when the annotators found none.
    """

    response: str
    hallucinated: tuple[tuple[int, int], ...]


R = TypeVar("R", bound=QuestionRecord)


def _read_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise DatasetError(path, None, f"not valid UTF-8 ({error.reason})") from error
    objects = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise DatasetError(path, number, f"invalid JSON: {error}") from error
        if not isinstance(value, dict):
            raise DatasetError(path, number, f"expected a JSON object, got {type(value).__name__}")
        objects.append((number, value))
    if not objects:
        raise DatasetError(path, None, "no records (the file is empty)")
    return objects


def _field(path: Path, number: int, value: dict[str, Any], name: str) -> Any:
    if name not in value:
        raise DatasetError(path, number, f'missing field "{name}"')
    return value[name]


def _question_fields(path: Path, number: int, value: dict[str, Any]) -> dict[str, Any]:
    question = _field(path, number, value, "question")
    if question is not None and not isinstance(question, str):
        raise DatasetError(
            path, number, f'"question" must be a string or null, got {type(question).__name__}'
        )
    passages = _field(path, number, value, "passages")
    if not isinstance(passages, list):
        raise DatasetError(
            path, number, f'"passages" must be a list of strings, got {type(passages).__name__}'
        )
    for index, passage in enumerate(passages):
        if not isinstance(passage, str):
            raise DatasetError(
                path,
                number,
                f"passages[{index}] must be a string, got {type(passage).__name__}",
            )
    record_id = value.get("id", f"line {number}")
    task_type = value.get("task_type", NO_TASK_TYPE)
    for name, item in (("id", record_id), ("task_type", task_type)):
        if not isinstance(item, (str, int)) or isinstance(item, bool):
            raise DatasetError(
                path, number, f'"{name}" must be a string, got {type(item).__name__}'
            )
    split = value.get("split")
    if split is None and isinstance(value.get("meta"), dict):
        split = value["meta"].get("split")
    if split is not None and not isinstance(split, str):
        raise DatasetError(path, number, f'"split" must be a string, got {type(split).__name__}')
    return {
        "line": number,
        "id": str(record_id),
        "question": question,
        "passages": tuple(passages),
        "task_type": str(task_type),
        "split": split,
    }


def _locate(
    path: Path, number: int, value: dict[str, Any], where: str, text: str, response: str
) -> tuple[int, int]:
    """
    The offsets of a span given by its ``text`` alone: its first occurrence in ``response``.

    Raises:
        DatasetError: ``text`` is empty or not in ``response``; the message
            names the line, the record's id and the span.
    """
    if not text:
        raise DatasetError(
            path, number, f'{where}: text is empty; give a non-empty "text", or "start" and "end"'
        )
    start = response.find(text)
    if start < 0:
        record = value.get("id", f"line {number}")
        raise DatasetError(
            path,
            number,
            f"{where}: text {text[:60]!r} is not in the response of record {str(record)!r};"
            ' give "start" and "end", or the text exactly as the response writes it',
        )
    return start, start + len(text)


def _spans(path: Path, number: int, value: dict[str, Any], response: str) -> list[tuple[int, int]]:
    spans = _field(path, number, value, "hallucinated_spans")
    if not isinstance(spans, list):
        raise DatasetError(
            path, number, f'"hallucinated_spans" must be a list, got {type(spans).__name__}'
        )
    found = []
    for index, span in enumerate(spans):
        where = f"hallucinated_spans[{index}]"
        if not isinstance(span, dict):
            raise DatasetError(
                path, number, f"{where} must be an object, got {type(span).__name__}"
            )
        text = span.get("text")
        if text is not None and not isinstance(text, str):
            raise DatasetError(
                path, number, f"{where}: text must be a string, got {type(text).__name__}"
            )
        if "start" not in span and "end" not in span and text is not None:
            found.append(_locate(path, number, value, where, text, response))
            continue
        bounds = []
        for name in ("start", "end"):
            if name not in span:
                raise DatasetError(
                    path,
                    number,
                    f'{where}: missing field "{name}"'
                    ' (a span needs "start" and "end", or its "text" alone)',
                )
            offset = span[name]
            if not isinstance(offset, int) or isinstance(offset, bool):
                raise DatasetError(
                    path,
                    number,
                    f"{where}: {name} must be an integer, got {type(offset).__name__}",
                )
            bounds.append(offset)
        start, end = bounds
        if not 0 <= start < end:
            raise DatasetError(
                path, number, f"{where}: expected 0 <= start < end, got start {start}, end {end}"
            )
        if end > len(response):
            raise DatasetError(
                path,
                number,
                f"{where}: end {end} is past the end of response ({len(response)} characters)",
            )
        if text is not None and text != response[start:end]:
            raise DatasetError(
                path,
                number,
                f"{where}: text {text[:60]!r} is not response[{start}:{end}]"
                f" ({response[start:end][:60]!r})",
            )
        found.append((start, end))
    return found


def load_questions(path: Path) -> list[QuestionRecord]:
    """
    Read questions and passages from a JSON Lines file.

    Each non-blank line is one JSON object with ``"question"`` (a string, or
    null) and ``"passages"`` (a list of strings); ``"id"``, ``"task_type"``
    and ``"split"`` (or ``"meta": {"split": ...}``) are optional. Other fields
    are ignored. The RAGTruth sample and ``relapse/data/dev.jsonl`` are both
    in this format.

    Args:
        path: The file, read as UTF-8.

    Returns:
        One record per non-blank line, in file order.

    Raises:
        DatasetError: invalid UTF-8 or JSON, a missing field or a field of the
            wrong type; the message names the line.
        OSError: the file cannot be read.
    """
    return [QuestionRecord(**_question_fields(path, n, v)) for n, v in _read_lines(path)]


def load_annotated(path: Path) -> list[AnnotatedRecord]:
    """
    Read annotated answers in the RAGTruth sample's format.

    Besides :func:`load_questions`' fields, each record needs ``"response"``
    (a string) and ``"hallucinated_spans"``: a list of objects with integer
    ``"start"`` and ``"end"`` character offsets into the response (end
    exclusive, ``0 <= start < end <= len(response)``). When a span also has
    ``"text"``, it must equal ``response[start:end]``. A span given by its
    ``"text"`` alone (neither offset) is the first occurrence of that text in
    the response; give the offsets to annotate a later occurrence.

    Args:
        path: The file, read as UTF-8.

    Returns:
        One record per non-blank line, in file order; nothing is skipped.

    Raises:
        DatasetError: the first bad line: invalid JSON, a missing field, a
            wrong type, offsets outside the response or not matching the
            span's text, or a span's text alone that the response does not
            contain. The message names the line and the field (and, for a
            text not found, the record's id).
        OSError: the file cannot be read.
    """
    records = []
    for number, value in _read_lines(path):
        fields = _question_fields(path, number, value)
        response = _field(path, number, value, "response")
        if not isinstance(response, str):
            raise DatasetError(
                path, number, f'"response" must be a string, got {type(response).__name__}'
            )
        spans = _spans(path, number, value, response)
        records.append(AnnotatedRecord(**fields, response=response, hallucinated=tuple(spans)))
    return records


def select_split(path: Path, records: Sequence[R], split: str) -> list[R]:
    """
    Keep the records of one split.

    Args:
        path: The file the records came from (for the error message).
        records: Records from :func:`load_questions` or :func:`load_annotated`.
        split: ``"all"`` keeps every record; any other name keeps the records
            whose ``split`` (or ``meta.split``) equals it.

    Returns:
        The selected records, in order.

    Raises:
        DatasetError: a record has no split field, or no record is of
            ``split``; the message lists the splits present.
    """
    if split == "all":
        return list(records)
    for record in records:
        if record.split is None:
            raise DatasetError(
                path,
                record.line,
                f'--split {split} needs a "split" (or "meta": {{"split": ...}}) field'
                " in every record",
            )
    kept = [record for record in records if record.split == split]
    if not kept:
        present = Counter(record.split for record in records)
        listed = ", ".join(f"{name} ({count})" for name, count in sorted(present.items()))
        raise DatasetError(path, None, f"no record of split {split!r}; splits present: {listed}")
    return kept
