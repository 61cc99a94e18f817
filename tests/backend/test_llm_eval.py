"""`hub eval rag --llm-url`: the same questions asked offline and through a model on the OpenAI wire format
(a scripted local server), on one index, the model's figures beside the offline ones."""

from __future__ import annotations

import json
from pathlib import Path

from ai_llm.common.settings import Settings
from ai_llm.evals.rag.evaluation import run_rag_eval
from tests.conftest import AgentProcesses


async def test_the_eval_reports_the_model_beside_the_offline_figures(tmp_path: Path,
                                                                    backend_procs: AgentProcesses) -> None:
    model = backend_procs.start("openai-stand-in-eval", "tests.backend.servers.openai_stand_in", {}, "/v1/models")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "policy.txt").write_text(
        "Travel policy. Hotel costs are reimbursed up to 120 dollars per night. Employees book economy class "
        "for flights shorter than six hours.", encoding="utf-8")
    qa = tmp_path / "qa.jsonl"
    qa.write_text("\n".join(json.dumps(item) for item in [
        {"id": "q1", "file": "policy.txt", "question": "How much is reimbursed per hotel night?",
         "answer": "120 dollars", "pages": [1]},
        {"id": "q2", "file": "policy.txt", "question": "Which class do employees fly on short flights?",
         "answer": "economy class", "pages": [1]},
    ]), encoding="utf-8")
    base = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    result = await run_rag_eval(base, docs, qa, llm_url=f"{model.url}/v1", llm_model="stand-in")
    online = result["llm"]
    assert online["model"] == "stand-in" and online["base_url"] == f"{model.url}/v1"
    assert online["answered_by_llm"] > 0  # the model's answers were used, not only the offline path's
    assert online["page_recall"] >= result["page_recall"]  # a model adds, never takes away
