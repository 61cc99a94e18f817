"""MCP search tools behind one small interface, whatever server provides them (`results`, `toolset`, `sessions`).

The web agent talks to its tools through `langchain-mcp-adapters`' `MultiServerMCPClient`. The servers are
configuration (`MCP_SERVERS`, langchain-mcp-adapters format); by default the hub's search gateway. Servers
name their tools and shape their results differently, so this module maps what it sees onto three
canonical operations:

* `web_search` — the hub gateway's `web_search`, Tavily's `tavily-search` / `tavily_search`, or any tool
  called `search`;
* `news_search` — the gateway's `news_search`, else the search tool with Tavily's `topic="news"`;
* `fetch_page` — the gateway's `fetch_page`, Tavily's `tavily-extract` / `tavily_extract`, or `fetch`.

Results are normalised to `SearchHit` (`title, url, snippet, source, score, published_at`) inside a
`SearchResponse` carrying the gateway envelope (`provider, cache, branch, latency_ms, cost_usd, notice`),
and pages to `PageContent` (`url, title, text, published_at, error`).

Sessions: `SearchToolset.open(settings)` opens one MCP session per server for the life of a context (tests,
evals, the CLI). A long-lived process (the web agent's A2A server) keeps them instead in a
`SearchToolsetPool`: the sessions and their tools are opened once, shared by concurrent requests (an MCP
`ClientSession` multiplexes requests by id; the streamable-HTTP transport posts each one in its own task), and
replaced when they break — a request never starts on a session known broken, and a call that fails because
its session died (server restarted or gone) is retried once on a new session.
"""

