"""Training and measuring the RAG agent's reader model (`hub train reader`; docs/models/reader.md)."""
