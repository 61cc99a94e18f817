r"""The text a set's documents are rendered from: one paragraph per line, a few line marks.

    # Title                    a heading; `##` … `######` are levels 2–6
    A paragraph.               any other line is one paragraph
    - An item                  a bulleted item; two spaces of indent per nested level
    + An item                  a numbered item (indent as above)
    ::center Some text         a paragraph of a named kind or style (`::gap 1.5` is vertical space in a scan)
    [^] Footnote text          a footnote on the paragraph before it
    > Speaker notes            a note line of the slide it is in
    | a | b |                  a table row; consecutive rows are one table, the first is its header
    ```                        a code block, verbatim up to the closing fence
    \- literal                 a paragraph that would read as a mark: the backslash is dropped
    === slide bullets size=14  starts a part (a slide, a sheet) with its kind and options

In table cells `\|` is a bar, `\n` a paragraph break inside the cell and `\\` a backslash. In a sheet's rows
(`=== sheet`) a cell that reads as a number is one; `'` before it keeps it text, as in a spreadsheet.
Blank lines separate nothing and are ignored outside code blocks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Block", "Part", "parse", "escape_paragraph", "escape_cell", "sheet_value", "sheet_cell"]

_HEADING = re.compile(r"^(#{1,6}) (.*)$")
_ITEM = re.compile(r"^((?:  )*)([-+]) (.*)$")
_STYLED = re.compile(r"^::([\w-]+)(?: (.*))?$")
_PART = re.compile(r"^=== (\w+)(?: (.*))?$")
_INT = re.compile(r"^-?(?:0|[1-9]\d*)$")
_FLOAT = re.compile(r"^-?\d+\.\d+$")
_MARKS = ("#", "- ", "+ ", " ", "|", "```", "[^]", "::", ">", "===", "\\")


@dataclass
class Block:
    """One unit of a document.

    kind: heading, p, item, code, table, footnote or note. `level` is a heading's level or an item's depth (0 for
    the top); `style` is a `::` paragraph's kind, or "numbered" for a numbered item; `rows` are a table's cells.
    """

    kind: str
    text: str = ""
    level: int = 0
    style: str = ""
    rows: list[list[str]] = field(default_factory=list)


@dataclass
class Part:
    """A slide, a sheet or (kind "") the whole document, with its `key=value` options."""

    kind: str
    options: dict[str, str]
    blocks: list[Block] = field(default_factory=list)
    label: str = ""


def _split_cells(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    cells: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(inner):
        ch = inner[i]
        if ch == "\\" and i + 1 < len(inner):
            nxt = inner[i + 1]
            current.append({"|": "|", "n": "\n", "\\": "\\"}.get(nxt, "\\" + nxt))
            i += 2
            continue
        if ch == "|":
            cells.append("".join(current).strip(" "))
            current = []
        else:
            current.append(ch)
        i += 1
    cells.append("".join(current).strip(" "))
    return cells


def _options(text: str) -> tuple[str, dict[str, str]]:
    """`label words key=value …` → (label, options)."""
    label: list[str] = []
    options: dict[str, str] = {}
    for word in text.split(" "):
        key, sep, value = word.partition("=")
        if sep and key.isidentifier():
            options[key] = value
        elif word:
            label.append(word)
    return " ".join(label), options


def parse(text: str) -> list[Part]:
    """The parts of a source text (raises ValueError with the line number on an unclosed code block)."""
    parts = [Part("", {})]
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        blocks = parts[-1].blocks
        if not line.strip():
            i += 1
            continue
        if line.startswith("```"):
            end = i + 1
            while end < len(lines) and lines[end] != "```":
                end += 1
            if end == len(lines):
                raise ValueError(f"line {i + 1}: code block never closed")
            blocks.append(Block("code", "\n".join(lines[i + 1:end])))
            i = end + 1
            continue
        if part := _PART.match(line):
            label, options = _options(part.group(2) or "")
            parts.append(Part(part.group(1), options, label=label))
        elif line.startswith("\\"):
            blocks.append(Block("p", line[1:]))
        elif heading := _HEADING.match(line):
            blocks.append(Block("heading", heading.group(2), level=len(heading.group(1))))
        elif item := _ITEM.match(line):
            blocks.append(Block("item", item.group(3), level=len(item.group(1)) // 2,
                                style="numbered" if item.group(2) == "+" else ""))
        elif line.startswith("|") and line.rstrip().endswith("|") and len(line.strip()) > 1:
            if blocks and blocks[-1].kind == "table":
                blocks[-1].rows.append(_split_cells(line))
            else:
                blocks.append(Block("table", rows=[_split_cells(line)]))
        elif line.startswith("[^] "):
            blocks.append(Block("footnote", line[4:]))
        elif line.startswith("> ") or line == ">":
            blocks.append(Block("note", line[2:]))
        elif styled := _STYLED.match(line):
            blocks.append(Block("p", styled.group(2) or "", style=styled.group(1)))
        else:
            blocks.append(Block("p", line))
        i += 1
    if not parts[0].blocks and len(parts) > 1:
        parts.pop(0)
    return parts


def escape_paragraph(text: str) -> str:
    """The line that parses back to a plain paragraph of `text` (one line, no newline in it)."""
    if "\n" in text:
        raise ValueError(f"a paragraph is one line: {text[:60]!r}")
    return "\\" + text if not text or text.startswith(_MARKS) else text


def escape_cell(text: str) -> str:
    """A table cell's text as written between bars."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "\\n")


def sheet_value(cell: str) -> Any:
    """A sheet cell's value: an int or float where the cell reads as one, None when empty, else the text."""
    if cell.startswith("'"):
        return cell[1:]
    if not cell:
        return None
    if _INT.match(cell):
        return int(cell)
    if _FLOAT.match(cell):
        return float(cell)
    return cell


def sheet_cell(value: Any) -> str:
    """The cell text that `sheet_value` reads back as `value`."""
    if value is None:
        return ""
    if isinstance(value, bool):
        raise ValueError("boolean sheet cells are not supported")
    if isinstance(value, int | float):
        text = repr(value)
        if sheet_value(text) != value or type(sheet_value(text)) is not type(value):
            raise ValueError(f"number {value!r} does not round-trip")
        return text
    text = str(value)
    return "'" + text if text.startswith("'") or sheet_value(text) != text else text
