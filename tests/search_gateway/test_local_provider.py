"""The local provider: BM25 ranking over a JSONL corpus, 0–1 scores that separate matches from nonsense."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ai_llm.search_gateway.models import SearchRequest
from ai_llm.search_gateway.providers.local import CorpusError, LocalCorpusProvider
from tests.search_gateway.conftest import write_corpus


async def test_ranks_the_matching_page_first_with_a_high_score(corpus: Path) -> None:
    provider = LocalCorpusProvider(corpus)
    results = await provider.search(SearchRequest(query="Seoul subway passengers per day"))
    assert results[0].url == "https://example.org/seoul-subway"
    assert results[0].score > 0.5
    assert results[0].source == "example.org"
    assert "passengers" in results[0].snippet
    assert all(results[i].score >= results[i + 1].score for i in range(len(results) - 1))


async def test_korean_query_finds_korean_page(corpus: Path) -> None:
    provider = LocalCorpusProvider(corpus)
    results = await provider.search(SearchRequest(query="세종대왕이 만든 한글"))
    assert results[0].url == "https://example.kr/hangul"
    assert results[0].score > 0.5


@pytest.mark.parametrize("query", ["purple elephant quantum banana", "best pizza recipe with pineapple Seoul",
                                   "xyzzy frobnicate"])
async def test_unrelated_queries_score_below_half(corpus: Path, query: str) -> None:
    provider = LocalCorpusProvider(corpus)
    results = await provider.search(SearchRequest(query=query))
    assert all(r.score < 0.5 for r in results), [(r.title, r.score) for r in results]


async def test_nonsense_scores_below_good_match_on_hotpotqa_sized_vocabulary(tmp_path: Path) -> None:
    # Many pages sharing common words: a stray common-word match must not lift a nonsense query over 0.5.
    pages = [{"url": f"https://w.example/{i}", "title": f"Film number {i}",
              "content": f"Film {i} is an American drama film directed by person {i} and released in {1950 + i}."}
             for i in range(200)]
    pages.append({"url": "https://w.example/temple", "title": "Shirley Temple",
                  "content": "Shirley Temple was an American actress who later served as ambassador to Ghana."})
    provider = LocalCorpusProvider(write_corpus(tmp_path / "c.jsonl", pages))
    good = await provider.search(SearchRequest(query="Which actress served as ambassador to Ghana?"))
    bad = await provider.search(SearchRequest(query="American film about zorblax quintessence"))
    assert good[0].url == "https://w.example/temple" and good[0].score > 0.5
    assert bad and max(r.score for r in bad) < 0.5


async def test_domain_filters_still_fill_the_count_and_only_returned_pages_get_a_snippet(tmp_path: Path) -> None:
    pages = [{"url": f"https://{'blocked' if i < 6 else 'open'}.example/{i}", "title": f"Harbour report {i}",
              "content": f"Harbour report {i}. The harbour moved {i} million containers. Weather was calm."}
             for i in range(20)]
    provider = LocalCorpusProvider(write_corpus(tmp_path / "c.jsonl", pages))
    request = SearchRequest(query="harbour containers report", max_results=4, exclude_domains=("blocked.example",))
    results = await provider.search(request)
    assert len(results) == 4 and all(r.source == "open.example" for r in results)
    assert all("containers" in r.snippet for r in results)
    # The snippet is the costly part (a page's sentences are split on first use): pages not returned have none.
    returned = {r.url for r in results}
    assert all((page._sentences is not None) == (page.url in returned) for page in provider.pages)
    only = await provider.search(SearchRequest(query="harbour containers report", max_results=3,
                                               include_domains=("blocked.example",)))
    assert len(only) == 3 and all(r.source == "blocked.example" for r in only)


async def test_time_range_drops_old_dated_pages(corpus: Path) -> None:
    provider = LocalCorpusProvider(corpus)
    everything = await provider.search(SearchRequest(query="Port of Busan container cargo"))
    recent = await provider.search(SearchRequest(query="Port of Busan container cargo", time_range="year"))
    assert "https://example.org/busan-port" in {r.url for r in everything}
    assert "https://example.org/busan-port" not in {r.url for r in recent}


def test_page_lookup_by_url(corpus: Path) -> None:
    provider = LocalCorpusProvider(corpus)
    assert provider.page("https://example.org/kimchi") is not None
    assert provider.page("https://example.org/kimchi/") is not None
    assert provider.page("https://example.org/nothing") is None


def test_bad_corpus_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"url": "https://a.example", "content": "x"}) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad\.jsonl:2"):
        LocalCorpusProvider(path)


def test_corpus_line_without_url_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nourl.jsonl"
    path.write_text(json.dumps({"title": "t", "content": "x"}) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"nourl\.jsonl:1: .*'url'"):
        LocalCorpusProvider(path)


def test_missing_corpus_file(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="does not exist"):
        LocalCorpusProvider(tmp_path / "absent.jsonl")


def test_partition_differs_between_corpora(tmp_path: Path) -> None:
    a = LocalCorpusProvider(write_corpus(tmp_path / "a.jsonl"))
    b = LocalCorpusProvider(write_corpus(tmp_path / "b.jsonl"))
    assert a.partition != b.partition and a.partition.startswith("local:")
