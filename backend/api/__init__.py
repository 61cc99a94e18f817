"""The backend's HTTP API (FastAPI): chat over SSE, files, search telemetry, health, login."""
