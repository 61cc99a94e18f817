"""Safety rules for stored files: name sanitising, duplicate suffixes, type detection by content.

A name from a person (upload or rename) never becomes a filesystem path: stored objects are named by
a random id plus a checked extension, and the person's name lives in the file record. The name is still
checked so the record, the download header and the RAG index carry something clean.
"""

from __future__ import annotations

import re
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import filetype

MAX_NAME_BYTES = 255
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0080-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                     *(f"lpt{i}" for i in range(1, 10))}
_FORBIDDEN_CHARS = set('<>:"|?*')

#: Content types the store accepts, with the extension each is stored under.
PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
TEXT_TYPES = {".txt": "text/plain", ".md": "text/markdown", ".markdown": "text/markdown", ".csv": "text/csv"}
BINARY_TYPES = {PDF: ".pdf", DOCX: ".docx"}
TEXT_SNIFF_BYTES = 64 * 1024


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


def _looks_like_utf8_text(sample: bytes) -> bool:
    if b"\x00" in sample:
        return False
    try:
        text = sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut by the sample's end is still text.
        if exc.start < len(sample) - 4:
            return False
        text = sample[:exc.start].decode("utf-8", errors="strict")
    controls = sum(1 for ch in text if ord(ch) < 32 and ch not in "\t\n\r\f")
    return controls <= max(1, len(text) // 200)


def detect_type(path: Path, name: str) -> DetectedType:
    """Decide the type of the file at `path` from its bytes (magic numbers), not from `name`.

    PDFs and DOCX documents are recognised by content whatever their extension (a PDF named `.txt` is
    stored as a PDF, named `.pdf`); UTF-8 text is stored as text (`.md`/`.csv` kept, anything else
    `.txt`); every other content (executables, archives, images, unknown binary) is refused with
    `UnsupportedContent` naming what it is.
    """
    with open(path, "rb") as f:
        head = f.read(TEXT_SNIFF_BYTES)
    if not head:
        raise UnsupportedContent("file is empty")
    stem, ext = split_ext(name)
    kind = filetype.guess(head)
    mime = kind.mime if kind else None
    if mime == "application/zip" and ext == ".docx":
        mime = DOCX  # filetype only sees a zip when the docx's parts are ordered unusually
    if mime == DOCX:
        try:
            with zipfile.ZipFile(path) as archive:
                if "word/document.xml" not in archive.namelist():
                    raise UnsupportedContent("file is a zip archive, not a Word document")
        except zipfile.BadZipFile as exc:
            raise UnsupportedContent("file looks like a Word document but is corrupt") from exc
    if mime in BINARY_TYPES:
        wanted = BINARY_TYPES[mime]
        if ext == wanted:
            return DetectedType(mime, wanted, name)
        return DetectedType(mime, wanted, stem + wanted if ext else name + wanted, corrected=True)
    if mime is not None:
        described = f"{mime} (.{kind.extension})" if kind else mime
        raise UnsupportedContent(f"content is {described}, which the document store does not accept "
                                 "(PDF, DOCX, UTF-8 text, Markdown, CSV)")
    if _looks_like_utf8_text(head):
        if ext in TEXT_TYPES:
            return DetectedType(TEXT_TYPES[ext], ext if ext != ".markdown" else ".md", name)
        return DetectedType("text/plain", ".txt", stem + ".txt" if ext else name + ".txt", corrected=True)
    raise UnsupportedContent("content is unrecognised binary data (accepted: PDF, DOCX, UTF-8 text, "
                             "Markdown, CSV)")
