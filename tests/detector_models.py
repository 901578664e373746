"""
Small detector models the detector tests build, without torch and without the hub.

* :func:`wordpiece_tokenizer`, :func:`bpe_tokenizer`: a BERT-style WordPiece
  tokenizer with a fixed vocabulary, and a ModernBERT-style byte-level BPE one
  trained here; both with ``[CLS] A [SEP] B [SEP]`` pairs, as LettuceDetect's
  models have.
* :func:`grounding_graph`: an ONNX token classifier whose verdicts are known by
  hand: an answer token is hallucinated (probability ``sigmoid(K + bias)``)
  when its id does not occur before the first ``[SEP]`` (in the prompt), else
  supported (``sigmoid(-K + bias)``); ``bias`` is per token id, 0 unless set.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

import onnx
from onnx import TensorProto, helper
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers.trainers import BpeTrainer

#: How sure the grounding graph is: logit +K for a token absent from the prompt, -K present.
K = 4.0
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _pair_template(tokenizer: Tokenizer) -> processors.TemplateProcessing:
    return processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[(t, tokenizer.token_to_id(t)) for t in ("[CLS]", "[SEP]")],
    )


def wordpiece_tokenizer(words: Iterable[str], pieces: Iterable[str] = ()) -> Tokenizer:
    """A lower-casing WordPiece tokenizer knowing ``words`` and the ``##`` ``pieces``."""
    vocab: dict[str, int] = {}
    for token in [*SPECIALS, *words, *pieces, *".,:!?\"'"]:
        vocab.setdefault(token, len(vocab))
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = _pair_template(tokenizer)
    tokenizer.decoder = decoders.WordPiece()
    return tokenizer


def bpe_tokenizer(corpus: Iterable[str], vocab_size: int = 400) -> Tokenizer:
    """A byte-level BPE tokenizer trained on ``corpus``, pairs as ModernBERT makes them."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(list(corpus), trainer)
    tokenizer.post_processor = _pair_template(tokenizer)
    return tokenizer


def _const(name: str, dtype: int, dims: list[int], value: float) -> onnx.NodeProto:
    """A Constant node ``name`` holding ``value`` (a scalar when ``dims`` is empty)."""
    return helper.make_node(
        "Constant", [], [name], value=helper.make_tensor(name, dtype, dims, [value])
    )


def grounding_graph(
    sep_id: int, vocab_size: int, bias: Mapping[int, float] | None = None
) -> onnx.ModelProto:
    """The ONNX graph described in the module docstring: logits of shape (batch, tokens, 2)."""
    table = [0.0] * vocab_size
    for token, value in (bias or {}).items():
        table[token] = value
    nodes = [
        _const("sep", TensorProto.INT64, [], sep_id),
        helper.make_node("Equal", ["input_ids", "sep"], ["is_sep"]),
        helper.make_node("Cast", ["is_sep"], ["is_sep_i"], to=TensorProto.INT64),
        _const("axis1", TensorProto.INT64, [], 1),
        helper.make_node("CumSum", ["is_sep_i", "axis1"], ["seps_before"]),
        _const("zero_i", TensorProto.INT64, [], 0),
        helper.make_node("Equal", ["seps_before", "zero_i"], ["in_prompt"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_b"], to=TensorProto.BOOL),
        helper.make_node("And", ["in_prompt", "mask_b"], ["prompt_token"]),
        _const("ax2", TensorProto.INT64, [1], 2),
        _const("ax1", TensorProto.INT64, [1], 1),
        helper.make_node("Unsqueeze", ["input_ids", "ax2"], ["ids_col"]),
        helper.make_node("Unsqueeze", ["input_ids", "ax1"], ["ids_row"]),
        helper.make_node("Equal", ["ids_col", "ids_row"], ["same"]),
        helper.make_node("Unsqueeze", ["prompt_token", "ax1"], ["prompt_row"]),
        helper.make_node("And", ["same", "prompt_row"], ["found"]),
        helper.make_node("Cast", ["found"], ["found_f"], to=TensorProto.FLOAT),
        helper.make_node("ReduceMax", ["found_f", "ax2"], ["supported"], keepdims=0),
        _const("minus_2k", TensorProto.FLOAT, [], -2 * K),
        _const("k", TensorProto.FLOAT, [], K),
        helper.make_node("Mul", ["supported", "minus_2k"], ["scaled"]),
        helper.make_node("Add", ["scaled", "k"], ["base"]),
        helper.make_node("Gather", ["bias_table", "input_ids"], ["bias"]),
        helper.make_node("Add", ["base", "bias"], ["logit1"]),
        helper.make_node("Sub", ["logit1", "logit1"], ["logit0"]),
        helper.make_node("Unsqueeze", ["logit0", "ax2"], ["l0"]),
        helper.make_node("Unsqueeze", ["logit1", "ax2"], ["l1"]),
        helper.make_node("Concat", ["l0", "l1"], ["logits"], axis=2),
    ]
    graph = helper.make_graph(
        nodes,
        "grounding",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "tokens", 2])],
        initializer=[helper.make_tensor("bias_table", TensorProto.FLOAT, [vocab_size], table)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def save_detector(
    directory: Path,
    tokenizer: Tokenizer,
    *,
    bias: Mapping[str, float] | None = None,
    max_position_embeddings: int = 512,
    graph_name: str = "model.onnx",
) -> Path:
    """Write ``tokenizer.json``, ``config.json`` and the grounding graph into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(directory / "tokenizer.json"))
    config = {"max_position_embeddings": max_position_embeddings, "num_labels": 2}
    (directory / "config.json").write_text(json.dumps(config), encoding="utf-8")
    ids = {tokenizer.token_to_id(t): v for t, v in (bias or {}).items()}
    sep = tokenizer.token_to_id("[SEP]")
    graph = grounding_graph(sep, tokenizer.get_vocab_size(), ids)
    (directory / graph_name).parent.mkdir(parents=True, exist_ok=True)
    onnx.save(graph, str(directory / graph_name))
    return directory
