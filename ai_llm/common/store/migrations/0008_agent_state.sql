-- State of the A2A agents, shared by every replica of an agent and kept across restarts.

-- A2A tasks: the table of the a2a-sdk's DatabaseTaskStore (the columns of its `TaskMixin` model, here named
-- `a2a_tasks`). Created by this migration, not by the SDK at run time. `id` and `context_id` are `text` (the
-- SDK's model says VARCHAR(36), which only its own DDL would enforce): a client may send any context id.
CREATE TABLE IF NOT EXISTS a2a_tasks (
    id                text PRIMARY KEY,
    context_id        text NOT NULL,
    kind              varchar(16) NOT NULL DEFAULT 'task',
    owner             varchar(255),
    last_updated      timestamp without time zone,
    status            json NOT NULL,
    artifacts         json,
    history           json,
    protocol_version  varchar(16),
    metadata          json
);
CREATE INDEX IF NOT EXISTS idx_a2a_tasks_owner_last_updated ON a2a_tasks (owner, last_updated);
CREATE INDEX IF NOT EXISTS a2a_tasks_context_idx ON a2a_tasks (context_id);

-- Per-conversation history of each agent (`context_id` of A2A): the turns a handler sees as
-- `AgentRequest.history`. Several agents may share one context id (the orchestrator forwards its own),
-- so rows are keyed by agent too.
CREATE TABLE IF NOT EXISTS agent_history (
    id          bigserial PRIMARY KEY,
    agent       text NOT NULL,
    context_id  text NOT NULL,
    role        text NOT NULL CHECK (role IN ('user', 'agent')),
    text        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS agent_history_context_idx ON agent_history (agent, context_id, id);
CREATE INDEX IF NOT EXISTS agent_history_created_idx ON agent_history (created_at);

-- Small per-conversation values of an agent (the orchestrator's remembered last answer, the file agent's
-- pending multi-file delete awaiting "yes"), with an optional expiry.
CREATE TABLE IF NOT EXISTS agent_conversation_state (
    agent       text NOT NULL,
    context_id  text NOT NULL,
    key         text NOT NULL,
    value       jsonb NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz,
    PRIMARY KEY (agent, context_id, key)
);
CREATE INDEX IF NOT EXISTS agent_conversation_state_expiry_idx ON agent_conversation_state (expires_at);
