"""Uploads, lists, reads, renames and deletes documents in the hub's store, keeping the RAG index in step."""
