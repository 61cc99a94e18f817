"""Writes reports (Markdown, DOCX) from earlier steps' results, citing their sources."""
