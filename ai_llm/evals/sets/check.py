"""Check a QA file against its documents as the hub reads them (`hub eval check-sets`).

Every document is read by the hub's own parser (`document_parser.parse_document`; a scan is read by OCR), so
an item passes only if the text the hub indexes holds it. Per item (`check_qa`):

* its fields: an id used once, a question, a known `kind` and `lang` (a kind with one language must have it:
  `ko_about_en` is asked in Korean), `pages` a list of page numbers, no unknown key; a near miss has no
  answer, evidence, location or pages, and its `proxies` (where given) are strings; an answerable item has an
  answer;
* its `file` is in the documents folder and readable (a near miss may have none);
* the answer occurs in the evidence, or in the table row that holds the evidence (a changelog row's version
  cell answers a question whose evidence is the change cell), unless the set's answers are written replies
  rather than spans (`answer_spans=False`: a set whose `set.toml` says `answers = "written"`) or a parallel item's answer is in the question's
  language rather than the document's;
* the evidence (the answer where an item has none) occurs in the document;
* with `pages`, the evidence lies on one of those pages (or runs across them: a sentence over a page break);
  a document without pages (Word, slides, sheets, HWP, HTML) must have `pages: []`;
* a near miss's `proxies`, strings an answer would have to contain, occur in no document of the set.

Text is compared after `squash`, which is as loose as the sets' items need: NFKC, case folded, whitespace
removed (PDF extraction and Kiwi's spacing change spaces), inline-code backticks dropped (the parser keeps an
HTML `<code>` as `` `x` ``; a person reads `x`), thousands separators dropped (the writer copied a cell's
41260, the sheet shows 41,260). The hub reads a table row as `header: value; header: value` and a header row
as `a | b`, while an item's evidence is the row's cells joined by spaces: each table row is also matched
without its header labels and bars (`_values`). Proxies are matched the same way, except that a proxy that
starts or ends with a Latin letter or digit must not be part of a longer word ("iOS" is not in "scenarios").

A scan's text is what OCR made of it, which misreads characters (`①` as `0`, 법 as 범, table rules as `|`):
in a document read by OCR the evidence may differ from what was read in up to `OCR_TOLERANCE` of its
characters (edit distance, `_distance`), and its page is the page it is closest to, which must be one of
`pages`. So a one-character slip in a scan's item is not caught; the sets' scan items were also checked
against the drawn text when they were written (`scan_pages.json`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai_llm.common.store.jsonl import iter_jsonl
from ai_llm.common.text import HANGUL_SYLLABLE
from ai_llm.internal_rag_agent.document_parser import SUPPORTED_SUFFIXES, ParsedDocument, parse_document
from ai_llm.internal_rag_agent.formats.structure import DocumentError

#: Item kinds, and the language of the question where a kind has one.
KINDS: dict[str, str | None] = {"en": "en", "ko": "ko", "ko_formal": "ko", "ko_about_en": "ko",
                                "en_about_ko": "en", "followup": None, "parallel": None, "near_miss": None}
LANGS = frozenset({"en", "ko"})
#: Keys an item may carry (`hub eval rag` reads them; `writer`, `entity`, `table_row` describe reader items).
KEYS = frozenset({"id", "file", "question", "answer", "pages", "location", "evidence", "kind", "lang",
                  "history", "evidence_by_page", "proxies", "writer", "entity", "table_row"})
#: Share of an evidence's characters that may differ from the text OCR read (edit distance / length): the
#: Korean scans' table rows are read worst (a ruled row lost a cell: 0.32 on formats_holdout5).
OCR_TOLERANCE = 0.35

_BACKTICKS = str.maketrans("", "", "`")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_PAGE_MARKER = re.compile(r"^\[페이지 \d+\]$", re.M)
_LABEL = re.compile(r"(?:^|; )([^:;\n]{1,40}): ")
_LATIN = re.compile(r"[A-Za-z0-9]")


def squash(text: str) -> str:
    """`text` as it is compared: NFKC, case folded, backticks and thousands separators dropped, all whitespace
    removed."""
    text = unicodedata.normalize("NFKC", text).casefold().translate(_BACKTICKS)
    return re.sub(r"\s+", "", _THOUSANDS.sub("", text))


def _values(text: str, records: frozenset[str], labels: frozenset[str]) -> str:
    """`text` with each table row as its cells joined by spaces: the header labels of a row sentence and the
    bars of a header row dropped."""
    if not labels:
        return text.replace(" | ", " ")
    label = re.compile(r"(?:^|; )(?:" + "|".join(re.escape(x) for x in sorted(labels, key=len, reverse=True))
                       + r"): ")
    return "\n".join(label.sub(" ", line) if line in records else line.replace(" | ", " ")
                     for line in text.split("\n"))


def _header_labels(records: Iterable[str]) -> frozenset[str]:
    """The header names the table rows label their cells with: a row's first label, and any label that opens
    a cell of two or more rows (a label seen once may be a cell's own "Note: …")."""
    counts: Counter[str] = Counter()
    first: set[str] = set()
    for line in records:
        found = _LABEL.findall(line)
        counts.update(set(found))
        if found and line.startswith(found[0] + ": "):
            first.add(found[0])
    return frozenset(first | {label for label, n in counts.items() if n >= 2})


@dataclass(frozen=True)
class ReadDocument:
    """A document as the hub read it, squashed for matching.

    Attributes:
        units: per unit (a page of a PDF or scan, else a section), its squashed text in two forms: as read,
            and with table rows as their cells (`_values`).
        lines: each line of the text in the same two forms (a table row's evidence finds its other cells).
        paged: the units are pages.
        page_count: pages in the source (those without text included).
        ocr: the text came from text recognition.
        raw: the text (page markers dropped), NFKC and case folded, whitespace kept (for proxies).
    """

    units: dict[int, tuple[str, str]]
    lines: tuple[tuple[str, str], ...]
    paged: bool
    page_count: int
    ocr: bool
    raw: str

    @classmethod
    def of(cls, doc: ParsedDocument) -> ReadDocument:
        """The squashed units and lines of a parsed document."""
        labels = _header_labels(doc.records)
        units: dict[int, tuple[str, str]] = {}
        texts: list[str] = []
        for unit, start, end in doc.page_spans:
            text = doc.text[start:end]
            texts.append(text)
            units[unit] = (squash(text), squash(_values(text, doc.records, labels)))
        lines = tuple((squash(line), squash(_values(line, doc.records, labels)))
                      for text in texts for line in text.split("\n") if line.strip())
        paged = bool(doc.locations) and all(loc.get("kind") == "page" for loc in doc.locations.values())
        raw = unicodedata.normalize("NFKC", _PAGE_MARKER.sub("", "\n".join(texts))).casefold()
        return cls(units, lines, paged, doc.page_count, doc.ocr, raw.translate(_BACKTICKS))

    def whole(self) -> tuple[str, str]:
        """The whole document in both forms (units joined: a sentence may run over a page break)."""
        return "".join(a for a, _ in self.units.values()), "".join(b for _, b in self.units.values())

    def span(self, pages: Sequence[int]) -> tuple[str, str]:
        """The listed pages joined, in order, in both forms."""
        chosen = [self.units[p] for p in sorted(set(pages)) if p in self.units]
        return "".join(a for a, _ in chosen), "".join(b for _, b in chosen)


def read_documents(folder: Path, files: Iterable[str]) -> dict[str, ReadDocument | str]:
    """Each named file of `folder` read by the hub's parser, or why it could not be read."""
    out: dict[str, ReadDocument | str] = {}
    for name in sorted(set(files)):
        path = folder / name
        if not path.is_file():
            out[name] = f"{name} is not in {folder}"
            continue
        try:
            out[name] = ReadDocument.of(parse_document(path.read_bytes(), name))
        except DocumentError as exc:
            out[name] = f"{name} cannot be read: {exc}"
    return out


def _distance(pattern: str, text: str) -> int:
    """The fewest edits (insertions, deletions, substitutions) that turn `pattern` into some substring of
    `text` (Myers' bit-vector algorithm, 1999)."""
    m = len(pattern)
    if not m:
        return 0
    mask, high = (1 << m) - 1, 1 << (m - 1)
    peq: dict[str, int] = {}
    for i, char in enumerate(pattern):
        peq[char] = peq.get(char, 0) | (1 << i)
    pv, mv, score = mask, 0, m
    best = m
    for char in text:
        eq = peq.get(char, 0)
        xv = eq | mv
        xh = ((((eq & pv) + pv) & mask) ^ pv) | eq
        ph = mv | (~(xh | pv) & mask)
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = (ph << 1) & mask
        mh = (mh << 1) & mask
        pv = mh | (~(xv | ph) & mask)
        mv = ph & xv
        best = min(best, score)
    return best


def _gap(needle: str, forms: tuple[str, str], ocr: bool) -> float:
    """0 when `needle` (squashed) is in either form; else, for OCR text, the share of its characters that
    differ from the closest stretch of the text (1 for text that was not recognised)."""
    if any(needle in form for form in forms):
        return 0.0
    if not ocr or not needle:
        return 1.0
    return min(_distance(needle, form) for form in forms) / len(needle)


def _has_proxy(proxy: str, text: str) -> bool:
    """Whether `proxy` occurs in `text` (NFKC, case folded), whitespace ignored, not inside a Latin word."""
    chars = list(squash(proxy))
    if not chars:
        return False
    pattern = r"\s*".join(re.escape(c) for c in chars)
    if _LATIN.match(chars[0]):
        pattern = r"(?<![A-Za-z0-9])" + pattern
    if _LATIN.match(chars[-1]):
        pattern += r"(?![A-Za-z0-9])"
    text = _THOUSANDS.sub("", text)
    return re.search(pattern, text) is not None


def _fields(item: Mapping[str, Any], where: str) -> list[str]:
    """Problems with an item's fields alone."""
    problems: list[str] = []
    unknown = sorted(set(item) - KEYS)
    if unknown:
        problems.append(f"{where}: unknown keys {unknown}")
    for key in ("question", "answer", "pages", "kind", "lang"):
        if key not in item:
            problems.append(f"{where}: no {key!r}")
    if not isinstance(item.get("question"), str) or not item.get("question", "").strip():
        problems.append(f"{where}: the question is not a non-empty string")
    kind, lang = item.get("kind"), item.get("lang")
    if kind not in KINDS:
        problems.append(f"{where}: unknown kind {kind!r} (known: {', '.join(KINDS)})")
    if lang not in LANGS:
        problems.append(f"{where}: unknown lang {lang!r}")
    elif kind in KINDS and KINDS[kind] not in (None, lang):
        problems.append(f"{where}: kind {kind} is asked in {KINDS[kind]}, but lang is {lang}")
    pages = item.get("pages")
    if not isinstance(pages, list) or not all(isinstance(p, int) and p >= 1 for p in pages):
        problems.append(f"{where}: pages {pages!r} is not a list of page numbers")
    file = item.get("file")
    if not (isinstance(file, str) and file) and not (file is None and kind == "near_miss"):
        problems.append(f"{where}: file {file!r} is not a file name")
    if kind == "near_miss":
        for key in ("answer", "evidence", "location"):
            if item.get(key) is not None:
                problems.append(f"{where}: a near miss has {key} {item[key]!r}")
        if pages:
            problems.append(f"{where}: a near miss has pages {pages}")
        proxies = item.get("proxies")
        if "proxies" in item and not (isinstance(proxies, list) and proxies
                                      and all(isinstance(p, str) and p.strip() for p in proxies)):
            problems.append(f"{where}: proxies {proxies!r} is not a list of strings")
    else:
        if not isinstance(item.get("answer"), str) or not item["answer"].strip():
            problems.append(f"{where}: an answerable item has no answer")
        if item.get("evidence") is not None and not isinstance(item["evidence"], str):
            problems.append(f"{where}: evidence {item['evidence']!r} is not a string")
        if "proxies" in item:
            problems.append(f"{where}: proxies on an answerable item")
        history = item.get("history")
        if kind == "followup" and not (isinstance(history, list) and history and all(
                isinstance(turn, dict) and turn.get("role") in ("user", "agent")
                and isinstance(turn.get("text"), str) for turn in history)):
            problems.append(f"{where}: a follow-up without a history of {{role, text}} turns")
    return problems


def _matches(item: Mapping[str, Any], doc: ReadDocument, where: str, answer_spans: bool) -> list[str]:
    """Problems with an answerable item against its document."""
    problems: list[str] = []
    answer = squash(item["answer"])
    evidence = squash(item["evidence"]) if isinstance(item.get("evidence"), str) else ""
    # A parallel item asked in the other language than its document's may answer in the question's language
    # ("최대 30시간" from "up to 30 hours"): its answer is a translation, not a span.
    korean = [HANGUL_SYLLABLE.search(item[key] or "") is not None for key in ("answer", "evidence")]
    translated = item.get("kind") == "parallel" and korean[0] != korean[1]
    if evidence and answer_spans and not translated and answer not in evidence and not any(
            evidence in form and answer in form for line in doc.lines for form in line):
        problems.append(f"{where}: the answer {item['answer']!r} is not in the evidence (nor in its row)")
    needle, what = (evidence, "evidence") if evidence else (answer, "answer")
    gap = _gap(needle, doc.whole(), doc.ocr)
    if gap > (OCR_TOLERANCE if doc.ocr else 0):
        read = "what OCR read of " if doc.ocr else ""
        near = f" (closest: {gap:.0%} of it differs)" if doc.ocr else ""
        problems.append(f"{where}: the {what} is not in {read}{item['file']}{near}: {item.get(what)!r}")
        return problems
    pages = item.get("pages") or []
    if pages and not doc.paged:
        problems.append(f"{where}: pages {pages} given, but {item['file']} has no pages")
    elif pages:
        missing = [p for p in pages if p > doc.page_count]
        if missing:
            problems.append(f"{where}: {item['file']} has no page {missing} (pages: {doc.page_count})")
        tolerance = OCR_TOLERANCE if doc.ocr else 0
        gaps = {p: _gap(needle, form, doc.ocr) for p, form in doc.units.items()}
        listed = min([_gap(needle, doc.span(pages), doc.ocr), *(gaps[p] for p in pages if p in gaps)])
        others = [gap for p, gap in gaps.items() if p not in pages]
        if listed > tolerance or (others and min(others) < listed):
            best = min(gaps.values())
            found = [p for p, gap in gaps.items() if gap == best] if best <= tolerance else []
            problems.append(f"{where}: the {what} is not on page {pages} of {item['file']} "
                            + (f"(it is on page {found})" if found else "(no one page holds it)"))
    return problems


def check_items(items: Sequence[Mapping[str, Any]], documents: Mapping[str, ReadDocument | str],
                answer_spans: bool = True) -> list[str]:
    """Problems of QA items against their documents, read already (`read_documents`; a string says why a file
    could not be read). Every document of `documents` is one a proxy must not occur in."""
    problems: list[str] = []
    ids = Counter(item.get("id") for item in items)
    for n, item in enumerate(items, start=1):
        where = str(item.get("id") or f"item {n}")
        if not isinstance(item.get("id"), str) or not item["id"]:
            problems.append(f"{where}: no id")
        elif ids[item["id"]] > 1:
            problems.append(f"{where}: the id is used {ids[item['id']]} times")
        problems += _fields(item, where)
        file = item.get("file")
        doc = documents.get(file) if isinstance(file, str) else None
        if isinstance(file, str) and not isinstance(doc, ReadDocument):
            problems.append(f"{where}: {doc or f'{file} is not in the documents folder'}")
        if item.get("kind") == "near_miss":
            for proxy in item.get("proxies") or []:
                if not isinstance(proxy, str):
                    continue
                holders = [name for name, d in documents.items()
                           if isinstance(d, ReadDocument) and _has_proxy(proxy, d.raw)]
                if holders:
                    problems.append(f"{where}: the near miss's proxy {proxy!r} occurs in "
                                    f"{', '.join(holders)}")
        elif isinstance(doc, ReadDocument) and isinstance(item.get("answer"), str):
            problems += _matches(item, doc, where, answer_spans)
    return problems


def load_items(qa_path: Path) -> list[dict[str, Any]]:
    """The items of a QA file (JSON lines; blank lines skipped); a line that is not a JSON object raises
    `ValueError` naming the file and line."""
    items: list[dict[str, Any]] = []
    for n, item in iter_jsonl(qa_path, ValueError):
        if not isinstance(item, dict):
            raise ValueError(f"{qa_path}:{n}: not a JSON object")
        items.append(item)
    return items


def check_qa(qa_path: Path, docs_folder: Path, *, answer_spans: bool = True) -> list[str]:
    """Check a QA file against the documents of `docs_folder` as the hub reads them.

    Args:
        qa_path: the QA file (JSON lines, one item each: `hub eval rag`'s format).
        docs_folder: the folder of the documents (a set's rendered folder: `build.resolve_docs`); every
            supported document in it is one a near miss's proxies must not occur in.
        answer_spans: the answers are spans of the evidence (the format and reader sets); False where they are
            written replies (the newdocs sets), whose evidence alone is checked.

    Returns:
        readable problems, each naming the item's id (or the line that is not JSON); empty when every item
        passes.
    """
    try:
        items = load_items(qa_path)
    except ValueError as exc:
        return [str(exc)]
    named = {item["file"] for item in items if isinstance(item.get("file"), str)}
    present = {p.name for p in docs_folder.iterdir() if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES
               and not p.name.startswith(".")} if docs_folder.is_dir() else set()
    return check_items(items, read_documents(docs_folder, named | present), answer_spans)


def find_qa_sets(root: Path) -> dict[str, Path]:
    """The sets under `root` that have a QA file, by name: a folder `<set>/` beside its `rag_<set>.jsonl`, or
    holding it (`reader_en/rag_reader_en.jsonl`)."""
    beside = {path.stem.removeprefix("rag_"): path for path in sorted(root.glob("rag_*.jsonl"))
              if (root / path.stem.removeprefix("rag_")).is_dir()}
    inside = {path.parent.name: path for path in sorted(root.glob("*/rag_*.jsonl"))
              if path.stem == f"rag_{path.parent.name}"}
    return {**inside, **beside}
