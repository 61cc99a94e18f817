"""Searches the team's internal documents (PDF, text, markdown, docx) and answers with page-cited sources."""
