#!/usr/bin/env python3
"""Hand-written QA items for formats_holdout5 -> ../rag_formats_holdout5.jsonl

Each answerable item: (file key, kind, lang, question, answer, evidence, location, pages).
location: heading / 제N조 / 별표 heading / 슬라이드 N / Sheet!row; None for the scans (pages carry it).
Near-miss items: (file key, lang, question); NEAR_MISS_PROXIES lists strings a wrong answer would quote,
and it was checked that none of them occurs anywhere in the set.
"""
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

FILES = {
    "hwpx": "ongil_safety_health_rules_2025.hwpx",
    "hwp": "ongil_heatwave_work_plan_2026.hwp",
    "scan_ko": "ongil_cargo_claim_rules_scan.pdf",
    "docx_ko": "ongil_owms32_inout_manual.docx",
    "pptx": "ongil_2025q4_operations_report.pptx",
    "xlsx": "ongil_2026-01_delivery_results.xlsx",
    "csv": "tomlkit_changes_0.14-0.15.3.csv",
    "docx_en": "babel_number_formatting.docx",
    "html": "babel_message_catalogs.html",
    "scan_en": "wrapt_readme_scan.pdf",
}
CSV = "tomlkit_changes_0.14-0.15.3"
T1 = "별표 1 작업별 보호구 지급 기준"

ANSWERABLE = [
    # --- HWPX: 안전보건관리규정 -------------------------------------------------------------------------
    ("hwpx", "ko", "ko", "지게차 운전하려면 특별교육 몇 시간 받아야 돼요?", "16시간",
     "지게차를 운전하는 직원은 최초 배치 전에 16시간 이상의 특별교육을 받아야 하며, 특별교육을 이수하지 아니한 사람은 지게차를 운전할 수 없다.",
     "제9조", []),
    ("hwpx", "ko", "ko", "센터 안에서 사람 다니는 통로랑 겹치는 데서는 지게차 속도를 얼마까지 내도 되나요?", "시속 5킬로미터 이하",
     "다만, 보행자 통로와 교차하는 구간에서는 시속 5킬로미터 이하로 한다.", "제11조", []),
    ("hwpx", "ko", "ko", "랙 맨 위에 올린 짐이랑 천장 스프링클러 헤드 사이는 최소 얼마나 띄워야 하는지 규정에 있나요?", "46센티미터",
     "② 바닥에 직접 쌓는 화물의 높이는 1.8미터 이하로 하고, 랙 최상단 적재물과 천장 스프링클러 헤드 사이에는 46센티미터 이상의 간격을 두어야 한다.",
     "제12조", []),
    ("hwpx", "ko", "ko", "냉동창고 작업자 방한복 교체주기가 어떻게 되죠? 보호구 지급 기준표 기준으로요", "방한복 2년",
     "냉동창고 작업 방한복, 방한화, 방한장갑 방한복 2년, 방한화 1년", T1, []),
    ("hwpx", "en_about_ko", "en", "How many people sit on Ongil's occupational safety and health committee, and how are the seats split?",
     "노사 각 5명, 총 10명", "① 회사는 노사 각 5명, 총 10명으로 구성하는 산업안전보건위원회를 둔다.", "제6조", []),
    ("hwpx", "en_about_ko", "en", "what do employees get for reporting a near miss in the safety app?", "건당 1만원 상당의 복지포인트",
     "② 회사는 아차사고를 신고한 직원에게 건당 1만원 상당의 복지포인트를 지급하며, 우수 신고자는 분기마다 포상한다.", "제19조", []),
    # --- HWP: 2026년 물류센터 폭염 대비 작업관리 계획 -----------------------------------------------------
    ("hwp", "ko", "ko", "올해 폭염 대책은 언제부터 언제까지 시행해?", "2026년 6월 1일부터 9월 15일까지",
     "추진 기간은 2026년 6월 1일부터 9월 15일까지로 한다.", "2. 추진 기간 및 대상", []),
    ("hwp", "ko", "ko", "체감온도가 38도를 넘어가는 '위험' 단계에선 휴식을 얼마나 줘야 되나요", "1시간마다 20분",
     "위험 38도 이상 1시간마다 20분 센터장 판단으로 옥외 작업 중지", "3. 단계별 작업관리 기준", []),
    ("hwp", "ko", "ko", "폭염 대비 계획 소요예산 총액이 얼마로 잡혔는지 알려줘", "109,700,000",
     "합계 109,700,000 -", "5. 소요 예산", []),
    ("hwp", "en_about_ko", "en", "If a long heat warning is forecast, how much earlier do the Pyeongtaek and Gimhae centres start daytime truck loading?",
     "07시에서 06시로",
     "경고 단계 이상이 사흘 넘게 이어진다는 예보가 있으면 평택센터와 김해센터의 주간 상차 시작 시각을 07시에서 06시로 앞당긴다.",
     "다. 작업시간 조정", []),
    ("hwp", "en_about_ko", "en", "What was the hottest apparent temperature measured inside a logistics centre in summer 2025?", "36.8도",
     "2025년 여름 물류센터 안에서 측정된 최고 체감온도는 7월 29일 평택센터 상차장의 36.8도였으며, 온열질환 의심 증상 신고는 모두 11건이었다.",
     "1. 추진 배경", []),
    # --- Korean scan: 화물사고 처리 및 배상 규정 --------------------------------------------------------
    ("scan_ko", "ko", "ko", "화주가 겉으로는 안 보이던 파손을 나중에 발견하면 며칠 안에 신고하면 되나요?", "30일 이내",
     "다만, 외관으로 알 수 없는 파손은 30일 이내에 신고할 수 있다.", None, [1]),
    ("scan_ko", "ko", "ko", "배송이 약속 시간보다 이틀 넘게 늦어지면 배상을 어떻게 해주게 돼 있어?", "운임 전액",
     "약정한 도착 시각보다 24시간 이상 늦게 인도한 경우에는 해당 건 운임의 100분의 50을 배상하고, 48시간 이상 늦은 경우에는 운임 전액을 배상한다.",
     None, [2]),
    ("scan_ko", "ko", "ko", "배상액이 천만원인 화물사고 건은 누가 최종 결정하나요?", "운영본부장",
     "① 배상액이 300만원 이하인 건은 센터장이, 300만원 초과 3,000만원 이하인 건은 운영본부장이, 3,000만원을 초과하는 건은 대표이사가 결정한다.",
     None, [2]),
    ("scan_ko", "ko", "ko", "별표2 보면 중대사고 1차보고 기한이 몇일이에요?", "3일 이내",
     "중대사고 본사 품질보증팀 3일 이내 7일 이내", None, [3]),
    ("scan_ko", "en_about_ko", "en", "What's the per-accident coverage limit of the cargo liability insurance Ongil carries?", "2억원",
     "① 회사는 적재물배상책임보험에 가입하며, 1사고당 보상한도는 2억원으로 한다.", None, [2]),
    ("scan_ko", "en_about_ko", "en", "Per the cargo claim rules' appendix, what's the maximum compensation per case for pharmaceuticals?", "3,000만원",
     "의약품 3,000만원 별도 특약 우선", None, [2]),
    # --- Korean DOCX: OWMS 3.2 입출고 처리 매뉴얼 --------------------------------------------------------
    ("docx_ko", "ko", "ko", "OWMS 로그인 비번 몇 번 틀리면 잠기나요?", "5회",
     "비밀번호는 90일마다 바꾸어야 하며, 5회 연속으로 틀리면 계정이 잠긴다.", "2. 접속 및 권한", []),
    ("docx_ko", "ko", "ko", "로케이션 코드 세 번째 자리가 F면 어느 구역이란 뜻이야?", "냉동",
     "3번째 구역 A(상온), C(냉장), F(냉동)", "3.3 적치", []),
    ("docx_ko", "ko", "ko", "의약품 화주 물건은 입고할 때 잔여 유통기한 기준을 몇 퍼센트로 보나요?", "80%",
     "의약품 화주와는 별도 품질협약에 따라 잔여 유통기한 기준을 80%로 적용한다.", "3.2 입고 검수", []),
    ("docx_ko", "en_about_ko", "en", "The PDA shows error E-205 during outbound check — what is the worker supposed to do?",
     "초과분을 원래 로케이션에 반납", "E-205 피킹 수량 초과 초과분을 원래 로케이션에 반납", "4.2 출고 검수 및 상차", []),
    ("docx_ko", "en_about_ko", "en", "When does the OWMS manual schedule the full (wall-to-wall) stock counts?", "6월과 12월의 마지막 토요일",
     "순환 재고조사는 매주 수요일 야간에 전체 로케이션의 10%를 대상으로 하고, 전수 재고조사는 6월과 12월의 마지막 토요일에 한다.",
     "5. 재고 조사", []),
    # --- PPTX: 2025년 4분기 운영 실적 보고 --------------------------------------------------------------
    ("pptx", "ko", "ko", "4분기 평택센터 정시 배송률 몇 %였어요?", "96.1%",
     "평택센터 936,500 +12.6% 96.1% 0.034%", "슬라이드 2", []),
    ("pptx", "ko", "ko", "소터 2호기 들여온 다음에 평택 시간당 분류능력이 얼마까지 올랐다고 했죠?", "14,500박스",
     "소터 2호기를 들인 뒤 평택센터의 시간당 분류 능력은 9,000박스에서 14,500박스로 늘었습니다.", "슬라이드 3", []),
    ("pptx", "ko", "ko", "노후 지게차 교체 건의, 예산 규모 얼마로 추산했어?", "약 3억 6천만원",
     "교체 대상 지게차는 도입한 지 10년이 넘은 장비이고, 교체 예산은 약 3억 6천만원으로 추산합니다.", "슬라이드 7", []),
    ("pptx", "en_about_ko", "en", "In the Q4 operations report, how much of the confirmed cargo compensation do they expect to get back from insurance?",
     "3,100만원", "배상 확정액 가운데 3,100만원은 적재물배상책임보험으로 돌려받을 예정입니다.", "슬라이드 4", []),
    # --- XLSX: 2026년 1월 배송 실적 --------------------------------------------------------------------
    ("xlsx", "ko", "ko", "1월 대구경북 권역 정시배송률 얼마 나왔어?", "96.8%",
     "대구·경북 김해센터 41260 14 96.8% 121.7 1월 13일부터 차량 2대 증차", "권역별실적!9", []),
    ("xlsx", "ko", "ko", "세종 신규 거점 개소일이 언제였죠?", "1월 19일",
     "충청 평택센터 64150 19 97.2% 88.6 세종 신규 거점 1월 19일 개소", "권역별실적!6", []),
    ("xlsx", "ko", "ko", "타이어 6본 갈았던 11톤 카고 차량, 다음 점검 예정일이 언제로 돼 있나요?", "2026-07-20",
     "80사 6648 11톤 카고 평택센터 2026-01-20 타이어 6본 교체 1840000 2026-07-20", "차량정비!6", []),
    ("xlsx", "en_about_ko", "en", "When is the next inspection due for truck 85바 3902 after its temperature recorder calibration?", "2027-01-22",
     "85바 3902 2.5톤 냉동탑 김해센터 2026-01-22 온도기록계 교정 95000 2027-01-22", "차량정비!7", []),
    # --- CSV: tomlkit changes ---------------------------------------------------------------------------
    ("csv", "en", "en", "Which tomlkit release moved the parser to TOML spec v1.1.0?", "0.15.0",
     "0.15.0 2026-05-10 Changed Update parser to support TOML spec v1.1.0. #456", f"{CSV}!84", []),
    ("csv", "en", "en", "how deeply nested can a doc be before tomlkit raises ParseError after the recursion fix?", "more than 100 levels deep",
     "Values nested more than 100 levels deep and keys with more than 100 dotted fragments now raise ParseError.", f"{CSV}!70", []),
    ("csv", "en", "en", "In 0.15.2, how does tomlkit write the ESC control character now?", "\\u001b",
     "Write the ESC control character as \\u001b instead of \\e, which is only valid in TOML 1.1, so the output stays readable by TOML 1.0 parsers such as tomllib.",
     f"{CSV}!27", []),
    ("csv", "ko_about_en", "ko", "tomlkit 소스에서 빌드하려면 poetry-core 몇 버전 이상 있어야 하나요?", "poetry-core>=2.2.0",
     "Declare the project metadata in the PEP 621 [project] table; building from source now requires poetry-core>=2.2.0.", f"{CSV}!31", []),
    ("csv", "ko_about_en", "ko", "tomlkit가 python 3.8 지원 끊은 게 몇 버전부터야?", "0.14.0",
     "0.14.0 2026-01-13 Changed Drop support for Python older than 3.9. Remove 3.8 from the CI matrix.", f"{CSV}!85", []),
    ("csv", "ko_about_en", "ko", "Bool 아이템 두개가 서로 같다고 안 나오던 버그는 어느 PR 번호로 고쳐졌나요?", "#660",
     "0.15.2 2026-10-16 Fixed Fix two Bool items never comparing equal to each other; they now compare by value. #660", f"{CSV}!47", []),
    # --- English DOCX: Babel Number Formatting ----------------------------------------------------------
    ("docx_en", "en", "en", "What rounding mode does Python use by default when Babel formats numbers?", "ROUND_HALF_EVEN",
     "By default, Python rounding mode is ROUND_HALF_EVEN which complies with UTS #35 section 3.3.", "Rounding Modes", []),
    ("docx_en", "en", "en", "which pattern symbol gives per mille in Babel number formats?", "‰",
     "‰ Multiply by 1000 and show as per mille", "Pattern Syntax", []),
    ("docx_en", "en", "en", "As of which Babel version is parse_number described as having limited functionality?", "2.8.0",
     "Note: as of version 2.8.0, the parse_number function has limited functionality.", "Parsing Numbers", []),
    ("docx_en", "ko_about_en", "ko", "Babel 숫자 포맷 패턴에서 @ 기호는 무슨 의미예요?", "Significant digit",
     "@ Significant digit", "Pattern Syntax", []),
    ("docx_en", "ko_about_en", "ko", "바벨이 효율 때문에 가장 빠른 decimal 구현을 쓴다는데 예로 든 게 뭐야?", "cdecimal",
     "For efficiency reasons, Babel uses the fastest decimal implementation available, such as cdecimal.", "Rounding Modes", []),
    ("docx_en", "ko_about_en", "ko", "Babel의 커스텀 number format 패턴은 어떤 명세를 따르는 건가요?", "Locale Data Markup Language specification (LDML)",
     "As with date/time formatting patterns, the patterns Babel supports for number formatting are based on the Locale Data Markup Language specification (LDML).",
     "Pattern Syntax", []),
    # --- HTML: Babel Working with Message Catalogs -------------------------------------------------------
    ("html", "en", "en", "What config file formats can I use for Babel's extraction method mapping?", "INI and TOML",
     "Babel supports two configuration file formats: INI and TOML.", "Extraction Method Mapping and Configuration", []),
    ("html", "en", "en", "in the INI mapping file, lines starting with which characters are treated as comments?", "# or ;",
     "Lines that start with a # or ; character are ignored and can be used for comments.", "INI Configuration Format", []),
    ("html", "en", "en", "If my Babel extraction config lives in pyproject.toml, under which table do I put it?", "[tool.babel]",
     "If you're using pyproject.toml, nest the configuration under [tool.babel]:", "TOML Configuration Format", []),
    ("html", "en", "en", "Which extractors come built into Babel out of the box?", "python (which extracts messages from Python source files), javascript, and ignore",
     "Babel comes with a few builtin extractors: python (which extracts messages from Python source files), javascript, and ignore (which extracts nothing).",
     "Default Extraction Methods", []),
    ("html", "ko_about_en", "ko", "Babel에 커스텀 추출기를 등록할 때 쓰는 entry point 그룹 이름이 뭐예요?", "babel.extractors",
     "That is, add your extraction method to the entry point group babel.extractors, where the name of the entry point is the name that people will use to reference the extraction method, and the value being the module and the name of the function (separated by a colon) implementing the actual extraction.",
     "Writing Extraction Methods", []),
    ("html", "ko_about_en", "ko", "매핑 설정의 glob 패턴에서 ** (별 두개)는 무슨 역할을 하나요?", "any directory level",
     "In addition, two subsequent asterisk characters (**) can be used to make the wildcard match any directory level, so the pattern **.txt matches any file with the extension .txt in any directory.",
     "Extraction Method Mapping and Configuration", []),
    ("html", "ko_about_en", "ko", "바벨 python extractor는 기본적으로 어떤 glob 패턴에 매핑돼 있어?", "**.py",
     "The python extractor is by default mapped to the glob pattern **.py, meaning it'll be applied to all files with the .py extension in any directory.",
     "Default Extraction Methods", []),
    # --- English scan: wrapt README ---------------------------------------------------------------------
    ("scan_en", "en", "en", "Which Python versions does wrapt say it supports?", "Python 3.9+",
     "Python 3.9+", None, [2]),
    ("scan_en", "en", "en", "For autowrapt, which environment variable names the entry point group?", "AUTOWRAPT_BOOTSTRAP",
     "Install it alongside the application and name the entry point group in the AUTOWRAPT_BOOTSTRAP environment variable.", None, [2]),
    ("scan_en", "en", "en", "what happens with wrapt's C extension if the machine has no compiler?", "automatic fallback to a pure Python implementation",
     "An automatic fallback to a pure Python implementation is also provided where a target system does not have a compiler to allow the C extension to be compiled.",
     None, [1]),
    ("scan_en", "ko_about_en", "ko", "wrapt 워크숍은 어떤 환경에서 돌아가요?", "JupyterLab",
     "Two sets of guided, hands-on workshops run in JupyterLab and check your work as you go.", None, [2]),
    ("scan_en", "ko_about_en", "ko", "wrapt 라이선스 뭐예요?", "BSD License",
     "This project is licensed under the BSD License - see the LICENSE file for details.", None, [2]),
    ("scan_en", "ko_about_en", "ko", "wrapt 말고 더 상위 레벨 기능은 어느 프로젝트에서 개발한다고 하나요?", "wrapture",
     "Higher level functionality is being developed in wrapture rather than here.", None, [2]),
]

NEAR_MISS = [
    ("nm01", "hwpx", "ko", "안전보건관리규정에 야간근무자 야간수당 가산율은 몇 %로 돼 있나요?"),
    ("nm02", "hwpx", "ko", "안전관리자 되려면 어떤 자격증이 필요하다고 규정에 나와 있어? 산업안전기사 같은 거"),
    ("nm03", "hwp", "en", "How much does the 2026 heat-wave plan set aside for heat-illness training sessions?"),
    ("nm04", "hwp", "ko", "폭염 기간 동안 작업자 한 명당 생수를 하루 몇 병씩 지급하나요?"),
    ("nm05", "scan_ko", "ko", "배상금을 늦게 지급하면 지연이자율은 얼마 적용돼?"),
    ("nm06", "scan_ko", "en", "How many years must a cargo accident investigation report be kept on file under the claim rules?"),
    ("nm07", "docx_ko", "ko", "OWMS 모바일 앱 아이폰(iOS)에서도 쓸 수 있나요?"),
    ("nm08", "pptx", "en", "What net profit did Ongil report for Q4 2025?"),
    ("nm09", "xlsx", "ko", "1월 제주 권역 배송 건수 몇 건이었어?"),
    ("nm10", "csv", "en", "Which tomlkit release added support for TOML 1.2?"),
    ("nm11", "docx_en", "ko", "Babel format_currency에서 통화 소수점 자리수 지정하는 옵션 이름이 뭐예요?"),
    ("nm12", "html", "en", "What's the default output file name that Babel's extract_messages command writes to?"),
    ("nm13", "html", "ko", "pybabel compile 할 때 fuzzy 번역까지 포함시키는 옵션이 뭐였지?"),
    ("nm14", "scan_en", "en", "In what year was wrapt first released?"),
    ("nm15", "scan_en", "ko", "wrapt README에서 C 확장이 순수 파이썬보다 몇 배 빠르다고 했나요?"),
]

NEAR_MISS_PROXIES = {
    "nm01": ["야간수당", "야간근로수당", "가산율", "가산임금"],
    "nm02": ["산업안전기사", "자격증", "안전관리자 자격"],
    "nm03": ["교육비", "폭염 교육", "온열질환 교육"],
    "nm04": ["생수", "병씩", "1인당 하루"],
    "nm05": ["지연이자", "이자율", "연 6%"],
    "nm06": ["보존기간", "조사서 보존", "사고조사서를 보존"],
    "nm07": ["iOS", "아이폰", "안드로이드"],
    "nm08": ["순이익", "영업이익", "매출액"],
    "nm09": ["제주"],
    "nm10": ["TOML 1.2", "v1.2.0", "spec v1.2"],
    "nm11": ["format_currency", "currency_digits"],
    "nm12": ["messages.pot", "output_file", "--output"],
    "nm13": ["--use-fuzzy", "fuzzy"],
    "nm14": ["first released", "first release", "initial release"],
    "nm15": ["times faster", "benchmark", "배 빠"],
}


def items():
    """Answerable items file by file, each file's near-miss questions after its answerable ones."""
    out, nm_ids, n = [], {}, 0
    for key in FILES:
        for k, kind, lang, q, a, ev, loc, pages in ANSWERABLE:
            if k != key:
                continue
            n += 1
            out.append({"id": f"fh5-{n:03d}", "file": FILES[key], "question": q, "answer": a, "pages": pages,
                        "location": loc, "evidence": ev, "kind": kind, "lang": lang})
        for nid, k, lang, q in NEAR_MISS:
            if k != key:
                continue
            n += 1
            nm_ids[nid] = f"fh5-{n:03d}"
            out.append({"id": f"fh5-{n:03d}", "file": FILES[key], "question": q, "answer": None, "pages": [],
                        "location": None, "evidence": None, "kind": "near_miss", "lang": lang})
    assert n == len(ANSWERABLE) + len(NEAR_MISS)
    return out, nm_ids


ITEMS, _NM_IDS = items()
# proxies keyed by the item id used in the jsonl
NEAR_MISS_PROXIES = {_NM_IDS[k]: v for k, v in NEAR_MISS_PROXIES.items()}

if __name__ == "__main__":
    path = HERE.parent / "rag_formats_holdout5.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for it in ITEMS:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")
    print(f"wrote {len(ITEMS)} items to {path}")
