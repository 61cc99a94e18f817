"""`python -m ai_llm.report_writing_agent`: serve the report_writing agent over A2A."""

from ai_llm.common.runtime import run_agent
from ai_llm.report_writing_agent.agent_server import create_app

if __name__ == "__main__":
    run_agent("report_writing", create_app)
