r"""
Latency of the span detector per RAGTruth answer, for the published detectors' architectures.

Latency depends on the architecture, not the weights: this builds untrained
token classifiers with the configurations of the encoders the published
detectors fine-tune (the Ettin 17M, 32M and 68M encoders of TinyLettuce, and
ModernBERT-base of LettuceDetect-base), exports each to ONNX (fp32, then int8
by ONNX Runtime's dynamic quantization, as ``relapse export-detector`` does),
and times :class:`relapse.checks.detector.SpanDetector` (ONNX Runtime, CPU) on
each answer of the RAGTruth sample: its question, its passages and its
response, one call per answer, as the loop makes it.

The tokenizer is a byte-level BPE trained here on the sample's passages and
responses (the published models' ModernBERT tokenizer is on the hub, out of
reach); the embedding table has the published 50,368 rows whatever its size.
The tokens per input are printed: latency follows them.

Needs torch and transformers (the .venv-torch environment of
scripts/test_torch.sh)::

    .venv-torch/bin/python benchmarks/bench_detector.py [--answers N] [--data PATH]
        [--models ettin-17m,ettin-32m,ettin-68m,modernbert-base] [--threads 1,2]

Prints, per model, precision and thread count, p50 and p95 of the wall time
per answer in milliseconds (``time.perf_counter``, after 3 warm-up calls) and
of the CPU time the process spent on it (``time.process_time``, every thread:
on a machine shared with other work the wall time includes waiting for a
core, the CPU time does not; on one thread it is the wall time of an idle
core), then int8 against fp32: the share of answer tokens on which
the two graphs agree about the 0.5 threshold and the largest probability shift.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
from tokenizers.trainers import BpeTrainer
from transformers import ModernBertConfig, ModernBertForTokenClassification, PreTrainedTokenizerFast

from relapse.checks.detector import SpanDetector
from relapse.checks.detector._export import export_onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_ragtruth import DEFAULT_DATA

#: The encoders' shapes (hidden size, layers, attention heads, GLU intermediate size),
#: from the Ettin paper (Weller et al. 2025, arXiv:2507.11412) and ModernBERT's
#: (Warner et al. 2024, arXiv:2412.13663) configurations; all use 50,368 vocabulary
#: rows, local attention over 128 tokens and a global layer every third.
SHAPES: dict[str, tuple[int, int, int, int]] = {
    "ettin-17m": (256, 7, 4, 384),
    "ettin-32m": (384, 10, 6, 576),
    "ettin-68m": (512, 19, 8, 768),
    "modernbert-base": (768, 22, 12, 1152),
}
VOCABULARY = 50_368
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def load(path: Path, limit: int) -> list[tuple[str, list[str], str]]:
    """The first ``limit`` QA records of the sample: (question, passages, response)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r.get("task_type") == "QA"]
    return [(r["question"], list(r["passages"]), r["response"]) for r in rows[:limit]]


def tokenizer_for(texts: list[str]) -> Tokenizer:
    """A byte-level BPE tokenizer trained on ``texts``, pairs as ModernBERT makes them."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = BpeTrainer(
        vocab_size=VOCABULARY,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[(t, tokenizer.token_to_id(t)) for t in ("[CLS]", "[SEP]")],
    )
    return tokenizer


def build(directory: Path, name: str, tokenizer: Tokenizer) -> int:
    """Save an untrained ``name`` token classifier with ``tokenizer``; return its parameters."""
    hidden, layers, heads, intermediate = SHAPES[name]
    ids = {t: tokenizer.token_to_id(t) for t in ("[PAD]", "[CLS]", "[SEP]")}
    config = ModernBertConfig(
        vocab_size=VOCABULARY,
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=intermediate,
        max_position_embeddings=8192,
        local_attention=128,
        global_attn_every_n_layers=3,
        num_labels=2,
        pad_token_id=ids["[PAD]"],
        cls_token_id=ids["[CLS]"],
        sep_token_id=ids["[SEP]"],
        bos_token_id=ids["[CLS]"],
        eos_token_id=ids["[SEP]"],
    )
    torch.manual_seed(0)
    model = ModernBertForTokenClassification(config).eval()
    model.save_pretrained(str(directory))
    PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        mask_token="[MASK]",
    ).save_pretrained(str(directory))
    return sum(p.numel() for p in model.parameters())


def time_answers(
    detector: SpanDetector, answers: list[tuple[str, list[str], str]]
) -> tuple[list[float], list[float]]:
    """Wall and CPU (all threads of the process) milliseconds per answer, after 3 warm-ups."""
    for item in answers[:3]:
        detector(*item)
    wall, cpu = [], []
    for item in answers:
        started, started_cpu = time.perf_counter(), time.process_time()
        detector(*item)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return wall, cpu


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by linear interpolation."""
    return float(np.quantile(np.asarray(values), q))


def agreement(directory: Path, answers: list[tuple[str, list[str], str]]) -> tuple[float, float]:
    """int8 against fp32: share of answer tokens on the same side of 0.5, largest |shift|."""
    got = []
    for precision in ("fp32", "int8"):
        detector = SpanDetector(directory, precision=precision)  # type: ignore[arg-type]
        scored = detector._model.token_probabilities(
            [(q, p, a) for q, p, a in answers], lang="en", vote="any_supports", batch_size=8
        )
        got.append(np.concatenate([probabilities for _, probabilities in scored]))
    fp32, int8 = got
    same = float(np.mean((fp32 >= 0.5) == (int8 >= 0.5)))
    return same, float(np.max(np.abs(fp32 - int8)))


def main() -> None:
    """Build, export and time each model; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--answers", type=int, default=60)
    parser.add_argument("--models", default=",".join(SHAPES))
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    answers = load(args.data, args.answers)
    texts = [t for q, ps, a in load(args.data, 10_000) for t in (q, *ps, a)]
    tokenizer = tokenizer_for(texts)
    threads = [int(t) for t in args.threads.split(",")]
    print(f"{len(answers)} RAGTruth QA answers from {args.data}; load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.models.split(","):
            directory = Path(scratch) / name
            parameters = build(directory, name, tokenizer)
            export_onnx(directory)
            probe = SpanDetector(directory, precision="fp32")
            encoder = probe._model.encoder
            lengths = [
                len(encoder.encode(encoder.prompts(p, q, encoder.count(a), "en")[0], a).ids)
                for q, p, a in answers
            ]
            sizes = {
                precision: (directory / file).stat().st_size / 1e6
                for precision, file in (("fp32", "model.onnx"), ("int8", "model_int8.onnx"))
            }
            print(
                f"\n{name}: {parameters / 1e6:.1f}M parameters, tokens per input median"
                f" {statistics.median(lengths):.0f} (max {max(lengths)}),"
                f" ONNX fp32 {sizes['fp32']:.0f} MB, int8 {sizes['int8']:.0f} MB"
            )
            for precision in ("fp32", "int8"):
                for count in threads:
                    detector = SpanDetector(directory, precision=precision, threads=count)  # type: ignore[arg-type]
                    wall, cpu = time_answers(detector, answers)
                    print(
                        f"  {precision} {count} thread(s): wall p50 {percentile(wall, 0.5):7.1f}"
                        f" p95 {percentile(wall, 0.95):7.1f} ms; CPU p50"
                        f" {percentile(cpu, 0.5):7.1f} p95 {percentile(cpu, 0.95):7.1f} ms"
                    )
            same, shift = agreement(directory, answers)
            print(f"  int8 vs fp32: {same:.2%} of answer tokens agree at 0.5; max |dp| {shift:.4f}")


if __name__ == "__main__":
    main()
