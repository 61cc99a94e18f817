"""What a spreadsheet cell shows: its value rendered with its number format (openpyxl's `cell.number_format`).

Excel's format code is translated into a CLDR pattern and rendered by Babel (BSD-3-Clause): numbers by
`babel.numbers` (thousands separators, fixed decimals, percentages, scientific notation), dates and times by
`babel.dates`. The translation keeps Excel's own rules that CLDR lacks: sections for positive; negative; zero
(a negative section shows the absolute value with its own sign or parentheses), literal text (`"원"`, `\\-`,
a currency tag `[$₩-412]`), colours and padding (`[Red]`, `_)`, `* `) dropped, thousands scaling by a trailing
comma (`#,##0,` shows thousands) and rounding half away from zero. `mm` is a month, or minutes beside hours or
seconds. Excel's locale-dependent short date (built-in format 14, which openpyxl names `mm-dd-yy`) shows as an
ISO date. A format this does not understand (conditions such as `[>100]`, fractions, elapsed time) shows the
value as Excel's General format does.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from typing import Any

GENERAL = "General"
#: Built-in formats whose display follows the system locale (openpyxl gives their en-US code): shown as ISO.
_LOCALE_DATES = {"mm-dd-yy": "yyyy-MM-dd", "m/d/yy h:mm": "yyyy-MM-dd HH:mm"}
_NUMBER_CHARS = set("0#?.,")
_DATE_CODES = re.compile(r"[yYmMdDhHsS]")
_LOCALE_TAG = re.compile(r"^\$([^-\]]*)(?:-([0-9A-Fa-f]+))?$")


def displayed(value: Any, number_format: str | None = GENERAL) -> str:
    """The text a cell shows: `3120000000` with `#,##0` → `3,120,000,000`; `0.3871` with `0.0%` → `38.7%`."""
    if value is None:
        return ""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    code = (number_format or GENERAL).strip()
    try:
        if isinstance(value, dt.date | dt.time):
            return _date_text(value, code)
        if isinstance(value, int | float | decimal.Decimal):
            return _number_text(value, code)
    except (ValueError, decimal.InvalidOperation, KeyError, IndexError):
        pass
    return general(value)


def general(value: Any) -> str:
    """Excel's General format: whole numbers without a decimal point, others to 10 significant digits; dates as
    ISO dates (and times when they have one)."""
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        text = f"{value:.10G}"
        if "E" in text and 1e-9 <= abs(value) < 1e15:
            text = format(decimal.Decimal(text), "f")
        return text
    if isinstance(value, dt.datetime):
        text = value.isoformat(sep=" ")
        return text[:-9] if text.endswith(" 00:00:00") else text
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return " ".join(str(value).split())


def _split_sections(code: str) -> list[str]:
    """The `;`-separated sections of a format code (a `;` inside quotes or brackets, or escaped, is text)."""
    sections: list[str] = []
    current: list[str] = []
    quoted = bracket = escaped = False
    for ch in code:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif not quoted and ch == "[":
            bracket = True
        elif not quoted and ch == "]":
            bracket = False
        elif ch == ";" and not quoted and not bracket:
            sections.append("".join(current))
            current = []
            continue
        current.append(ch)
    sections.append("".join(current))
    return sections


def _tokens(section: str) -> tuple[list[tuple[bool, str]], str | None]:
    """A section as (is_literal, text) pieces, and the locale its tag names (`[$-412]` → `ko_KR`).

    Raises ValueError for what is not rendered here (a condition, elapsed time)."""
    pieces: list[tuple[bool, str]] = []
    locale: str | None = None
    i = 0
    while i < len(section):
        ch = section[i]
        if ch == '"':
            end = section.find('"', i + 1)
            end = len(section) if end < 0 else end
            pieces.append((True, section[i + 1:end]))
            i = end + 1
        elif ch == "\\" and i + 1 < len(section):
            pieces.append((True, section[i + 1]))
            i += 2
        elif ch == "_" and i + 1 < len(section):  # padding as wide as the next character
            i += 2
        elif ch == "*" and i + 1 < len(section):  # fill with the next character
            i += 2
        elif ch == "[":
            end = section.find("]", i)
            if end < 0:
                raise ValueError("unclosed bracket")
            inner = section[i + 1:end]
            tag = _LOCALE_TAG.match(inner)
            if tag:
                if tag.group(1):
                    pieces.append((True, tag.group(1)))
                if tag.group(2):
                    locale = "ko_KR" if tag.group(2).lower().endswith("412") else "en_US"
            elif re.match(r"^[<>=]", inner) or re.match(r"^[hms]+$", inner, re.I):
                raise ValueError("conditions and elapsed time are not rendered")
            # a colour ([Red], [Color10]) shows nothing
            i = end + 1
        else:
            pieces.append((False, ch))
            i += 1
    return pieces, locale


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'" if text else ""


def _number_text(value: int | float | decimal.Decimal, code: str) -> str:
    sections = _split_sections(code)
    if code.lower() == "general" or not code:
        return general(value)
    number = decimal.Decimal(str(value))
    if len(sections) >= 3 and number == 0:
        section = sections[2]
    elif len(sections) >= 2 and number < 0:
        section, number = sections[1], -number
    else:
        section = sections[0]
    if section.strip().lower() == "general":
        return general(float(number) if isinstance(value, float) else number)
    pieces, locale = _tokens(section)
    if any(not literal and _DATE_CODES.match(text) for literal, text in pieces):
        raise ValueError("a date format on a number")
    # The pattern: literal text quoted, the number's characters as they are, `%` unquoted (Babel scales by it).
    codes = "".join(text if not literal else "\0" for literal, text in pieces)
    scaled = re.search(r"[0#?](,+)(?![0#?,])", codes)
    scale_from = len(pieces)
    if scaled:  # `#,##0,` shows thousands, `#,##0,,` millions
        number /= decimal.Decimal(1000) ** len(scaled.group(1))
        scale_from = scaled.start(1)
    pattern: list[str] = []
    literal_run: list[str] = []
    seen_digits = closed = False
    index = 0
    while index < len(pieces):
        literal, text = pieces[index]
        is_number = not literal and (text in _NUMBER_CHARS or (text in "Ee" and seen_digits and index + 1 < len(
            pieces) and pieces[index + 1][1] in "+-"))
        if is_number and text == "," and index >= scale_from:
            index += 1
            continue
        if is_number:
            if closed:
                raise ValueError("literal text between digits")
            pattern.append(_quote("".join(literal_run)))
            literal_run = []
            pattern.append("#" if text == "?" else text)  # `?` pads with a space: shown without it
            if text in "Ee":
                pattern.append(pieces[index + 1][1])
                index += 1
            seen_digits = True
        elif not literal and text == "%":
            pattern.append(_quote("".join(literal_run)) + "%")
            literal_run = []
            closed = seen_digits
        else:
            literal_run.append(text)
            closed = closed or (seen_digits and bool(text.strip()))
        index += 1
    pattern.append(_quote("".join(literal_run)))
    if not seen_digits:  # a section of text alone ("-" for zero in an accounting format)
        return "".join(text for _, text in pieces if text != "%").strip()
    from babel.numbers import parse_pattern

    compiled = parse_pattern("".join(pattern))
    with decimal.localcontext() as context:
        context.rounding = decimal.ROUND_HALF_UP
        return str(compiled.apply(number, locale or "en_US")).strip()


def _date_text(value: dt.date | dt.time, code: str) -> str:
    section = _split_sections(code)[0]
    iso = _LOCALE_DATES.get(section.lower())
    if code.lower() == "general" or not _DATE_CODES.search(re.sub(r'"[^"]*"|\[[^\]]*\]', "", section)):
        return general(value)
    pieces, locale = _tokens(section)
    pattern = iso or _date_pattern(pieces)
    from babel.dates import format_date, format_datetime, format_time

    locale = locale or ("ko_KR" if "aaa" in section else "en_US")
    if isinstance(value, dt.datetime):
        return str(format_datetime(value, pattern, locale=locale)).strip()
    if isinstance(value, dt.date):
        return str(format_date(value, pattern, locale=locale)).strip()
    return str(format_time(value, pattern, locale=locale)).strip()


def _date_pattern(pieces: list[tuple[bool, str]]) -> str:
    """A CLDR date pattern for an Excel date format's pieces."""
    text = "".join(t if not literal else "\0" for literal, t in pieces)
    literals = iter(t for literal, t in pieces if literal)
    twelve_hour = bool(re.search(r"AM/PM|A/P", text, re.I))
    runs = [(m.group(0), m.start()) for m in re.finditer(r"([yYmMdDhHsSeE])\1*|AM/PM|A/P|am/pm|a/p|aaaa|aaa|\0|\.0+|.",
                                                          text)]
    out: list[str] = []
    literal: list[str] = []  # adjacent literal text, quoted once

    def code(text: str) -> None:
        out.append(_quote("".join(literal)) + text)
        literal.clear()

    kinds = [run[0][0].lower() if run[0][:1].isalpha() and "/" not in run[0] else "" for run in runs]
    for index, (run, _) in enumerate(runs):
        letter = run[0].lower()
        if run == "\0":
            literal.append(next(literals))
        elif "/" in run and letter == "a":
            code("a")
        elif run in ("aaa", "aaaa"):  # the Korean day of the week (`aaa` 월, `aaaa` 월요일)
            code("EEE" if run == "aaa" else "EEEE")
        elif letter in "ye":
            code("yy" if len(run) <= 2 and letter == "y" else "yyyy")
        elif letter == "m":
            before = next((k for k in reversed(kinds[:index]) if k and k in "ymdhs"), "")
            after = next((k for k in kinds[index + 1:] if k and k in "ymdhs"), "")
            if before == "h" or after == "s":
                code("mm" if len(run) >= 2 else "m")
            else:
                code("M" * min(len(run), 5))
        elif letter == "d":
            code({1: "d", 2: "dd", 3: "EEE"}.get(len(run), "EEEE"))
        elif letter == "h":
            code(("h" if twelve_hour else "H") * min(len(run), 2))
        elif letter == "s":
            code("s" * min(len(run), 2))
        elif run.startswith(".0"):
            code("." + "S" * (len(run) - 1))
        else:
            literal.append(run)
    code("")
    return "".join(out)
