#!/usr/bin/env python3
"""QA items of formats_holdout6, written by hand from the documents' texts (before any OCR check).

    python qa_items.py      # writes ../rag_formats_holdout6.jsonl

Each item: id, file, question, answer, pages, location, evidence, kind, lang.
  - answer: a short exact string of the document; evidence: the sentence (or table / sheet / CSV row, as the
    file's library reads it, cells joined by spaces) that holds the answer, occurring once in the file.
  - location: for non-scan files the article "제N조", the heading text, "슬라이드 N", "Sheet!row" or "stem!row";
    null for scans, which give 1-based pages instead.
  - kind: ko (Korean question, Korean document), en (English / English), ko_about_en (Korean question about an
    English document), en_about_ko (English question about a Korean document), near_miss (sounds answerable from
    `file`, but no file holds the answer: answer / evidence / location null, pages []).
PROXIES: for each near miss, 2-4 strings that an answer would have to contain or be found near; it was checked
that none of them occurs in any file (case and whitespace ignored).
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "rag_formats_holdout6.jsonl"

HWPX = "danwoo_site_safety_rules_2026.hwpx"
HWP = "danwoo_partner_evaluation_guideline_2026.hwp"
SKO = "danwoo_winter_safety_plan_scan.pdf"
DKO = "danwoo_progress_billing_manual.docx"
PPT = "danwoo_2025q3_site_report.pptx"
XLS = "danwoo_equipment_rental_2025.xlsx"
CSV = "schedule_changelog_0.1-1.2.2.csv"
CSVS = "schedule_changelog_0.1-1.2.2"
DEN = "backoff_retry_decorators_guide.docx"
HTM = "loguru_readme_docs_page.html"
SEN = "waitress_reverse_proxy_scan.pdf"

# (file, kind, lang, question, answer, location, pages, evidence)
A = [
    # ---- HWPX: 건설현장 안전보건관리규정 -------------------------------------------------------------
    (HWPX, "ko", "ko", "고위험작업 하려면 작업허가서는 언제까지 내야 돼?",
     "작업 전날 16시까지", "제11조", [],
     "고위험작업을 하려는 협력업체는 작업 전날 16시까지 작업허가서를 안전관리자에게 제출하여야 한다."),
    (HWPX, "ko", "ko", "바람이 초속 몇 미터를 넘으면 타워크레인 운전을 멈춰야 하나요?",
     "초당 15미터", "제13조", [],
     "순간풍속이 초당 15미터를 초과하는 경우: 타워크레인 운전 작업"),
    (HWPX, "ko", "ko", "위험성평가 점수가 몇 점 이상 나오면 개선 전까지 작업 자체를 시작 못 하지?",
     "12점 이상", "제16조", [],
     "위험성이 12점 이상인 유해·위험요인은 허용할 수 없는 위험으로 보고, 개선 조치를 마칠 때까지 해당 작업을 "
     "시작할 수 없다."),
    (HWPX, "ko", "ko", "공사금액이 500억 원 정도 되는 현장이면 안전관리자를 몇 명 배치해야 합니까?",
     "2명 이상", "별표 1 공사금액별 안전관리자 배치 기준", [],
     "120억원 이상 800억원 미만 2명 이상"),
    (HWPX, "en_about_ko", "en", "Under our site safety rules, how often are hard hats supposed to be replaced?",
     "3년 또는 충격을 받은 즉시", "별표 2 보호구 지급 기준 및 교체 주기", [],
     "안전모 현장 출입자 전원 3년 또는 충격을 받은 즉시"),
    (HWPX, "en_about_ko", "en", "Is there a cap on the bonus a site gets for going a whole year accident-free?",
     "현장당 300만원 이내", "제20조", [],
     "제20조(포상) 회사는 무재해 1년을 달성한 현장의 현장소장과 안전관리자에게 포상할 수 있으며, 포상금은 "
     "현장당 300만원 이내로 한다."),
    # ---- HWP: 2026년도 협력업체 평가 및 관리 지침 ----------------------------------------------------
    (HWP, "ko", "ko", "협력업체 평가 때 중대재해가 한 번이라도 나면 몇 점 깎여?",
     "15점", "4. 평가 항목 및 배점", [],
     "평가 기간 중 중대재해가 발생한 업체는 총점에서 15점을 감점한다."),
    (HWP, "ko", "ko", "협력업체가 D등급을 받으면 어떤 불이익이 있나요?",
     "1년간 입찰 참가 제한", "5. 등급 판정 및 조치", [],
     "D 60점 미만 1년간 입찰 참가 제한"),
    (HWP, "ko", "ko", "평가 결과가 억울하면 통보받고 며칠 안에 이의신청해야 하죠?",
     "10일 이내", "7. 이의신청", [],
     "평가 결과에 이의가 있는 협력업체는 결과를 통보받은 날부터 10일 이내에 근거 자료를 첨부하여 구매팀에 "
     "이의신청서를 제출할 수 있다."),
    (HWP, "en_about_ko", "en", "Do equipment rental companies get scored under the subcontractor evaluation guideline too?",
     "평가에서 제외", "2. 적용 대상", [],
     "다. 자재만 납품하는 업체와 장비 임대업체는 이 지침에 따른 평가에서 제외하며, 별도의 「구매업체 관리 기준」에 "
     "따른다."),
    (HWP, "en_about_ko", "en", "When do subcontractors hear back about their second-half evaluation results?",
     "다음 해 1월 31일까지", "6. 평가 일정", [],
     "하반기 평가 7월 1일 ~ 12월 31일 다음 해 1월 첫째 주 ~ 둘째 주 다음 해 1월 31일까지"),
    # ---- scan: 동절기 건설현장 안전관리 계획 -------------------------------------------------------
    (SKO, "ko", "ko", "이번 동절기 안전관리 계획은 언제부터 언제까지 적용돼?",
     "2025년 11월 15일부터 2026년 3월 15일까지", None, [1],
     "기간: 2025년 11월 15일부터 2026년 3월 15일까지"),
    (SKO, "ko", "ko", "보온양생 공간에서 일산화탄소가 몇 ppm 이상이면 바로 대피시켜야 하나요?",
     "30ppm 이상", None, [1],
     "일산화탄소 농도가 30ppm 이상이거나 산소 농도가 18% 미만이면 즉시 작업자를 대피시키고 환기한다."),
    (SKO, "ko", "ko", "본사 안전보건팀 합동 점검은 보통 언제 나와요?",
     "매월 둘째 주 목요일", None, [2],
     "합동 점검 매월 둘째 주 목요일 본사 안전보건팀 동절기 계획 이행 실태"),
    (SKO, "en_about_ko", "en", "What number should a site call if a heater catches fire or someone might be suffocating?",
     "042-710-3119", None, [2],
     "난방기 화재나 질식이 의심되는 사고가 나면 규모와 관계없이 즉시 안전보건팀 비상전화(042-710-3119)로 알린다."),
    (SKO, "en_about_ko", "en", "What's the deadline for sites to run the special winter safety training?",
     "11월 28일까지", None, [2],
     "각 현장은 11월 28일까지 전 근로자를 대상으로 동절기 특별교육을 2시간 실시한다."),
    # ---- DOCX (ko): 현장 공무 실무 매뉴얼 ----------------------------------------------------------
    (DKO, "ko", "ko", "현장에 들여오기만 하고 아직 설치 안 한 자재도 기성에 넣을 수 있어? 넣으면 얼마까지?",
     "자재 금액의 80%까지", "2.1 기성 산정 기준", [],
     "현장에 반입했지만 아직 설치하지 않은 자재는 발주처가 검수를 마친 경우에만 자재 금액의 80%까지 기성에 "
     "포함할 수 있다."),
    (DKO, "ko", "ko", "기성부분 검사원은 발주처에 매달 며칠까지 제출해야 합니까?",
     "다음 달 5일까지", "2.3 월간 일정", [],
     "다음 달 5일까지 발주처에 기성부분 검사원 제출 공무 담당자"),
    (DKO, "ko", "ko", "설계변경 금액이 어느 정도면 대표이사 결재까지 올라가나요?",
     "계약금액의 10%를 넘으면", "3.2 처리 절차", [],
     "본사 공무팀은 변경 금액을 검토하고, 변경 금액이 계약금액의 10%를 넘으면 대표이사의 결재를 받는다."),
    (DKO, "ko", "ko", "물가변동으로 계약금액 조정 신청하려면 계약하고 최소 며칠은 지나야 돼요?",
     "90일 이상", "4. 물가변동으로 인한 계약금액 조정", [],
     "계약을 체결한 날부터 90일 이상 지나고 품목조정률이나 지수조정률이 3% 이상 오르거나 내린 경우에는 계약금액 "
     "조정을 요청할 수 있다."),
    (DKO, "en_about_ko", "en",
     "If the client's site supervisor just tells us verbally to change something, can we go ahead and build it?",
     "구두 지시만으로는 시공하지 않는다", "5. 자주 묻는 질문", [],
     "답변: 구두 지시만으로는 시공하지 않는다."),
    # ---- PPTX: 2025년 3분기 현장 운영 실적 보고 -----------------------------------------------------
    (PPT, "ko", "ko", "3분기에 아차사고 보고가 갑자기 늘어난 이유가 뭐래?",
     "모바일 신고 앱을 도입한 영향", "슬라이드 2", [],
     "아차사고 보고가 늘어난 것은 8월부터 모바일 신고 앱을 도입한 영향이 큽니다."),
    (PPT, "ko", "ko", "청주 오창 현장 3분기 말 실적 공정률은 얼마였나요?",
     "25.3%", "슬라이드 3", [],
     "청주 오창 폐수처리장 증설 318 23.0% 25.3% 2027. 6."),
    (PPT, "ko", "ko", "3분기 전 현장 합산 원가율이 몇 퍼센트였지?",
     "93.8%", "슬라이드 5", [],
     "합계 162 93.8%"),
    (PPT, "en_about_ko", "en", "What was our TBM compliance rate in Q3?",
     "98.9%", "슬라이드 4", [],
     "TBM 이행률 96.8% 98.9% 98% 이상"),
    (PPT, "en_about_ko", "en", "When is tower crane No. 2 at the Sejong site scheduled to be dismantled?",
     "2026년 1월 말", "슬라이드 6", [],
     "세종 현장 타워크레인 2호기 해체: 2026년 1월 말 예정"),
    # ---- XLSX: 건설장비 임차 현황 ----------------------------------------------------------------
    (XLS, "ko", "ko", "천안 현장 러핑 타워크레인은 어느 업체에서 빌린 거야?",
     "대성타워", "장비임차!4", [],
     "EQ-25-003 타워크레인 러핑형 8톤 천안 불당 오피스텔 대성타워"),
    (XLS, "ko", "ko", "오창 현장 항타기는 왜 예정보다 일찍 반납했나요?",
     "파일 공사가 일찍 끝나", "장비임차!7", [],
     "파일 공사가 일찍 끝나 2주 먼저 반납"),
    (XLS, "ko", "ko", "유성건설기계 담당자 연락처 좀 알려줘.",
     "042-822-0957", "임차업체!5", [],
     "유성건설기계 소형 굴착기, 지게차, 전기 열풍기 문소연 과장 042-822-0957"),
    (XLS, "en_about_ko", "en", "Which rental vendor got a C in our own vendor rating?",
     "태광펌프", "임차업체!8", [],
     "태광펌프 콘크리트 펌프카 홍예린 대리 041-575-3390 2026-06-30 C 타설 당일 배차 지연 3회"),
    # ---- CSV: schedule changelog ---------------------------------------------------------------------
    (CSV, "en", "en", "Which schedule release added Python 3.12 support?",
     "1.2.2", f"{CSVS}!3", [],
     "1.2.2 2024-05-25 Add support for python 3.12 (#606)"),
    (CSV, "en", "en", "In what version did schedule get the @repeat() decorator?",
     "1.1.0", f"{CSVS}!15", [],
     "1.1.0 2021-04-09 Added @repeat() decorator."),
    (CSV, "en", "en", "What was the default delay_seconds of run_all() changed to in 0.1.8?",
     "0 (from 60)", f"{CSVS}!64", [],
     "Changed default delay_seconds for schedule.run_all() to 0 (from 60)"),
    (CSV, "ko_about_en", "ko", "schedule 라이브러리는 몇 버전에서 파이썬 2.7 지원을 끊었어?",
     "1.0.0", f"{CSVS}!27", [],
     "1.0.0 2021-01-20 Other changes Dropped Python 2.7 and 3.5 support, added 3.8 and 3.9 support."),
    (CSV, "ko_about_en", "ko", "잡에 태그를 달고 태그로 취소하는 기능은 누가 기여했는지 알 수 있나요?",
     "@Zerrossetto", f"{CSVS}!43", [],
     "Add ability to tag jobs and to cancel jobs by tag. Thanks @Zerrossetto."),
    (CSV, "ko_about_en", "ko", "0.1.4에서 schedule.tick()은 어떤 이름으로 바뀌었습니까?",
     "schedule.run_pending_jobs()", f"{CSVS}!72", [],
     "API change: renamed schedule.tick() to schedule.run_pending_jobs()"),
    # ---- DOCX (en): backoff guide ---------------------------------------------------------------------
    (DEN, "en", "en", "What exactly does the max_tries keyword limit in backoff?",
     "the maximum number of calls to make to the target function before giving up", "Give Up Conditions", [],
     "Keyword argument max_tries specifies the maximum number of calls to make to the target function before "
     "giving up."),
    (DEN, "en", "en", "With raise_on_giveup=False, what does the decorated function hand back once it gives up?",
     "None", "Give Up Conditions", [],
     "Note that the decorated function will return None in this case, regardless of the logic in the on_exception "
     "handler."),
    (DEN, "en", "en", "Which algorithm is behind backoff's default jitter function?",
     "'Full Jitter' algorithm", "Jitter", [],
     "As of version 1.2, the default jitter function backoff.full_jitter implements the 'Full Jitter' algorithm "
     "as defined in the AWS Architecture Blog's Exponential Backoff And Jitter post."),
    (DEN, "en", "en", "Where do backoff's retry messages go by default?",
     "the 'backoff' logger", "Logging configuration", [],
     "By default, backoff and retry attempts are logged to the 'backoff' logger."),
    (DEN, "ko_about_en", "ko", "backoff 이벤트 핸들러에 넘어오는 details dict에서 tries 키는 뭘 의미해?",
     "number of invocation tries so far", "Event handlers", [],
     "tries number of invocation tries so far"),
    (DEN, "ko_about_en", "ko", "backoff는 파이썬 몇 버전부터 비동기 코드를 지원하나요?",
     "Python 3.5 and above", "Asynchronous code", [],
     "Backoff supports asynchronous execution in Python 3.5 and above."),
    (DEN, "ko_about_en", "ko", "재시도는 로그에 안 남기고 최종 포기할 때만 남기려면 로거 레벨을 뭘로 해야 돼요?",
     "ERROR", "Logging configuration", [],
     "If you would instead like to log only when a giveup event occurs, set the logger level to ERROR."),
    # ---- HTML: loguru docs page -----------------------------------------------------------------------
    (HTM, "en", "en", "How should a library author use loguru so the library doesn't spam logs?",
     "disable()", "Suitable for scripts and libraries", [],
     "To use Loguru from inside a library, remember to never call add() but use disable() instead so logging "
     "functions become no-op."),
    (HTM, "en", "en", "Are loguru sinks safe to use from multiple processes out of the box?",
     "They are not multiprocess-safe", "Asynchronous, Thread-safe, Multiprocess-safe", [],
     "They are not multiprocess-safe, but you can enqueue the messages to ensure logs integrity."),
    (HTM, "en", "en", "Which project does loguru thank for showing variable values in tracebacks?",
     "better_exceptions", "Fully descriptive exceptions", [],
     "Loguru helps you identify problems by allowing the entire stack trace to be displayed, including values of "
     "variables (thanks better_exceptions for this!)."),
    (HTM, "ko_about_en", "ko", "loguru에서 로그를 JSON 문자열로 내보내려면 어떤 인자를 켜면 돼?",
     "serialize", "Structured logging as needed", [],
     "Using the serialize argument, each log message will be converted to a JSON string before being sent to the "
     "configured sink."),
    (HTM, "ko_about_en", "ko", "loguru가 표준 로그 레벨 외에 추가로 제공하는 레벨 두 개는 뭐죠?",
     "trace() and success()", "Customizable levels", [],
     "Loguru comes with all standard logging levels to which trace() and success() are added."),
    (HTM, "ko_about_en", "ko", "loguru는 아무 설정 안 하면 로그를 어디로 출력하나요?",
     "stderr", "Ready to use out of the box without boilerplate", [],
     "For convenience, it is pre-configured and outputs to stderr to begin with (but that's entirely "
     "configurable)."),
    # ---- scan (en): waitress reverse proxy -----------------------------------------------------------
    (SEN, "en", "en", "Can Waitress terminate TLS by itself?",
     "Waitress does not natively support TLS", None, [1],
     "Often people will set up \"pure Python\" web servers behind reverse proxies, especially if they need TLS "
     "support (Waitress does not natively support TLS)."),
    (SEN, "en", "en", "What's the Apache equivalent of nginx passing the Host header through?",
     "ProxyPreserveHost", None, [1],
     "The Apache directive named ProxyPreserveHost does something similar when used as a reverse proxy."),
    (SEN, "en", "en", "What do I set trusted_proxy_headers to if I want Waitress to use the Forwarded header?",
     "\"forwarded\"", None, [2],
     "trusted_proxy_headers = \"forwarded\""),
    (SEN, "ko_about_en", "ko", "waitress에서 Forwarded 헤더를 쓸 때 trusted_proxy에는 뭘 넣어야 해?",
     "the IP address of the proxy", None, [2],
     "Note: You must also configure the Waitress server's trusted_proxy to contain the IP address of the proxy."),
    (SEN, "ko_about_en", "ko", "url_prefix를 지정하면 WSGI 환경의 어떤 값이 그 접두사 값으로 설정되나요?",
     "SCRIPT_NAME", None, [2],
     "Setting this to any value except the empty string will cause the WSGI SCRIPT_NAME value to be that value, "
     "minus any trailing slashes you add, and it will cause the PATH_INFO of any request which is prefixed with "
     "this value to be stripped of the prefix."),
    (SEN, "ko_about_en", "ko", "아파치 mod_proxy를 쓰면 자동으로 넘어가는 헤더가 어떤 것들이야?",
     "X-Forwarded-For X-Forwarded-Host X-Forwarded-Server", None, [1],
     "when using Apache, mod_proxy automatically forwards the following headers: X-Forwarded-For X-Forwarded-Host "
     "X-Forwarded-Server"),
]

# (file, lang, question, proxies)
N = [
    (HWPX, "ko", "안전관리자 야간 당직 수당은 규정에 얼마로 정해져 있어?", ["당직 수당", "당직수당", "야간 당직"]),
    (HWPX, "en", "What fine does a subcontractor pay if one of its workers is caught on site without a helmet?",
     ["과태료", "벌금", "위약금"]),
    (HWP, "ko", "협력업체 평가위원회는 위원 몇 명으로 구성되나요?", ["평가위원회는", "평가위원회 위원", "위원 수"]),
    (HWP, "en", "What minimum credit rating does a subcontractor need before it can bid on our jobs?",
     ["신용등급", "신용평가", "credit rating"]),
    (SKO, "ko", "동절기에 현장 근로자한테 방한장갑은 몇 켤레씩 지급해요?", ["방한장갑", "장갑", "켤레"]),
    (SKO, "en", "How many heaters is each site allowed to run in the workers' rest area during winter?",
     ["난방기 대수", "휴게실 난방기는", "heaters per"]),
    (DKO, "ko", "기성 청구하면 발주처에서 보통 며칠 안에 돈이 들어와?", ["기성금 지급 기한", "청구일부터", "지급 기일"]),
    (PPT, "ko", "3분기에 현장별로 인력이 몇 명씩 투입됐는지 나와 있어?", ["투입 인원", "인력 투입", "연인원"]),
    (PPT, "en", "What was the total progress billing in Q2, for comparison with Q3?", ["2분기 기성", "상반기 기성"]),
    (XLS, "ko", "천안 현장 펌프카 일대 임차료에 운전원 식대도 포함된 거야?", ["운전원 식대", "식비"]),
    (CSV, "en", "Which schedule release added support for Python 3.13?", ["3.13", "python 3.13"]),
    (DEN, "ko", "backoff에서 재시도 사이 최대 대기 시간의 기본값은 몇 초예요?",
     ["max_value defaults", "default maximum wait", "maximum wait defaults"]),
    (HTM, "ko", "loguru가 로그 파일을 쓸 때 기본 인코딩은 뭐로 돼 있어?", ["encoding=", "default encoding"]),
    (SEN, "en", "Does the Waitress reverse proxy page show how to set it up behind HAProxy?", ["HAProxy", "haproxy.cfg"]),
    (SEN, "ko", "waitress 리버스 프록시 문서 nginx 예시에서 타임아웃은 몇 초로 잡았어?",
     ["proxy_read_timeout", "proxy_connect_timeout"]),
]

PROXIES: dict[str, list[str]] = {}


def items():
    out = []
    for f, kind, lang, q, ans, loc, pages, ev in A:
        out.append({"id": "", "file": f, "question": q, "answer": ans, "pages": pages, "location": loc,
                    "evidence": ev, "kind": kind, "lang": lang})
    near = []
    for f, lang, q, prox in N:
        near.append(({"id": "", "file": f, "question": q, "answer": None, "pages": [], "location": None,
                      "evidence": None, "kind": "near_miss", "lang": lang}, prox))
    # near misses are spread through the file (after every 4th answerable item) rather than kept at the end
    merged, k = [], 0
    for i, it in enumerate(out, 1):
        merged.append(it)
        if i % 4 == 0 and k < len(near):
            merged.append(near[k][0])
            k += 1
    merged += [n for n, _ in near[k:]]
    PROXIES.clear()
    prox_by_obj = {id(n): p for n, p in near}
    for n, it in enumerate(merged, 1):
        it["id"] = f"fh6-{n:03d}"
        if it["kind"] == "near_miss":
            PROXIES[it["id"]] = prox_by_obj[id(it)]
    return merged


ITEMS = items()

if __name__ == "__main__":
    OUT.write_text("".join(json.dumps(it, ensure_ascii=False) + "\n" for it in ITEMS), encoding="utf-8")
    kinds = {}
    for it in ITEMS:
        kinds[it["kind"]] = kinds.get(it["kind"], 0) + 1
    print(f"{len(ITEMS)} items -> {OUT}: {kinds}")
