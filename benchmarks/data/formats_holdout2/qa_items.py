#!/usr/bin/env python3
"""Writes ../rag_formats_holdout2.jsonl (70 items). The items are hand-written; this
script only keeps them in one place and numbers them. Every answer / evidence was checked against the documents."""
import json
from pathlib import Path

HWPX = "constitution_assembly_and_government_ch3-4.hwpx"
HWP = "childcare_leave_bills_9891_9892.hwp"
SCKO = "constitution_courts_ch5-6_scan.pdf"
DOCX = "coverage_commands_run_combine_erase_debug.docx"
PPTX = "click_release_briefing_8.4.1-8.5.1.pptx"
XLSX = "marshmallow_changelog_4.0-4.4.xlsx"
CSV = "coverage_changes_7.16-7.17.csv"
CSVL = "coverage_changes_7.16-7.17!"
HTML = "attrs_initialization_guide.html"
PNG = "jinja_readme_scan.png"
PDF = "marshmallow_readme_scan.pdf"

# (file, kind, question, answer, pages, location, evidence)
A = [
    # ---- HWPX: constitution, chapters 3 (국회) and 4 (정부) -------------------------------------------
    (HWPX, "ko", "국회의원 정원은 헌법상 최소 몇 명 이상으로 해야 하나요?", "200인 이상", [], "제41조",
     "②국회의원의 수는 법률로 정하되, 200인 이상으로 한다."),
    (HWPX, "ko", "정기국회 회기는 최대 며칠을 넘길 수 없게 돼 있나요?", "100일", [], "제47조",
     "②정기회의 회기는 100일을, 임시회의 회기는 30일을 초과할 수 없다."),
    (HWPX, "ko", "정부는 새해 예산안을 회계연도 시작 며칠 전까지 국회에 내야 하나요?", "회계연도 개시 90일전까지", [], "제54조",
     "②정부는 회계연도마다 예산안을 편성하여 회계연도 개시 90일전까지 국회에 제출하고, 국회는 회계연도 개시 30일전까지 이를 의결하여야 한다."),
    (HWPX, "ko", "국무회의에 들어가는 국무위원 수는 몇 명 범위로 정해져 있어요?", "15인 이상 30인 이하", [], "제88조",
     "②국무회의는 대통령·국무총리와 15인 이상 30인 이하의 국무위원으로 구성한다."),
    (HWPX, "ko", "감사원장은 임기 끝나고 한 번 더 할 수 있나요?", "1차에 한하여 중임할 수 있다", [], "제98조",
     "②원장은 국회의 동의를 얻어 대통령이 임명하고, 그 임기는 4년으로 하며, 1차에 한하여 중임할 수 있다."),
    (HWPX, "en_about_ko", "How old does someone have to be on election day to be eligible to run for president?", "40세",
     [], "제67조", "④대통령으로 선거될 수 있는 자는 국회의원의 피선거권이 있고 선거일 현재 40세에 달하여야 한다."),
    (HWPX, "en_about_ko", "What share of the National Assembly's members must vote in favour to impeach the President?",
     "국회재적의원 3분의 2 이상의 찬성", [], "제65조",
     "②제1항의 탄핵소추는 국회재적의원 3분의 1 이상의 발의가 있어야 하며, 그 의결은 국회재적의원 과반수의 찬성이 있어야 한다. "
     "다만, 대통령에 대한 탄핵소추는 국회재적의원 과반수의 발의와 국회재적의원 3분의 2 이상의 찬성이 있어야 한다."),
    # ---- HWP: bills 9891 (국가공무원법) and 9892 (교육공무원법) -----------------------------------------
    (HWP, "ko", "국가공무원 육아휴직 대상 자녀 나이를 몇 살까지로 늘리자는 법안이야?", "만 8세 이하", [], "제안이유 및 주요내용",
     "따라서 육아휴직이 가능한 자녀의 연령을 만 8세 이하로 개정하려는 것임(안 제71조제2항제4호)."),
    (HWP, "ko", "교육공무원법 개정안대로라면 여성 교육공무원은 육아휴직을 최대 몇 년까지 쓸 수 있나요?", "3년 이내", [], "개정문",
     "제45조제1항제6호 중 “1년 이내로 한다. 다만, 여자 교육공무원의 경우 任用權者는 2年의 범위내에서 그 休職期間을 연장할 수 있다.”를 "
     "“1년 이내(여자 교육공무원 3년 이내)로 하되, 분할하여 휴직할 수 있다.”로 한다."),
    (HWP, "ko", "비용추계 자료 표에서 2011년 대체인력 채용 인원은 몇 명이에요?", "2,836", [], "3. 미첨부 사유",
     "대체인력 채용(B) 796 1,658 1,957 2,396 2,836 1,929"),
    (HWP, "ko", "육아휴직자 생기면 대체 인력 뽑을 확률을 몇 %로 잡고 계산했어?", "5.6%", [], "3. 미첨부 사유",
     "위의 [표]의 자료에 따라 육아휴직자가 발생한 경우 대체 고용할 확률 p의 값은 5.6%라고 가정한다."),
    (HWP, "ko", "이 법안들에 비용추계서를 안 붙여도 되는 근거 규정이 뭔가요?", "｢의안의 비용추계에 관한 규칙｣ 제3조제1항 단서 중 제1호",
     [], "2. 미첨부 근거 규정",
     "｢의안의 비용추계에 관한 규칙｣ 제3조제1항 단서 중 제1호(예상되는 비용이 연평균 10억원 미만이거나 한시적인 경비로서 총 30억원 미만인 경우)에 해당함."),
    (HWP, "en_about_ko", "Who is the lead sponsor of the 국가공무원법 amendment bill?", "정의화의원", [], "국가공무원법 일부개정법률안",
     "대표발의 정의화의원"),
    (HWP, "en_about_ko", "When would the 교육공무원법 amendment take effect once passed?", "공포한 날부터 시행한다", [], "부칙",
     "이 법은 공포한 날부터 시행한다."),
    # ---- Korean scan: constitution, chapters 5 (법원) and 6 (헌법재판소) -------------------------------
    (SCKO, "ko", "대법원장 임기는 몇 년이고, 다시 할 수 있나요?", "6년으로 하며, 중임할 수 없다", [1], None,
     "제105조 ① 대법원장의 임기는 6년으로 하며, 중임할 수 없다."),
    (SCKO, "ko", "대법관이 아닌 일반 판사의 임기는 몇 년이야?", "10년", [1], None,
     "③대법원장과 대법관이 아닌 법관의 임기는 10년으로 하며, 법률이 정하는 바에 의하여 연임할 수 있다."),
    (SCKO, "ko", "헌법재판소 재판관은 모두 몇 명으로 구성돼요?", "9인", [2], None,
     "②헌법재판소는 법관의 자격을 가진 9인의 재판관으로 구성하며, 재판관은 대통령이 임명한다."),
    (SCKO, "ko", "헌재에서 위헌이나 탄핵 결정을 내리려면 재판관 몇 명이 찬성해야 하나요?", "재판관 6인 이상의 찬성", [2], None,
     "제113조 ① 헌법재판소에서 법률의 위헌결정, 탄핵의 결정, 정당해산의 결정 또는 헌법소원에 관한 인용결정을 할 때에는 재판관 6인 이상의 찬성이 있어야 한다."),
    (SCKO, "ko", "군사법원 판결에 대한 상고심은 어느 법원이 맡아?", "대법원", [2], None,
     "②군사법원의 상고심은 대법원에서 관할한다."),
    (SCKO, "en_about_ko", "Who appoints the Chief Justice of the Supreme Court, and whose consent is required?",
     "국회의 동의를 얻어 대통령이 임명한다", [1], None, "제104조 ① 대법원장은 국회의 동의를 얻어 대통령이 임명한다."),
    # ---- DOCX: coverage.py commands ---------------------------------------------------------------------
    (DOCX, "en", "What file name does coverage.py use for its collected data by default?", ".coverage", [], "Data file",
     "Coverage.py collects execution data in a file called \".coverage\"."),
    (DOCX, "en", "Which signals can I give to coverage run --save-signal?", "USR1, USR2", [], "Execution: coverage run",
     "--save-signal=SIGNAL Specify a signal that will trigger coverage to write its collected data. Supported values are: USR1, USR2. Not available on Windows."),
    (DOCX, "en", "After running coverage combine, how do I stop it from deleting the original data files?", "--keep", [],
     "Combining data files: coverage combine",
     "The original input data files are deleted once they've been combined. If you want to keep those files, use the --keep command-line option."),
    (DOCX, "ko_about_en", "coverage 디버그 출력은 기본으로 어디로 나가? 파일로 돌리는 방법도 있어?", "stderr", [], "--debug option",
     "The debug output goes to stderr, unless the [run] debug_file setting or the COVERAGE_DEBUG_FILE environment variable names a different file, which will be appended to."),
    (DOCX, "ko_about_en", "--concurrency에 thread 말고 gevent 같은 값을 쓰려면 뭐가 있어야 하나요?", "C extension", [],
     "Execution: coverage run", "Values other than thread require the C extension."),
    # ---- PPTX: Click release briefing -----------------------------------------------------------------
    (PPTX, "en", "When was Click 8.5.0 released?", "2026-08-24", [], "슬라이드 2", "8.5.0 2026-08-24 23"),
    (PPTX, "en", "Which stream helper functions does Click plan to remove in 9.0?", "get_binary_stream() and get_text_stream()",
     [], "슬라이드 6", "get_binary_stream() and get_text_stream() are deprecated and will be removed in Click 9.0."),
    (PPTX, "en", "What environment variable setting generates the PowerShell completion script for a Click app?",
     "_FOO_BAR_COMPLETE=powershell_source", [], "슬라이드 5",
     "Add built-in shell completion support for PowerShell (Windows PowerShell 5.1+ and pwsh 7+) alongside the existing bash, zsh, and fish completers. "
     "Use _FOO_BAR_COMPLETE=powershell_source foo-bar to generate the completion script."),
    (PPTX, "ko_about_en", "Click 8.5.0부터 Colorama는 아직 필요한가요?", "Colorama is no longer a dependency and is not used.", [],
     "슬라이드 5", "Supported versions of Windows enable ANSI terminal styles by default. Colorama is no longer a dependency and is not used."),
    (PPTX, "ko_about_en", "8.4.1에서 고친 open_url 윈도우 버그는 어떤 경우에 생겼던 거야?", "the file path contains spaces", [],
     "슬라이드 9", "Fix open_url on Windows when the file path contains spaces."),
    # ---- XLSX: marshmallow changelog ------------------------------------------------------------------
    (XLSX, "en", "Which marshmallow release dropped support for Python 3.9?", "4.1.0", [], "Changes!27",
     "Drop support for Python 3.9 (#2363)."),
    (XLSX, "en", "What CVE was fixed in marshmallow 4.1.2?", "CVE-2025-68480", [], "Changes!24",
     "CVE-2025-68480: Merge error store messages without rebuilding collections. Thanks 카푸치노 for reporting and @deckar01 for the fix."),
    (XLSX, "en", "How many changelog items does marshmallow 4.0.0 have in total?", "37", [], "Releases!14",
     "4.0.0 2025-04-16 3 0 20 14 37"),
    (XLSX, "ko_about_en", "marshmallow 4에서 Schema의 context 속성이 없어졌다던데 대신 뭘 써야 해?", "contextvars.ContextVar", [],
     "Changes!49",
     "Backwards-incompatible: Remove Schema's context attribute (deprecated since 3.24.0). Passing a context should be done using contextvars.ContextVar (#1826). "
     "marshmallow 4 provides an experimental Context manager class that can be used to both set and retrieve context."),
    (XLSX, "ko_about_en", "4.0.0부터 fields.Number를 필드로 못 쓴다는데 어떤 필드로 바꾸면 되나요?",
     "marshmallow.fields.Integer, marshmallow.fields.Float, or marshmallow.fields.Decimal", [], "Changes!60",
     "Backwards-incompatible: marshmallow.fields.Number is no longer usable as a field in a schema (deprecated in 3.24.0). "
     "Use marshmallow.fields.Integer, marshmallow.fields.Float, or marshmallow.fields.Decimal instead."),
    # ---- CSV: coverage.py changes ---------------------------------------------------------------------
    (CSV, "en", "In which coverage.py version was Python 3.10 support dropped?", "7.17.0", [], CSVL + "26",
     "Dropped support for Python 3.10."),
    (CSV, "en", "How much faster should test suites run with the C tracer on Python 3.13+, per the changelog?",
     "about 8% to 12% faster", [], CSVL + "18",
     "Performance: on Python 3.13 and later, using the C tracer should result in test suites running about 8% to 12% faster (pull 2371)."),
    (CSV, "en", "Which release fixed reading a .coveragerc saved with a UTF-8 byte order mark?", "7.17.4", [], CSVL + "13",
     "Fix: a configuration file (.coveragerc, setup.cfg, tox.ini or pyproject.toml) saved with a UTF-8 byte order mark couldn't be read. Now a leading BOM is ignored. pull 2388."),
    (CSV, "ko_about_en", "coverage 바이너리 휠이 새로 제공되는 모바일 플랫폼이 어디야?", "iOS and Android", [], CSVL + "27",
     "Binary wheels are now provided for iOS and Android. This allows the use of the optimized C tracer on mobile platforms."),
    (CSV, "ko_about_en", "7.17.0에서 HTML 리포트 생성 속도가 얼마나 좋아졌다고 하나요?", "about 5% faster", [], CSVL + "38",
     "Performance: HTML reports should be about 5% faster to produce."),
    # ---- HTML: attrs Initialization ------------------------------------------------------------------
    (HTML, "en", "Do attrs converters run before or after validators?", "Converters are run before validators", [], "Converters",
     "Converters are run before validators, so you can use validators to check the final form of the value."),
    (HTML, "en", "What happens to a leading underscore in an attribute name when attrs builds the __init__ signature?",
     "strip the underscore from the name", [], "Private Attributes and Aliases",
     "As a convenience for this use case, the default behavior of attrs is that if you specify a member that starts with an underscore, "
     "it will strip the underscore from the name when it creates the __init__ method signature:"),
    (HTML, "en", "Which attrs hook is meant for calling super().__init__() when subclassing a non-attrs class?",
     "__attrs_pre_init__", [], "Pre Init",
     "The sole reason for the existence of __attrs_pre_init__ is to give users the chance to call super().__init__(), because some subclassing-based APIs require that."),
    (HTML, "ko_about_en", "attrs 클래스 직렬화나 검증용으로 문서에서 추천하는 자매 프로젝트가 뭐예요?", "cattrs", [], "Initialization",
     "If you look for powerful-yet-unintrusive serialization and validation for your attrs classes, have a look at our sibling project cattrs or our third-party extensions."),
    (HTML, "ko_about_en", "frozen 클래스의 __attrs_post_init__에서 속성 값을 넣으려면 뭘 써야 돼?", "object.__setattr__()", [],
     "Post Init",
     "If you need to set attributes on a frozen class, you'll have to resort to the same trick as attrs and use object.__setattr__():"),
    # ---- PNG scan: Jinja README -------------------------------------------------------------------------
    (PNG, "en", "What does Jinja use for its I18N support?", "Babel", [1], None, "I18N support with Babel."),
    (PNG, "en", "What does autoescaping in Jinja's HTML templates protect against?", "XSS", [1], None,
     "HTML templates can use autoescaping to prevent XSS from untrusted user input."),
    (PNG, "en", "Which organization develops and supports Jinja?", "The Pallets organization", [1], None,
     "The Pallets organization develops and supports Jinja and other popular packages."),
    (PNG, "ko_about_en", "믿을 수 없는 사용자 템플릿을 Jinja로 안전하게 렌더링하려면 뭘 쓰면 돼?", "A sandboxed environment", [1], None,
     "A sandboxed environment can safely render untrusted templates."),
    (PNG, "ko_about_en", "Jinja 템플릿은 언제 파이썬 코드로 컴파일되나요?", "just-in-time", [1], None,
     "Templates are compiled to optimized Python code just-in-time and cached, or can be compiled ahead-of-time."),
    # ---- PDF scan: marshmallow README ---------------------------------------------------------------------
    (PDF, "en", "Which company sponsors marshmallow?", "Route4Me", [2], None, "marshmallow is sponsored by Route4Me."),
    (PDF, "en", "What's the pip command to install or upgrade marshmallow?", "pip install -U marshmallow", [1], None,
     "$ pip install -U marshmallow"),
    (PDF, "ko_about_en", "marshmallow 유료 기술 지원은 어디를 통해 받을 수 있어요?", "Tidelift Subscription", [2], None,
     "Professionally-supported marshmallow is now available through the Tidelift Subscription."),
    (PDF, "ko_about_en", "marshmallow 라이선스가 뭐예요?", "MIT", [2], None,
     "MIT licensed. See the bundled LICENSE file for more details."),
    (PDF, "ko_about_en", "marshmallow 관련 라이브러리 목록은 어디에 정리돼 있어?", "the GitHub wiki", [1], None,
     "A list of marshmallow-related libraries can be found at the GitHub wiki here:"),
]

# near misses: (nearest file, lang, question) — the asked-for fact is in none of the ten documents
N = [
    (HWPX, "ko", "국회의장 임기는 헌법에 몇 년으로 되어 있나요?"),
    (PDF, "ko", "marshmallow Tidelift 구독료는 1년에 얼마예요?"),
    (HWP, "en", "In the cost note for these bills, how many parental-leave benefit recipients are projected for 2012?"),
    (HWP, "ko", "국가공무원법 개정안은 본회의를 언제 통과했어?"),
    (SCKO, "ko", "헌법상 대법관 정원은 몇 명으로 정해져 있나요?"),
    (SCKO, "en", "What is the mandatory retirement age for judges in the constitution?"),
    (DOCX, "en", "What is the default value of coverage report's --fail-under threshold?"),
    (DOCX, "ko", "coverage run에 --timid 옵션을 주면 측정이 몇 배 정도 느려지나요?"),
    (PPTX, "en", "When is Click 9.0 scheduled to be released?"),
    (PPTX, "ko", "Click 8.4.2 릴리스에 참여한 신규 기여자는 몇 명이야?"),
    (XLSX, "en", "What is the release date of marshmallow 4.5.0?"),
    (XLSX, "ko", "marshmallow 4.2.3에서 패치된 보안 취약점 CVE 번호가 뭐예요?"),
    (CSV, "en", "Which coverage.py 7.16 release added support for Python 3.15?"),
    (HTML, "ko", "attrs 26.1.0은 언제 릴리스됐나요?"),
    (PNG, "en", "What is the minimum Python version Jinja requires?"),
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
    out = Path(__file__).resolve().parent.parent / "rag_formats_holdout2.jsonl"
    with open(out, "w", encoding="utf-8") as fh:
        for i, r in enumerate(rows, 1):
            fh.write(json.dumps({"id": f"fh2-{i:03d}", **r}, ensure_ascii=False) + "\n")
    print(out, len(rows))


if __name__ == "__main__":
    main()
