"""Settings validation: unsafe combinations are refused with a clear message."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from ai_llm.common.settings import Settings, UnsafeConfigurationError


def make(**overrides: object) -> Settings:
    return Settings(_env_file=None, **overrides)  # type: ignore[arg-type]


def test_defaults_are_loopback_and_offline() -> None:
    s = make()
    assert s.hub_host == "127.0.0.1"
    assert not s.llm_online
    assert s.embedding_model_name == "multilingual-e5-small"
    assert make(embedding_provider="openai", openai_api_key="k").embedding_model_name == "text-embedding-3-small"
    assert s.embedding_base_url == "http://127.0.0.1:10016/v1"
    assert s.agent_url("internal_rag") == "http://127.0.0.1:10012"
    assert s.search_gateway_mcp_url == "http://127.0.0.1:10015/mcp"


def test_public_bind_without_token_is_refused() -> None:
    with pytest.raises(UnsafeConfigurationError, match="HUB_TOKEN"):
        make(hub_host="0.0.0.0")


def test_public_bind_with_token_is_allowed_and_agents_resolve_to_loopback() -> None:
    s = make(hub_host="0.0.0.0", hub_token="t" * 20)
    assert s.agent_url("orchestrator") == "http://127.0.0.1:10010"


def test_short_token_is_refused() -> None:
    with pytest.raises(ValidationError, match="at least 16"):
        make(hub_token="short")


def test_supabase_url_needs_key() -> None:
    with pytest.raises(UnsafeConfigurationError, match="SUPABASE_KEY"):
        make(supabase_url="https://x.supabase.co")


def test_openai_embeddings_need_a_key_or_base_url() -> None:
    with pytest.raises(UnsafeConfigurationError, match="EMBEDDING_PROVIDER=openai"):
        make(embedding_provider="openai")
    s = make(embedding_provider="openai", openai_api_key="sk-test")
    assert s.embedding_model_name == "text-embedding-3-small"
    assert s.embedding_base_url == "https://api.openai.com/v1"


def test_empty_strings_from_env_file_mean_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    monkeypatch.setenv("HUB_TOKEN", "  ")
    s = make()
    assert s.openai_api_key is None and s.hub_token is None and not s.llm_online


def test_env_variables_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_AGENT_PORT", "12345")
    monkeypatch.setenv("UI_LANGUAGE", "en")
    s = make()
    assert s.agent_url("internal_rag").endswith(":12345") and s.ui_language == "en"


def test_invalid_values_are_refused() -> None:
    with pytest.raises(ValidationError):
        make(relevance_threshold=1.5)
    with pytest.raises(ValidationError, match="MCP_SERVERS"):
        make(mcp_servers="{not json")
    with pytest.raises(ValidationError):
        make(ui_language="fr")
    with pytest.raises(KeyError, match="unknown agent"):
        make().agent_url("nope")


def test_child_env_round_trips() -> None:
    s = make(rag_agent_port=1111, openai_base_url="http://127.0.0.1:9/v1")
    env = s.child_env()
    assert env["RAG_AGENT_PORT"] == "1111" and env["OPENAI_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert "HUB_TOKEN" not in env


def test_every_setting_is_documented_in_env_example_and_nothing_else_is() -> None:
    from ai_llm.common.settings import PROJECT_ROOT

    documented = set()
    for line in (PROJECT_ROOT / ".env.example").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            documented.add(line.split("=", 1)[0].strip())
    fields = {name.upper() for name in Settings.model_fields}
    assert fields - documented == set(), "settings missing from .env.example"
    assert documented - fields == set(), ".env.example names variables Settings does not read"
