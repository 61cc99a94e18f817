"""Whether a written answer stays inside its passages: every number it states must appear in one of them.

A model reading "28 days" may write "28 degrees", but a number that appears in none of the passages it was
shown is a fact from elsewhere. `unsupported_numbers` finds those (no judge model needed); the RAG agent
answers with the quoted evidence instead of such a draft, and `hub eval rag` reports the share of answers
that state one (`unsupported_numbers`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

#: A number as written: digits with thousands separators or a decimal part ("1,200", "2.5", "28").
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
#: What is not a stated fact: citation markers ("[2]", "[1, 3]") and list numbering at a line's start ("2. ").
_NOT_FACTS = re.compile(r"\[\s*\d+(?:\s*[,–-]\s*\d+)*\s*\]|^\s*\d{1,2}[.)]\s", re.M)


def _canonical(number: str) -> str:
    """"1,200" and "1200" alike; a decimal keeps its point ("2.5"); "3.0" stays "3.0"."""
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", number):
        number = number.replace(",", "")
    return number.replace(",", ".") if re.fullmatch(r"\d+,\d{1,2}", number) else number


def numbers_in(text: str) -> set[str]:
    """The numbers `text` states (NFKC, so full-width digits count), citation markers and list numbering left out."""
    text = _NOT_FACTS.sub(" ", unicodedata.normalize("NFKC", text))
    return {_canonical(n.rstrip(".,")) for n in _NUMBER.findall(text)}


def unsupported_numbers(answer: str, passages: Iterable[str]) -> list[str]:
    """The numbers of `answer` that none of `passages` states (sorted; empty when every number is grounded).

    A number counts as stated when a passage holds it as a number of its own, or as part of a longer one
    written the other way ("1200" for "1,200")."""
    wanted = numbers_in(answer)
    if not wanted:
        return []
    known: set[str] = set()
    for passage in passages:
        known |= numbers_in(passage)
        if wanted <= known:
            return []
    return sorted(wanted - known, key=lambda n: (len(n), n))
