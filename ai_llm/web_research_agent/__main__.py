"""`python -m ai_llm.web_research_agent`: serve the web_research agent over A2A."""

from ai_llm.common.runtime import run_agent
from ai_llm.web_research_agent.agent_server import create_app

if __name__ == "__main__":
    run_agent("web_research", create_app)
