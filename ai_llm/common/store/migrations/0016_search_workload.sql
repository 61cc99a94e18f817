-- The search gateway records which workload a search served (`research`, `latest`, … as the caller named it;
-- NULL when it named none) and the model tokens a native search provider billed, for spend per workload.
ALTER TABLE search_telemetry ADD COLUMN IF NOT EXISTS workload text,
    ADD COLUMN IF NOT EXISTS tokens integer NOT NULL DEFAULT 0;
