"""`python -m ai_llm.orchestrator_agent`: serve the orchestrator agent over A2A."""

from ai_llm.common.runtime import run_agent
from ai_llm.orchestrator_agent.agent_server import create_app

if __name__ == "__main__":
    run_agent("orchestrator", create_app)
