"""
The ``relapse`` command line.

* ``relapse demo [--limit N] [--max-iterations N] [--trace]``: the grounding
  loop on a real local model over bundled RAGTruth questions (needs
  ``pip install 'relapse[local]'``).
* ``relapse check --chunks FILE --answer TEXT [--query TEXT] [--json] [--explain]``: run
  the default grounding check on one answer; exit 0 when grounded, 1 when
  not; ``--json`` prints the result as one JSON object (docs/quickstart.md).
* ``relapse eval DATASET.jsonl [--check SPEC] [--json OUT] [--plot PNG]``:
  score a check against annotated answers (:mod:`relapse.evaluation`).
* ``relapse mcp [--transport stdio|http] [--port N]``: serve the
  ``check_answer`` and ``retry_note`` tools to MCP clients
  (:mod:`relapse.integrations.mcp`; needs ``pip install 'relapse[mcp]'``).
* ``relapse eval --loop DATASET.jsonl [--limit N] [--workers N]``: run the
  loop over the dataset's questions on the local model, or with ``--model
  openai --base-url URL --model-name NAME`` on an OpenAI-compatible server.

Exit status 2 means a usage problem: a bad or unreadable chunks file or
dataset (the message names the line), or a missing extra (the message names
the command that installs it).
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


def _trace_report(result: relapse.GroundingResult) -> list[dict[str, Any]]:
    """
    The trace of ``relapse check --explain --json``: one object per claim, in answer order.

    Each is ``{"code", "start", "end", "text", "reader", "rule", "outcome",
    "evidence"}``; ``evidence`` is None or ``{"chunk": int, "start": int,
    "end": int}`` (offsets in that chunk's text).
    """
    return [
        {
            "code": item.code,
            "start": item.answer_span[0],
            "end": item.answer_span[1],
            "text": item.text,
            "reader": item.reader,
            "rule": item.rule,
            "outcome": item.outcome,
            "evidence": None
            if item.evidence is None
            else {
                "chunk": item.evidence.chunk_index,
                "start": item.evidence.chunk_span[0],
                "end": item.evidence.chunk_span[1],
            },
        }
        for item in result.trace
    ]


def _trace_lines(result: relapse.GroundingResult) -> list[str]:
    """The trace of ``relapse check --explain``, one line per claim."""
    lines = [f"claims: {len(result.trace)}"]
    for item in result.trace:
        start, end = item.answer_span
        cited = ""
        if item.evidence is not None:
            low, high = item.evidence.chunk_span
            cited = f" (chunk {item.evidence.chunk_index} [{low}:{high}])"
        lines.append(
            f"  [{start}:{end}] {item.text!r} {item.code} read by {item.reader}:"
            f" {item.outcome} by {item.rule or 'no rule'}{cited}"
        )
    return lines


def _check_report(result: relapse.GroundingResult, chunk_count: int) -> dict[str, Any]:
    """
    The machine-readable result of ``relapse check --json``.

    Args:
        result: The check's verdict on the answer.
        chunk_count: How many chunks the answer was checked against.

    Returns:
        ``{"grounded": bool, "chunks": int, "findings": [...]}``, each finding
        ``{"code": str, "severity": "error" | "warning", "message": str,
        "spans": [{"text": str, "start": int | None, "end": int | None}]}``:
        the failing spans in answer order, with their character offsets into
        the answer (end exclusive), or ``None`` offsets when the check did
        not report them. Every value is JSON-serializable.
    """
    findings = []
    for finding in result.findings:
        # A check may report spans without offsets (the field is optional);
        # then the offsets are unknown, not zero.
        offsets: list[tuple[int | None, int | None]] = (
            list(finding.offsets)
            if len(finding.offsets) == len(finding.spans)
            else [(None, None)] * len(finding.spans)
        )
        findings.append(
            {
                "code": finding.code,
                "severity": finding.severity,
                "message": finding.message,
                "spans": [
                    {"text": text, "start": start, "end": end}
                    for text, (start, end) in zip(finding.spans, offsets, strict=True)
                ],
            }
        )
    return {"grounded": result.ok, "chunks": chunk_count, "findings": findings}


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
@click.option(
    "--stream",
    is_flag=True,
    help="Stream each answer, shown sentence by sentence as it passes (release='sentence').",
)
def demo(limit: int | None, max_iterations: int, trace: bool, stream: bool) -> None:
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

        run_demo(limit=limit, max_iterations=max_iterations, trace=trace, stream=stream)
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
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the result as one JSON object (grounded, chunks, findings) instead of text.",
)
@click.option(
    "--explain",
    is_flag=True,
    help="Also say, for each claim, the reader that read it, the rule that decided it, the"
    ' outcome and the chunk that supports it (a "trace" list with --json).',
)
def check(chunks_file: Path, answer: str, query: str, as_json: bool, explain: bool) -> None:
    """Check ANSWER against the chunks; exit 0 when grounded, 1 when not."""
    chunks = load_chunks(chunks_file)
    if answer == "-":
        answer = sys.stdin.read()
    result = relapse.default_grounding_check(query, chunks, answer, explain=explain)
    if as_json:
        report = _check_report(result, len(chunks))
        if explain:
            report["trace"] = _trace_report(result)
        click.echo(json.dumps(report, ensure_ascii=False))
        if not result.ok:
            sys.exit(1)
        return
    if result.ok:
        click.echo(f"grounded: no findings ({len(chunks)} chunk(s))")
    else:
        click.echo(f"not grounded: {len(result.findings)} finding(s)")
        for finding in result.findings:
            click.echo(f"{finding.code}: {finding.message}")
            for span in finding.spans:
                click.echo(f"  span: {span!r}")
    if explain:
        for line in _trace_lines(result):
            click.echo(line)
    if not result.ok:
        sys.exit(1)


@contextmanager
def _progress(total: int, unit: str) -> Iterator[Callable[[], None]]:
    """A tqdm bar on stderr that shows only once a run lasts a second."""
    try:
        from tqdm import tqdm
    except ImportError:  # the bar is a nicety; the report does not depend on it
        yield lambda: None
        return
    with tqdm(total=total, unit=unit, delay=1.0, file=sys.stderr, leave=False) as bar:

        def advance() -> None:
            bar.update(1)

        yield advance


def _write_json(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    click.echo(f"wrote {path}")


@main.command(name="eval")
@click.argument(
    "dataset", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="DATASET"
)
@click.option(
    "--check",
    "check_spec",
    default="default",
    show_default=True,
    help="The check: 'default', 'module:attribute', several joined by '&',"
    " or stages of a cascade joined by '>' (cheapest first).",
)
@click.option("--split", default="all", show_default=True, help="Keep records of this split.")
@click.option("--limit", type=click.IntRange(min=0), default=None, help="Use the first N.")
@click.option(
    "--json", "json_out", type=click.Path(dir_okay=False, path_type=Path), help="Write JSON here."
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Draw per-code precision and recall (needs relapse[plot]).",
)
@click.option("--loop", is_flag=True, help="Run the loop on the local model over the questions.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes: with --loop one model each; without, each resolves --check once"
    " and judges batches of records (a model-based stage over many logged answers).",
)
@click.option(
    "--engine",
    type=click.Choice(["process", "ray"]),
    default="process",
    show_default=True,
    help="Without --loop, with --workers above 1: a local process pool, or a Ray pool"
    " (ray.util.multiprocessing; needs relapse[ray]).",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Without --loop, with --workers above 1: records per task sent to a worker.",
)
@click.option(
    "--max-iterations",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="With --loop: LLM calls allowed per question.",
)
@click.option(
    "--release",
    type=click.Choice(["answer", "sentence"]),
    default="answer",
    show_default=True,
    help="With --loop: the loop's release; sentence streams every call and adds the time to"
    " first release and the output tokens saved (an estimate) to the report.",
)
@click.option(
    "--model",
    type=click.Choice(["local", "openai"]),
    default="local",
    show_default=True,
    help="With --loop: the bundled Gemma 3 270M, or an OpenAI-compatible server.",
)
@click.option(
    "--base-url", help="With --model openai: the API root, e.g. http://127.0.0.1:8000/v1."
)
@click.option("--model-name", help="With --model openai: the model name the server knows.")
@click.option(
    "--api",
    type=click.Choice(["chat", "completions"]),
    default="chat",
    show_default=True,
    help="With --model openai: /chat/completions, or /completions for a base model.",
)
def eval_(
    dataset: Path,
    check_spec: str,
    split: str,
    limit: int | None,
    json_out: Path | None,
    plot: Path | None,
    loop: bool,
    workers: int,
    engine: str,
    batch_size: int,
    max_iterations: int,
    release: str,
    model: str,
    base_url: str | None,
    model_name: str | None,
    api: str,
) -> None:
    """
    Score a check against DATASET (JSON Lines, RAGTruth sample format).

    Each line holds "question", "passages", "response" and
    "hallucinated_spans" (character offsets into the response). A bad line
    stops the run with its line number. With --workers N the check (a
    model-based stage: a judge, a detector, a cascade) runs in N worker
    processes on batches of records, locally or (--engine ray) on Ray, and
    the summary gives the throughput per core; a cascade adds a table of what
    each stage judged, caught and cost. With --loop, each distinct question
    is run through the loop instead, on the local model or (--model openai)
    an OpenAI-compatible server; with --release sentence every call streams
    and the report adds the median time to the first released piece and the
    output tokens saved by stopping failing streams early.
    """
    from relapse import evaluation

    try:
        check = evaluation.resolve_check(check_spec)
    except (ValueError, TypeError) as error:
        raise click.BadParameter(str(error), param_hint="--check") from error
    if not loop and (model != "local" or release != "answer"):
        raise click.UsageError("--model and --release apply to --loop only")
    if loop and (engine != "process" or batch_size != 8):
        raise click.UsageError("--engine and --batch-size apply without --loop only")
    if model == "openai" and (not base_url or not model_name):
        raise click.UsageError("--model openai needs --base-url and --model-name")
    if model == "local" and (base_url or model_name):
        raise click.UsageError("--base-url and --model-name apply to --model openai only")
    if loop and plot is not None:
        raise click.UsageError(
            "--plot draws the check's per-code scores; it does not apply to --loop"
        )
    if plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            click.echo(
                "--plot needs matplotlib; install it with:\n  pip install 'relapse[plot]'", err=True
            )
            sys.exit(2)
    try:
        if loop:
            questions = evaluation.load_questions(dataset)
            records: list[Any] = evaluation.select_split(dataset, questions, split)
        else:
            annotated = evaluation.load_annotated(dataset)
            records = evaluation.select_split(dataset, annotated, split)[:limit]
    except evaluation.DatasetError as error:
        raise click.BadParameter(str(error), param_hint="DATASET") from error
    if loop:
        from relapse.evaluation._models import local_model, openai_model

        make_model: Callable[[], Any] = (
            functools.partial(local_model, workers)
            if model == "local"
            else functools.partial(
                openai_model, base_url=str(base_url), model=str(model_name), api=api
            )
        )
        _eval_loop(records, check, make_model, limit, workers, max_iterations, release, json_out)
        return
    with _progress(len(records), "response") as advance:
        if workers == 1:
            report = evaluation.evaluate(records, check, name=check_spec, progress=advance)
        else:
            try:
                report = evaluation.evaluate_batched(
                    records,
                    check_spec,
                    workers=workers,
                    engine=engine,  # type: ignore[arg-type]
                    batch_size=batch_size,
                    progress=advance,
                )
            except ModuleNotFoundError as error:
                click.echo(str(error), err=True)
                sys.exit(2)
    click.echo(evaluation.format_report(report, dataset=f"{dataset} (split {split})"))
    if json_out is not None:
        _write_json(json_out, {"dataset": str(dataset), "split": split} | report.to_dict())
    if plot is not None:
        evaluation.plot_report(report, plot)
        click.echo(f"wrote {plot}")


def _eval_loop(
    records: list[Any],
    check: Any,
    make_model: Callable[[], Any],
    limit: int | None,
    workers: int,
    max_iterations: int,
    release: str,
    json_out: Path | None,
) -> None:
    from relapse import evaluation
    from relapse.llms.local import LocalModelUnavailable

    questions, _, _ = evaluation.distinct_questions(records)
    total = len(questions[:limit])
    try:
        with _progress(total, "question") as advance:
            report = evaluation.evaluate_loop(
                records,
                make_model,
                grounding_check=check,
                max_iterations=max_iterations,
                release="sentence" if release == "sentence" else "answer",
                workers=workers,
                limit=limit,
                progress=advance,
            )
    except LocalModelUnavailable as error:
        click.echo(
            f"relapse eval --loop needs the local model extra ({error});"
            f" install it with:\n  {error.install_command}",
            err=True,
        )
        sys.exit(2)
    except ImportError as error:  # --model openai without its module or SDK
        click.echo(f"relapse eval --loop: {error}", err=True)
        sys.exit(2)
    click.echo(evaluation.format_loop_report(report))
    if json_out is not None:
        _write_json(json_out, report.to_dict())


@main.command(name="export-detector")
@click.argument(
    "directory", type=click.Path(exists=True, file_okay=False, path_type=Path), metavar="DIRECTORY"
)
@click.option(
    "--no-int8", is_flag=True, help="Write model.onnx only, not the int8 model_int8.onnx."
)
@click.option("--opset", type=click.IntRange(min=14), default=17, show_default=True)
def export_detector(directory: Path, no_int8: bool, opset: int) -> None:
    """
    Export the detector model in DIRECTORY to ONNX (model.onnx, model_int8.onnx).

    DIRECTORY is a token-classification model saved by save_pretrained
    (a LettuceDetect or TinyLettuce download, for instance). Needs torch,
    transformers and onnx: pip install 'relapse[detector]' torch transformers onnx.
    """
    try:
        from relapse.checks.detector import DetectorModelError
        from relapse.checks.detector._export import export_onnx
    except ImportError as error:
        click.echo(f"relapse export-detector needs the detector extra ({error})", err=True)
        sys.exit(2)
    try:
        written = export_onnx(directory, int8=not no_int8, opset=opset)
    except (ImportError, DetectorModelError) as error:
        click.echo(f"relapse export-detector: {error}", err=True)
        sys.exit(2)
    for path in written:
        click.echo(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")


@main.command()
@click.option(
    "--upstream",
    required=True,
    envvar="RELAPSE_SERVE_UPSTREAM",
    help="The upstream's OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Worker processes (the gateway is stateless; limits apply per worker).",
)
@click.option(
    "--chunks-from",
    type=click.Choice(["none", "tool", "context"]),
    default="none",
    show_default=True,
    help="Read chunks from the messages when a request's relapse object has none.",
)
@click.option("--max-body-bytes", type=click.IntRange(min=1), default=1_048_576, show_default=True)
@click.option("--max-chunks", type=click.IntRange(min=1), default=256, show_default=True)
@click.option("--max-chunk-chars", type=click.IntRange(min=1), default=400_000, show_default=True)
@click.option(
    "--max-concurrent",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="Requests one worker serves at once; one more gets 503.",
)
@click.option(
    "--upstream-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds the upstream may take to connect or between two bytes (504 past it).",
)
@click.option("--max-iterations", type=click.IntRange(min=1), default=5, show_default=True)
@click.option(
    "--max-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=300.0,
    show_default=True,
    help="The largest relapse.timeout a request may set, in seconds (also the default).",
)
@click.option("--max-total-tokens", type=click.IntRange(min=1), default=None)
@click.option(
    "--capture-content",
    is_flag=True,
    help="Put prompts and answers on the spans (off by default).",
)
@click.option(
    "--graceful-timeout",
    type=click.IntRange(min=0),
    default=30,
    show_default=True,
    help="On SIGTERM, seconds to let in-flight requests finish.",
)
@click.option("--log-level", default="info", show_default=True)
def serve(
    upstream: str,
    host: str,
    port: int,
    workers: int,
    chunks_from: str,
    max_body_bytes: int,
    max_chunks: int,
    max_chunk_chars: int,
    max_concurrent: int,
    upstream_timeout: float,
    max_iterations: int,
    max_timeout: float,
    max_total_tokens: int | None,
    capture_content: bool,
    graceful_timeout: int,
    log_level: str,
) -> None:
    """
    Serve an OpenAI-compatible endpoint that grounds every answer it relays.

    Gateway keys and the upstream key come from the environment only, never
    the command line: RELAPSE_SERVE_API_KEYS (comma-separated) and
    RELAPSE_SERVE_UPSTREAM_API_KEY. See docs/serve.md.
    """
    import os

    try:
        import uvicorn

        from relapse.serve import Limits, ServeConfig
    except ImportError as error:
        click.echo(
            f"relapse serve needs the serve extra ({error}); install it with:\n"
            "  pip install 'relapse[serve]'",
            err=True,
        )
        sys.exit(2)
    try:
        config = ServeConfig(
            upstream,
            Limits(
                max_body_bytes=max_body_bytes,
                max_chunks=max_chunks,
                max_chunk_chars=max_chunk_chars,
                max_concurrent=max_concurrent,
                upstream_timeout_s=upstream_timeout,
                max_iterations=max_iterations,
                max_timeout_s=max_timeout,
                max_total_tokens=max_total_tokens,
            ),
            frozenset(k.strip() for k in os.environ.get("RELAPSE_SERVE_API_KEYS", "").split(","))
            - {""},
            os.environ.get("RELAPSE_SERVE_UPSTREAM_API_KEY") or None,
            chunks_from,  # type: ignore[arg-type]
            capture_content,
        )
    except (TypeError, ValueError) as error:
        raise click.BadParameter(str(error)) from error
    # Every worker reads its settings from the environment (app_from_env).
    os.environ.update(config.to_env())
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    uvicorn.run(
        "relapse.serve:app_from_env",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        timeout_graceful_shutdown=graceful_timeout,
        log_level=log_level,
    )


@main.command(name="mcp")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio, or streamable HTTP on 127.0.0.1 (path /mcp).",
)
@click.option(
    "--port",
    type=click.IntRange(min=1, max=65535),
    default=8000,
    show_default=True,
    help="With --transport http: the loopback port.",
)
@click.option(
    "--max-iterations",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Answers per check_answer loop, the first included.",
)
def mcp(transport: str, port: int, max_iterations: int) -> None:
    """Serve check_answer and retry_note to MCP clients (needs relapse[mcp])."""
    try:
        from relapse.integrations.mcp import build_server
    except ImportError as error:
        click.echo(f"relapse mcp: {error}", err=True)
        sys.exit(2)
    server = build_server(max_iterations=max_iterations)
    if transport == "stdio":
        server.run()
    else:
        # Loopback only: the server has no authentication of its own.
        server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":  # python -m relapse.cli; spawned eval workers import this module
    main()
