"""The hub's search gateway: one MCP server over swappable web-search providers."""
