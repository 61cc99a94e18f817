"""Scan layouts with tables: a plain scan draws its table under the caption and reads back, and a notice's
wrapped table runs over the page break, both to the same bytes on every build."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_llm.evals.sets import build_set
from ai_llm.evals.sets.markup import parse
from ai_llm.evals.sets.scan import notice_items, render_notice
from ai_llm.evals.sets.sources import font_path
from ai_llm.internal_rag_agent.document_parser import parse_document
from tests.evals.sets.test_build import make_set

pytestmark = pytest.mark.unit

PLAIN = """# Travel rules
Article 4. The limits are given in the table below.
::center <Limits by item>

| Item | Limit | Approved by |
| Hotel | 120 a night | Team lead |
| Taxi | 35 a ride | Team lead |

Article 5. Receipts are kept for five years.
"""


def test_a_plain_scan_draws_its_table_and_reads_back(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "tiny", {"rules.png": ("scan-png", PLAIN)})
    with (folder / "set.toml").open("a", encoding="utf-8") as toml:
        toml.write('[document.options]\nregular = "LiberationSerif-Regular"\nbold = "LiberationSerif-Bold"\n'
                   'size_pt = 14\nseed = 7\n')
    images = [(build_set(folder, tmp_path / name).folder / "rules.png").read_bytes() for name in ("a", "b")]
    assert images[0] == images[1]
    text = parse_document(images[0], "rules.png").text
    assert "120 a night" in text and "Receipts" in text


def test_a_notice_table_with_wrapping_cells_goes_on_on_the_next_page(tmp_path: Path) -> None:
    rows = "\n".join(f"| 항목 {k} | 신분증과 가족관계증명서, 위임장, 환자 동의서를 모두 갖추어 창구에 제출한다 |"
                     for k in range(40))
    text = f"# 발급 지침\n::center 제정 2020. 7. 1.\n## 1. 구비서류\n① 신청서를 받는다.\n\n| 신청인 | 구비서류 |\n{rows}\n"
    fonts = {role: font_path(name, tmp_path) for role, name in (
        ("regular", "NanumMyeongjo"), ("bold", "NanumMyeongjoBold"), ("small", "NanumGothic"),
        ("table", "NanumMyeongjo"), ("table_bold", "NanumMyeongjoBold"))}
    options = {"table_wrap": True, "table_indent": 0, "header": "지침 SG-01", "footer": "- {page} / {pages} -"}
    items = notice_items(parse(text))
    assert [kind for kind, _ in items] == ["h1", "center", "h2", "p", "table"]
    pages = render_notice(items, fonts, options)
    again = render_notice(items, fonts, options)
    assert len(pages) == 2  # no `::page`: the table's rows run over the page break
    assert [page.tobytes() for page in pages] == [page.tobytes() for page in again]
    top = pages[1].crop((0, 200, pages[1].width, 400))  # the second page starts with the table's rows
    assert min(top.getdata()) < 100
