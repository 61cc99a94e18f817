"""Answers from the live web through the hub's MCP search gateway, with cited sources."""
