"""Fixtures of the search-gateway tests: a small bilingual corpus, a two-question HotpotQA file, a local HTTP
server that speaks the documented wire formats of remote search APIs (Serper, Exa, Firecrawl, Bright Data,
Tavily), which are unreachable from here, and a `hub` app with one area's commands."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import typer

from ai_llm.common.settings import Settings
from tests.dates import days_ago

PAGES = [
    {"url": "https://example.org/seoul-subway", "title": "Seoul Metropolitan Subway",
     "content": "The Seoul Metropolitan Subway is a metropolitan railway system serving Seoul and its suburbs. "
                "It carries over seven million passengers a day on 23 lines.", "published_at": days_ago(10)},
    {"url": "https://example.org/busan-port", "title": "Port of Busan",
     "content": "The Port of Busan is the largest port in South Korea, handling container cargo for shipping "
                "lines across the Pacific.", "published_at": "2019-05-01"},
    {"url": "https://example.org/kimchi", "title": "Kimchi",
     "content": "Kimchi is a traditional Korean side dish of salted and fermented vegetables such as napa "
                "cabbage and radish, seasoned with chili powder and garlic."},
    {"url": "https://example.kr/hangul", "title": "한글의 역사",
     "content": "한글은 1443년 세종대왕이 창제한 문자이다. 훈민정음이라는 이름으로 1446년에 반포되었다."},
    {"url": "https://example.kr/ktx", "title": "고속철도 KTX",
     "content": "KTX는 대한민국의 고속철도로 2004년에 개통하였다. 서울과 부산을 약 2시간 30분에 연결한다."},
    {"url": "https://news.example.com/chip-exports", "title": "Semiconductor exports rise",
     "content": "South Korean semiconductor exports rose sharply in November as memory chip prices recovered.",
     "published_at": days_ago(2)},
]


def write_corpus(path: Path, pages: list[dict[str, Any]] | None = None) -> Path:
    path.write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in (pages or PAGES)) + "\n",
                    encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus.jsonl")


HOTPOT_ROWS: list[dict[str, Any]] = [
    {"id": "1", "question": "Which actress who starred in the film Kiss and Tell became ambassador to Ghana?",
     "answer": "Shirley Temple", "supporting_facts": [["Kiss and Tell (1945 film)", 0], ["Shirley Temple", 1]],
     "context": [["Kiss and Tell (1945 film)", ["Kiss and Tell is a 1945 film starring Shirley Temple", " as Corliss."]],
                 ["Shirley Temple", ["Shirley Temple was an actress.", " She was ambassador to Ghana."]],
                 ["Busan", ["Busan is a port city in Korea."]]]},
    {"id": "2", "question": "What port city in Korea hosts the Busan International Film Festival?",
     "answer": "Busan", "supporting_facts": [["Busan", 0], ["Busan International Film Festival", 0]],
     "context": [["Busan", ["Busan is a port city in Korea."]],
                 ["Busan International Film Festival", ["The Busan International Film Festival is held in Busan."]],
                 ["AT&amp;T", ["AT&T is a telecom company."]]]},
]


def write_hotpot(path: Path) -> Path:
    """HOTPOT_ROWS as a HotpotQA JSONL file."""
    path.write_text("\n".join(json.dumps(r) for r in HOTPOT_ROWS) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def hotpot(tmp_path: Path) -> Path:
    return write_hotpot(tmp_path / "hotpot.jsonl")


def hub_app(register: Callable[[typer.Typer, typer.Typer, typer.Typer, typer.Typer], None]) -> typer.Typer:
    """A `hub` app (with its `eval`, `bench` and `search` groups) holding the commands `register` adds."""
    app, eval_app, bench_app, search_app = (typer.Typer() for _ in range(4))
    app.add_typer(eval_app, name="eval")
    app.add_typer(bench_app, name="bench")
    app.add_typer(search_app, name="search")
    register(app, eval_app, bench_app, search_app)
    return app


@pytest.fixture
def offline_settings(tmp_path: Path, corpus: Path) -> Settings:
    """Settings with the corpus and no database (pure in-process tests)."""
    return Settings(local_corpus=corpus, data_dir=tmp_path / "data", _env_file=None)  # type: ignore[call-arg]


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeAPI:
    """Local HTTP server; `routes[path] = handler(recorded) -> (status, body, content_type)`."""

    url: str
    routes: dict[str, Callable[[Recorded], tuple[int, Any, str]]] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)

    def json_route(self, path: str, body: Any, status: int = 200, delay_s: float = 0.0) -> None:
        def handler(_: Recorded) -> tuple[int, Any, str]:
            if delay_s:
                time.sleep(delay_s)
            return status, body, "application/json"
        self.routes[path] = handler

    def raw_route(self, path: str, body: str, content_type: str = "text/html; charset=utf-8",
                  status: int = 200, headers: dict[str, str] | None = None) -> None:
        def handler(_: Recorded) -> tuple[int, Any, str]:
            return status, body, content_type
        self.routes[path] = handler
        if headers:
            self.extra_headers[path] = headers

    extra_headers: dict[str, dict[str, str]] = field(default_factory=dict)

    def last(self, path: str) -> Recorded:
        return [r for r in self.requests if r.path.split("?")[0] == path][-1]


@pytest.fixture
def fake_api() -> Iterator[FakeAPI]:
    api = FakeAPI(url="")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except json.JSONDecodeError:
                body = raw.decode("utf-8", "replace")
            rec = Recorded(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            api.requests.append(rec)
            handler = api.routes.get(self.path.split("?")[0])
            if handler is None:
                status, payload, ctype = 404, {"error": "no route"}, "application/json"
            else:
                status, payload, ctype = handler(rec)
            data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(data)))
            for key, value in api.extra_headers.get(self.path.split("?")[0], {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = _serve
        do_POST = _serve

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield api
    server.shutdown()
    server.server_close()
