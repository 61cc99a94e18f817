"""`fetch_page`: clean main text of a page, from the local corpus or over http(s) with an SSRF guard.

Guard: only http/https; every address the host resolves to (and every redirect hop's) must be public —
private, loopback, link-local, multicast, reserved and unspecified addresses are refused unless
`FETCH_ALLOW_PRIVATE=true`. The check sits in the connection itself: the fetcher resolves each host once,
checks every address, and connects to a checked address (TLS still verifies the host name), so a name that
answers a public address to the check and 127.0.0.1 to the connect (DNS rebinding) cannot reach the private
network. Connections are direct (no proxy from the environment). Body size and total time are capped; the
HTML goes through trafilatura.

`RedirectResolver` reads where a redirect URL points (Gemini's grounding sources are Google redirects) with
one request under the same guard, without following it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx
import trafilatura

from ai_llm.common.a2a.events import gather_within
from ai_llm.search_gateway.providers.local import LocalCorpusProvider

log = logging.getLogger(__name__)

MAX_BYTES = 3 * 1024 * 1024
MAX_REDIRECTS = 5
MAX_TEXT_CHARS = 100_000
USER_AGENT = "AgentHub-SearchGateway/0.1 (+https://github.com/; fetch_page)"


#: `(host, port) -> addresses`: how the fetcher resolves names (tests inject one; default: the system's).
Resolver = Callable[[str, int], Awaitable[list[str]]]


class FetchRefused(ValueError):
    """The URL is not allowed (scheme, private address, …)."""


@dataclass
class FetchedPage:
    url: str
    title: str | None = None
    text: str = ""
    published_at: str | None = None
    error: str | None = None
    source: str = "web"  # "corpus" when served from the local corpus

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _address_refused(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast or ip.is_reserved
            or ip.is_unspecified or not ip.is_global)


def check_url(url: str) -> None:
    """Raise `FetchRefused` unless `url` is http(s) with a host (addresses are checked when connecting)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise FetchRefused(f"only http and https URLs can be fetched, not {parts.scheme or 'a bare path'!r}")
    if not parts.hostname:
        raise FetchRefused("the URL has no host")


async def system_resolve(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (the system resolver), in its order, without repeats."""
    infos = await asyncio.to_thread(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def vetted_addresses(host: str, port: int, resolve: Resolver, allow_private: bool) -> list[str]:
    """Resolve `host` once; raise `FetchRefused` if any address is non-public (unless allowed)."""
    try:
        addresses = await resolve(host, port)
    except OSError as exc:  # socket.gaierror included
        raise FetchRefused(f"cannot resolve host {host!r}: {exc.strerror or exc}") from exc
    if not addresses:
        raise FetchRefused(f"cannot resolve host {host!r}: no address")
    if not allow_private:
        for address in addresses:
            if _address_refused(address):
                raise FetchRefused(
                    f"{host} resolves to the non-public address {address}; refused (set "
                    "FETCH_ALLOW_PRIVATE=true to allow private, loopback and link-local addresses)")
    return addresses


class VettingNetworkBackend(httpcore.AsyncNetworkBackend):
    """httpcore network backend that connects only to addresses `vetted_addresses` passed.

    The host is resolved here, once per connection, and the socket is opened to one of the checked
    addresses, so no second lookup can answer differently. TLS is started by httpcore afterwards with the
    URL's host name (SNI and certificate check unchanged).
    """

    def __init__(self, resolve: Resolver, allow_private: bool) -> None:
        self.resolve = resolve
        self.allow_private = allow_private
        self._inner = httpcore.AnyIOBackend()

    # The `timeout` parameters are httpcore's interface, not ours to replace with asyncio.timeout.
    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,  # noqa: ASYNC109
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        addresses = await vetted_addresses(host, port, self.resolve, self.allow_private)
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(address, port, timeout=timeout, local_address=local_address,
                                                     socket_options=socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(self, path: str, timeout: float | None = None,  # noqa: ASYNC109
                                  socket_options: Iterable[Any] | None = None) -> httpcore.AsyncNetworkStream:
        raise FetchRefused("unix sockets are not fetched")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class VettingTransport(httpx.AsyncHTTPTransport):
    """httpx transport whose connections go through `VettingNetworkBackend`."""

    def __init__(self, resolve: Resolver, allow_private: bool) -> None:
        super().__init__()
        # httpx has no network-backend option; its connection pool is rebuilt with ours (defaults otherwise).
        self._pool = httpcore.AsyncConnectionPool(ssl_context=httpx.create_ssl_context(),
                                                  network_backend=VettingNetworkBackend(resolve, allow_private))


def extract(html: str, url: str) -> tuple[str | None, str, str | None]:
    """(title, main text, published date) of an HTML page via trafilatura."""
    doc = trafilatura.bare_extraction(html, url=url, with_metadata=True, include_comments=False,
                                      include_tables=True, as_dict=True)
    if not doc:
        return None, "", None
    data: dict[str, Any] = doc if isinstance(doc, dict) else dict(doc)  # type: ignore[call-overload]
    text = (data.get("text") or "")[:MAX_TEXT_CHARS]
    return data.get("title"), text, data.get("date")


class PageFetcher:
    """Fetches pages: local corpus first (exact URL), else the web under the guard and limits.

    Args:
        corpus: the local provider whose pages are served by URL, if configured.
        allow_private: allow private/loopback/link-local targets (tests, intranets).
        timeout_s: total time per fetch, redirects included.
        max_bytes: body size cap.
        resolve: the name resolver (default: the system's); every connection uses its checked answer.
    """

    def __init__(self, corpus: LocalCorpusProvider | None = None, allow_private: bool = False,
                 timeout_s: float = 15.0, max_bytes: int = MAX_BYTES, resolve: Resolver | None = None) -> None:
        self.corpus = corpus
        self.allow_private = allow_private
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.resolve = resolve or system_resolve

    async def fetch(self, url: str) -> FetchedPage:
        url = (url or "").strip()
        if not url:
            return FetchedPage(url=url, error="empty URL")
        if self.corpus is not None:
            page = self.corpus.page(url)
            if page is not None:
                return FetchedPage(url=page.url, title=page.title, text=page.content,
                                   published_at=page.published_at, source="corpus")
        try:
            return await asyncio.wait_for(self._fetch_web(url), self.timeout_s)
        except FetchRefused as exc:
            return FetchedPage(url=url, error=f"refused: {exc}")
        except TimeoutError:
            return FetchedPage(url=url, error=f"timed out after {self.timeout_s:g}s")
        except httpx.HTTPError as exc:
            return FetchedPage(url=url, error=f"unreachable: {type(exc).__name__}: {exc}")

    async def _fetch_web(self, url: str) -> FetchedPage:
        started = time.perf_counter()
        # trust_env=False: a proxy from the environment would make the proxy, not us, resolve the name.
        async with httpx.AsyncClient(transport=VettingTransport(self.resolve, self.allow_private),
                                     follow_redirects=False, headers={"User-Agent": USER_AGENT},
                                     timeout=self.timeout_s, trust_env=False) as client:
            current = url
            for _ in range(MAX_REDIRECTS + 1):
                # Each hop is checked (its connection too): a public page must not redirect us into the
                # private network.
                check_url(current)
                async with client.stream("GET", current) as response:
                    if response.is_redirect and response.headers.get("location"):
                        current = urljoin(current, response.headers["location"])
                        continue
                    if response.status_code >= 400:
                        return FetchedPage(url=current, error=f"HTTP {response.status_code}")
                    ctype = response.headers.get("content-type", "")
                    body = bytearray()
                    async for chunk in response.aiter_bytes():
                        body.extend(chunk)
                        if len(body) > self.max_bytes:
                            return FetchedPage(url=current, error=f"page larger than {self.max_bytes} bytes")
                    charset = response.charset_encoding or "utf-8"
                    raw = body.decode(charset, errors="replace")
                    break
            else:
                return FetchedPage(url=current, error=f"more than {MAX_REDIRECTS} redirects")
        if "html" not in ctype and "xml" not in ctype:
            if ctype.startswith("text/"):
                return FetchedPage(url=current, text=raw[:MAX_TEXT_CHARS])
            return FetchedPage(url=current, error=f"unsupported content type {ctype or 'unknown'}")
        remaining = self.timeout_s - (time.perf_counter() - started)
        title, text, date = await asyncio.wait_for(asyncio.to_thread(extract, raw, current),
                                                   max(remaining, 1.0))
        if not text:
            return FetchedPage(url=current, title=title, published_at=date, error="no main text found")
        return FetchedPage(url=current, title=title, text=text, published_at=date)


class RedirectResolver:
    """Where redirect URLs point, each read with one request that is not followed (its `Location`).

    Args:
        allow_private: allow private/loopback/link-local redirect hosts (`FETCH_ALLOW_PRIVATE`).
        timeout_s: the most one `targets` call waits for all its URLs together.
        resolve: the name resolver (default: the system's).
    """

    def __init__(self, allow_private: bool = False, timeout_s: float = 3.0, resolve: Resolver | None = None) -> None:
        self.allow_private = allow_private
        self.timeout_s = timeout_s
        self.resolve = resolve or system_resolve

    async def targets(self, urls: list[str]) -> dict[str, str]:
        """`url -> where it redirects` for the URLs whose one request answered a redirect to an http(s) URL
        within `timeout_s`; a URL that answered anything else, failed, was refused or was late is left out."""
        unique = list(dict.fromkeys(urls))
        if not unique:
            return {}
        async with httpx.AsyncClient(transport=VettingTransport(self.resolve, self.allow_private),
                                     follow_redirects=False, headers={"User-Agent": USER_AGENT},
                                     timeout=self.timeout_s, trust_env=False) as client:
            found = await gather_within({url: self._target(client, url) for url in unique}, self.timeout_s)
        out = {}
        for url, target in found.items():
            if isinstance(target, str) and target:
                out[url] = target
            elif isinstance(target, BaseException):
                log.debug("redirect of %s not resolved: %s", url, target)
        return out

    @staticmethod
    async def _target(client: httpx.AsyncClient, url: str) -> str:
        """The http(s) URL `url` redirects to, or "" (the body is never read)."""
        check_url(url)
        async with client.stream("GET", url) as response:
            location = response.headers.get("location")
            if not response.is_redirect or not location:
                return ""
        target = urljoin(url, location.strip())
        return target if urlsplit(target).scheme in ("http", "https") and urlsplit(target).hostname else ""
