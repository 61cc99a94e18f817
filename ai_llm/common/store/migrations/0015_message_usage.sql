-- What an answer cost (model calls and tokens, searches and their spend: `ai_llm.common.usage`), kept with
-- the turn for the person beside the answer and for the administrators' audit of who asked what.
ALTER TABLE messages ADD COLUMN IF NOT EXISTS usage jsonb NOT NULL DEFAULT '{}';
