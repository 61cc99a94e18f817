"""Numbers as pages write them: `6,936`, `6.936,5`, `3.5%`, `3.50–3.75%`, `1,234억`, `4.5조`, `$1,234.50`,
`$8.3 billion`, `41.2 thousand`, `0.25%p`, `25 basis points`, `3.50%로`.

`parse_numbers(sentence)` finds every number in a sentence with its unit, scale word (Korean 만/억/조, English
thousand/million/billion/trillion) and range, so a fact's value is always parsed *from* the sentence quoted as
its source. Percentage points (`percentage points`, `pp`, `%p`, `%포인트`) and basis points are changes, kept
apart from percent (`CHANGE_UNITS`). A unit may carry a Korean particle (`3.50%로`, `1,385.2원으로`); a bare
number may not (`10월`, `3분기` are not numbers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KOREAN_SCALES = {"만": 1e4, "억": 1e8, "조": 1e12}
ENGLISH_SCALES = {"thousand": 1e3, "million": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12}
CURRENCY_SYMBOLS = {"$": "USD", "₩": "KRW", "€": "EUR", "¥": "JPY", "£": "GBP"}
UNIT_WORDS = {
    "%": "%", "퍼센트": "%", "percent": "%",
    "percentage points": "pp", "percentage point": "pp", "pp": "pp", "ppt": "pp", "%p": "pp", "%pt": "pp",
    "%포인트": "pp",
    "bp": "bp", "bps": "bp", "basis points": "bp", "basis point": "bp",
    "원": "KRW", "won": "KRW", "krw": "KRW", "달러": "USD", "usd": "USD", "dollars": "USD", "dollar": "USD",
    "eur": "EUR", "euros": "EUR", "euro": "EUR", "엔": "JPY", "yen": "JPY",
    "points": "pt", "point": "pt", "pt": "pt", "포인트": "pt",
}
#: Units of a change (a rate moved by so much), never the level of a rate.
CHANGE_UNITS = frozenset({"pp", "bp"})
_NUM = r"\d{1,3}(?:[.,\u00a0]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_UNIT = (r"percentage\s+points?|basis\s+points?|%|퍼센트|percent|bps|bp|ppt|pp|원|won|krw|달러|usd|dollars?"
         r"|eur|euros?|엔|yen|points?|pt|포인트")
_PATTERN = re.compile(
    rf"(?P<cur>[$₩€¥£])?\s?(?P<a>{_NUM})(?![.,]\d)\s?(?P<sa>[만억조])?\s?(?P<ua>%(?:(?:pt|p)(?![A-Za-z])|포인트)?)?"
    rf"(?:\s?(?P<sep>[–~—-]|to)\s?(?P<cur2>[$₩€¥£])?\s?(?P<b>{_NUM})(?![.,]\d)\s?(?P<sb>[만억조])?)?"
    rf"(?:\s?(?P<scale>thousand|million|billion|trillion|mn|bn)(?![A-Za-z]))?"
    rf"(?:\s?(?P<unit>{_UNIT}))?"
    # After a unit or scale a Korean particle may follow (`3.50%로`); after a bare number no letter may.
    r"(?(unit)(?![A-Za-z0-9])|(?(ua)(?!\d)|(?(scale)(?![A-Za-z0-9])|(?![\w]))))",
    re.IGNORECASE)
_FROM = re.compile(r"\bfrom\s*$", re.IGNORECASE)


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


def _unit_of(word: str | None) -> str:
    return UNIT_WORDS.get(re.sub(r"\s+", " ", word.lower()), "") if word else ""


def _scaled(x: float, factor: float) -> float:
    return float(f"{x * factor:.12g}")  # 8.3 billion is 8300000000, not 8300000000.000001


def find_numbers(text: str) -> list[tuple[int, int, ParsedNumber]]:
    """Every number in `text` as (start, end, number): unit, scales applied, ranges joined.

    `from 2.4% to 2.6%` is a change from one value to another, not a range: two numbers.
    """
    out: list[tuple[int, int, ParsedNumber]] = []
    for match in _PATTERN.finditer(text):
        if match.start("a") > 0 and (text[match.start("a") - 1].isalnum() or text[match.start("a") - 1] in ".,"):
            continue  # inside a word or another number
        start = match.start("cur") if match["cur"] else match.start("a")
        factor = ENGLISH_SCALES.get((match["scale"] or "").lower(), 1.0)
        try:
            low = parse_number_token(match["a"]) * KOREAN_SCALES.get(match["sa"] or "", 1.0)
            high = low
            if match["b"]:
                high = parse_number_token(match["b"]) * KOREAN_SCALES.get(match["sb"] or match["sa"] or "", 1.0)
        except ValueError:
            continue
        word = _unit_of(match["unit"])
        percent = ("%" if match["ua"] == "%" and word != "pt" else "pp") if match["ua"] else ""  # `% points`
        unit = percent or word or CURRENCY_SYMBOLS.get(match["cur"] or match["cur2"] or "", "")
        if match["b"] and match["sep"].lower() == "to" and _FROM.search(text, 0, start):
            # "from A to B" is a change from one value to another, not a range: A and B, sharing a unit.
            a_unit = percent or CURRENCY_SYMBOLS.get(match["cur"] or "", "")
            b_unit = word or CURRENCY_SYMBOLS.get(match["cur2"] or "", "")
            a_unit, b_unit = a_unit or b_unit, b_unit or a_unit
            a_end = max(match.end(g) for g in ("a", "sa", "ua") if match[g])
            b_start = match.start("cur2") if match["cur2"] else match.start("b")
            out.append((start, a_end, ParsedNumber(_scaled(low, factor), _scaled(low, factor), a_unit,
                                                   text[start:a_end])))
            out.append((b_start, match.end(), ParsedNumber(_scaled(high, factor), _scaled(high, factor), b_unit,
                                                           text[b_start:match.end()])))
            continue
        if match["b"] and high < low:
            low, high = high, low
        out.append((start, match.end(), ParsedNumber(_scaled(low, factor), _scaled(high, factor), unit,
                                                     text[start:match.end()].strip())))
    return out


def parse_numbers(text: str) -> list[ParsedNumber]:
    """Every number in `text` with its unit (`%`, currency, `pt`, `pp`, …) and scale applied."""
    return [number for _, _, number in find_numbers(text)]


def agree(a: ParsedNumber, b: ParsedNumber, tolerance_pct: float) -> bool:
    """Same unit and within ±tolerance (ranges compare end by end)."""
    if a.unit != b.unit:
        return False

    def close(x: float, y: float) -> bool:
        scale = max(abs(x), abs(y))
        return scale == 0 or abs(x - y) / scale * 100 <= tolerance_pct + 1e-9

    return close(a.low, b.low) and close(a.high, b.high)


def format_number(number: ParsedNumber) -> str:
    """Readable value (`3.5%`, `3.5–3.75%`, `2,650.3 pt`, `0.25 pp`)."""
    def one(x: float) -> str:
        return f"{x:,.4f}".rstrip("0").rstrip(".")

    body = one(number.low) if not number.is_range else f"{one(number.low)}–{one(number.high)}"
    if number.unit == "%":
        return f"{body}%"
    return f"{body} {number.unit}".strip()
