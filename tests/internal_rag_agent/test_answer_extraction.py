"""The answerable decision across languages: word coverage for a sentence in the question's language, the
cross-lingual model's cosine for one in the other language."""

from __future__ import annotations

from ai_llm.common.text.analysis import TermStats, analyze, analyze_query
from ai_llm.internal_rag_agent.answer_extraction import find_evidence, local_factors, unknown_identifiers
from ai_llm.internal_rag_agent.rag_search_service import RankedChunk
from ai_llm.internal_rag_agent.vector_store import ChunkHit

ENGLISH = "An opened multi-dose vial should be dated and discarded within 28 days unless the maker says otherwise."
KOREAN = "개봉한 다회용 바이알은 날짜를 적고 제조사가 달리 정하지 않는 한 28일 이내에 폐기한다."


def chunk(text: str, index: int = 0) -> RankedChunk:
    hit = ChunkHit("doc.pdf", index, text, [3], 0.5, file_name="doc.pdf")
    return RankedChunk(hit, relevance=0.8)


def stats_for(*texts: str) -> TermStats:
    terms = [set(analyze(t)) for t in texts]
    df: dict[str, int] = {}
    for chunk_terms in terms:
        for term in chunk_terms:
            df[term] = df.get(term, 0) + 1
    return TermStats(len(texts), df)


def test_a_sentence_in_the_other_language_answers_by_similarity_alone() -> None:
    question = "개봉한 바이알은 며칠 안에 버려야 해?"
    query = analyze_query(question, translate=False)  # no word table: nothing in common with the English text
    stats = stats_for(ENGLISH)
    evidence = find_evidence(question, query, stats, [chunk(ENGLISH)], cross={ENGLISH: 0.8})
    assert evidence.best_coverage == 0.0 and evidence.cross_similarity == 0.8
    assert evidence.answerable(0.2, 0.25, min_cross=0.5)
    assert not evidence.answerable(0.2, 0.25, min_cross=0.9)
    assert not evidence.answerable(0.2, 0.25)  # without the model's judgement, word coverage alone decides
    weak = find_evidence(question, query, stats, [chunk(ENGLISH)], cross={ENGLISH: 0.3})
    assert not weak.answerable(0.2, 0.25, min_cross=0.5)


def test_similarity_never_decides_within_one_language() -> None:
    """A same-language sentence on the topic is judged by what it holds of the question, however similar: the
    model's similarity does not tell a near miss from an answer."""
    for question in ("다회용 바이알은 어느 냉장고에 보관해?", "다회용 바이알은 며칠 안에 폐기해?"):
        query = analyze_query(question, translate=False)
        evidence = find_evidence(question, query, stats_for(KOREAN), [chunk(KOREAN)], similarity={KOREAN: 0.95},
                                 cross={KOREAN: 0.95})
        assert evidence.cross_similarity == 0.0
        for floor in (0.2, 0.9):
            assert evidence.answerable(floor, 0.25, min_cross=0.0) == evidence.answerable(floor, 0.25)


def test_a_sentence_without_the_asked_for_quantity_cannot_answer_across_languages() -> None:
    question = "바이알은 개봉 후 몇 초 동안 보관할 수 있어?"  # asks for seconds; the sentence gives days
    query = analyze_query(question, translate=False)
    evidence = find_evidence(question, query, stats_for(ENGLISH), [chunk(ENGLISH)], cross={ENGLISH: 0.9})
    assert evidence.cross_similarity == 0.0 and not evidence.answerable(0.2, 0.25, min_cross=0.5)


def test_a_hangul_name_in_an_english_question_keeps_it_english() -> None:
    """"갤럭시" in an English question does not make every English sentence the other language."""
    question = "What is the warranty period of the 갤럭시 S25 phone?"
    sentence = "The warranty of the S25 phone covers manufacturing defects for one year from purchase."
    query = analyze_query(question, translate=False)
    evidence = find_evidence(question, query, stats_for(sentence), [chunk(sentence)], cross={sentence: 0.9})
    assert evidence.cross_similarity == 0.0


def test_a_unit_of_time_in_a_rate_asks_for_a_count_not_a_duration() -> None:
    from ai_llm.internal_rag_agent.answer_extraction import asked_units

    for question in ("Roughly how many downloads per week does Requests get?", "How many requests a minute?",
                     "How many builds / day run?"):
        assert not any(p.search("5 weeks") or p.search("3 minutes") or p.search("2 days")
                       for p in asked_units(question)), question
    weeks = asked_units("How many weeks does the review take?")
    assert weeks and all(p.search("It takes 3 weeks.") for p in weeks)
    assert not all(p.search("It takes a while.") for p in weeks)


def test_a_share_and_a_frequency_are_found_as_a_regulation_or_a_reference_writes_them() -> None:
    """A Korean regulation writes a percentage as "100분의 90"; a parameter table answers "how often" by its
    interval. A sentence without either still cannot answer."""
    from ai_llm.internal_rag_agent.answer_extraction import asked_units

    share = asked_units("수습 기간에는 월급을 정상 임금의 몇 퍼센트 받나요?")
    assert share and all(p.search("② 수습기간 중의 임금은 정상 임금의 100분의 90으로 한다.") for p in share)
    assert not all(p.search("② 수습기간 중의 임금은 따로 정한다.") for p in share)
    often = asked_units("By default, how often does the reloader check for changes?")
    assert often and all(p.search("Parameter: reloader_interval; Default: 1; Description: How often the reloader "
                                  "tries to check for changes.") for p in often)
    assert not all(p.search("The reloader restarts the server after a change.") for p in often)


def test_a_quoted_sentence_that_points_back_brings_the_one_before_it() -> None:
    subject = "ItsDangerous securely signs data to ensure its integrity."
    pointer = "This is used to protect Flask's session cookie."
    other = "Werkzeug implements WSGI, the standard Python interface between applications and servers."
    question = "Which package protects Flask's session cookie?"
    query = analyze_query(question, translate=False)
    text = "\n".join([other, subject, pointer])
    evidence = find_evidence(question, query, stats_for(text), [chunk(text)])
    quoted = [q.text for q in evidence.quotes]
    assert pointer in quoted and subject in quoted and quoted.index(subject) < quoted.index(pointer)
    # The first sentence of a chunk has nothing before it to bring.
    first = find_evidence(question, query, stats_for(pointer), [chunk(pointer)])
    assert [q.text for q in first.quotes] == [pointer]


def test_the_words_every_candidate_shares_weigh_less_than_the_asked_for_detail() -> None:
    """Every sentence of the bill names the bill; the one that answers "when does it take effect" is the one with
    the detail asked for, though it names the bill once and the others name all of it."""
    subjects = ("teachers", "nurses", "soldiers", "judges", "police", "firefighters", "clerks", "researchers",
                "librarians", "diplomats", "inspectors", "auditors", "engineers", "drivers", "cooks", "guards",
                "pilots", "sailors", "doctors", "lawyers", "curators", "planners", "analysts", "surveyors",
                "archivists", "translators", "rangers", "wardens", "mediators", "assessors")
    sentences = [f"The parental leave bill for local officials covers {who} as well." for who in subjects]
    answer = "The bill takes effect six months after promulgation."
    sentences.insert(12, answer)
    question = "When does the parental leave bill for local officials take effect?"
    query = analyze_query(question, translate=False)
    factors = dict(zip((g.base for g in query.groups), local_factors(query, {s: analyze(s) for s in sentences}),
                       strict=True))
    assert factors["parent"] < factors["effect"] == 1.0
    # In the corpus the bill's words are rare (one document) and "take effect" common (rules say when).
    others = [f"Rule {n} takes effect on the first day of the month." for n in range(3)]
    stats = stats_for("\n".join(sentences), *others, *(f"An unrelated page about topic {n}." for n in range(9)))
    evidence = find_evidence(question, query, stats, [chunk("\n".join(sentences))], max_sentences=1)
    assert [q.text for q in evidence.quotes] == [answer]


def test_a_word_no_candidate_holds_keeps_its_weight() -> None:
    query = analyze_query("바이알 냉장고", translate=False)
    assert local_factors(query, {KOREAN: analyze(KOREAN)}) == [1.0] * len(query.groups)


def test_a_version_key_or_cve_no_document_holds_means_no_answer() -> None:
    text = "Requests 2.31.0 fixed CVE-2023-32681. The MAX_CONTENT_LENGTH key limits a request body."
    stats = stats_for(text)
    assert unknown_identifiers("What did Requests 2.31.0 fix?", stats) == []
    assert unknown_identifiers("What did Requests 2.24.0 fix, and what is CVE-2023-32681?", stats) == ["2.24.0"]
    assert unknown_identifiers("What is SQLALCHEMY_DATABASE_URI, unlike MAX_CONTENT_LENGTH?", stats) == \
        ["SQLALCHEMY_DATABASE_URI"]
    assert unknown_identifiers("Is CVE-2024-1234 fixed?", stats) == ["CVE-2024-1234"]
    for question, answers in (("When was Requests 2.31.0 released and what did it fix?", True),
                              ("When was Requests 2.24.0 released and what did it fix?", False)):
        query = analyze_query(question, translate=False)
        evidence = find_evidence(question, query, stats, [chunk(text)])
        assert evidence.answerable(0.2, 0.0, min_cross=0.0) is answers, question


def test_a_version_written_inside_a_longer_form_is_known() -> None:
    """The analysis splits "1.26.x" and "1.0.2k-fips" into other terms than "1.26" and "1.0.2": the chunks found
    still hold them, so the question is not refused; "2.0" is not "2.0.1", nor a version in "HTTP/1.1" one."""
    stats = stats_for("urllib3 1.26.x is not maintained. OpenSSL 1.0.2k-fips is too old. Released 2.0.1.")
    texts = ["urllib3 1.26.x is not maintained.", "OpenSSL 1.0.2k-fips is too old.", "Released 2.0.1."]
    assert unknown_identifiers("urllib3 1.26.x 계속 지원받으려면?", stats, texts) == []
    assert unknown_identifiers("OpenSSL 1.0.2라 안 되는데?", stats, texts) == []
    assert unknown_identifiers("What changed in 2.0?", stats, texts) == ["2.0"]
    assert unknown_identifiers("What changed in 1.26?", stats) == ["1.26"]  # no chunk text to look in
    assert unknown_identifiers("Which part of the HTTP/1.1 spec?", stats) == []


def test_a_question_in_everyday_words_answers_when_the_sentence_reads_like_it() -> None:
    """"야근하면 저녁값 얼마까지 돼?" holds few of the regulation's words: the best sentence's similarity stands
    in for question coverage, never for word evidence."""
    sentence = "연장근로 시 석식비는 1인당 1식 12,000원 이내에서 집행한다."
    question = "야근하고 저녁 먹으면 석식비 얼마까지 처리돼요?"
    query = analyze_query(question, translate=False)
    stats = stats_for(sentence, "회의비는 1인당 1회 4만원 이내로 한다.")
    plain = find_evidence(question, query, stats, [chunk(sentence)])
    assert plain.best_coverage >= 0.2 and plain.question_coverage < 0.5
    assert not plain.lexical(0.2, 0.5) and plain.similarity == 0.0
    similar = find_evidence(question, query, stats, [chunk(sentence)], similarity={sentence: 0.7})
    assert similar.similarity == 0.7
    assert similar.lexical(0.2, 0.5, min_similarity=0.6) and similar.answerable(0.2, 0.5, min_similarity=0.6)
    assert not similar.lexical(0.2, 0.5, min_similarity=0.8) and not similar.lexical(0.2, 0.5)
    # Without word evidence no similarity answers: the other sentence holds none of the question's known words.
    other = "회의비는 1인당 1회 4만원 이내로 한다."
    unrelated = find_evidence(question, query, stats, [chunk(other)], similarity={other: 0.95})
    assert unrelated.best_coverage < 0.2 and not unrelated.lexical(0.2, 0.5, min_similarity=0.6)


def test_a_chunk_added_for_the_cross_lingual_model_is_weighed_and_its_judged_sentence_quoted() -> None:
    """Chunks past `CHUNKS_CONSIDERED` are weighed when asked for (`max_chunks`), and the model's cosine lifts the
    sentence it judged answering above the other language's sentences it did not."""
    from ai_llm.internal_rag_agent.answer_extraction import CHUNKS_CONSIDERED

    question = "To whom may the minister recommend corrective measures?"
    fillers = [chunk(f"The minister visited office {n} on a weekday.", n) for n in range(CHUNKS_CONSIDERED)]
    korean = chunk("행정안전부장관은 국무총리에게 시정에 필요한 조치를 건의할 수 있다.\n행정예고 통계는 매년 작성한다.",
                   CHUNKS_CONSIDERED)
    sentences = korean.hit.content.split("\n")
    query = analyze_query(question, translate=False)
    stats = stats_for(*(c.hit.content for c in [*fillers, korean]))
    cross = {sentences[0]: 0.6, sentences[1]: 0.1}
    assert find_evidence(question, query, stats, [*fillers, korean], cross=cross).cross_similarity == 0.0
    evidence = find_evidence(question, query, stats, [*fillers, korean], cross=cross,
                             max_chunks=CHUNKS_CONSIDERED + 1)
    assert evidence.cross_similarity == 0.6 and evidence.answerable(0.2, 0.25, min_cross=0.4)
    assert sentences[0] in [q.text for q in evidence.quotes]


def test_a_particle_or_a_quoted_literal_is_not_an_asked_unit() -> None:
    """"주기가" holds "기가" (giga) and `suppress=["days"]` names a value, not a number of days: neither asks for a
    quantity of that unit, while "몇 기가" and "how many days" do."""
    from ai_llm.internal_rag_agent.answer_extraction import asked_units

    period = asked_units("업무용 계정 비번 변경 주기가 어떻게 되죠?")
    assert period and all(p.search("비밀번호는 90일마다 바꾸어야 한다.") for p in period)
    assert asked_units('precisedelta에 suppress=["days"], format="%0.4f" 넣으면 출력 어떻게 나옴?') == []
    assert any(p.search("4 GB") for p in asked_units("메모리는 몇 기가 필요해?"))
    assert any(p.search("3 days") for p in asked_units("How many days does the review take?"))


def test_a_temperature_naming_an_instrument_asks_for_no_degrees() -> None:
    """"temperature recorder calibration" names a device: the question asks when, not how many degrees — while
    "what temperature" and "몇 도" still ask for degrees."""
    from ai_llm.internal_rag_agent.answer_extraction import asked_units

    row = "차량번호: 85바 3902; 정비 내용: 온도기록계 교정; 다음 점검 예정: 2027-01-22"
    assert all(p.search(row) for p in asked_units(
        "When is the next inspection due for truck 85바 3902 after its temperature recorder calibration?"))
    assert all(p.search(row) for p in asked_units("85바 3902 온도기록계 교정 다음 점검은 언제야?"))
    assert any(p.search("2 ℃ and 8 ℃") for p in asked_units("At what temperature must vaccines be stored?"))
    assert not any(p.search(row) for p in asked_units("냉동탑 차량 적재함 온도는 몇 도로 맞춰야 해?"))


def test_second_as_an_ordinal_asks_for_no_seconds() -> None:
    """"second-half" counts, it measures no time; "how many seconds" and "in seconds" still ask for seconds."""
    from ai_llm.internal_rag_agent.answer_extraction import asked_units

    row = "하반기 평가 결과는 다음 해 1월 31일까지 통보한다."
    assert all(p.search(row) for p in asked_units(
        "When do subcontractors hear back about their second-half evaluation results?"))
    assert any(p.search("30 seconds") for p in asked_units("How many seconds does the ping wait?"))
    assert any(p.search("10 seconds") for p in asked_units("What is the default timeout in seconds?"))
    assert not any(p.search(row) for p in asked_units("How many seconds does the ping wait?"))
