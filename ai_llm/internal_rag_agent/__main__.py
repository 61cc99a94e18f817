"""`python -m ai_llm.internal_rag_agent`: serve the internal_rag agent over A2A."""

from ai_llm.common.runtime import run_agent
from ai_llm.internal_rag_agent.agent_server import create_app

if __name__ == "__main__":
    run_agent("internal_rag", create_app)
