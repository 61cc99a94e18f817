"""Gateway configuration: chain resolution (offline default), keyless providers skipped, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_llm.common.settings import Settings
from ai_llm.search_gateway.config import ConfigError, load_config, resolve_chain
from ai_llm.search_gateway.gateway import SearchGateway


def _settings(tmp_path: Path, **kw: object) -> Settings:
    return Settings(data_dir=tmp_path, _env_file=None, **kw)  # type: ignore[call-arg]


def test_auto_chain_is_local_when_a_corpus_is_configured(tmp_path: Path, corpus: Path) -> None:
    config = load_config(None)
    assert resolve_chain(config, _settings(tmp_path, local_corpus=corpus), "web") == ["local"]
    assert resolve_chain(config, _settings(tmp_path, local_corpus=corpus, tavily_api_key="k"), "news") == ["local"]


def test_auto_chain_online(tmp_path: Path) -> None:
    config = load_config(None)
    assert resolve_chain(config, _settings(tmp_path), "web") == ["duckduckgo"]
    assert resolve_chain(config, _settings(tmp_path, tavily_api_key="k"), "web") == ["tavily", "duckduckgo"]


def test_providers_without_key_are_skipped(tmp_path: Path, corpus: Path) -> None:
    path = tmp_path / "cfg.yaml"
    path.write_text("chain: [serper, exa, local]\n", encoding="utf-8")
    gateway = SearchGateway.create(_settings(tmp_path, local_corpus=corpus, exa_api_key="k"), load_config(path))
    assert gateway.chains["web"] == ["exa", "local"]
    assert "SERPER_API_KEY" in gateway.skipped["serper"]


def test_unknown_provider_in_chain_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "cfg.yaml"
    path.write_text("# policy\ncache: {enabled: false}\nchain:\n  - local\n  - bingo\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"cfg\.yaml:5: unknown provider 'bingo'.*known providers: .*duckduckgo"):
        load_config(path)


def test_unknown_provider_section_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "cfg.yaml"
    path.write_text("chain: auto\nproviders:\n  local: {timeout_s: 3}\n  yahooo: {timeout_s: 3}\n",
                    encoding="utf-8")
    with pytest.raises(ConfigError, match=r"cfg\.yaml:4: unknown provider 'yahooo'"):
        load_config(path)


def test_invalid_yaml_and_bad_values(tmp_path: Path) -> None:
    path = tmp_path / "cfg.yaml"
    path.write_text("chain: [local\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"cfg\.yaml:\d+: invalid YAML"):
        load_config(path)
    path.write_text("providers:\n  local: {timeout_s: soon}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"cfg\.yaml:2: timeout_s must be a number"):
        load_config(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")


def test_adding_a_provider_is_a_yaml_file(tmp_path: Path, corpus: Path) -> None:
    adapters = tmp_path / "adapters"
    adapters.mkdir()
    (adapters / "mysearch.yaml").write_text(
        "name: mysearch\nendpoint: https://search.example/api\nmethod: GET\nparams: {q: '{query}'}\n"
        "response: {results: hits, url: link, title: name}\n", encoding="utf-8")
    path = tmp_path / "cfg.yaml"
    path.write_text("adapters_dir: adapters\nchain: [mysearch, local]\n", encoding="utf-8")
    gateway = SearchGateway.create(_settings(tmp_path, local_corpus=corpus), load_config(path))
    assert gateway.chains["web"] == ["mysearch", "local"]


def test_shipped_adapters_load() -> None:
    config = load_config(None)
    assert {"serper", "exa", "firecrawl", "brightdata"} <= set(config.adapters)
