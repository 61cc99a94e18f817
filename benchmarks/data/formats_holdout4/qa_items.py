#!/usr/bin/env python3
"""Hand-written QA items for formats_holdout4 -> ../rag_formats_holdout4.jsonl

    python qa_items.py [OUT.jsonl]

Each item: (kind, lang, file key, question, answer, pages, location, evidence). The evidence is the whole
sentence / table row / list item / note line of the document, copied as it appears there (for the scans:
as drawn, see scan_pages.json). near_miss items ask for a plausible fact that no document of the set gives;
PROBES lists, per near-miss id, strings that a (wrong) answer would have to quote — it was checked that
none of them occurs in any built file.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SET = "formats_holdout4"

F = {
    "hwpx": "neulbom_welfare_rules_2025.hwpx",
    "hwp": "neulbom_business_plan_2026.hwp",
    "scan_ko": "neulbom_security_rules_scan.pdf",
    "docx_ko": "neulbom_icheon_dc_manual.docx",
    "pptx": "neulbom_2025q3_sales_report.pptx",
    "xlsx": "neulbom_2026_budget_inventory.xlsx",
    "csv": "sqlparse_changes_0.5-0.6.csv",
    "html": "pluggy_plugin_guide.html",
    "docx_en": "cachetools_reference.docx",
    "scan_en": "humanize_readme_scan.pdf",
}
CSV = "sqlparse_changes_0.5-0.6"
CT_FUNC = "cachetools.func --- functools.lru_cache()-compatible decorators"
CT_KEYS = "cachetools.keys --- Key functions for memoizing decorators"

ITEMS = [
    # ---------------------------------------------------------------- HWPX: 복리후생 규정
    ("ko", "ko", "hwpx", "애가 대학 다니는데 등록금 지원 학기당 최대 얼마까지 받을 수 있어요?",
     "200만원", [], "제9조", "2. 대학교: 학기당 실제 납부한 등록금의 100분의 50. 다만, 학기당 200만원을 한도로 한다."),
    ("ko", "ko", "hwpx", "경조금 신청 깜빡했는데… 경조사 생기고 며칠 안에 신청해야 돈 나오는 거죠?",
     "60일", [], "제5조",
     "③ 경조금은 경조사가 발생한 날부터 60일 이내에 경조금 신청서에 증빙서류를 첨부하여 주관부서에 신청하여야 하며, 이 기간이 지나면 지급하지 아니한다."),
    ("ko", "ko", "hwpx", "회사 주택자금 대부 받으면 이자율 몇 %로 적용되나요?",
     "연 2퍼센트", [], "제10조", "② 대부금의 이율은 연 2퍼센트로 하고, 상환기간은 5년 이내로 하며 매월 급여에서 원리금을 균등하게 공제한다."),
    ("ko", "ko", "hwpx", "근속 25년 채우면 포상휴가는 며칠 주는지 알려줘",
     "10일", [], "별표 2 근속 포상 기준", "25년 300만원 10일"),
    ("en_about_ko", "en", "hwpx", "How many welfare points does each employee receive at the start of every year under the benefits rules?",
     "120만 포인트", [], "제8조", "제8조(복지포인트) ① 회사는 직원에게 매년 1월 1일 복지포인트 120만 포인트를 부여하며, 1포인트는 1원으로 본다."),
    ("en_about_ko", "en", "hwpx", "If an employee's kid gets married, how much is the congratulatory payment?",
     "50만원", [], "별표 1 경조금 지급 기준", "결혼 자녀 50만원 1일"),
    # ---------------------------------------------------------------- HWP: 2026년 사업계획서
    ("ko", "ko", "hwp", "내년도(2026) 매출 목표를 얼마로 잡았는지 사업계획서 기준으로 알려주세요.",
     "2,050억원", [], "Ⅱ. 2026년 경영 목표", "매출액 2,050억원 11.3% 증가"),
    ("ko", "ko", "hwp", "진천 즉석밥 3라인 증설하면 언제부터 가동 들어가요?",
     "2026년 9월", [], "2. 생산 및 설비",
     "진천공장에 즉석밥 제3라인을 증설하여 2026년 9월부터 가동하며, 증설이 끝나면 즉석밥 연간 생산능력이 9,600만 개에서 1억 4,400만 개로 늘어난다."),
    ("ko", "ko", "hwp", "환율 리스크 대응으로 수출대금 몇 퍼센트를 환헷지 한다고 했더라",
     "50%", [], "Ⅴ. 위험 요인 및 대응", "환율 원/달러 환율 변동에 따른 수출 채산성 변화 수출대금의 50%를 환헤지"),
    ("en_about_ko", "en", "hwp", "Of the 48 new hires planned for 2026, how many are production workers for the Jincheon plant's third line?",
     "31명", [], "Ⅳ. 인력 운영 계획", "신규 채용 48명 가운데 31명은 진천공장 제3라인의 생산직이다."),
    ("en_about_ko", "en", "hwp", "what capacity is the rooftop solar system planned for the Eumseong plant?",
     "1.2MW", [], "2. 생산 및 설비", "음성공장은 2026년 6월까지 태양광 발전설비(1.2MW)를 지붕에 설치하여 공장 전력 사용량의 약 18%를 충당한다."),
    # ---------------------------------------------------------------- Korean scan: 보안 및 경비 규정 (3 pages)
    ("ko", "ko", "scan_ko", "CCTV 녹화본은 며칠 동안 보관하고 지우나요?",
     "30일간", [2], None, "② CCTV 녹화 영상은 30일간 보존한 후 자동으로 삭제한다."),
    ("ko", "ko", "scan_ko", "사원증 잃어버렸는데 재발급 받으려면 제가 돈 내야 되나요? 얼마예요?",
     "1만원", [1], None, "② 사원증을 잃어버린 사람은 즉시 총무팀에 신고하고 재발급을 신청하여야 하며, 재발급 비용 1만원은 본인이 부담한다."),
    ("ko", "ko", "scan_ko", "업무용 계정 비번 변경 주기가 어떻게 되죠?",
     "90일마다", [2], None, "제11조(정보시스템 보안) ① 업무용 계정의 비밀번호는 영문, 숫자 및 특수문자를 섞어 10자 이상으로 정하고, 90일마다 바꾸어야 한다."),
    ("ko", "ko", "scan_ko", "진천공장에서 통제구역으로 지정된 곳은 어디 어디야?",
     "배합실, 보일러실", [3], None, "진천공장 배합실, 보일러실 생산동, 포장실"),
    ("en_about_ko", "en", "scan_ko", "Under the security rules, how soon after joining must a new employee complete security training?",
     "7일 이내", [2], None, "② 신규 입사자는 입사일부터 7일 이내에 보안교육을 받고 보안서약서를 제출하여야 한다."),
    # ---------------------------------------------------------------- DOCX (ko): 물류센터 업무 매뉴얼
    ("ko", "ko", "docx_ko", "이천센터에서 당일 출고 받으려면 주문을 몇 시까지 넣어야 돼요?",
     "14시", [], "4.1 주문 마감", "당일 출고 주문은 14시에 마감하며, 14시 이후에 들어온 주문은 다음 날 출고한다."),
    ("ko", "ko", "docx_ko", "냉동창고에서 20분 작업한 뒤엔 전실에서 몇 분 쉬어야 하나요?",
     "10분", [], "4.2 피킹과 검품", "냉동 창고 작업자는 20분 작업 후 전실(前室)에서 10분 동안 몸을 녹인 다음 작업을 이어 간다."),
    ("ko", "ko", "docx_ko", "거래처 반품 들어오면 양품/불량 판정은 입고 후 몇 시간 안에 끝내야 함?",
     "48시간 이내", [], "5. 반품", "거래처에서 돌아온 반품은 R 구역에 따로 보관하며, 입고 후 48시간 이내에 양품·불량 판정을 마친다."),
    ("en_about_ko", "en", "docx_ko", "At inbound inspection, what is the reference truck-box temperature for frozen products?",
     "-18℃ 이하", [], "2.2 입고 검수", "냉동 냉동만두, 냉동 소스 -18℃ 이하 -15℃ 이하"),
    ("en_about_ko", "en", "docx_ko", "whats the forklift speed limit inside the Icheon distribution center?",
     "시속 10km", [], "6. 안전 수칙", "지게차는 면허를 가진 지정 운전자만 운전하며, 센터 안의 제한속도는 시속 10km이다."),
    # ---------------------------------------------------------------- PPTX: 3분기 영업 실적 보고
    ("ko", "ko", "pptx", "3분기 온라인 채널 매출 얼마 나왔어?",
     "112억원", [], "슬라이드 3", "온라인 112억원 23.0% +21.4%"),
    ("ko", "ko", "pptx", "추석이 10월로 밀리면서 4분기로 넘어간 선물세트 매출이 대략 얼마였나요?",
     "약 18억원", [], "슬라이드 2", "추석 연휴가 10월로 넘어가면서 선물세트 매출 약 18억원이 4분기로 이월되었습니다."),
    ("ko", "ko", "pptx", "대형마트 A사 단가 인하 협상에서 영업본부가 목표로 한 인하 폭 상한은?",
     "1.5% 이내", [], "슬라이드 5", "A사와의 협상은 10월 말까지 결론을 낼 예정이며, 인하 폭을 1.5% 이내로 막는 것이 목표입니다."),
    ("en_about_ko", "en", "pptx", "According to the Q3 sales briefing, what utilization rate is the Jincheon plant running at for instant rice?",
     "96%", [], "슬라이드 4", "즉석밥은 진천공장 가동률이 96%로 사실상 완전 가동 상태여서, 제3라인 증설 전까지는 추가 물량에 대응하기 어렵습니다."),
    # ---------------------------------------------------------------- XLSX: 예산 및 재고
    ("ko", "ko", "xlsx", "예산 시트에서 연구소 연구개발비 2026년 예산 얼마로 잡혀 있어요? (백만원 단위)",
     "4300", [], "부서별예산!8", "연구소 연구개발비 3650 4300 650 17.8% 비건·저나트륨 만두 개발"),
    ("ko", "ko", "xlsx", "김치만두 1kg 지금 재고 몇 박스 있음?",
     "2210", [], "재고현황!3", "FD-102 늘봄 김치만두 1kg 냉동 F1 박스 2210 2500 부족 2026-08-14"),
    ("ko", "ko", "xlsx", "2026 예산은 언제 이사회 의결로 확정될 예정인가요?",
     "2025년 12월 19일", [], "작성기준!6", "예산 확정 2025년 12월 19일 이사회 의결 예정"),
    ("en_about_ko", "en", "xlsx", "In the inventory sheet, what's the earliest expiry date listed for the 2kg tteokbokki sauce?",
     "2026-04-30", [], "재고현황!11", "SC-305 늘봄 떡볶이 소스 2kg 상온 A3 박스 515 700 부족 2026-04-30"),
    # ---------------------------------------------------------------- CSV: sqlparse changes
    ("en", "en", "csv", "Which version is the final sqlparse release?",
     "0.6.1", [], f"{CSV}!2", "Version 0.6.1 marks the final release of sqlparse."),
    ("en", "en", "csv", "what's the minimum python version required starting with sqlparse 0.6.0?",
     "Python 3.10+", [], f"{CSV}!10", "Python 3.10+ is now required."),
    ("en", "en", "csv", "What default values do the new grouping limits introduced in 0.5.4 have?",
     "MAX_GROUPING_DEPTH=100, MAX_GROUPING_TOKENS=10000", [], f"{CSV}!36",
     "The new limits (MAX_GROUPING_DEPTH=100, MAX_GROUPING_TOKENS=10000) can be adjusted or disabled (by setting to None) if needed for legitimate large SQL statements."),
    ("ko_about_en", "ko", "csv", "sqlparse 0.5.1에서 포매터에 새로 추가된 옵션 이름이 뭐예요?",
     "compact", [], f"{CSV}!44", 'New "compact" option for formatter.'),
    ("ko_about_en", "ko", "csv", "0.6.0부터 코드 검사/린팅 도구를 flake8 대신 뭘로 바꿨대?",
     "ruff", [], f"{CSV}!26", "Replace `flake8` with `ruff` for code checking and linting."),
    ("ko_about_en", "ko", "csv", "주석만 있는 입력에서 strip_comments가 주석을 다 안 지우던 버그, 그 PR 누가 올렸나요?",
     "stropysh", [], f"{CSV}!38", "Fix strip_comments not removing all comments when input contains only comments (issue801, pr803 by stropysh)."),
    # ---------------------------------------------------------------- HTML: pluggy guide
    ("en", "en", "html", "Roughly how many pytest plugins are built on pluggy according to the intro?",
     "1400+ plugins", [], "What is it?", "It enables 1400+ plugins to extend and customize pytest's default behaviour."),
    ("en", "en", "html", "When a hook is called, which plugin's implementation runs first by default?",
     "the last registered plugin's hooks are called first", [], "Calling hooks",
     "Hook implementations are called in LIFO registered order: the last registered plugin's hooks are called first."),
    ("en", "en", "html", "In which Pluggy version were the new-style hook wrappers added?",
     "Pluggy 1.1", [], "Wrappers", 'This section describes "new-style hook wrappers", which were added in Pluggy 1.1.'),
    ("en", "en", "html", "what tool do the pluggy docs suggest for setting up a development environment",
     "uv", [], "Development", "For development, we suggest uv."),
    ("ko_about_en", "ko", "html", "pluggy에서 hookspec에 firstresult=True 주면 호출 루프가 어디까지 실행돼요?",
     "the first hookimpl which returns a result other than None", [], "First result only",
     "A hookspec can be marked such that when the hook is called the call loop will only invoke up to the first hookimpl which returns a result other than None."),
    ("ko_about_en", "ko", "html", "hookspec 인자 기본값(argument defaults) 기능은 몇 버전에서 들어왔나요?",
     "1.7", [], "Hookspec argument defaults", "Added in version 1.7: Hookspec argument defaults."),
    ("ko_about_en", "ko", "html", "uv 안 쓰고 pip으로 dev/testing 의존성 그룹 깔려면 pip 몇 버전 이상이어야 해?",
     "pip 25.1 or later", [], "Development", "Without uv, pip 25.1 or later installs the same dependency groups:"),
    # ---------------------------------------------------------------- DOCX (en): cachetools
    ("en", "en", "docx_en", "What's the default time-to-live for the ttl_cache decorator?",
     "600 seconds", [], CT_FUNC, "By default, the time-to-live is set to 600 seconds and time.monotonic() is used to retrieve the current time."),
    ("en", "en", "docx_en", "Can I share one of the cachetools cache classes between threads without extra locking?",
     "not thread-safe", [], "Cache implementations", "Please be aware that all these classes are not thread-safe."),
    ("en", "en", "docx_en", "Since which version does LFUCache drop the least recently used item when there's a tie?",
     "7.3", [], "Cache implementations", "Changed in version 7.3: Switched to discarding the least recently used item in case of a tie."),
    ("ko_about_en", "ko", "docx_en", "cachetools.func 쪽 데코레이터를 함수에 바로 붙이면 maxsize 기본값은 얼마로 잡혀요?",
     "128", [], CT_FUNC, "This allows the decorator to be applied directly to a user function, leaving the maxsize at its default value of 128:"),
    ("ko_about_en", "ko", "docx_en", "8.0 버전부터 @cached에 cache 인자로 None 넘기면 무슨 에러 나?",
     "TypeError", [], "Memoizing decorators", "Changed in version 8.0: Passing None as the cache parameter is no longer supported, and now raises a TypeError."),
    ("ko_about_en", "ko", "docx_en", "typedkey(3)하고 typedkey(3.0)은 같은 키가 나와요, 다른 키가 나와요?",
     "will return different results", [], CT_KEYS, "For example, typedkey(3) and typedkey(3.0) will return different results."),
    # ---------------------------------------------------------------- English scan: humanize README (2 pages)
    ("en", "en", "scan_en", "What does humanize.intword(123455913) return?",
     "123.5 million", [1], None, ">>> humanize.intword(123455913) '123.5 million'"),
    ("en", "en", "scan_en", "What string do you get from naturalsize(1_000_000) when binary=True is passed?",
     "976.6 KiB", [2], None, ">>> humanize.naturalsize(1_000_000, binary=True) '976.6 KiB'"),
    ("en", "en", "scan_en", "Which extra parameter of i18n.activate lets you point humanize at your own locale directory?",
     "path", [2], None, "You can pass additional parameter path to activate to specify a path to search locales in."),
    ("ko_about_en", "ko", "scan_en", "humanize에서 터키어(tr_TR) 로케일 켜고 intword(1_200_000) 하면 결과가 뭐로 나와요?",
     "1,2 milyon", [2], None, ">>> humanize.intword(1_200_000) '1,2 milyon'"),
    ("ko_about_en", "ko", "scan_en", "precisedelta에 suppress=[\"days\"], format=\"%0.4f\" 넣으면 출력 어떻게 나옴?",
     "49 hours and 33.1230 seconds", [2], None,
     '>>> humanize.precisedelta(delta, suppress=["days"], format="%0.4f") \'49 hours and 33.1230 seconds\''),
    ("ko_about_en", "ko", "scan_en", "update-translations.sh 스크립트 돌리면 소스코드에서 새 문구를 어느 파일로 뽑아내나요?",
     "humanize.pot", [2], None,
     "This extracts new phrases from the source code into humanize.pot, merges them into each locale's .po file and compiles the binary .mo catalogs."),
    # ---------------------------------------------------------------- near misses (no document gives these)
    ("near_miss", "ko", "hwpx", "제휴 콘도 쓸 때 직원 본인부담금은 1박에 얼마씩 내야 돼요?", None, [], None, None),
    ("near_miss", "ko", "hwp", "2026년 사업계획에 주당 배당금은 얼마로 잡혀 있나요?", None, [], None, None),
    ("near_miss", "ko", "scan_ko", "보안 규정 어기면 벌금은 얼마 물어야 하나요?", None, [], None, None),
    ("near_miss", "ko", "docx_ko", "이천 물류센터가 보유한 지게차는 총 몇 대예요?", None, [], None, None),
    ("near_miss", "ko", "pptx", "3분기 보고 기준으로 영업본부 인원은 몇 명이에요?", None, [], None, None),
    ("near_miss", "ko", "xlsx", "재고 시트에서 새우만두 600g 박스당 단가가 얼마로 돼 있어?", None, [], None, None),
    ("near_miss", "ko", "csv", "sqlparse가 Python 3.13 지원을 추가한 건 몇 버전부터예요?", None, [], None, None),
    ("near_miss", "ko", "html", "pluggy 1.7 설치하려면 최소 파이썬 버전이 뭐예요?", None, [], None, None),
    ("near_miss", "ko", "hwp", "베트남 총판 계약 맺는 호찌민 유통사 이름이 뭐야?", None, [], None, None),
    ("near_miss", "en", "docx_en", "In which cachetools version was the TLRUCache class first added?", None, [], None, None),
    ("near_miss", "en", "scan_en", "What does humanize.ordinal(3) return according to the README?", None, [], None, None),
    ("near_miss", "en", "html", "Which pytest version was the first to require pluggy 1.7?", None, [], None, None),
    ("near_miss", "en", "csv", "Which sqlparse release first added support for parsing MERGE statements?", None, [], None, None),
    ("near_miss", "en", "hwpx", "What monthly commuting allowance do office (non-shift) staff get under the welfare rules?", None, [], None, None),
    ("near_miss", "en", "pptx", "What was Neulbom's net profit for Q3 2025?", None, [], None, None),
    ("near_miss", "en", "scan_ko", "How long must visitor entry logs be kept under the security rules?", None, [], None, None),
]

# per near-miss item (by position among the near misses, in order): strings a wrong answer would quote
_PROBES = [
    ["1박당", "이용료", "본인부담금"],
    ["배당"],
    ["벌금", "과태료"],
    ["지게차는 총", "지게차 보유", "지게차 대수"],
    ["영업본부 인원", "영업사원"],
    ["박스당", "단가(원)"],
    ["support for Python 3.13", "Python 3.13 is now supported"],
    ["requires Python", "python_requires", "Requires-Python"],
    ["총판사", "유통사명"],
    ["TLRUCache was added", "Added TLRUCache", "versionadded"],
    ["ordinal("],
    ["pytest 8", "pytest 9", "pytest>="],
    ["MERGE"],
    ["사무직", "비교대"],
    ["순이익"],
    ["방문객 기록", "방문기록", "방문객출입대장", "방문자 명부"],
]


def build():
    items, probes = [], {}
    nm = 0
    for k, (kind, lang, fkey, q, a, pages, loc, ev) in enumerate(ITEMS, 1):
        iid = f"fh4-{k:03d}"
        items.append({"id": iid, "file": F[fkey], "question": q, "answer": a, "pages": pages, "location": loc,
                      "evidence": ev, "kind": kind, "lang": lang})
        if kind == "near_miss":
            probes[iid] = _PROBES[nm]
            nm += 1
    assert nm == len(_PROBES)
    return items, probes


ITEM_DICTS, PROBES = build()


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / f"rag_{SET}.jsonl"
    with open(out, "w", encoding="utf-8") as f:
        for it in ITEM_DICTS:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")
    print(f"wrote {len(ITEM_DICTS)} items to {out}")


if __name__ == "__main__":
    main()
