-- Search gateway: shared result cache (exact + semantic) and per-request telemetry.
-- One cache row per (provider partition, search kind, parameters, normalised query): entries of different
-- providers never overwrite each other. No ANN index on purpose: semantic lookups filter by partition and
-- parameters first, and an exact scan over those rows is both correct and fast at cache sizes.
CREATE TABLE IF NOT EXISTS search_cache (
    partition   text NOT NULL,
    provider    text NOT NULL,
    kind        text NOT NULL,
    params_key  text NOT NULL,
    query_norm  text NOT NULL,
    query       text NOT NULL,
    embedding   vector({{EMBEDDING_DIM}}),
    response    jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    hits        integer NOT NULL DEFAULT 0,
    PRIMARY KEY (partition, kind, params_key, query_norm)
);
CREATE INDEX IF NOT EXISTS search_cache_expires_idx ON search_cache (expires_at);

CREATE TABLE IF NOT EXISTS search_telemetry (
    id          bigserial PRIMARY KEY,
    created_at  timestamptz NOT NULL DEFAULT now(),
    agent       text,
    tool        text NOT NULL,
    query       text NOT NULL,
    provider    text,
    cache       text NOT NULL,
    branch      integer NOT NULL DEFAULT 0,
    depth       integer NOT NULL DEFAULT 0,
    latency_ms  double precision NOT NULL,
    cost_usd    double precision NOT NULL DEFAULT 0,
    results     integer NOT NULL DEFAULT 0,
    error       text
);
CREATE INDEX IF NOT EXISTS search_telemetry_time_idx ON search_telemetry (created_at);
CREATE INDEX IF NOT EXISTS search_telemetry_provider_idx ON search_telemetry (provider, created_at);
