"""Natural-language file instructions (Korean and English) mapped to file operations.

"지난주에 올린 보고서 목록 보여줘" → list, uploaded last week, name matching 보고서/report;
"delete the CDC guide" → delete files whose name holds both `cdc` and `guide`. Deterministic rules:
the operation from keywords, a time window from relative dates (Korean time, UTC+9), a type from format
words, and the remaining content words as name terms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Literal

from pydantic import BaseModel, Field

from ai_llm.common.text import content_words, normalize, singular
from ai_llm.file_management_agent.file_records import FileRecord

KST = timezone(timedelta(hours=9))  # Korea has no daylight saving time

#: Operation -> keyword regexes, checked in this order (rename before delete before list …).
OPERATIONS: list[tuple[str, list[str]]] = [
    ("rename", [r"\brename\b", r"이름\s*(을|를)?\s*.*(바꿔|바꾸|변경|수정)", r"(으로|로)\s*(이름\s*)?(바꿔|변경)", r"개명"]),
    ("delete", [r"\bdelete\b", r"\bremove\b", r"\berase\b", r"삭제", r"지워", r"지우", r"제거", r"없애"]),
    ("reindex", [r"\bre-?index", r"\bretry\b", r"재색인", r"다시\s*색인", r"다시\s*인덱싱", r"재인덱싱"]),
    ("read", [r"\bread\b", r"\bopen\b", r"\bcontents?\b", r"\bwhat does\b", r"내용", r"읽어", r"열어"]),
    ("list", [r"\blist\b", r"\bshow\b", r"\bwhich files\b", r"\bwhat files\b", r"\bfiles\b", r"목록", r"리스트",
              r"보여", r"알려", r"어떤\s*파일", r"무슨\s*파일", r"파일\s*(들)?\s*(뭐|뭐가)"]),
    ("upload", [r"\bupload\b", r"올려\s*줘", r"업로드\s*해"]),
]

_ALL = re.compile(r"\b(all|every|everything)\b|모든|전부|전체|모두|다\s*(삭제|지워|지우)")
_ERRORS = re.compile(r"\b(errors?|failed|failing)\b|에러|오류|실패")
_YES = re.compile(r"^\s*(yes|y|ok|okay|confirm|sure|go ahead|do it|네|예|응|그래|확인|좋아|진행|맞아|삭제해)", re.I)
_NO = re.compile(r"^\s*(no|n|cancel|stop|don't|아니|취소|그만|하지\s*마|안\s*돼)", re.I)
_QUOTED = re.compile(r"[\"“”'‘’「『]([^\"“”'‘’」』]+)[\"“”'‘’」』]")
_TYPES = {r"\bpdfs?\b": ".pdf", r"\bdocx\b|\bword\b|워드": ".docx", r"\btxt\b|텍스트": ".txt",
          r"\bmarkdown\b|\bmd\b|마크다운": ".md", r"\bcsv\b": ".csv"}
#: Name-term synonyms so Korean instructions find English file names and back.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "보고서": ("보고서", "report"), "report": ("report", "보고서"), "가이드": ("가이드", "guide"),
    "guide": ("guide", "가이드", "지침"), "지침": ("지침", "guide"), "논문": ("논문", "paper"),
    "paper": ("paper", "논문"), "계획": ("계획", "plan"), "plan": ("plan", "계획"), "명세": ("명세", "spec"),
    "사양": ("사양", "spec"), "프로토콜": ("프로토콜", "protocol"), "회의록": ("회의록", "minutes"),
    "minute": ("minutes", "회의록"), "meeting": ("meeting", "회의"), "빅데이터": ("빅데이터", "bigdata", "big data"),
    "플랫폼": ("플랫폼", "platform"), "감염": ("감염", "infection"), "매출": ("매출", "sales"),
    "예방": ("예방", "prevention"), "weekly": ("weekly", "주간"), "주간": ("주간", "weekly"),
    "monthly": ("monthly", "월간"), "월간": ("월간", "monthly"), "korean": ("korean", "ko_", "한국"),
}
#: Words that describe the operation, time or type rather than the file's name.
_GENERIC = re.compile(
    r"^(files?|documents?|docs?|list|show|delete|remove|erase|rename|read|open|contents?|(re-?)?index\w*|retry|"
    r"uploaded|uploads?|added|last|this|past|week|weeks|month|months|today|yesterday|recent|recently|days?|"
    r"all|every|everything|please|named|called|pdfs?|docx|word|txt|md|markdown|csv|which|what|does|say|"
    r"\d+|errors?|failed|failing|에러.*|오류.*|실패.*|난|"
    r"파일.*|문서.*|목록.*|리스트.*|보여.*|올린|올려.*|업로드.*|삭제.*|지워.*|지우.*|제거.*|없애.*|읽어.*|열어.*|"
    r"내용.*|이름.*|바꿔.*|변경.*|다시|색인.*|재색인.*|인덱싱.*|지난.*|이번.*|저번.*|오늘.*|어제.*|최근.*|"
    r"\d+일.*|동안|이내|알려.*|뭐.*|무슨|어떤|모든|전부|전체|모두|다|주|달|줘|해줘|해주세요|주세요|것|거|좀|워드|텍스트|마크다운|에|한|된)$")


@dataclass
class FileCommand:
    """A parsed file instruction."""

    operation: str  # list | read | rename | delete | reindex | upload | unknown
    terms: list[str] = field(default_factory=list)
    exact_name: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    extension: str | None = None
    all_files: bool = False
    new_name: str | None = None
    only_errors: bool = False

    @property
    def has_filter(self) -> bool:
        return bool(self.terms or self.exact_name or self.since or self.until or self.extension)


def is_yes(text: str) -> bool:
    return bool(_YES.match(text.strip())) and not _NO.match(text.strip())


def is_no(text: str) -> bool:
    return bool(_NO.match(text.strip()))


def strip_previous_results(text: str) -> str:
    """The instruction without the `이전 결과:` block the orchestrator appends."""
    return re.split(r"\n\s*이전 결과\s*:", text, maxsplit=1)[0].strip()


def _week_start(now: datetime) -> datetime:
    day = now.astimezone(KST).replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def time_window(text: str, now: datetime | None = None) -> tuple[datetime | None, datetime | None]:
    """Upload-time window named in `text` (`[since, until)`), in Korean time."""
    now = (now or datetime.now(KST)).astimezone(KST)
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    lowered = text.lower()
    if m := re.search(r"(?:최근|지난)\s*(\d+)\s*일|(?:last|past)\s+(\d+)\s+days?|(\d+)\s*일\s*(?:이내|동안)", lowered):
        days = int(next(g for g in m.groups() if g))
        return now - timedelta(days=days), None
    if re.search(r"지난\s*주|저번\s*주|last week", lowered):
        start = _week_start(now)
        return start - timedelta(days=7), start
    if re.search(r"이번\s*주|금주|this week", lowered):
        return _week_start(now), None
    if re.search(r"지난\s*달|저번\s*달|last month", lowered):
        first = today.replace(day=1)
        previous = (first - timedelta(days=1)).replace(day=1)
        return previous, first
    if re.search(r"이번\s*달|this month", lowered):
        return today.replace(day=1), None
    if re.search(r"어제|yesterday", lowered):
        return today - timedelta(days=1), today
    if re.search(r"오늘|today", lowered):
        return today, None
    if re.search(r"최근|recent", lowered):
        return now - timedelta(days=7), None
    return None, None


def _rename_parts(text: str) -> tuple[str | None, str | None]:
    """(old name phrase, new name) of a rename instruction."""
    patterns = [
        r"rename\s+(?P<old>.+?)\s+(?:to|as|into)\s+(?P<new>.+?)\s*[.!]?$",
        r"(?P<old>.+?)\s*(?:의|파일의)?\s*이름\s*(?:을|를)\s*(?P<new>.+?)\s*(?:으로|로)\s*(?:바꿔|바꾸|변경|수정).*$",
        r"(?P<old>.+?)\s*(?:을|를)\s*(?P<new>.+?)\s*(?:으로|로)\s*(?:이름\s*)?(?:바꿔|바꾸|변경|수정|개명).*$",
    ]
    for pattern in patterns:
        m = re.search(pattern, text, re.I)
        if m:
            def unquote(s: str) -> str:
                return s.strip().strip("\"'“”‘’「」『』").strip()
            return unquote(m.group("old")), unquote(m.group("new"))
    return None, None


def _terms(text: str) -> list[str]:
    return [singular(w) if w.isascii() else w for w in content_words(text) if len(w) > 1 and not _GENERIC.match(w)]


def parse_instruction(text: str, now: datetime | None = None) -> FileCommand:
    """Map an instruction to a `FileCommand` (operation `unknown` when none is recognised)."""
    text = normalize(strip_previous_results(text))
    lowered = text.lower()
    operation = next((op for op, patterns in OPERATIONS if any(re.search(p, lowered) for p in patterns)),
                     "unknown")
    command = FileCommand(operation)
    command.since, command.until = time_window(text, now)
    command.all_files = bool(_ALL.search(lowered))
    command.only_errors = bool(_ERRORS.search(lowered))
    target = text
    if operation == "rename":
        old, new = _rename_parts(text)
        if old and new:
            command.new_name, target = new, old
            target = re.sub(r"^\s*(파일|문서|file|document|the)\s+", "", target, flags=re.I)
    for pattern, ext in _TYPES.items():
        if re.search(pattern, target.lower()):
            command.extension = ext
    quoted = _QUOTED.findall(target)
    if quoted:
        command.exact_name = quoted[0].strip()
        command.terms = _terms(quoted[0])
    else:
        command.terms = _terms(target)
        if operation == "rename" and command.new_name:
            command.exact_name = target.strip() if "." in target else None
    return command


def _name_matches(term: str, name: str) -> bool:
    lowered = name.lower()
    return any(alt in lowered for alt in SYNONYMS.get(term, (term,)))


def match_files(records: Sequence[FileRecord], command: FileCommand) -> list[FileRecord]:
    """Records the command refers to (all of them when it names nothing)."""
    out = []
    for record in records:
        uploaded = record.uploaded_at
        if command.since and uploaded < command.since:
            continue
        if command.until and uploaded >= command.until:
            continue
        if command.extension and not record.name.lower().endswith(command.extension):
            continue
        if command.only_errors and record.index_status != "error":
            continue
        out.append(record)
    if command.exact_name:
        exact = [r for r in out if r.name.lower() == command.exact_name.lower()]
        if exact:
            return exact
    if command.terms:
        hits = {r.id: sum(1 for t in command.terms if _name_matches(t, r.name)) for r in out}
        complete = [r for r in out if hits[r.id] == len(command.terms)]
        if complete or command.operation not in ("list", "read") or len(command.terms) < 3:
            return complete
        # Non-destructive lookups forgive one unmatched word ("I2C protocol spec" finds the protocol).
        return [r for r in out if hits[r.id] >= len(command.terms) - 1]
    return out


TimeRange = Literal["none", "today", "yesterday", "this_week", "last_week", "this_month", "last_month"]
_RANGE_WORDS = {"today": "today", "yesterday": "yesterday", "this_week": "this week", "last_week": "last week",
                "this_month": "this month", "last_month": "last month"}


class FileCommandDraft(BaseModel):
    """What a language model extracts from a file instruction (the time window is computed by rules)."""

    operation: Literal["list", "read", "rename", "delete", "reindex", "upload", "unknown"]
    exact_name: str | None = Field(None, description="a file name from the list, when the person means one file")
    name_terms: list[str] = Field(default_factory=list, description="words that appear in the wanted files' names")
    time_range: TimeRange = "none"
    last_days: int | None = Field(None, description="'last N days' when said")
    extension: str | None = Field(None, description="'.pdf', '.docx', '.txt', '.md' or '.csv' when a type is named")
    all_files: bool = False
    only_errors: bool = Field(False, description="only files whose indexing failed")
    new_name: str | None = Field(None, description="the new name of a rename")


def command_from_draft(draft: FileCommandDraft, now: datetime | None = None) -> FileCommand:
    """A `FileCommand` from a model's draft; relative dates are resolved by the same rules as offline."""
    if draft.last_days:
        since, until = time_window(f"last {draft.last_days} days", now)
    elif draft.time_range != "none":
        since, until = time_window(_RANGE_WORDS[draft.time_range], now)
    else:
        since, until = None, None
    extension = draft.extension.lower() if draft.extension else None
    if extension and not extension.startswith("."):
        extension = "." + extension
    return FileCommand(draft.operation, [t.lower() for t in draft.name_terms if t.strip()],
                       draft.exact_name or None, since, until, extension, draft.all_files, draft.new_name or None,
                       draft.only_errors)


def draft_messages(text: str, names: Sequence[str]) -> list[dict[str, str]]:
    """The prompt asking a model to map an instruction to a `FileCommandDraft`."""
    listing = "\n".join(f"- {n}" for n in list(names)[:200]) or "(no files)"
    return [{"role": "system", "content": "You map a person's file-management instruction (Korean or English) to "
             "an operation on a document store. Use only names from the list for exact_name; name_terms are words "
             "of the wanted files' names (translate Korean words when the names are English). Do not guess files "
             "that do not match."},
            {"role": "user", "content": f"Stored files:\n{listing}\n\nInstruction: {text}"}]
