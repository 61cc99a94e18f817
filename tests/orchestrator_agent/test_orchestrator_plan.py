"""Plan validation/repair, topological layers, the offline classifier and the LLM planner's repair loop."""

from __future__ import annotations

import pytest

from ai_llm.common.llm import LLMError, LocalEngine
from ai_llm.orchestrator_agent.plan import MAX_STEPS, IntentPlan, PlanStep, topological_layers, validate_plan
from ai_llm.orchestrator_agent.planner import (
    OFFLINE_MARGIN,
    IntentDecision,
    OfflineClassifier,
    Planner,
    planner_system_prompt,
)
from ai_llm.orchestrator_agent.registry import AgentInfo, AgentRegistry
from ai_llm.orchestrator_agent.synthesis import dedupe_sources
from tests.orchestrator_agent.conftest import FILE_SOURCE, WEB_SOURCE
from tests.orchestrator_agent.helpers import ScriptedLLM

KNOWN = ["internal_rag", "web_research", "file_management", "report_writing"]


def step(agent: str, deps: list[int] | None = None, instruction: str = "do it") -> PlanStep:
    return PlanStep(agent=agent, instruction=instruction, depends_on=deps or [])


def test_unknown_agent_is_dropped_and_edges_remapped() -> None:
    plan = IntentPlan(intent="HYBRID", steps=[step("internal_rag"), step("ghost"), step("web_research"),
                                              step("report_writing", [0, 1, 2])])
    check = validate_plan(plan, KNOWN)
    assert [s.agent for s in check.plan.steps] == ["internal_rag", "web_research", "report_writing"]
    assert check.plan.steps[2].depends_on == [0, 1]  # old index 2 (web) is now 1; the ghost edge is gone
    assert any("unknown agent 'ghost'" in n for n in check.notes)
    assert any("dropped step 1" in n for n in check.notes)
    assert check.executable and not check.valid


def test_cycles_self_edges_and_out_of_range_are_removed() -> None:
    plan = IntentPlan(intent="HYBRID", steps=[step("internal_rag", [1]), step("web_research", [0]),
                                              step("report_writing", [2, 7, -1])])
    check = validate_plan(plan, KNOWN)
    deps = [s.depends_on for s in check.plan.steps]
    assert deps[2] == []
    assert sum(len(d) for d in deps[:2]) == 1  # one of the two edges of the 0<->1 cycle survives
    layers = topological_layers(check.plan)  # would raise on a cycle
    assert sorted(i for layer in layers for i in layer) == [0, 1, 2]
    assert any("self-dependency" in n for n in check.notes)
    assert any("out of range" in n for n in check.notes)
    assert any("cycle" in n for n in check.notes)


def test_chain_of_any_depth_gives_one_layer_per_link() -> None:
    plan = IntentPlan(intent="HYBRID", steps=[step("internal_rag"), step("web_research", [0]),
                                              step("report_writing", [1]), step("file_management", [2]),
                                              step("web_research")])
    check = validate_plan(plan, KNOWN)
    assert check.valid
    assert topological_layers(check.plan) == [[0, 4], [1], [2], [3]]


def test_direct_plan_runs_no_agent_and_empty_plan_is_not_executable() -> None:
    direct = validate_plan(IntentPlan(intent="DIRECT", steps=[step("internal_rag")]), KNOWN)
    assert direct.plan.steps == [] and direct.executable and direct.notes
    empty = validate_plan(IntentPlan(intent="WEB_SEARCH", steps=[step("nobody")]), KNOWN)
    assert not empty.executable


def test_long_plan_is_cut_and_empty_instruction_filled() -> None:
    plan = IntentPlan(intent="HYBRID", steps=[step("web_research", instruction=" ")] * (MAX_STEPS + 3))
    check = validate_plan(plan, KNOWN, fallback_instruction="the request")
    assert len(check.plan.steps) == MAX_STEPS
    assert all(s.instruction == "the request" for s in check.plan.steps)


def test_sources_are_deduplicated_keeping_ui_fields() -> None:
    merged = dedupe_sources([FILE_SOURCE, dict(FILE_SOURCE, score=0.99), WEB_SOURCE,
                             dict(WEB_SOURCE, url=WEB_SOURCE["url"] + "/"), dict(FILE_SOURCE, pages=[9])])
    assert len(merged) == 3
    file_source = merged[0]
    assert file_source["score"] == 0.99
    for key in ("file_id", "pages", "page_label", "file_url"):
        assert file_source[key] == FILE_SOURCE[key] or key == "score"
    assert merged[1]["url"] == WEB_SOURCE["url"] and merged[1]["title"] == WEB_SOURCE["title"]


@pytest.mark.parametrize(("message", "intent"), [
    ("find our policy and compare it with the latest law", "HYBRID"),
    ("save this answer as a report", "FILE_OPERATION"),
    ("사내 보안 지침에서 비밀번호 변경 주기 알려줘", "INTERNAL_SEARCH"),
    ("오늘 원달러 환율 알려줘", "WEB_SEARCH"),
    ("지난주에 올린 파일 목록 보여줘", "FILE_OPERATION"),
    ("우리 재택근무 규정이 최신 근로기준법에 맞는지 비교해줘", "HYBRID"),
    ("안녕하세요, 뭘 할 수 있어?", "DIRECT"),
])
async def test_offline_classifier_keywords(message: str, intent: str) -> None:
    decision = await OfflineClassifier().classify(message)
    assert decision.intent == intent, decision.to_dict()


async def test_current_numbers_route_to_verify_fact_only_when_the_card_offers_it() -> None:
    planner = Planner(LocalEngine(), OfflineClassifier())
    with_skill = {"web_research": AgentInfo("web_research", True, {"skills": [{"id": "verify_fact"}]})}
    without = {"web_research": AgentInfo("web_research", True, {"skills": [{"id": "web_research"}]})}
    outcome = await planner.plan("오늘 원달러 환율 얼마야?", with_skill)
    assert [(s.agent, s.skill) for s in outcome.plan.steps] == [("web_research", "verify_fact")]
    outcome = await planner.plan("오늘 원달러 환율 얼마야?", without)
    assert [(s.agent, s.skill) for s in outcome.plan.steps] == [("web_research", None)]
    outcome = await planner.plan("최신 AI 뉴스 알려줘", with_skill)
    assert outcome.plan.steps[0].skill is None


async def test_offline_plan_for_a_missing_agent_becomes_direct_with_a_note() -> None:
    planner = Planner(LocalEngine(), OfflineClassifier())
    outcome = await planner.plan("최신 AI 뉴스 알려줘", {"internal_rag": AgentInfo("internal_rag", True)})
    assert outcome.plan.intent == "DIRECT" and any("no executable step" in n for n in outcome.notes)


async def test_llm_prompt_lists_live_cards_and_a_new_agent_is_plannable(scripted) -> None:  # type: ignore[no-untyped-def]
    registry = AgentRegistry(scripted.registry(internal_rag="rag_ok", translator="translator"))
    infos = await registry.infos()
    prompt = planner_system_prompt(infos)
    assert "Translates text between Korean and English" in prompt
    assert "skill translate" in prompt and "이 문장을 영어로 번역해줘" in prompt
    llm = ScriptedLLM([IntentPlan(intent="WEB_SEARCH", steps=[PlanStep(agent="translator", instruction="translate")])])
    outcome = await Planner(llm, OfflineClassifier()).plan("번역해줘", infos)
    assert outcome.planner == "llm" and outcome.plan.steps[0].agent == "translator" and outcome.notes == []


async def test_invalid_llm_plan_is_reasked_once_and_the_corrected_plan_used() -> None:
    infos = {name: AgentInfo(name, True) for name in KNOWN}
    bad = IntentPlan(intent="HYBRID", steps=[step("ghost"), step("internal_rag", [1])])
    good = IntentPlan(intent="HYBRID", steps=[step("internal_rag"), step("web_research")])
    llm = ScriptedLLM([bad, good])
    outcome = await Planner(llm, OfflineClassifier()).plan("compare", infos)
    assert llm.purposes() == ["plan", "plan-retry"]
    retry_prompt = llm.messages[1][1][-1]["content"]
    assert "unknown agent 'ghost'" in retry_prompt
    assert [s.agent for s in outcome.plan.steps] == ["internal_rag", "web_research"]
    assert outcome.attempts == 2 and "re-asked once: corrected plan used" in outcome.notes


async def test_twice_invalid_plan_is_repaired_and_unusable_falls_back_offline() -> None:
    infos = {name: AgentInfo(name, True) for name in KNOWN}
    bad = IntentPlan(intent="HYBRID", steps=[step("ghost"), step("internal_rag", [0, 1])])
    llm = ScriptedLLM([bad, bad])
    outcome = await Planner(llm, OfflineClassifier()).plan("compare", infos)
    assert len(llm.calls) == 2  # re-asked once, not more
    assert [(s.agent, s.depends_on) for s in outcome.plan.steps] == [("internal_rag", [])]
    assert "repaired second plan used" in outcome.notes

    hopeless = IntentPlan(intent="WEB_SEARCH", steps=[step("ghost")])
    llm = ScriptedLLM([hopeless, hopeless])
    outcome = await Planner(llm, OfflineClassifier()).plan("오늘 코스피 지수 알려줘", infos)
    assert outcome.planner == "offline" and outcome.plan.steps[0].agent == "web_research"
    assert "no usable LLM plan; offline plan used" in outcome.notes


async def test_llm_failure_falls_back_to_the_offline_planner() -> None:
    infos = {name: AgentInfo(name, True) for name in KNOWN}
    llm = ScriptedLLM([LLMError("connection refused")])
    outcome = await Planner(llm, OfflineClassifier()).plan("사내 출장비 규정 알려줘", infos)
    assert outcome.planner == "offline" and outcome.plan.intent == "INTERNAL_SEARCH"
    assert "LLM planner failed" in outcome.notes[0]


CATALOG = [
    {"storage_ref": "cdc.pdf", "file_name": "cdc_outpatient_infection_prevention_guide.pdf",
     "title": "GUIDE TO INFECTION PREVENTION FOR OUTPATIENT SETTINGS", "language": "en", "pages": 44, "chunks": 147,
     "key_terms": ["infect", "patient", "prevent", "cdc", "steril", "hygien", "vial", "inject"]},
    {"storage_ref": "i2c.pdf", "file_name": "infineon_i2c_protocol_v2.02.pdf", "title": "I2C Protocol",
     "language": "en", "pages": 44, "chunks": 121, "key_terms": ["frame", "byte", "slave", "i2c", "clock"]},
]


@pytest.mark.parametrize(("message", "intent"), [
    ("What does the CDC outpatient guide say about how long an opened multi-dose vial can be used?",
     "INTERNAL_SEARCH"),
    ("CDC 가이드에서 다회용 바이알은 개봉 후 며칠까지 쓸 수 있어?", "INTERNAL_SEARCH"),
    ("I2C에서 클럭 스트레칭이 뭐야?", "INTERNAL_SEARCH"),
    ("안녕하세요!", "DIRECT"),
    ("오늘 원달러 환율 알려줘", "WEB_SEARCH"),
])
async def test_learned_classifier_with_the_catalog(message: str, intent: str) -> None:
    planner = Planner(LocalEngine(), OfflineClassifier())
    infos = {name: AgentInfo(name, True) for name in KNOWN}
    outcome = await planner.plan(message, infos, (), CATALOG)
    assert outcome.plan.intent == intent, outcome.decision.to_dict() if outcome.decision else None


async def test_information_question_is_never_direct_offline() -> None:
    decision = await OfflineClassifier().classify("What BLEU score did RAG get on WMT14 English-German?")
    assert decision.intent != "DIRECT", decision.to_dict()


@pytest.mark.parametrize(("first", "follow_up", "carried"), [
    ("I2C에서 클럭 스트레칭이 뭐야?", "그럼 최대 클럭 속도는?", "I2C에서"),
    ("What does the CDC outpatient guide say about multi-dose vials?", "what about its hand hygiene rules?",
     "CDC"),
])
async def test_follow_up_keeps_the_intent_and_the_topic(first: str, follow_up: str, carried: str) -> None:
    planner = Planner(LocalEngine(), OfflineClassifier())
    infos = {name: AgentInfo(name, True) for name in KNOWN}
    one = await planner.plan(first, infos, (), CATALOG)
    assert one.plan.intent == "INTERNAL_SEARCH"
    two = await planner.plan(follow_up, infos, (), CATALOG, {"intent": one.plan.intent, "question": first})
    assert two.plan.intent == "INTERNAL_SEARCH", two.decision.to_dict() if two.decision else None
    assert carried in two.question and two.question.endswith(follow_up)
    assert two.plan.steps[0].instruction == two.question


def test_catalog_summary_in_the_planning_prompt_is_bounded() -> None:
    many = [dict(CATALOG[0], file_name=f"doc_{i}.pdf") for i in range(100)]
    prompt = planner_system_prompt({"internal_rag": AgentInfo("internal_rag", True)}, many)
    assert "doc_0.pdf" in prompt and "more documents" in prompt
    assert len(prompt.split("Indexed internal documents", 1)[1]) < 1700


def test_agent_timeouts_parse_and_refuse_garbage() -> None:
    from ai_llm.orchestrator_agent.executor import parse_agent_timeouts

    assert parse_agent_timeouts("internal_rag=20, web_research=90") == {"internal_rag": 20.0, "web_research": 90.0}
    assert parse_agent_timeouts("") == {}
    with pytest.raises(ValueError, match="agent=seconds"):
        parse_agent_timeouts("internal_rag")


class FixedOffline(OfflineClassifier):
    """An offline classifier whose verdict is set by the test (the arbitration is what is tested): its intent
    at `probability`, WEB_SEARCH at `web`, the rest shared evenly."""

    def __init__(self, intent: str, probability: float, web: float = 0.1, structural: bool = False) -> None:
        super().__init__()
        self.verdict = (intent, probability, web, structural)

    def classify_sync(self, text: str, catalog: object = (), previous_intent: str | None = None,
                      probe: object = None) -> IntentDecision:
        intent, probability, web, structural = self.verdict
        rest = (1.0 - probability - web) / 3
        probabilities = {label: probability if label == intent else web if label == "WEB_SEARCH" else rest
                         for label in ("INTERNAL_SEARCH", "WEB_SEARCH", "FILE_OPERATION", "HYBRID", "DIRECT")}
        return IntentDecision(intent, "report request" if structural else "model", probabilities=probabilities,
                              structural=structural)


@pytest.mark.parametrize(("offline", "kept"), [
    # the classifier hesitates between its intent and the LLM's: the LLM decides
    (FixedOffline("INTERNAL_SEARCH", 0.45, web=0.45 - OFFLINE_MARGIN + 0.05), True),
    # the classifier finds its intent clearly more probable than the LLM's: it overrules
    (FixedOffline("INTERNAL_SEARCH", 0.45, web=0.45 - OFFLINE_MARGIN - 0.05), False),
    # a structural rule is sure at any probability
    (FixedOffline("FILE_OPERATION", 0.3, web=0.3, structural=True), False),
])
async def test_the_llm_plan_is_overruled_only_where_the_offline_classifier_is_sure(offline: FixedOffline,
                                                                                   kept: bool) -> None:
    infos = {name: AgentInfo(name, True) for name in KNOWN}
    llm = ScriptedLLM([IntentPlan(intent="WEB_SEARCH", steps=[step("web_research", instruction="rewritten")])])
    outcome = await Planner(llm, offline).plan("출장비 정산 기준", infos)
    assert outcome.decision is not None and outcome.decision.intent == offline.verdict[0]
    if kept:
        assert outcome.planner == "llm" and outcome.plan.intent == "WEB_SEARCH" and outcome.notes == []
        assert outcome.plan.steps[0].instruction == "rewritten"
    else:
        assert outcome.planner == "offline" and outcome.plan.intent == offline.verdict[0]
        assert outcome.notes[0].startswith(f"the LLM planned WEB_SEARCH; the offline classifier is sure of "
                                           f"{offline.verdict[0]}")


async def test_an_llm_plan_that_agrees_or_names_an_agent_only_it_can_plan_is_kept() -> None:
    infos = {name: AgentInfo(name, True) for name in [*KNOWN, "translator"]}
    sure = FixedOffline("DIRECT", 0.99)
    agreeing = IntentPlan(intent="DIRECT", steps=[])
    new_agent = IntentPlan(intent="WEB_SEARCH", steps=[step("translator", instruction="translate it")])
    llm = ScriptedLLM([agreeing, new_agent])
    planner = Planner(llm, sure)
    first = await planner.plan("안녕", infos)
    second = await planner.plan("이 문장을 영어로 번역해줘", infos)
    assert first.planner == "llm" and first.plan.intent == "DIRECT"
    assert second.planner == "llm" and [s.agent for s in second.plan.steps] == ["translator"]
