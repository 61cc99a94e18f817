"""The exported runtimes of all-MiniLM-L6-v2 (ONNX Runtime, bf16 TorchScript): made offline from the shipped
weights, the same vectors as torch within each runtime's stated tolerance."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from ai_llm.common.settings import PROJECT_ROOT, Settings
from ai_llm.embedding_server import runtime
from ai_llm.embedding_server.runtime import (
    BF16_MIN_COSINE,
    INT8_MIN_COSINE,
    PROBES,
    SHORT_TOKENS,
    OnnxEncoder,
    TorchEncoder,
    TorchScriptEncoder,
    ensure_bf16_model,
    ensure_onnx_model,
    export_dir,
    export_in_child,
    load_encoder,
    model_revision,
    native_bf16,
    needed_files,
    resolve_runtime,
)

#: Stated tolerance of the fp32 ONNX runtime against sentence-transformers on torch.
pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

ONNX_MIN_COSINE = 0.9999


def sample_texts() -> list[str]:
    """Probe sentences plus real questions of the RAG evaluation set (English and Korean)."""
    texts = list(PROBES)
    path = PROJECT_ROOT / "benchmarks" / "data" / "rag_test.jsonl"
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines()[:60]:
            question = json.loads(line).get("question")
            if question:
                texts.append(question)
    return texts


@pytest.fixture(scope="module")
def data_dir() -> Path:
    # The hub's default data dir: the export made here is the one the embedding server process reuses.
    return Settings(_env_file=None).data_dir  # type: ignore[call-arg]


@pytest.fixture(scope="module")
def torch_encoder() -> TorchEncoder:
    return TorchEncoder()


def test_onnx_vectors_match_torch_within_tolerance(data_dir: Path, torch_encoder: TorchEncoder) -> None:
    encoder = load_encoder("onnx", data_dir)
    assert isinstance(encoder, OnnxEncoder) and encoder.model_key.endswith("/onnx")
    texts = sample_texts()
    got, want = encoder.encode(texts), torch_encoder.encode(texts)
    assert got.shape == want.shape == (len(texts), 384)
    cosines = np.sum(got * want, axis=1)
    assert cosines.min() >= ONNX_MIN_COSINE
    # A text's vector does not depend on what else is in its batch (padding is masked out).
    alone = encoder.encode([texts[10]])
    assert float(np.dot(alone[0], got[10])) >= ONNX_MIN_COSINE


def test_int8_vectors_stay_close_to_torch(data_dir: Path, torch_encoder: TorchEncoder) -> None:
    encoder = load_encoder("onnx-int8", data_dir)
    assert isinstance(encoder, OnnxEncoder) and encoder.model_key.endswith("/onnx-int8")
    texts = sample_texts()
    cosines = np.sum(encoder.encode(texts) * torch_encoder.encode(texts), axis=1)
    assert cosines.min() >= INT8_MIN_COSINE and cosines.mean() >= 0.99


def test_bf16_vectors_stay_within_tolerance_of_torch(data_dir: Path, torch_encoder: TorchEncoder) -> None:
    encoder = load_encoder("bf16", data_dir)
    assert isinstance(encoder, TorchScriptEncoder) and encoder.model_key.endswith("/bf16")
    texts = sample_texts() + [" ".join(PROBES[:3] * 2) + f" (variant {i})" for i in range(4)]
    lengths = [len(e.ids) for e in encoder.tokenizer.encode_batch(texts)]
    long = [i for i, n in enumerate(lengths) if n > SHORT_TOKENS]
    short = [i for i, n in enumerate(lengths) if n <= SHORT_TOKENS]
    assert len(long) >= 4 and len(short) >= 4
    got = encoder.encode(texts)
    assert got.shape == (len(texts), 384) and got.dtype == np.float32
    cosines = np.sum(got * torch_encoder.encode(texts), axis=1)
    # Long texts: bf16, within its tolerance. Short ones: the int8 model's vectors.
    assert cosines[long].min() >= BF16_MIN_COSINE
    int8 = load_encoder("onnx-int8", data_dir).encode([texts[i] for i in short])
    assert np.sum(got[short] * int8, axis=1).min() >= 0.9999 and cosines[short].min() >= INT8_MIN_COSINE
    # Padding is masked out in the traced graph, and a text's runtime depends on the text alone: a text alone
    # and in a batch of others agree (int8 to its per-batch activation scale), and each row is its own text's.
    assert float(np.dot(encoder.encode([texts[long[0]]])[0], got[long[0]])) >= BF16_MIN_COSINE
    assert float(np.dot(encoder.encode([texts[short[0]]])[0], got[short[0]])) >= 0.99
    assert float(np.dot(got[long[0]], got[long[1]])) < 0.95


def test_auto_runtime_is_bf16_only_where_the_cpu_has_amx(monkeypatch: pytest.MonkeyPatch) -> None:
    amx = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_bf16 amx_bf16 amx_tile amx_int8\n"
    assert native_bf16(amx)
    assert not native_bf16("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n")
    assert not native_bf16("model name\t: amx_bf16 in a name, not a flag\n")
    monkeypatch.setattr(runtime, "native_bf16", lambda cpuinfo=None: True)
    assert resolve_runtime("auto") == "bf16" and resolve_runtime("onnx") == "onnx"
    monkeypatch.setattr(runtime, "native_bf16", lambda cpuinfo=None: False)
    assert resolve_runtime("auto") == "onnx-int8" and resolve_runtime("bf16") == "bf16"


def test_corrupt_bf16_file_is_rebuilt(tmp_path: Path, data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = ensure_bf16_model(data_dir)
    exports: list[Path] = []

    def fake_export(target: Path, torch_encoder: object = None) -> dict[str, float]:
        exports.append(target)  # the real trace is covered above; copy its result
        shutil.copyfile(good, target)
        return {}

    monkeypatch.setattr(runtime, "export_bf16", fake_export)
    built = ensure_bf16_model(tmp_path)
    assert built == export_dir(tmp_path, model_revision()) / "model-bf16.pt" and exports == [built]
    built.write_bytes(b"\0" * 2_000_000)  # corrupt
    encoder = load_encoder("bf16", tmp_path)
    assert isinstance(encoder, TorchScriptEncoder) and len(exports) == 2
    assert encoder.encode(["hello"]).shape == (1, 384)


def test_missing_model_files_are_made_in_a_child_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's first start exports in a child, so it never holds sentence-transformers and the fp32 model."""
    import subprocess

    revision = model_revision()
    assert not any(path.exists() for path in needed_files("onnx-int8", tmp_path, revision))
    assert export_in_child("onnx-int8", tmp_path) is True
    assert all(path.stat().st_size > 1_000_000 for path in needed_files("onnx-int8", tmp_path, revision))
    assert load_encoder("onnx-int8", tmp_path).encode(["hello"]).shape == (1, 384)

    def no_child(*_: object, **__: object) -> None:
        raise AssertionError("files present: no child process expected")

    monkeypatch.setattr(subprocess, "run", no_child)
    assert export_in_child("onnx-int8", tmp_path) is True


def test_a_failed_child_export_is_reported_not_raised(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    import sys

    monkeypatch.setattr(sys, "executable", "/bin/false")
    with caplog.at_level("WARNING"):
        assert export_in_child("onnx", tmp_path) is False  # load_encoder then tries in-process, as before
    assert "failed (exit 1)" in caplog.text


def test_model_key_names_the_revision_and_runtime(torch_encoder: TorchEncoder) -> None:
    revision = model_revision()
    assert len(revision) == 12
    assert torch_encoder.model_key == f"all-MiniLM-L6-v2@{revision}/torch"


def test_missing_or_corrupt_export_is_rebuilt(tmp_path: Path, data_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    good = ensure_onnx_model(data_dir, "onnx")
    exports: list[Path] = []

    def fake_export(target: Path, torch_encoder: object = None) -> dict[str, float]:
        exports.append(target)  # the real export is covered above; copy its result
        shutil.copyfile(good, target)
        return {"export_seconds": 0.0, "probe_min_cosine": 1.0}

    monkeypatch.setattr(runtime, "export_onnx", fake_export)
    monkeypatch.setattr(runtime, "TorchEncoder", lambda revision=None: None)
    built = ensure_onnx_model(tmp_path, "onnx")
    assert built == export_dir(tmp_path, model_revision()) / "model.onnx" and exports == [built]
    assert ensure_onnx_model(tmp_path, "onnx") == built and len(exports) == 1  # kept, not rebuilt
    built.write_bytes(b"\0" * 2_000_000)  # corrupt
    encoder = load_encoder("onnx", tmp_path)
    assert isinstance(encoder, OnnxEncoder) and len(exports) == 2
    assert encoder.encode(["hello"]).shape == (1, 384)


def test_broken_onnx_runtime_falls_back_to_torch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: object, **__: object) -> Path:
        raise RuntimeError("no onnx here")

    monkeypatch.setattr(runtime, "ensure_onnx_model", broken)
    encoder = load_encoder("onnx", tmp_path)
    assert encoder.runtime == "torch" and encoder.model_key.endswith("/torch")
