"""Agent Hub: an A2A multi-agent hub (orchestrator, web research, document RAG, files, reports)."""

import os

# The a2a-sdk opens an OpenTelemetry span around every method of its traced classes whenever
# `opentelemetry-api` is importable (FastAPI depends on it), even with no tracer configured, so spans go nowhere.
# Off unless a deployment turns it on (`OTEL_INSTRUMENTATION_A2A_SDK_ENABLED=true`, read when a2a is imported).
os.environ.setdefault("OTEL_INSTRUMENTATION_A2A_SDK_ENABLED", "false")
