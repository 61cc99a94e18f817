"""Safety rules for stored files: name sanitising, duplicate suffixes, type detection by content.

A name from a person (upload or rename) never becomes a filesystem path: stored objects are named by
a random id plus a checked extension, and the person's name lives in the file record. The name is still
checked so the record, the download header and the RAG index carry something clean.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ai_llm.common import file_types

MAX_NAME_BYTES = 255
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0080-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                     *(f"lpt{i}" for i in range(1, 10))}
_FORBIDDEN_CHARS = set('<>:"|?*')

#: Content types the store accepts are decided by `ai_llm.common.file_types`; these two are named here too.
PDF, DOCX = file_types.PDF, file_types.DOCX


class InvalidFileName(ValueError):
    """A file name that cannot be stored (traversal, control characters, reserved name, …)."""


class UnsupportedContent(ValueError):
    """The file's bytes are not a type the store accepts (checked by content, not by extension)."""


def sanitize_name(raw: str) -> str:
    """A clean display name, or `InvalidFileName` with the reason.

    Refused: empty names, NUL and control characters, path separators or `..` (traversal), absolute
    paths, Windows drive letters and reserved device names, names over 255 bytes. Kept: Unicode letters
    (Korean in NFC, as macOS sends NFD), spaces (trimmed), dots inside the name.
    """
    if raw is None or not str(raw).strip():
        raise InvalidFileName("file name is empty")
    name = unicodedata.normalize("NFC", str(raw)).strip()
    if "\x00" in name:
        raise InvalidFileName("file name contains a NUL character")
    if _CONTROL.search(name):
        raise InvalidFileName("file name contains control characters")
    if "/" in name or "\\" in name or PurePosixPath(name).is_absolute() or re.match(r"^[a-zA-Z]:", name):
        raise InvalidFileName(f"file name must not contain a path: {name!r}")
    if name in (".", "..") or name.startswith(".."):
        raise InvalidFileName(f"file name is a path traversal: {name!r}")
    if name.startswith("."):
        raise InvalidFileName(f"hidden file names (starting with '.') are not accepted: {name!r}")
    bad = sorted(_FORBIDDEN_CHARS & set(name))
    if bad:
        raise InvalidFileName(f"file name contains forbidden characters {''.join(bad)!r}")
    if name.split(".")[0].strip().lower() in _WINDOWS_RESERVED:
        raise InvalidFileName(f"{name!r} is a reserved device name")
    name = name.rstrip(". ")
    if not name:
        raise InvalidFileName("file name is empty")
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        raise InvalidFileName(f"file name is longer than {MAX_NAME_BYTES} bytes")
    return name


def split_ext(name: str) -> tuple[str, str]:
    """`("report", ".pdf")` for `report.pdf`; the extension lower-cased, empty when none."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return name, ""
    return stem, "." + ext.lower()


def with_suffix(name: str, n: int) -> str:
    """`report (2).pdf` for the n-th duplicate of `report.pdf`."""
    stem, ext = split_ext(name)
    return f"{stem} ({n}){name[len(stem):] if ext else ''}"


def next_free_name(name: str, taken: set[str]) -> str:
    """`name`, or the first `name (n)` not in `taken` (compared case-insensitively)."""
    lowered = {t.lower() for t in taken}
    if name.lower() not in lowered:
        return name
    n = 2
    while with_suffix(name, n).lower() in lowered:
        n += 1
    return with_suffix(name, n)


@dataclass(frozen=True)
class DetectedType:
    """What a file is by content: its MIME type, the extension it is stored with, and the display name
    (the person's name, with the extension corrected when it lied about the content)."""

    content_type: str
    extension: str
    name: str
    corrected: bool = False


def detect_type(path: Path, name: str) -> DetectedType:
    """Decide the type of the file at `path` from its bytes (`file_types.sniff`), not from `name`.

    Documents are recognised by content whatever their extension (a PDF named `.txt` is stored as a PDF,
    named `.pdf`; a PPTX named `.zip` as a PPTX); text keeps a text extension it has (`.md`, `.csv`, `.html`),
    else becomes `.txt`. Everything else (executables, archives, encrypted or legacy Office files, zip bombs,
    unknown binary) is refused with `UnsupportedContent` naming what it is.
    """
    stem, ext = split_ext(name)
    try:
        sniffed = file_types.sniff_path(path, ext)
    except file_types.FileTypeError as exc:
        raise UnsupportedContent(exc.reason) from exc
    wanted = sniffed.extension
    if ext == wanted or file_types.SUFFIX_ALIASES.get(ext) == wanted:
        return DetectedType(sniffed.content_type, wanted, name)
    return DetectedType(sniffed.content_type, wanted, stem + wanted if ext else name + wanted, corrected=True)
