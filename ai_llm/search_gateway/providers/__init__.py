"""Search providers: one small port (`SearchProvider`) and its adapters."""

from ai_llm.search_gateway.providers.base import SearchProvider, filter_results

__all__ = ["SearchProvider", "filter_results"]
