"""A2A: the server and client adapters over a2a-sdk, the request handler, task store, card route and reply events."""
