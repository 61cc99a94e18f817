"""A document as located sections: the shape every format reader produces before chunking.

A reader turns its format into `Block`s in reading order (a heading with its level, a paragraph, a table as
rows of cells); `sections_from_blocks` cuts them into `Section`s, each with the location a person finds it by:
the heading path (`1. 개요 > 1.2 범위`), extended by a numbered article (`제5조(여비)`) where a Korean
regulation has them. A table is read as sentences: each row after the header row becomes
`header: value; header: value`, so a row can be found and quoted on its own.

Locations are plain dicts, the shape agents return with their quotes:
`{"kind": "page", "page": 3}`, `{"kind": "slide", "slide": 4, "title": …}`,
`{"kind": "sheet", "sheet": "예산", "rows": "2-41"}` (a quoted row adds `"row_number": "5", "row": "연구개발팀"`, named
by its first text cell),
`{"kind": "heading", "heading": "제1장 > 제2조(…)"}`; a PDF page whose printed label differs from its number adds
`"label": "7"` (the page number stays the index the viewer and the evaluation use) and, on an annex, `"annex"`.
Annex tables and forms (`별표`, `별지`, `부표`, `서식`) are parts of their own (`별표 1 여비 지급 기준`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

Location = dict[str, Any]

#: A heading path keeps at most this many levels in its label (the nearest ones).
HEADING_DEPTH = 3
#: An article heading: `제5조(여비)`, `제43조의2 …`; not a reference such as `제43조의2를 …` or `제2조제4호 중`.
_ARTICLE = re.compile(r"^\s*(제\s*\d+\s*조(?:\s*의\s*\d+)?)(?:\s*(\([^)]{1,40}\)|【[^】]{1,40}】)|\s+(?!중\b)|$)")
#: An amending bill's instruction (`제41조제4항을 제6항으로 하고, … 다음과 같이 신설한다.`, `제43조 중 "20일"을 "50일"로
#: 한다.`): the text under it belongs to the article it amends, which names its location.
_REF = r"^\s*(제\s*\d+\s*조(?:\s*의\s*\d+)?)(?:\s*제\s*\d+\s*[항호](?:\s*의\s*\d+)?)*"
_AMENDS = re.compile(rf"{_REF}(?:[을를]\s.*(?:다음과\s*같이\s*(?:신설)?한다|으?로\s*한다|삭제한다)"
                     rf"|\s*중\s.*(?:으?로\s*한다|삭제한다)|에\s.*다음과\s*같이\s*신설한다)\.?$")
_CHAPTER = re.compile(r"^\s*(제\s*\d+\s*(?:편|장|절|관))(?:\s+\S.{0,40})?$")
#: An annex table or form that starts a part of its own: `[별표 1] 여비 지급 기준`, `【별지 제3호 서식】`,
#: `부표 2`, `<서식 1>`; not a reference (`별표 1에 따른다`, `별지 제1호 서식의 점검표`).
_ANNEX = re.compile(r"^\s*[\[【<〈(［]?\s*((?:별표|별지|부표|서식)\s*(?:제?\s*\d+(?:\s*의\s*\d+)?\s*호?)?"
                    r"(?:\s*서식)?)\s*[\]】>〉)］]?(?=\s|\(|$)")
#: The supplementary provisions (`부칙`, `부 칙 <2025. 1. 1.>`): an annex after them is not under them.
_ADDENDA = re.compile(r"^\s*부\s*칙(?:\s|<|\(|$)")
#: A line that is the 부칙 heading itself (`부칙`, `부 칙 <제12호, 2025. 1. 1.>`).
_ADDENDA_LINE = re.compile(r"^\s*부\s*칙\s*(?:[<(（〈][^>)）〉]{0,40}[>)）〉])?\s*$")
_TITLE_CHARS = 60
_MARKDOWN_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_MARKDOWN_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?$")
#: Bold (`**`, `__`) and italic (`*`) runs; like Markdown's, they may go over a line break but not a blank line.
_MARKDOWN_EMPHASIS = re.compile(r"(\*\*|__)((?:[^\n]|\n(?![^\S\n]*\n))+?)\1"
                                r"|(?<![\w*])\*(?!\s)((?:[^\n]|\n(?![^\S\n]*\n))+?)(?<!\s)\*(?![\w*])")
#: `[text](target)` and `![alt](image)`: a reader of the rendered page sees the text.
_MARKDOWN_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
#: Code in Markdown (fenced blocks and inline spans), whose `*`, `_` and brackets are the code's own.
_MARKDOWN_CODE = re.compile(r"^(```|~~~).*?^\1[^\S\n]*$|`[^`\n]+`", re.S | re.M)


class DocumentError(ValueError):
    """A document cannot be indexed; `reason` is a sentence a person understands, `code` a stable name
    (`unsupported`, `too_large`, `empty`, `corrupt`, `encrypted`, `no_text`, `ocr_unavailable`, …)."""

    def __init__(self, reason: str, code: str = "invalid") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


@dataclass
class Block:
    """One piece of a document in reading order."""

    text: str = ""
    heading: int = 0  # heading level (1 = top), 0 for body text
    rows: list[list[str]] | None = None  # a table: rows of cell texts, the first row its header


@dataclass
class Section:
    """Text with the location a person finds it by.

    `records` are the lines of `text` that are one table row each (`row_sentence`): a row is quoted and
    embedded whole, never cut at the sentence ends inside its cells ("…; Description: The maximum size. …;
    Default: 500_000")."""

    text: str
    location: Location = field(default_factory=dict)
    records: frozenset[str] = frozenset()
    #: A sheet's row sentences → (the row's number in the sheet, its label: the first text cell, or "").
    rows: dict[str, tuple[int, str]] = field(default_factory=dict)


class Record(str):
    """A line that is one table row (kept whole by the sentence splitter)."""


def section_of(lines: Sequence[str], location: Location) -> Section:
    """A section of these lines (those that are `Record`s kept whole)."""
    kept = [line for line in lines if line.strip()]
    return Section("\n".join(kept), location, frozenset(str(line) for line in kept if isinstance(line, Record)))


def row_sentence(header: Sequence[str], row: Sequence[str]) -> str:
    """`header: value; header: value` for the non-empty cells of a row (cells without a header stand alone)."""
    parts: list[str] = []
    for i, cell in enumerate(row):
        value = " ".join(str(cell).split())
        if not value:
            continue
        name = " ".join(str(header[i]).split()) if i < len(header) else ""
        parts.append(f"{name}: {value}" if name and name != value else value)
    return "; ".join(parts)


def table_lines(rows: Sequence[Sequence[str]]) -> list[str]:
    """A table as lines a person reads: the header row once, then one sentence per row."""
    rows = [list(r) for r in rows if any(str(c).strip() for c in r)]
    if not rows:
        return []
    if len(rows) == 1 or sum(1 for c in rows[0] if str(c).strip()) < 2:
        return [" | ".join(" ".join(str(c).split()) for c in r if str(c).strip()) for r in rows]
    header = rows[0]
    lines = [" | ".join(" ".join(str(c).split()) for c in header if str(c).strip())]
    lines.extend(Record(sentence) for sentence in (row_sentence(header, r) for r in rows[1:]) if sentence)
    return lines


def heading_location(path: Sequence[str]) -> Location:
    """The location of text under a heading path; none for text before any heading (a plain text file, a
    Word file's opening), which is then cited as the document's first unit (`p.1`), as before locations."""
    return {"kind": "heading", "heading": " > ".join(path[-HEADING_DEPTH:])} if path else {}


def sections_from_blocks(blocks: Iterable[Block], articles: bool = True) -> list[Section]:
    """Cut blocks into sections at headings (and, with `articles`, at `제N조` article starts and `제N장`
    chapter lines); each section carries its heading path."""
    blocks = list(blocks)
    outline = _numbered_outline(blocks) if articles else set()
    path: list[tuple[int, str]] = []
    sections: list[Section] = []
    lines: list[str] = []

    def flush(last: bool = False) -> None:
        section = section_of(lines, heading_location([title for _, title in path]))
        text = section.text
        # A heading with nothing under it before the next heading is not a section of its own (a document that
        # is nothing but a title still is).
        if text.strip() and (not (path and text == path[-1][1]) or (last and not sections)):
            sections.append(section)
        lines.clear()

    def enter(level: int, title: str) -> None:
        flush()
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, title))

    for index, block in enumerate(blocks):
        if block.rows is not None:
            lines.extend(table_lines(block.rows))
            continue
        text = " ".join(block.text.split())
        if not text:
            continue
        if block.heading or index in outline:
            enter(block.heading or 2, (annex_heading(text) if articles else None) or text)
            lines.append(text)
            continue
        chapter = _CHAPTER.match(text) if articles else None
        article = (_ARTICLE.match(text) or _AMENDS.match(text)) if articles else None
        annex = (annex_heading(text) or (text if _ADDENDA_LINE.match(text) else None)) if articles else None
        if annex:
            # An annex (and the 부칙) is a part of its own beside the chapters, not under the article before it.
            deepest = max((level for level, _ in path), default=0)
            level = next((lv for lv, name in path if _is_part(name)), deepest + 1)
            enter(level, annex)
            lines.append(text)
            continue
        if not path and not sections and not lines and _looks_like_title(text) and not (chapter or article):
            # A document without headings opens with its title (a bill's name, a law's): it names the start.
            enter(1, text)
            lines.append(text)
            continue
        if chapter:
            enter(1, text)
        elif article:
            # An article sits below the nearest heading; the article number (and its title) names it.
            deepest = max((level for level, _ in path), default=0)
            level = next((lv for lv, name in path if _ARTICLE.match(name)), deepest + 1)
            title = article.group(2) if article.re is _ARTICLE else None
            # `제 5 조` is `제5조`; its title keeps its spaces as written (`(일비 및 숙박비)`).
            enter(level, "".join(article.group(1).split()) + " ".join((title or "").split()))
        lines.append(text)
    flush(last=True)
    return sections


def annex_heading(text: str) -> str | None:
    """The heading an annex line makes, its marks dropped (`[별표 1] 여비 지급 기준` → `별표 1 여비 지급 기준`), or
    None when the line is not an annex's title (a reference to one, a sentence)."""
    line = " ".join(text.split())
    match = _ANNEX.match(line)
    if not match or not re.search(r"\d|[\]】>〉)］]", match.group(0)) or not _looks_like_title(line) \
            or re.search(r"\.{3,}|…|·{3,}", line):  # a table of contents' line
        return None
    rest = line[match.end():].strip()
    return f"{' '.join(match.group(1).split())} {rest}".strip()


def annex_marks(text: str) -> list[tuple[int, str | None]]:
    """Where annexes start and end in a text read line by line (a PDF's pages): `(offset, heading)` at each
    annex's title line, `(offset, None)` at a chapter, article or 부칙 line after one."""
    marks: list[tuple[int, str | None]] = []
    offset = 0
    for line in text.split("\n"):
        annex = annex_heading(line)
        if annex:
            marks.append((offset, annex))
        elif marks and marks[-1][1] is not None and _is_part(line):
            marks.append((offset, None))
        offset += len(line) + 1
    return marks


def _is_part(heading: str) -> bool:
    """A heading at a regulation's top level: a chapter, an article, the 부칙 or an annex."""
    return bool(_CHAPTER.match(heading) or _ARTICLE.match(heading) or _ADDENDA.match(heading)
                or _ANNEX.match(heading))


_NUMBERED = re.compile(r"^\s*(\d{1,2})\.\s+\S")
#: Fewest numbered headings ("1. 목적", "2. 적용 범위", …) that make a document's outline.
OUTLINE_MIN = 3


def _numbered_outline(blocks: Sequence[Block]) -> set[int]:
    """Indices of the paragraphs that are a document's numbered headings: short lines without final
    punctuation numbered 1, 2, 3, … in order, each followed by text of its own before the next — the sections
    of a guideline written without heading styles or 제N조 articles. A list ("1. 노트북", "2. 모니터" one after
    another) is not an outline; a document with articles has its items under them, and is left alone."""
    texts = [" ".join(b.text.split()) if b.rows is None else "" for b in blocks]
    if any(_ARTICLE.match(t) for t in texts if t):
        return set()
    chosen: list[int] = []
    expected = 1
    for i, text in enumerate(texts):
        match = _NUMBERED.match(text)
        if not match or blocks[i].heading or not _looks_like_title(text):
            continue
        if int(match.group(1)) == expected and (not chosen or i > chosen[-1] + 1):
            chosen.append(i)
            expected += 1
    return set(chosen) if len(chosen) >= OUTLINE_MIN else set()


def _looks_like_title(text: str) -> bool:
    """A short first line that is not a sentence: no final punctuation, at most `_TITLE_CHARS` characters."""
    return len(text) <= _TITLE_CHARS and not re.search(r"[.!?:;。]$|[다요음함됨임]\.?$", text) and \
        not text.startswith(("- ", "|"))


def markdown_as_read(markdown: str) -> str:
    """Markdown as a person reads it rendered: bold and italic marks and link targets removed (`**30 days**` →
    `30 days`, `[the guide](https://…)` → `the guide`), code left as written (`__init__`, `**kwargs`)."""
    def unmark(text: str) -> str:
        text = _MARKDOWN_LINK.sub(lambda m: m.group(1), text)
        return _MARKDOWN_EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or "", text)

    parts: list[str] = []
    position = 0
    for code in _MARKDOWN_CODE.finditer(markdown):
        parts += [unmark(markdown[position:code.start()]), code.group()]
        position = code.end()
    return "".join([*parts, unmark(markdown[position:])])


def markdown_blocks(text: str) -> list[Block]:
    """Blocks of Markdown text: `#` headings, pipe tables, and every other line as a paragraph. Inside a fenced
    code block (```` ``` ```` or `~~~`) every line is a paragraph: a shell comment `# install` is no heading."""
    blocks: list[Block] = []
    table: list[list[str]] = []
    fence = ""

    def end_table() -> None:
        if table:
            blocks.append(Block(rows=[row[:] for row in table]))
            table.clear()

    for raw in text.splitlines():
        line = raw.strip()
        if fence or line.startswith(("```", "~~~")):
            end_table()
            if not fence:
                fence = line[:3]
            elif line.startswith(fence):
                fence = ""
            if line:
                blocks.append(Block(line))
            continue
        if line.startswith("|") and line.endswith("|") and len(line) > 1:
            if not _MARKDOWN_TABLE_RULE.match(line):
                table.append([cell.strip() for cell in line.strip("|").split("|")])
            continue
        end_table()
        heading = _MARKDOWN_HEADING.match(line)
        if heading:
            blocks.append(Block(heading.group(2), heading=len(heading.group(1))))
        elif line:
            blocks.append(Block(line))
    end_table()
    return blocks


def location_label(location: Location | None, language: str = "ko") -> str:
    """How a person reads a location: `p.3` (`p.vii`: a printed page label), `슬라이드 4`, `예산!5 (연구개발팀)`,
    `예산!2–41`, `제1장 > 제2조(목적)`, `별표 1 여비 지급 기준`."""
    if not location:
        return ""
    kind = location.get("kind")
    if kind == "page" and location.get("page"):
        # The page's printed label where the PDF defines them (`/PageLabels`), else its number; an annex on it.
        label = f"p.{location.get('label') or location['page']}"
        return f"{label} {location['annex']}" if location.get("annex") else label
    if kind == "slide" and location.get("slide"):
        return f"{'슬라이드' if language == 'ko' else 'slide'} {location['slide']}"
    if kind == "sheet":
        # A quoted row (`row_number`) is named by itself; a chunk by its rows.
        rows = str(location.get("row_number") or location.get("rows") or "").replace("-", "–")
        label = f"{location.get('sheet', '')}!{rows}" if rows else str(location.get("sheet", ""))
        return f"{label} ({location['row']})" if location.get("row") else label
    if kind == "heading":
        return str(location.get("heading") or "")
    return ""
