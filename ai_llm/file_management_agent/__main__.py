"""`python -m ai_llm.file_management_agent`: serve the file_management agent over A2A."""

from ai_llm.common.runtime import run_agent
from ai_llm.file_management_agent.agent_server import create_app

if __name__ == "__main__":
    run_agent("file_management", create_app)
