#!/usr/bin/env python3
"""Writes ../rag_formats_holdout3.jsonl (70 items). The items are hand-written; this
script only keeps them in one place and numbers them. Every answer / evidence was checked against the documents."""
import json
from pathlib import Path

HWPX = "hangyeol_employment_rules_2025.hwpx"
HWP = "debian_faq_ko_ch6_archive.hwp"
SCKO = "hangyeol_travel_expense_rules_scan.pdf"
DOCX = "werkzeug_dev_server_and_debugger.docx"
PPTX = "structlog_release_briefing_25.1-26.1.pptx"
XLSX = "arrow_changelog_1.0-1.4.xlsx"
CSV = "packaging_changes_26.2-26.4.csv"
CSVL = "packaging_changes_26.2-26.4!"
HTML = "tenacity_retrying_guide.html"
TIFF = "itsdangerous_concepts_scan.tiff"
PDF = "h11_readme_scan.pdf"

# (file, kind, question, answer, pages, location, evidence)
A = [
    # ---- HWPX: 취업규칙 (original writing) -------------------------------------------------------------
    (HWPX, "ko", "수습 기간에는 월급을 정상 임금의 몇 퍼센트 정도 받게 되나요?", "100분의 90", [], "제5조",
     "② 수습기간 중의 임금은 정상 임금의 100분의 90으로 한다."),
    (HWPX, "ko", "와이프가 출산하면 회사에서 경조휴가 며칠 줘요?", "20일", [], "제13조", "출산 배우자 20일"),
    (HWPX, "ko", "아파서 병가 내면 며칠까지는 월급이 나와?", "처음 30일", [], "제14조",
     "② 병가 중 처음 30일은 유급으로 하고, 나머지 기간은 무급으로 한다."),
    (HWPX, "ko", "계속 근무한 지 7년이 넘었으면 연차가 며칠 나와요?", "18일", [], "별표 1 근속연수별 연차 유급휴가 일수표",
     "7년 이상 9년 미만 18일 가산 3일"),
    (HWPX, "ko", "회사 그만두려면 사직서를 최소 언제까지 내야 돼?", "퇴직 희망일 30일 전까지", [], "제25조",
     "제25조(사직) 직원이 사직하려는 경우에는 퇴직 희망일 30일 전까지 사직서를 부서장을 거쳐 인사팀에 제출하여야 한다."),
    (HWPX, "en_about_ko", "How many days a week may an employee work from home under these rules?", "1주에 2일 이내", [],
     "제9조", "① 직원은 부서장의 승인을 받아 1주에 2일 이내에서 재택근무를 할 수 있다."),
    (HWPX, "en_about_ko", "How long can a disciplinary suspension (정직) last?", "1개월 이상 3개월 이하", [], "제23조",
     "3. 정직: 1개월 이상 3개월 이하의 기간 동안 출근을 정지하고, 그 기간에는 임금을 지급하지 아니한다."),
    # ---- HWP: Debian FAQ (Korean), chapter 6 ----------------------------------------------------------
    (HWP, "ko", "데비안 배포판 코드명들은 원래 어디서 따온 이름이야?", "픽사의 \"토이 스토리\" 영화", [],
     "6.2.2. 코드명은 어디서 왔나요?", "지금까지 그것은 픽사의 \"토이 스토리\" 영화에서 가져온 캐릭터였습니다."),
    (HWP, "ko", "apache 패키지는 pool 디렉터리 안 어느 경로에 들어 있어요?", "pool/main/a/apache/", [],
     "6.10. pool 디렉터리 안에는 무엇이 있나요?", "예를 들어 apache 패키지는 pool/main/a/apache/ 에 저장됩니다."),
    (HWP, "ko", "개발자가 패키지 올리면 아카이브에 들어가기 전에 잠깐 대기하는 디렉터리 이름이 뭐야?", "incoming", [],
     "6.11. \"incoming\"은 무엇인가요?",
     "개발자가 패키지를 업로드한 후 패키지는 \"incoming\" 디렉터리에 잠시 머물다가 정품인지, 아카이브에 허용되는지 확인됩니다."),
    (HWP, "ko", "binary-* 디렉터리에 있는 인덱스 파일은 이름이 뭐예요?", "Packages(.gz, .bz2)", [],
     "6.8. dists/stable/main 안의 디렉터리는 모두 무엇인가요?",
     "binary-* 안에 있는 인덱스 파일은 Packages(.gz, .bz2)라고 하며 해당 배포에 포함된 각 바이너리 패키지의 요약이 들어갑니다."),
    (HWP, "ko", "동결된 testing이 stable로 선언되는 건 어떤 시점이에요?", "버그 수가 허용 가능한 최대값으로 낮아지면", [],
     "6.5.1. 무엇이 \"testing\"인가요? 어떻게 `frozen' 되나요?",
     "버그 수가 허용 가능한 최대값으로 낮아지면 동결된 \"testing\" 배포판이 \"stable\"로 선언되고 버전 번호를 갖고 릴리스됩니다."),
    (HWP, "en_about_ko", "Who made the decision to name Debian releases after Toy Story characters?", "Bruce Perens", [],
     "6.2.2. 코드명은 어디서 왔나요?",
     "토이 스토리 이름을 쓸 결정은 Bruce Perens가 만들었고 그 때,데비안 프로젝트 리더이며 영화 만드는 회사 Pixar에서 일했습니다."),
    (HWP, "en_about_ko", "Which Debian release number does the codename trixie belong to?", "데비안 13", [],
     "6.2.2. 코드명은 어디서 왔나요?", "trixie (데비안 13) 파란 플라스텩 triceratops."),
    # ---- Korean scan: 출장 여비 규정 (original writing) -------------------------------------------------
    (SCKO, "ko", "해외 출장은 출발 며칠 전까지 신청해야 돼요?", "출발일 14일 전까지", [1], None,
     "② 국외출장은 출발일 14일 전까지 신청하여 대표이사의 승인을 받아야 한다."),
    (SCKO, "ko", "출장 때 내 차 끌고 가면 기름값 같은 건 km당 얼마 쳐줘?", "1킬로미터당 250원", [1], None,
     "③ 자가용 승용차를 이용한 경우에는 주행거리 1킬로미터당 250원과 통행료 실비를 지급한다."),
    (SCKO, "ko", "출장 다녀와서 여비정산서는 며칠 안에 내야 하나요?", "출장을 마친 날부터 7일 이내", [1], None,
     "① 출장자는 출장을 마친 날부터 7일 이내에 영수증 등 증빙서류를 첨부한 여비정산서를 재무팀에 제출하여야 한다."),
    (SCKO, "ko", "부장급이 국내 출장 가면 하룻밤 숙박비는 얼마까지 돼?", "100,000원", [2], None,
     "부장급 30,000원 100,000원 30,000원"),
    (SCKO, "ko", "한 지역에 보름 넘게 출장 있으면 일비가 어떻게 바뀌어요?", "2분의 1로 감액한다", [2], None,
     "② 같은 지역에 15일을 초과하여 출장하는 경우 초과하는 날부터의 일비는 2분의 1로 감액한다."),
    (SCKO, "en_about_ko", "What is the daily allowance for a business trip to Japan?", "60달러", [2], None,
     "가 지역 미국, 일본, 서유럽 60달러 250달러"),
    # ---- DOCX: Werkzeug development server and debugger -------------------------------------------------
    (DOCX, "en", "Which environment variable sets a fixed PIN for the Werkzeug debugger?", "WERKZEUG_DEBUG_PIN", [],
     "Debugger PIN", "An explicit PIN can be provided through the environment variable WERKZEUG_DEBUG_PIN."),
    (DOCX, "en", "By default, how often does the run_simple reloader check for changes?", "1", [],
     "Serving WSGI Applications", "reloader_interval 1 How often the reloader tries to check for changes."),
    (DOCX, "en", "Which hosts does the Werkzeug debug console trust out of the box?",
     "localhost, any .localhost subdomain, and 127.0.0.1", [], "Allowed Hosts",
     "By default, localhost, any .localhost subdomain, and 127.0.0.1 are trusted."),
    (DOCX, "ko_about_en", "werkzeug 리로더를 watchdog 백엔드로 쓰려면 requirements 파일에 뭘 넣으라고 해?", "Werkzeug[watchdog]", [],
     "Reloader", "The recommended way to achieve this is to add Werkzeug[watchdog] to your requirements file."),
    (DOCX, "ko_about_en", "개발 서버를 adhoc 인증서 모드로 띄우려면 어떤 라이브러리가 설치돼 있어야 하나요?", "cryptography", [],
     "Adhoc Certificates", "This feature requires the cryptography library to be installed."),
    # ---- PPTX: structlog 25.1.0 – 26.1.0 briefing ---------------------------------------------------------
    (PPTX, "en", "Which Python versions were removed in structlog 26.1.0?", "Python 3.8 and 3.9", [], "슬라이드 3",
     "Python 3.8 and 3.9 support."),
    (PPTX, "en", "What date did structlog 25.3.0 come out?", "2025-04-25", [], "슬라이드 2", "25.3.0 2025-04-25 0 0 0 0 1"),
    (PPTX, "en", "Since 25.1.0, what level does the native FilteringBoundLogger.fatal() log at?", "the critical level", [],
     "슬라이드 10",
     "The native FilteringBoundLogger.fatal() method now maps to the critical level, as it does in the standard library."),
    (PPTX, "ko_about_en", "structlog 25.5.0에서 ConsoleRenderer의 pad_event 인자는 이름이 뭘로 바뀌었어?", "pad_event_to", [],
     "슬라이드 6",
     "structlog.dev.ConsoleRenderer()'s pad_event argument has been renamed to pad_event_to to differentiate it from the boolean pad_level argument."),
    (PPTX, "ko_about_en", "better-exceptions 지원은 언제쯤 빠진다고 했어요?", "within a year", [], "슬라이드 3",
     "Support for better-exceptions is deprecated and will be removed within a year."),
    # ---- XLSX: arrow changelog 1.0.0 – 1.4.0 -------------------------------------------------------------
    (XLSX, "en", "In which arrow release did timezones move from pytz to ZoneInfo?", "1.4.0", [], "Changes!9",
     "Migrated Arrow to use ZoneInfo for timezones instead of pytz."),
    (XLSX, "en", "Which arrow version added the Kazakh locale?", "1.2.2", [], "Changes!34", "Added Kazakh locale."),
    (XLSX, "en", "How many changelog items in total does arrow 1.1.0 have?", "7", [], "Releases!9",
     "1.1.0 2021-04-26 0 0 0 0 4 3 0 7"),
    (XLSX, "ko_about_en", "arrow 1.0.0에서 지원을 끊은 파이썬 버전이 뭐예요?", "Python 2.7 and 3.5", [], "Changes!69",
     "Arrow has dropped support for Python 2.7 and 3.5."),
    (XLSX, "ko_about_en", "32비트 OS에서 터지던 OverflowError는 몇 버전에서 고쳐졌어?", "1.0.2", [], "Changes!66",
     "Fixed an OverflowError that could occur when running Arrow on a 32-bit OS."),
    # ---- CSV: packaging changes 26.2 – 26.4 -----------------------------------------------------------------
    (CSV, "en", "Which packaging release stopped supporting Python 3.8?", "26.3", [], CSVL + "74",
     "Drop support for Python 3.8; packaging now requires Python 3.9 or later. (#1157)"),
    (CSV, "en", "How deeply nested can a marker be before packaging raises InvalidMarker?", "more than 200 levels deep",
     [], CSVL + "22", "Raise InvalidMarker for markers nested more than 200 levels deep. (#1450)"),
    (CSV, "en", "The macOS fat3 architecture name had a typo — what was it misspelled as?", "fat32", [], CSVL + "110",
     "Fix a typo in the macOS fat3 architecture name (was fat32). (#1199)"),
    (CSV, "ko_about_en", "packaging 26.3부터 받아들이는 Metadata-Version 새 값이 뭐야?", "2.6", [], CSVL + "69",
     "PEP 808: accept Metadata-Version: 2.6. (#1194)"),
    (CSV, "ko_about_en", "packaging의 lazy import 지원은 파이썬 몇 버전 이상에서 돼요?", "Python 3.15+", [], CSVL + "38",
     "Support lazy imports on Python 3.15+. (#1129)"),
    # ---- HTML: tenacity guide -----------------------------------------------------------------------------
    (HTML, "en", "What license does Tenacity use?", "Apache 2.0", [], "Tenacity",
     "Tenacity is an Apache 2.0 licensed general-purpose retrying library, written in Python, to simplify the task of adding retry behavior to just about anything."),
    (HTML, "en", "How do I get my own exception at the end of the stack trace instead of a RetryError?", "reraise=True", [],
     "Error Handling",
     "If you would rather see the exception your code encountered at the end of the stack trace (where it is most visible), you can set reraise=True."),
    (HTML, "en", "What number does RetryCallState's attempt_number start from?", "starts at 1", [], "RetryCallState",
     "attempt_number — number of the current attempt (starts at 1)"),
    (HTML, "ko_about_en", "tenacity 재시도를 아예 꺼버리려면 데코레이터에 뭘 넘기면 돼?", "enabled=False", [],
     "Disabling Retries", "You can disable retrying entirely by passing enabled=False."),
    (HTML, "ko_about_en", "제너레이터 함수에 @retry 붙이면 재시도가 되나요?",
     "retry does not support generator or async generator functions", [], "Generators",
     "retry does not support generator or async generator functions."),
    # ---- TIFF scan: ItsDangerous "General Concepts" ---------------------------------------------------------
    (TIFF, "en", "Which hash function does an ItsDangerous signer use as its default digest method?", "hashlib.sha1()", [2],
     None, "The default method is hashlib.sha1()."),
    (TIFF, "en", "In the key rotation example, after how long is a key rotated out?", "three weeks", [2], None,
     "If it takes four weeks for an attacker to crack a key, but the key is rotated out after three weeks, they will not be able to use any keys they crack."),
    (TIFF, "ko_about_en", "키를 여러 개 리스트로 넘기면 서명할 때는 어느 키를 써요?", "the last (newest) key", [2], None,
     "When signing the last (newest) key will be used, and when validating each key will be tried from newest to oldest before raising a validation error."),
    (TIFF, "ko_about_en", "salt도 secret key처럼 비밀로 지켜야 하나요?", "unique between contexts, not private", [1], None,
     "It only has to be unique between contexts, not private."),
    (TIFF, "ko_about_en", "시크릿 키는 뭘로 생성하라고 나와 있어?", "os.urandom()", [1], None,
     "One way to generate a key is to use os.urandom()."),
    # ---- PDF scan: h11 README ----------------------------------------------------------------------------
    (PDF, "en", "Roughly how many lines of code is the whole h11 library?", "~800 lines-of-code", [2], None,
     "The whole library is ~800 lines-of-code."),
    (PDF, "en", "Which RFC's first chapter of the HTTP/1.1 spec does h11 try to implement?",
     "RFC 7230: HTTP/1.1 Message Syntax and Routing", [1], None,
     "Roughly speaking, it's trying to be a robust, complete, and non-hacky implementation of the first \"chapter\" of the HTTP/1.1 spec: RFC 7230: HTTP/1.1 Message Syntax and Routing."),
    (PDF, "en", "What exception does h11 raise when a peer breaks the protocol?", "h11.ProtocolError", [1], None,
     "If either side violates the protocol, you'll get a h11.ProtocolError exception."),
    (PDF, "ko_about_en", "h11에서 파이썬 2를 지원한 마지막 버전이 뭐예요?", "h11 0.11.x", [2], None,
     "The last Python 2-compatible version was h11 0.11.x."),
    (PDF, "ko_about_en", "h11 테스트 커버리지는 어느 정도야?", "100.0% coverage for both statements and branches", [2], None,
     "It has a test suite with 100.0% coverage for both statements and branches."),
]

# near misses: (nearest file, lang, question) — the asked-for fact is in none of the ten documents
N = [
    (HWPX, "ko", "우리 회사 육아휴직은 최대 몇 년까지 쓸 수 있어요?"),
    (HWPX, "en", "What is the monthly meal allowance amount set in these employment rules?"),
    (HWP, "ko", "데비안 14 코드명은 뭐로 정해졌어?"),
    (HWP, "en", "How many mirror sites does the Debian archive have worldwide, according to the FAQ?"),
    (SCKO, "ko", "중국으로 출장 가면 식비는 하루에 얼마 나와요?"),
    (SCKO, "en", "What is the maximum taxi fare that can be reimbursed per trip?"),
    (DOCX, "en", "How many wrong PIN entries does the Werkzeug debugger allow before the server has to be restarted?"),
    (DOCX, "ko", "make_ssl_devcert로 만든 개발용 인증서는 유효기간이 며칠이에요?"),
    (PPTX, "en", "When is structlog 26.2.0 scheduled to be released?"),
    (XLSX, "ko", "arrow 1.5.0은 언제 릴리스됐어?"),
    (CSV, "en", "What was the release date of packaging 26.1?"),
    (HTML, "en", "In which Tenacity version was the enabled=False option introduced?"),
    (HTML, "ko", "tenacity 쓰려면 파이썬 최소 몇 버전이 필요해?"),
    (TIFF, "en", "What is the default max_age for ItsDangerous timestamped tokens?"),
    (PDF, "ko", "h11 최신 버전 번호가 뭐예요?"),
]


def main():
    rows = []
    order = []
    for f, *_ in A:
        if f not in order:
            order.append(f)
    for f, kind, q, a, pages, loc, ev in A:
        lang = "en" if kind in ("en", "en_about_ko") else "ko"
        rows.append({"file": f, "question": q, "answer": a, "pages": pages, "location": loc, "evidence": ev,
                     "kind": kind, "lang": lang})
    for f, lang, q in N:
        rows.append({"file": f, "question": q, "answer": None, "pages": [], "location": None, "evidence": None,
                     "kind": "near_miss", "lang": lang})
    rows.sort(key=lambda r: order.index(r["file"]))  # stable: each file's answerable items, then its near misses
    out = Path(__file__).resolve().parent.parent / "rag_formats_holdout3.jsonl"
    with open(out, "w", encoding="utf-8") as fh:
        for i, r in enumerate(rows, 1):
            fh.write(json.dumps({"id": f"fh3-{i:03d}", **r}, ensure_ascii=False) + "\n")
    print(out, len(rows))


if __name__ == "__main__":
    main()
