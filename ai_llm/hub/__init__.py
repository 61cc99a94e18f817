"""The hub as a whole: the launcher and its supervision, process helpers, the local model server and the `hub` CLI."""
