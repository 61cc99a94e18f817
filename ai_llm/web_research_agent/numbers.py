"""Numbers as pages write them: `6,936`, `6.936,5`, `3.5%`, `3.50–3.75%`, `1,234억`, `4.5조`, `$1,234.50`.

`parse_numbers(sentence)` finds every number in a sentence with its unit, Korean scale word and range, so a
fact's value is always parsed *from* the sentence quoted as its source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KOREAN_SCALES = {"만": 1e4, "억": 1e8, "조": 1e12}
CURRENCY_SYMBOLS = {"$": "USD", "₩": "KRW", "€": "EUR", "¥": "JPY", "£": "GBP"}
UNIT_WORDS = {
    "%": "%", "퍼센트": "%", "percent": "%", "bp": "bp",
    "원": "KRW", "won": "KRW", "krw": "KRW", "달러": "USD", "usd": "USD", "dollars": "USD", "dollar": "USD",
    "eur": "EUR", "euros": "EUR", "엔": "JPY", "yen": "JPY",
    "points": "pt", "point": "pt", "pt": "pt", "포인트": "pt",
}
_NUM = r"\d{1,3}(?:[.,\u00a0]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_UNIT = r"%|퍼센트|percent|bp|원|won|krw|달러|usd|dollars?|eur|euros|엔|yen|points?|pt|포인트"
_PATTERN = re.compile(
    rf"(?P<cur>[$₩€¥£])?\s?(?P<a>{_NUM})\s?(?P<sa>[만억조])?\s?(?P<ua>%)?"
    rf"(?:\s?(?:[–~—-]|to)\s?(?P<cur2>[$₩€¥£])?\s?(?P<b>{_NUM})\s?(?P<sb>[만억조])?)?"
    rf"\s?(?P<unit>{_UNIT})?(?![\w])",
    re.IGNORECASE)


@dataclass(frozen=True)
class ParsedNumber:
    """A number found in text: `low == high` unless it is a range (`3.50–3.75%`)."""

    low: float
    high: float
    unit: str
    raw: str

    @property
    def is_range(self) -> bool:
        return self.low != self.high

    @property
    def value(self) -> float:
        return self.low if not self.is_range else (self.low + self.high) / 2


def parse_number_token(token: str) -> float:
    """One number token → float, deciding which of `,` and `.` is the decimal mark.

    `6,936` → 6936; `6.936,5` → 6936.5; `1.234.567` → 1234567; `3,5` → 3.5; `3.5` → 3.5;
    `1\u00a0234,5` (no-break space as thousands separator) → 1234.5.
    """
    token = token.replace("\u00a0", " ").strip()
    if " " in token:
        token = token.replace(" ", "")
    if "," in token and "." in token:
        decimal = "," if token.rfind(",") > token.rfind(".") else "."
        thousands = "." if decimal == "," else ","
        return float(token.replace(thousands, "").replace(decimal, "."))
    for mark in (",", "."):
        if mark in token:
            groups = token.split(mark)
            if len(groups) > 2 or all(len(g) == 3 for g in groups[1:]) and mark == ",":
                return float(token.replace(mark, ""))  # thousands separators
            return float(token.replace(mark, "."))
    return float(token)


def parse_numbers(text: str) -> list[ParsedNumber]:
    """Every number in `text` with its unit (`%`, currency, `pt`, …) and Korean scale applied."""
    out: list[ParsedNumber] = []
    for match in _PATTERN.finditer(text):
        start = match.start("a")
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in ".,"):
            continue  # inside a word or another number
        try:
            low = parse_number_token(match["a"]) * KOREAN_SCALES.get(match["sa"] or "", 1.0)
            high = low
            if match["b"]:
                high = parse_number_token(match["b"]) * KOREAN_SCALES.get(match["sb"] or match["sa"] or "", 1.0)
        except ValueError:
            continue
        unit = ""
        if match["cur"] or match["cur2"]:
            unit = CURRENCY_SYMBOLS[match["cur"] or match["cur2"]]
        if match["ua"]:
            unit = "%"
        if match["unit"]:
            unit = UNIT_WORDS.get(match["unit"].lower(), unit) or unit
        if match["b"] and high < low:
            low, high = high, low
        out.append(ParsedNumber(low, high, unit, match.group(0).strip()))
    return out


def agree(a: ParsedNumber, b: ParsedNumber, tolerance_pct: float) -> bool:
    """Same unit and within ±tolerance (ranges compare end by end)."""
    if a.unit != b.unit:
        return False

    def close(x: float, y: float) -> bool:
        scale = max(abs(x), abs(y))
        return scale == 0 or abs(x - y) / scale * 100 <= tolerance_pct + 1e-9

    return close(a.low, b.low) and close(a.high, b.high)


def format_number(number: ParsedNumber) -> str:
    """Readable value (`3.5%`, `3.5–3.75%`, `2,650.3 pt`)."""
    def one(x: float) -> str:
        return f"{x:,.4f}".rstrip("0").rstrip(".")

    body = one(number.low) if not number.is_range else f"{one(number.low)}–{one(number.high)}"
    if number.unit == "%":
        return f"{body}%"
    return f"{body} {number.unit}".strip()
