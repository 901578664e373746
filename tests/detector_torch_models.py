"""
Randomly initialised BERT and ModernBERT token classifiers, saved as LettuceDetect models are.

Needs torch and transformers (the ``torch`` marker's environment). Each model
gets a tokenizer trained here with the ``tokenizers`` package on the bundled
RAGTruth passages (WordPiece for BERT, byte-level BPE for ModernBERT), saved
with ``save_pretrained`` beside the weights, so ``AutoTokenizer`` and
``AutoModelForTokenClassification`` (what LettuceDetect loads) read the
directory as they read a published model.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers.trainers import BpeTrainer, WordPieceTrainer
from transformers import (
    BertConfig,
    BertForTokenClassification,
    ModernBertConfig,
    ModernBertForTokenClassification,
    PreTrainedTokenizerFast,
)

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def dev_records() -> list[dict[str, object]]:
    """The bundled RAGTruth development questions and passages (src/relapse/data/dev.jsonl)."""
    text = resources.files("relapse.data").joinpath("dev.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _corpus() -> list[str]:
    return [p for r in dev_records() for p in r["passages"]]  # type: ignore[attr-defined]


def _with_pairs(tokenizer: Tokenizer) -> Tokenizer:
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[(t, tokenizer.token_to_id(t)) for t in ("[CLS]", "[SEP]")],
    )
    return tokenizer


def wordpiece(vocab_size: int = 3000) -> Tokenizer:
    """A lower-casing BERT WordPiece tokenizer trained on the passages."""
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.decoder = decoders.WordPiece()
    trainer = WordPieceTrainer(vocab_size=vocab_size, special_tokens=SPECIALS, show_progress=False)
    tokenizer.train_from_iterator(_corpus(), trainer)
    return _with_pairs(tokenizer)


def byte_bpe(vocab_size: int = 3000) -> Tokenizer:
    """A byte-level BPE tokenizer trained on the passages, pairs as ModernBERT's are."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_corpus(), trainer)
    return _with_pairs(tokenizer)


def _save_tokenizer(tokenizer: Tokenizer, directory: Path) -> None:
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        mask_token="[MASK]",
    )
    fast.save_pretrained(str(directory))


def _spread(model: torch.nn.Module) -> None:
    """Widen the classifier's weights so probabilities spread over [0, 1], not only near 0.5."""
    with torch.no_grad():
        model.classifier.weight.normal_(0.0, 0.5)  # type: ignore[operator, union-attr]


def bert_detector(directory: Path, *, seed: int = 0, hidden: int = 64, layers: int = 2) -> Path:
    """A random BERT token classifier with a trained WordPiece tokenizer, saved in ``directory``."""
    tokenizer = wordpiece()
    torch.manual_seed(seed)
    config = BertConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        intermediate_size=hidden * 2,
        max_position_embeddings=512,
        num_labels=2,
        pad_token_id=tokenizer.token_to_id("[PAD]"),
    )
    model = BertForTokenClassification(config).eval()
    _spread(model)
    model.save_pretrained(str(directory))
    _save_tokenizer(tokenizer, directory)
    return directory


def modernbert_config(tokenizer: Tokenizer, **sizes: int) -> ModernBertConfig:
    """A ModernBERT configuration over ``tokenizer``'s vocabulary with the given sizes."""
    ids = {t: tokenizer.token_to_id(t) for t in ("[PAD]", "[CLS]", "[SEP]")}
    return ModernBertConfig(
        vocab_size=tokenizer.get_vocab_size(),
        num_labels=2,
        pad_token_id=ids["[PAD]"],
        cls_token_id=ids["[CLS]"],
        sep_token_id=ids["[SEP]"],
        bos_token_id=ids["[CLS]"],
        eos_token_id=ids["[SEP]"],
        **sizes,
    )


def modernbert_detector(directory: Path, *, seed: int = 0) -> Path:
    """A small random ModernBERT token classifier with a byte-level BPE tokenizer."""
    tokenizer = byte_bpe()
    torch.manual_seed(seed)
    config = modernbert_config(
        tokenizer,
        hidden_size=64,
        intermediate_size=96,
        num_hidden_layers=3,
        num_attention_heads=4,
        max_position_embeddings=1024,
        # A local window shorter than the inputs, so the sliding-window
        # attention layers are exercised, with a global layer every third.
        local_attention=64,
        global_attn_every_n_layers=3,
    )
    model = ModernBertForTokenClassification(config).eval()
    _spread(model)
    model.save_pretrained(str(directory))
    _save_tokenizer(tokenizer, directory)
    return directory
