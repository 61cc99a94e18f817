"""The hub's embedding server: the offline model on the OpenAI `/v1/embeddings` wire format."""
