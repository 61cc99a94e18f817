"""One settings class for the whole hub.

Every variable is documented in `.env.example`. Nothing else in the code base reads `os.environ`
for configuration: processes receive a `Settings` (usually from `get_settings()`), tests build one
directly with overrides.
"""

from __future__ import annotations

import ipaddress
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ai_llm.common.http.guard import WILDCARD_BINDS, split_host

PROJECT_ROOT = Path(__file__).resolve().parents[2]

#: Agent name -> (settings attribute holding its port, python module serving it).
AGENT_MODULES: dict[str, str] = {
    "orchestrator": "ai_llm.orchestrator_agent",
    "web_research": "ai_llm.web_research_agent",
    "internal_rag": "ai_llm.internal_rag_agent",
    "file_management": "ai_llm.file_management_agent",
    "report_writing": "ai_llm.report_writing_agent",
}


def _split_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


class UnsafeConfigurationError(RuntimeError):
    """Raised when a combination of settings would expose the hub without protection."""


def _is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Settings(BaseSettings):
    """Configuration of every hub process (env vars, `.env` file, or constructor overrides)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore",
                                      env_ignore_empty=True)

    # --- network -------------------------------------------------------------------------
    hub_host: str = Field("127.0.0.1", description="Bind address of every process.")
    hub_token: str | None = Field(None, description="Bearer token required on every A2A/MCP/API call.")
    hub_admin_password: str | None = Field(
        None, description="Password of the first administrator (username `admin`), created at the backend's "
                          "first start when no `admin` account exists; setting it turns on accounts and login.")
    hub_auth_proxy_header: str | None = Field(
        None, description="Single sign-on: the header a trusted reverse proxy (oauth2-proxy, …) names the signed-in "
                          "person with, e.g. X-Forwarded-User; honoured only from HUB_AUTH_PROXY_ADDRESSES.")
    hub_auth_proxy_addresses: str | None = Field(
        None, description="Comma-separated addresses or CIDR networks of the trusted proxy (HUB_AUTH_PROXY_HEADER).")
    hub_allowed_hosts: str | None = Field(
        None, description="Comma-separated host or host:port names the hub's servers answer to, besides "
                          "loopback and HUB_HOST (Host/Origin checks, ai_llm/common/http/guard.py).")
    orchestrator_port: int = 10010
    web_agent_port: int = 10011
    rag_agent_port: int = 10012
    file_agent_port: int = 10013
    report_agent_port: int = 10014
    search_gateway_port: int = 10015
    embedding_port: int = 10016
    backend_port: int = 8000
    # Explicit URLs override host+port (e.g. agents on other machines).
    orchestrator_url: str | None = None
    web_agent_url: str | None = None
    rag_agent_url: str | None = None
    file_agent_url: str | None = None
    report_agent_url: str | None = None
    search_gateway_url: str | None = None
    # Replicas: comma-separated base URLs of one agent's instances; callers spread calls over them and leave
    # out, for AGENT_EJECT_S, one that refuses or drops connections (the launcher's --replicas sets these).
    orchestrator_urls: str | None = None
    web_agent_urls: str | None = None
    rag_agent_urls: str | None = None
    file_agent_urls: str | None = None
    report_agent_urls: str | None = None
    agent_eject_s: float = Field(5.0, description="Seconds a replica that failed at transport level is left out.")

    # --- language models -----------------------------------------------------------------
    openai_api_key: str | None = None
    openai_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    synthesis_model: str = "gpt-4o"
    llm_timeout_s: float = 60.0
    llm_max_tokens: int = 1024  # cap on the tokens of one reply (a small local model may not stop by itself)

    # --- embeddings ----------------------------------------------------------------------
    embedding_provider: Literal["local", "openai"] = "local"
    embedding_model: str | None = None
    embedding_url: str | None = None
    embedding_batch_size: int = 64
    # Embedding server: runtime, dynamic batching and query cache (ai_llm/embedding_server/).
    embedding_runtime: Literal["auto", "bf16", "onnx", "onnx-int8", "torch"] = "auto"
    embedding_max_batch: int = Field(64, ge=1)
    embedding_batch_wait_ms: float = Field(0.0, ge=0.0)
    embedding_cache_size: int = Field(10_000, ge=0)
    embedding_workers: int = Field(0, ge=0)  # batches encoded at once, one thread each (0: one per core)

    # --- database ------------------------------------------------------------------------
    database_url: str | None = None
    supabase_url: str | None = None
    supabase_key: str | None = None
    supabase_storage_bucket: str = Field("documents", description="Supabase Storage bucket of the file store.")

    # --- web search ----------------------------------------------------------------------
    tavily_api_key: str | None = None
    serper_api_key: str | None = None
    exa_api_key: str | None = None
    brightdata_api_key: str | None = None
    firecrawl_api_key: str | None = None
    # The model vendors' own web search as gateway providers (`openai_web_search`, `gemini_grounding`).
    openai_web_search_api_key: str | None = None
    openai_web_search_base_url: str | None = None
    gemini_api_key: str | None = None
    gemini_base_url: str | None = None
    search_config: Path | None = None
    local_corpus: Path | None = None
    fetch_allow_private: bool = False
    relevance_threshold: float = 0.5
    # The RAG reader's question encoder (docs/models/reader.md) ranks the sentences the web agent quotes from the
    # pages it read (needs the e5 embedding server, which serves it); off: the question's words rank them.
    web_reader: bool = True
    mcp_servers: str | None = Field(
        None, description="JSON object of MCP servers for the web agent (langchain-mcp-adapters format)."
    )

    # --- storage and limits --------------------------------------------------------------
    data_dir: Path = PROJECT_ROOT / ".data"
    max_upload_mb: float = 50.0
    agent_timeout_s: float = 120.0

    # --- orchestrator ----------------------------------------------------------------------
    orchestrator_step_timeout_s: float = Field(90.0, description="Limit of one plan step (one agent call).")
    orchestrator_agent_timeouts: str | None = Field(
        "internal_rag=20", description="Per-agent step limits overriding ORCHESTRATOR_STEP_TIMEOUT_S: "
                                       "'internal_rag=20,web_research=90'.")
    orchestrator_extra_agents: str | None = Field(
        None, description='JSON object of additional plannable agents: {"name": "http://host:port"}.')
    orchestrator_document_probe: bool = Field(
        True, description="Before planning, probe the person's document index (the hub's Postgres) for the "
                          "request's terms; off, or with Supabase, the planner sees the catalog only.")

    # --- internal-RAG agent ----------------------------------------------------------------
    rag_chunk_size: int = 800
    rag_chunk_overlap: int = 100
    rag_top_k: int = 10
    # Evidence (0-1): the share of the question's salient words, IDF-weighted, that the best sentence window
    # holds; under it the documents do not answer (`no_result` → web fallback). Tuned on the dev split.
    rag_min_evidence: float = 0.2
    # Share (0-1) of all the question's salient words (known to the corpus or not) that the best window must hold.
    rag_min_question_coverage: float = 0.25
    # The embedding model's similarity (rescaled to 0-1) of the question to the best sentence that stands in for
    # question coverage: a question in everyday words ("야근 저녁값") holds few of a regulation's words yet reads
    # like its sentence. Word evidence (rag_min_evidence) is still required. Tuned on the dev splits
    # (rag_formats_dev_ko.jsonl, rag_formats_dev.jsonl, rag_newdocs_dev.jsonl, rag_dev.jsonl).
    rag_min_question_similarity: float = Field(0.6, ge=0.0, le=1.0)
    # The cross-lingual model's cosine (internal_rag_agent/cross_language.py) at which a sentence in the other
    # language than the question answers it (word coverage cannot be measured across languages). Tuned on
    # benchmarks/data/rag_formats_dev.jsonl and rag_newdocs_dev.jsonl.
    rag_min_cross_similarity: float = Field(0.4, ge=0.0, le=1.0)
    # The reader model (internal_rag_agent/reader, docs/models/reader.md) chooses the quoted sentences and decides
    # whether the documents answer; off: the word rules above decide.
    rag_reader: bool = True
    rag_expand_korean: bool = False  # add Kiwi's similar morphemes to Korean questions (measured: no gain)
    # Vector similarity for Korean questions; None = when the embedding model is multilingual (embeddings.is_multilingual).
    rag_vector_korean: bool | None = None
    rag_ef_search: int = 100  # HNSW ef_search: higher = better recall, slower search

    # --- UI ------------------------------------------------------------------------------
    ui_language: Literal["ko", "en"] = "ko"

    @field_validator("hub_token", "hub_admin_password", "hub_auth_proxy_header", "hub_auth_proxy_addresses",
                     "hub_allowed_hosts", "openai_api_key", "openai_base_url", "database_url",
                     "supabase_url", "supabase_key", "tavily_api_key", "serper_api_key", "exa_api_key",
                     "brightdata_api_key", "firecrawl_api_key", "openai_web_search_api_key",
                     "openai_web_search_base_url", "gemini_api_key", "gemini_base_url", "mcp_servers", "embedding_url",
                     "embedding_model", "orchestrator_urls", "web_agent_urls", "rag_agent_urls", "file_agent_urls",
                     "report_agent_urls", mode="before")
    @classmethod
    def _empty_is_none(cls, value: Any) -> Any:
        # `.env.example` copies leave variables present but empty; treat them as unset.
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("hub_token")
    @classmethod
    def _token_strength(cls, value: str | None) -> str | None:
        if value is not None and len(value) < 16:
            raise ValueError("HUB_TOKEN must be at least 16 characters long.")
        return value

    @field_validator("hub_admin_password")
    @classmethod
    def _admin_password_strength(cls, value: str | None) -> str | None:
        if value is not None and len(value) < 8:
            raise ValueError("HUB_ADMIN_PASSWORD must be at least 8 characters long.")
        return value

    @field_validator("hub_auth_proxy_addresses")
    @classmethod
    def _proxy_addresses_parse(cls, value: str | None) -> str | None:
        if value is not None:
            for entry in _split_list(value):
                try:
                    ipaddress.ip_network(entry, strict=False)
                except ValueError as exc:
                    raise ValueError(f"HUB_AUTH_PROXY_ADDRESSES: {entry!r} is not an address or network") from exc
        return value

    def proxy_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        """The trusted proxy's networks (HUB_AUTH_PROXY_ADDRESSES)."""
        return [ipaddress.ip_network(e, strict=False) for e in _split_list(self.hub_auth_proxy_addresses or "")]

    @field_validator("hub_allowed_hosts")
    @classmethod
    def _allowed_hosts_parse(cls, value: str | None) -> str | None:
        if value is not None:
            for entry in _split_list(value):
                if split_host(entry) is None:
                    raise ValueError(f"HUB_ALLOWED_HOSTS: {entry!r} is not a host or host:port "
                                     "(no scheme, path or wildcard)")
        return value

    @field_validator("mcp_servers")
    @classmethod
    def _mcp_servers_json(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                parsed = json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValueError(f"MCP_SERVERS is not valid JSON: {exc}") from exc
            if not isinstance(parsed, dict) or not parsed:
                raise ValueError("MCP_SERVERS must be a non-empty JSON object of server name -> config.")
        return value

    @model_validator(mode="after")
    def _refuse_unsafe(self) -> Settings:
        if not _is_loopback(self.hub_host) and not self.hub_token:
            raise UnsafeConfigurationError(
                f"HUB_HOST={self.hub_host} exposes the hub beyond this machine; set HUB_TOKEN "
                "(16+ characters) or bind to 127.0.0.1."
            )
        if self.supabase_url and not self.supabase_key:
            raise UnsafeConfigurationError("SUPABASE_URL is set but SUPABASE_KEY is missing.")
        if (self.hub_admin_password or self.hub_auth_proxy_header) and not self.hub_token:
            raise UnsafeConfigurationError("accounts (HUB_ADMIN_PASSWORD, HUB_AUTH_PROXY_HEADER) need HUB_TOKEN: the "
                                           "agents verify who a request acts for with a key derived from it.")
        if self.hub_auth_proxy_header and not self.hub_auth_proxy_addresses:
            raise UnsafeConfigurationError("HUB_AUTH_PROXY_HEADER needs HUB_AUTH_PROXY_ADDRESSES: a header anyone "
                                           "can send names no one.")
        if self.embedding_provider == "openai" and not (self.openai_api_key or self.openai_base_url):
            raise UnsafeConfigurationError(
                "EMBEDDING_PROVIDER=openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server)."
            )
        if not 0.0 <= self.relevance_threshold <= 1.0:
            raise ValueError("RELEVANCE_THRESHOLD must be between 0 and 1.")
        if self.max_upload_mb <= 0:
            raise ValueError("MAX_UPLOAD_MB must be positive.")
        for name in ("orchestrator_urls", "web_agent_urls", "rag_agent_urls", "file_agent_urls", "report_agent_urls"):
            for url in _split_list(getattr(self, name) or ""):
                if not url.startswith(("http://", "https://")):
                    raise ValueError(f"{name.upper()}: {url!r} is not an http(s) URL (comma-separated base URLs)")
        if self.agent_eject_s < 0:
            raise ValueError("AGENT_EJECT_S must not be negative.")
        return self

    # --- derived values ------------------------------------------------------------------
    @property
    def allowed_hosts(self) -> list[str]:
        """Hosts besides loopback that the hub's servers answer to: HUB_HOST (unless a wildcard bind) and
        HUB_ALLOWED_HOSTS."""
        own = [] if self.hub_host.strip() in WILDCARD_BINDS else [self.hub_host.strip()]
        return own + _split_list(self.hub_allowed_hosts or "")

    def _url(self, explicit: str | None, port: int) -> str:
        if explicit:
            return explicit.rstrip("/")
        host = "127.0.0.1" if self.hub_host in ("0.0.0.0", "::", "") else self.hub_host
        return f"http://{host}:{port}"

    def agent_url(self, agent: str) -> str:
        """Base URL of a hub agent by name (`orchestrator`, `web_research`, …): its `*_URL`, else the first of
        its replicas (`*_URLS`), else HUB_HOST and its port."""
        table = {
            "orchestrator": (self.orchestrator_url, self.orchestrator_port),
            "web_research": (self.web_agent_url, self.web_agent_port),
            "internal_rag": (self.rag_agent_url, self.rag_agent_port),
            "file_management": (self.file_agent_url, self.file_agent_port),
            "report_writing": (self.report_agent_url, self.report_agent_port),
        }
        if agent not in table:
            raise KeyError(f"unknown agent {agent!r}; known: {', '.join(table)}")
        explicit, port = table[agent]
        replicas = self._replica_urls(agent)
        return self._url(explicit or (replicas[0] if replicas else None), port)

    def _replica_urls(self, agent: str) -> list[str]:
        raw = {
            "orchestrator": self.orchestrator_urls,
            "web_research": self.web_agent_urls,
            "internal_rag": self.rag_agent_urls,
            "file_management": self.file_agent_urls,
            "report_writing": self.report_agent_urls,
        }.get(agent)
        return [url.rstrip("/") for url in _split_list(raw or "")]

    def agent_urls(self, agent: str) -> list[str]:
        """Base URLs of every replica of an agent (`*_URLS`); one URL (`agent_url`) when it has none listed."""
        return self._replica_urls(agent) or [self.agent_url(agent)]

    def agent_port(self, agent: str) -> int:
        """Port an agent listens on."""
        return {
            "orchestrator": self.orchestrator_port,
            "web_research": self.web_agent_port,
            "internal_rag": self.rag_agent_port,
            "file_management": self.file_agent_port,
            "report_writing": self.report_agent_port,
        }[agent]

    @property
    def search_gateway_mcp_url(self) -> str:
        """Streamable-HTTP MCP endpoint of the search gateway."""
        return self._url(self.search_gateway_url, self.search_gateway_port) + "/mcp"

    @property
    def embedding_base_url(self) -> str:
        """OpenAI-compatible base URL used for embeddings."""
        if self.embedding_url:
            return self.embedding_url.rstrip("/")
        if self.embedding_provider == "openai":
            return (self.openai_base_url or "https://api.openai.com/v1").rstrip("/")
        return self._url(None, self.embedding_port) + "/v1"

    @property
    def embedding_model_name(self) -> str:
        """Embedding model id (local default: multilingual-e5-small, OpenAI: text-embedding-3-small)."""
        if self.embedding_model:
            return self.embedding_model
        return "text-embedding-3-small" if self.embedding_provider == "openai" else "multilingual-e5-small"

    @property
    def llm_online(self) -> bool:
        """True when a real OpenAI-compatible model is configured; otherwise the offline engine runs."""
        return bool(self.openai_api_key or self.openai_base_url)

    @property
    def max_upload_bytes(self) -> int:
        return int(self.max_upload_mb * 1024 * 1024)

    @property
    def logs_dir(self) -> Path:
        return self.data_dir / "logs"

    @property
    def files_dir(self) -> Path:
        return self.data_dir / "files"

    @property
    def pg_dir(self) -> Path:
        return self.data_dir / "pg"

    def child_env(self) -> dict[str, str]:
        """Environment variables that reproduce these settings in a child process."""
        env: dict[str, str] = {}
        for name, value in self.model_dump().items():
            if value is None:
                continue
            env[name.upper()] = str(value)
        return env


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Settings of this process, read once from the environment and `.env`."""
    return Settings()
