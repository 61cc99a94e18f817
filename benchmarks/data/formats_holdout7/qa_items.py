#!/usr/bin/env python3
"""QA items of formats_holdout7, written by hand from the document texts (ko_texts.py and the source files
named in SOURCES.md) before any OCR was run. Running this file writes ../rag_formats_holdout7.jsonl.

Each item: (kind, lang, file key, question, answer, evidence, location or pages).
- location: article "제N조" or heading text (HWPX / HWP / DOCX / HTML), "슬라이드 N" (PPTX), "Sheet!row" (XLSX),
  "stem!row" (CSV); for the image-only scans a list of 1-based pages instead.
- near misses: answer / evidence / location None; NEAR_MISS_PROXIES gives, per item id, 2-4 strings that a
  document answering the question would contain and that build.py checks occur in no file.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

FILES = {
    "hwpx": "saegyeol_oncall_duty_rules_2026.hwpx",
    "hwp": "saegyeol_infection_control_plan_2026.hwp",
    "scan_ko": "saegyeol_medical_records_release_guideline_scan.pdf",
    "docx_ko": "saegyeol_new_nurse_orientation_manual.docx",
    "pptx": "saegyeol_patient_experience_report_2025h2.pptx",
    "xlsx": "saegyeol_equipment_inspection_2026q1.xlsx",
    "csv": "idna_release_history.csv",
    "docx_en": "colorama_windows_ansi_guide.docx",
    "html": "blinker_signals_documentation.html",
    "scan_en": "sortedcontainers_readme_scan.pdf",
}

B1 = "별표 1 당직수당 지급 기준 (제13조 관련)"
CSV = "idna_release_history"

ITEMS = [
    # --- HWPX: 당직 근무 규정 -------------------------------------------------------------------
    ("ko", "ko", "hwpx", "재택당직 서다가 호출 받으면 몇 분 안에 병원에 도착해야 돼요?", "40분",
     "재택당직자는 호출을 받은 때부터 10분 안에 전화로 응답하여야 하며, 내원이 필요한 경우에는 호출 후 40분 안에 병원에 도착하여야 한다.",
     "제10조"),
    ("ko", "ko", "hwpx", "당직 규정상 1인당 한 달 원내당직 횟수 상한은 얼마입니까?", "8회",
     "1인당 월 당직 횟수는 원내당직 8회, 재택당직 10회를 넘지 못한다.", "제5조"),
    ("ko", "ko", "hwpx", "주말이나 공휴일에 의사가 원내당직 서면 한 번에 수당 얼마 받아요?", "350,000원",
     "의사 원내당직 250,000원 350,000원", B1),
    ("en_about_ko", "en", "hwpx",
     "If I'm on home on-call and get called in, how much extra do I get paid per trip to the hospital?", "50,000원",
     "재택당직자가 호출을 받고 내원한 경우에는 당직수당과 별도로 내원 1회당 50,000원의 호출 내원 수당을 지급한다.", "제14조"),
    ("en_about_ko", "en", "hwpx",
     "What's the deadline for department heads to hand next month's on-call roster in to HR?", "매월 20일",
     "부서장은 다음 달 당직표를 매월 20일까지 작성하여 인사팀에 제출하여야 한다.", "제6조"),
    # --- HWP: 2026년 감염관리 실행계획 ---------------------------------------------------------
    ("ko", "ko", "hwp", "작년 손위생 수행률 실적이 몇 퍼센트였죠?", "91.2%",
     "손위생 수행률 88.4% 91.2% 92.0% 미달", "2. 2025년 주요 지표 실적"),
    ("ko", "ko", "hwp", "CPE 보균 환자가 나왔는데 1인실이 다 찼으면 어떻게 격리해야 하나요?", "같은 균주 보균자끼리 코호트 격리한다",
     "카바페넴분해효소 생성 장내세균목(CPE) 보균자는 1인실 격리를 원칙으로 하되, 1인실이 모자라면 같은 균주 보균자끼리 코호트 격리한다.",
     "4.3 다제내성균 관리"),
    ("ko", "ko", "hwp", "감염관리 실행계획에 잡힌 예산 합계가 얼마인가요?", "111,700",
     "합계 111,700", "6. 소요 예산"),
    ("ko", "ko", "hwp", "개인보호구 입고 벗는 실습 교육은 몇 월에 있어?", "3월, 9월",
     "개인보호구 착탈의 실습 간호직·보건직 3월, 9월 실습 평가", "4.4 교육 및 훈련"),
    ("en_about_ko", "en", "hwp", "What hand hygiene compliance rate is the infection control plan aiming for in 2026?",
     "94% 이상", "가. 손위생 수행률을 94% 이상으로 끌어올린다.", "3. 2026년 추진 목표"),
    # --- Korean scan: 진료기록 열람 및 사본 발급 업무 지침 --------------------------------------
    ("ko", "ko", "scan_ko", "환자가 진료기록 사본을 100장 넘게 요청하면 언제까지 내줘야 하나요?", "3근무일",
     "다만, 발급 매수가 100매를 넘거나 작성된 지 5년이 지난 기록이 포함된 경우에는 신청일부터 3근무일 안에 발급한다.", [1]),
    ("ko", "ko", "scan_ko", "일반진단서 한 통 떼는 데 수수료가 얼마예요?", "20,000원", "일반진단서 1통 20,000원", [2]),
    ("ko", "ko", "scan_ko", "진료기록 열람은 1회에 최대 얼마 동안 할 수 있습니까?", "1시간",
     "열람은 본관 2층 의료정보팀 열람실에서 직원이 입회한 가운데 하며, 1회 열람 시간은 1시간을 넘지 않도록 한다.", [1]),
    ("en_about_ko", "en", "scan_ko",
     "When a patient gets their records issued electronically, how long does the download stay available?", "7일",
     "전자 발급은 병원 누리집에서 본인인증을 마친 환자 본인만 신청할 수 있으며, 발급된 파일은 7일 동안 내려받을 수 있다.", [2]),
    ("en_about_ko", "en", "scan_ko",
     "How long are we supposed to keep the original paper application forms and authorization letters?", "3년간",
     "발급 신청서와 위임장 등 구비서류는 스캔하여 전자의무기록 시스템에 저장하고, 원본은 3년간 보관한 뒤 파기한다.", [2]),
    # --- DOCX (ko): 신규 간호사 입문 매뉴얼 ----------------------------------------------------
    ("ko", "ko", "docx_ko", "밤번 근무는 몇 시부터 몇 시까지예요?", "22:30~07:30", "밤번 (N) 22:30~07:30 22:10",
     "2.1 교대 근무 시간"),
    ("ko", "ko", "docx_ko", "희망 휴무는 한 달에 며칠까지 넣을 수 있어요?", "최대 3일",
     "한 달에 신청할 수 있는 희망 휴무는 최대 3일이다.", "2.2 근무표와 희망 휴무"),
    ("ko", "ko", "docx_ko", "응급실로 배치된 신규 간호사의 프리셉터 실습 기간은 얼마입니까?", "8주",
     "프리셉터 실습 기간은 6주이고, 중환자실과 응급실에 배치된 간호사는 8주로 한다.", "3.2 프리셉터 제도"),
    ("en_about_ko", "en", "docx_ko", "What's the cut-off score on the end-of-probation evaluation before a new nurse has to be retrained?",
     "70점", "평가 점수가 70점에 못 미치면 4주 동안 재교육을 받은 뒤 다시 평가한다.", "3.3 평가"),
    ("en_about_ko", "en", "docx_ko", "What's the internal extension for the infection control office?", "2455",
     "감염관리실 2455 격리 문의, 주사침 찔림 신고", "5. 자주 찾는 연락처"),
    # --- PPTX: 2025년 하반기 환자경험 평가 결과 보고 -------------------------------------------
    ("ko", "ko", "pptx", "하반기 환자경험 조사 응답률이 몇 %였어요?", "39.2%", "응답자 486명, 응답률 39.2%", "슬라이드 2"),
    ("ko", "ko", "pptx", "지난 조사 대비 점수가 내려간 영역은 어디인가요?", "병원 환경",
     "여섯 개 영역 중 병원 환경 점수만 떨어졌습니다.", "슬라이드 3"),
    ("ko", "ko", "pptx", "72병동 결과가 계속 안 좋은데 어떤 후속 조치를 하기로 했나요?", "병동 간담회",
     "72병동은 2회 연속 최하위여서 2월 중에 병동 간담회를 열 예정입니다.", "슬라이드 4"),
    ("ko", "ko", "pptx", "화장실 청결 점검 횟수 늘리는 건 언제까지 완료하는 걸로 돼 있죠?", "2026년 2월",
     "화장실 청결 점검을 하루 2회에서 4회로 확대 시설관리팀 2026년 2월", "슬라이드 6"),
    ("en_about_ko", "en", "pptx",
     "How much additional budget did customer support request for improving the hospital environment?", "1억 2천만 원",
     "병원 환경 개선 예산 1억 2천만 원 추가 배정 요청", "슬라이드 7"),
    # --- XLSX: 의료장비 정기점검 현황 ------------------------------------------------------------
    ("ko", "ko", "xlsx", "신생아실 보육기 다음 정기점검 예정일이 언제로 잡혀 있어요?", "2026-02-25",
     "ME-2015-0077 유아 보육기 Giraffe OmniBed GE헬스케어 신생아실 2015-05-20 6 2025-08-25 2026-02-25", "장비대장!15"),
    ("ko", "ko", "xlsx", "12월에 수액주입펌프 수시점검에서 나온 문제가 뭐였나요?", "유량 오차 7%",
     "2025-12-04 ME-2018-0230 수액주입펌프 수시 부적합 유량 오차 7% 확인, 제조사에 수리 의뢰 (12월 11일 복귀)", "점검이력!5"),
    ("ko", "ko", "xlsx", "응급실 제세동기 담당자 누구예요?", "이수민",
     "ME-2020-0107 제세동기 HeartStart XL+ 필립스 응급실 2020-08-03 3 2026-01-08 2026-04-08 이수민", "장비대장!3"),
    ("en_about_ko", "en", "xlsx", "What did they fix on the autoclave at its December inspection?", "도어 패킹 교체",
     "2025-12-22 ME-2017-0088 고압증기멸균기 정기 조치 후 적합 도어 패킹 교체, 생물학적 표지자 검사 음성", "점검이력!8"),
    ("en_about_ko", "en", "xlsx", "Who's the manufacturer of the ventilator in ICU-3?", "드레거",
     "ME-2019-0042 인공호흡기 Savina 300 드레거", "장비대장!2"),
    # --- CSV: idna release history ----------------------------------------------------------------
    ("en", "en", "csv", "Which idna release introduced the command-line tool?", "3.16",
     "3.16 2026-05-22 change Add a command-line interface (python -m idna, also available as the idna script).", f"{CSV}!20"),
    ("en", "en", "csv", "By how much did idna 3.17 cut memory usage?", "75%",
     "Substantial 75% reduction in memory usage through new data structures and some optimization in processing speed.",
     f"{CSV}!18"),
    ("en", "en", "csv", "Is there now a cap on how long an input string can be? What is it?", "1024-character",
     "Added a general 1024-character input length cap to the public validation, conversion, and codec entry points.",
     f"{CSV}!19"),
    ("ko_about_en", "ko", "csv", "idna는 몇 버전부터 파이썬 2를 지원 안 해요?", "3.0",
     "3.0 2021-01-01 change Python 2 is no longer supported", f"{CSV}!80"),
    ("ko_about_en", "ko", "csv", "CVE-2024-3651 취약점이 처음 수정된 idna 릴리스는 무엇입니까?", "3.7",
     "3.7 2024-04-11 change Fix issue where specially crafted inputs to encode() could take exceptionally long amount of time to process. [CVE-2024-3651]",
     f"{CSV}!53"),
    ("ko_about_en", "ko", "csv", "idna 3.18에서 도메인 디코딩할 때 쓰라고 추가된 인자 이름이 뭐예요?", "display",
     "When decoding a domain, add a display argument that will pass through invalid labels rather than raising an exception.",
     f"{CSV}!17"),
    # --- DOCX (en): colorama README -----------------------------------------------------------------
    ("en", "en", "docx_en", "If all I need is ANSI escapes working on Windows, which colorama function should I call?",
     "just_fix_windows_console",
     "Most users should depend on colorama >= 0.4.6, and use just_fix_windows_console.", "Initialisation"),
    ("en", "en", "docx_en", "Can colorama render dim text on Windows?", "does not support ANSI 'dim text'",
     "These screenshots show that, on Windows, Colorama does not support ANSI 'dim text'; it looks the same as 'normal text'.",
     "Description"),
    ("en", "en", "docx_en", "When does init() convert ANSI codes into win32 calls if I leave convert at its default?",
     "convert if on Windows and output is to a tty (terminal)",
     "The default behaviour is to convert if on Windows and output is to a tty (terminal).", "Init Keyword Args"),
    ("en", "en", "docx_en", "Which escape sequence moves the cursor up n lines?", "ESC [ n A",
     "cursor positioning ESC [ n A move cursor n lines up", "Recognised ANSI Sequences"),
    ("ko_about_en", "ko", "docx_en", "colorama 다시 켤 때 init() 말고 reinit()을 쓰면 뭐가 좋아요?",
     "it is cheaper than calling init() again",
     "To resume using Colorama again, call reinit(); it is cheaper than calling init() again (but does the same thing).",
     "Initialisation"),
    ("ko_about_en", "ko", "docx_en", "Colorama는 어떤 라이선스로 배포되나요?", "BSD 3-Clause license",
     "Copyright Jonathan Hartley & Arnon Yaari, 2013-2020. BSD 3-Clause license; see LICENSE file.", "License"),
    ("ko_about_en", "ko", "docx_en", "colorama init()을 여러 번 불러도 문제없나요?", "It's not safe to call init multiple times",
     "It's not safe to call init multiple times; you can end up with multiple layers of wrapping and broken ANSI support.",
     "Initialisation"),
    # --- HTML: blinker documentation ------------------------------------------------------------------
    ("en", "en", "html", "How do I temporarily silence a blinker signal while testing?", "muted()",
     "To mute a signal, as may be required when testing, the muted() can be used as a context decorator:",
     "Muting signals"),
    ("en", "en", "html", "When did blinker 1.9.0 come out?", "2024-11-08", "Released 2024-11-08", "Version 1.9.0"),
    ("en", "en", "html", "What should the receiver storage class be changed to so receivers fire in registration order?",
     "an ordered set",
     "To achieve this the storage class for receivers should be changed from an (unordered) set to an ordered set,",
     "Call receivers in order of registration"),
    ("ko_about_en", "ko", "html", "blinker에서 connect를 데코레이터로 쓰면 sender를 못 정하던데, 그럴 땐 뭘 써야 하죠?",
     "connect_via()", "For this, connect_via() can be used:", "connect as a Decorator"),
    ("ko_about_en", "ko", "html", "blinker에서 코루틴 리시버를 호출하려면 어떤 메서드를 쓰나요?", "send_async()",
     "Receivers can be coroutine functions which can be called and awaited via the send_async() method:",
     "Async receivers"),
    ("ko_about_en", "ko", "html", "signal() 함수가 만드는 시그널은 어느 네임스페이스에 들어가요?", "default_namespace",
     "Return a NamedSignal in default_namespace for the given name, creating it if required.", "Named Signals"),
    # --- English scan: sortedcontainers README ---------------------------------------------------------
    ("en", "en", "scan_en", "How much memory does each reference take inside a sorted container?", "eight bytes",
     "Each reference requires eight bytes in the sorted container.", [1]),
    ("en", "en", "scan_en", "Which Python version was Sorted Containers developed on?", "Python 3.7",
     "Developed on Python 3.7", [2]),
    ("en", "en", "scan_en", "Who holds the copyright on Sorted Containers?", "Grant Jenks", "Copyright 2014-2019 Grant Jenks", [2]),
    ("ko_about_en", "ko", "scan_en", "sortedcontainers가 보통 이진 트리 구현보다 오버헤드가 얼마나 적다고 하나요?",
     "66% less overhead",
     "It's also 66% less overhead than a typical binary tree implementation (e.g. Red-Black Tree, AVL-Tree, AA-Tree, Splay-Tree, Treap, etc.) for which every node must also store two pointers to children nodes.",
     [1]),
    ("ko_about_en", "ko", "scan_en", "sortedcontainers를 쓰는 오픈소스 중에 비동기 I/O 라이브러리는 뭐예요?", "Trio",
     "Sorted Containers is used in popular open source projects such as: Zipline, an algorithmic trading library from Quantopian; Angr, a binary analysis platform from UC Santa Barbara; Trio, an async I/O library; and Dask Distributed, a distributed computation library supported by Continuum Analytics.",
     [2]),
    ("ko_about_en", "ko", "scan_en", "sortedcontainers 설치 명령어 좀 알려주세요.", "pip install sortedcontainers",
     "$ pip install sortedcontainers", [2]),
    # --- near misses ------------------------------------------------------------------------------------
    ("near_miss", "ko", "hwpx", "당직 서면 식대는 따로 나와요? 나오면 얼마예요?", None, None, None),
    ("near_miss", "ko", "hwpx", "전공의 당직수당은 규정에 얼마로 정해져 있나요?", None, None, None),
    ("near_miss", "en", "hwpx", "What's the on-call allowance for pharmacists?", None, None, None),
    ("near_miss", "ko", "hwp", "2026년 계획에서 유치도뇨관 요로감염 목표치는 몇 건으로 잡았어요?", None, None, None),
    ("near_miss", "ko", "scan_ko", "진료기록 사본을 팩스로 받을 수도 있나요?", None, None, None),
    ("near_miss", "ko", "docx_ko", "프리셉터 맡으면 수당이 따로 나오나요?", None, None, None),
    ("near_miss", "ko", "pptx", "이번 환자경험 평가에서 외래환자 만족도는 몇 점 나왔어요?", None, None, None),
    ("near_miss", "ko", "xlsx", "CT 장비 다음 점검 예정일이 언제예요?", None, None, None),
    ("near_miss", "en", "xlsx", "When was the MRI scanner last inspected?", None, None, None),
    ("near_miss", "en", "csv", "Which idna release added support for Python 3.16?", None, None, None),
    ("near_miss", "ko", "csv", "idna에서 IDNA2003 방식으로 처리하게 하는 옵션이 있나요?", None, None, None),
    ("near_miss", "en", "docx_en", "Does colorama support 256-colour or truecolor escape codes on Windows?", None, None, None),
    ("near_miss", "en", "html", "How do I set a timeout on send_async so slow receivers get cancelled?", None, None, None),
    ("near_miss", "ko", "html", "blinker 2.0은 언제 릴리스됐나요?", None, None, None),
    ("near_miss", "en", "scan_en", "What's the default load factor of a SortedList?", None, None, None),
]

# strings that a document answering the near-miss question would contain (checked to occur in no file)
NEAR_MISS_PROXIES = {
    "fh7-056": ["식대", "식비", "야식"],
    "fh7-057": ["전공의 당직수당", "전공의 원내당직", "수련의 당직"],
    "fh7-058": ["약사", "pharmacist"],
    "fh7-059": ["요로감염을", "요로감염 목표", "도뇨관일당 0.8"],
    "fh7-060": ["팩스", "FAX", "팩시밀리"],
    "fh7-061": ["프리셉터 수당", "프리셉터에게 지급", "프리셉터 활동비"],
    "fh7-062": ["외래환자 만족도", "외래 점수", "외래 진료 만족"],
    "fh7-063": ["CT 촬영", "컴퓨터단층", "CT 장비"],
    "fh7-064": ["MRI", "자기공명"],
    "fh7-065": ["Python 3.16", "3.16 support"],
    "fh7-066": ["IDNA2003", "idna2003", "transitional=True"],
    "fh7-067": ["256", "truecolor", "24-bit"],
    "fh7-068": ["timeout", "cancel"],
    "fh7-069": ["blinker 2.0", "Version 2.0.0", "Released 2025"],
    "fh7-070": ["load factor of", "DEFAULT_LOAD_FACTOR", "_load ="],
}


def items():
    out = []
    for k, (kind, lang, fkey, q, a, ev, loc) in enumerate(ITEMS, 1):
        scan = fkey.startswith("scan")
        out.append({
            "id": f"fh7-{k:03d}",
            "file": FILES[fkey],
            "question": q,
            "answer": a,
            "pages": (loc if scan and loc else []),
            "location": (None if scan or kind == "near_miss" else loc),
            "evidence": ev,
            "kind": kind,
            "lang": lang,
        })
    return out


def main():
    rows = items()
    path = HERE.parent / "rag_formats_holdout7.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    from collections import Counter
    print(path, len(rows), dict(Counter(r["kind"] for r in rows)))


if __name__ == "__main__":
    main()
