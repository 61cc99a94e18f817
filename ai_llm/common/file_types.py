"""What a document is, by its bytes: the formats the hub reads, and the ones it refuses with a reason.

One place decides, for the upload check (`file_management_agent.file_safety`) and for the parser
(`internal_rag_agent.document_parser`), so a file whose extension lies is read as what it is, and the same
bad input gets the same answer on every path:

* zip containers (DOCX, PPTX, XLSX, HWPX) are told apart by their members and bounded before anything
  decompresses them (`check_archive`: total size, member count, compression ratio — a zip bomb is refused
  from its directory alone);
* OLE compound files are HWP 5 documents, or password-protected Office files (an `EncryptionInfo` stream),
  or legacy binary Office files (refused: save them as DOCX/PPTX/XLSX);
* images by their magic numbers (`filetype`); text by a UTF-8/CP949 decode and, for HTML, its markup.
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import filetype

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
HWPX = "application/hwp+zip"
HWP = "application/x-hwp"
PNG, JPEG, TIFF = "image/png", "image/jpeg", "image/tiff"
HTML = "text/html"
TEXT_TYPES = {".txt": "text/plain", ".md": "text/markdown", ".markdown": "text/markdown", ".csv": "text/csv",
              ".html": HTML, ".htm": HTML}

#: Binary types the hub reads, with the extension each is stored and parsed under.
BINARY_TYPES = {PDF: ".pdf", DOCX: ".docx", PPTX: ".pptx", XLSX: ".xlsx", HWPX: ".hwpx", HWP: ".hwp",
                PNG: ".png", JPEG: ".jpg", TIFF: ".tiff"}
#: Every extension a document may have (aliases included), for messages and folder scans.
SUPPORTED_SUFFIXES = (".pdf", ".txt", ".md", ".markdown", ".docx", ".pptx", ".xlsx", ".csv", ".html", ".htm",
                      ".hwpx", ".hwp", ".png", ".jpg", ".jpeg", ".tif", ".tiff")
SUFFIX_ALIASES = {".jpeg": ".jpg", ".tif": ".tiff", ".htm": ".html", ".markdown": ".md"}

#: Zip containers: decompressed size, member count and per-member ratio bounds (a zip bomb stops here).
MAX_UNZIPPED_BYTES = 512 * 1_048_576
MAX_MEMBERS = 10_000
MAX_RATIO = 200
_ZIP_MARKERS = ((DOCX, "word/document.xml"), (PPTX, "ppt/presentation.xml"), (XLSX, "xl/workbook.xml"))
_HTML_START = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html[\s>]|head[\s>]|body[\s>])", re.I | re.S)


class FileTypeError(ValueError):
    """The bytes are not a document the hub reads; `reason` says why in a sentence, `code` names the case
    (`unsupported`, `encrypted`, `corrupt`, `too_large`, `empty`)."""

    def __init__(self, reason: str, code: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


@dataclass(frozen=True)
class Sniffed:
    """What the bytes are: a MIME type and the extension the hub files it under."""

    content_type: str
    extension: str


def check_archive(archive: zipfile.ZipFile) -> None:
    """Refuse a zip whose directory promises more than the bounds above (before any member is read)."""
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise FileTypeError(f"the archive holds {len(members):,} parts (at most {MAX_MEMBERS:,} are read); "
                            "it may be a zip bomb.", "too_large")
    total = 0
    for info in members:
        total += info.file_size
        if info.file_size > 1_048_576 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise FileTypeError(f"a part of the archive ({info.filename}) expands {info.file_size // max(info.compress_size, 1):,}"
                                f"-fold; it looks like a zip bomb and is not opened.", "too_large")
    if total > MAX_UNZIPPED_BYTES:
        raise FileTypeError(f"the archive expands to {total / 1_048_576:,.0f} MB (at most "
                            f"{MAX_UNZIPPED_BYTES / 1_048_576:.0f} MB are read); it may be a zip bomb.", "too_large")


def _opened(source: bytes | Path) -> Any:
    return io.BytesIO(source) if isinstance(source, bytes) else source


def _zip_type(source: bytes | Path) -> str:
    try:
        with zipfile.ZipFile(_opened(source)) as archive:
            check_archive(archive)
            names = set(archive.namelist())
            if "mimetype" in names and archive.read("mimetype").strip() == HWPX.encode():
                manifest = archive.read("META-INF/manifest.xml") if "META-INF/manifest.xml" in names else b""
                if b"encryption-data" in manifest:
                    raise FileTypeError("the HWPX document is password-protected; remove the password and upload "
                                        "it again.", "encrypted")
                return HWPX
            if "Contents/section0.xml" in names:
                return HWPX
    except zipfile.BadZipFile as exc:
        raise FileTypeError("the file is a damaged zip archive (an Office or HWPX document that cannot be "
                            "opened).", "corrupt") from exc
    for content_type, marker in _ZIP_MARKERS:
        if marker in names:
            return content_type
    raise FileTypeError("the file is a zip archive, not a document (accepted: "
                        f"{', '.join(SUPPORTED_SUFFIXES)}).", "unsupported")


def _ole_type(source: bytes | Path) -> str:
    import olefile

    try:
        with olefile.OleFileIO(_opened(source) if isinstance(source, bytes) else str(source)) as ole:
            streams = {"/".join(entry) for entry in ole.listdir(streams=True, storages=False)}
    except (OSError, ValueError, IndexError) as exc:  # olefile reports damage as OSError or ValueError
        raise FileTypeError("the file is a damaged compound document (HWP or legacy Office).", "corrupt") from exc
    if "FileHeader" in streams and any(s.startswith("BodyText/") or s.startswith("ViewText/") for s in streams):
        return HWP
    if "EncryptionInfo" in streams and "EncryptedPackage" in streams:
        raise FileTypeError("the Office document is password-protected (encrypted); remove the password and "
                            "upload it again.", "encrypted")
    legacy = next((kind for stream, kind in (("WordDocument", "Word (.doc)"), ("Workbook", "Excel (.xls)"),
                                             ("PowerPoint Document", "PowerPoint (.ppt)")) if stream in streams), None)
    if legacy:
        raise FileTypeError(f"legacy binary {legacy} files are not read; save it as DOCX, XLSX or PPTX and upload "
                            "that.", "unsupported")
    raise FileTypeError("the file is a compound document of an unknown kind (accepted: "
                        f"{', '.join(SUPPORTED_SUFFIXES)}).", "unsupported")


def decode_text(data: bytes, partial: bool = False) -> str | None:
    """The text of `data` when it is UTF-8 (BOM allowed) or CP949 text without binary control bytes;
    `partial`: `data` is the head of a longer file (a character cut at its end is still text)."""
    if b"\x00" in data[:65536]:
        return None
    for encoding in ("utf-8-sig", "cp949"):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            if not (partial and exc.start >= len(data) - 4):
                continue
            text = data[:exc.start].decode(encoding, errors="strict")
        controls = sum(1 for ch in text[:65536] if ord(ch) < 32 and ch not in "\t\n\r\f")
        return text if controls <= max(1, min(len(text), 65536) // 200) else None
    return None


def sniff(data: bytes, extension: str = "") -> Sniffed:
    """The type of a document by its bytes (`extension`, lower-case with its dot, only tells text kinds
    apart: `.md`, `.csv`); `FileTypeError` when the hub does not read it."""
    return _sniff(data[:8192], data, extension, partial=False)


def sniff_path(path: Path, extension: str = "") -> Sniffed:
    """`sniff` for a file on disk, reading only its head (and a zip's directory or a compound file's
    sectors): an upload is never held in memory whole."""
    with open(path, "rb") as f:
        head = f.read(TEXT_SNIFF_BYTES)
    return _sniff(head[:8192], path if _container(head) else head, extension, partial=True)


TEXT_SNIFF_BYTES = 64 * 1024
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _container(head: bytes) -> bool:
    return head.startswith(_ZIP) or head.startswith(_OLE)


def _sniff(head: bytes, source: bytes | Path, extension: str, partial: bool) -> Sniffed:
    if not head.strip() and (isinstance(source, Path) or not source.strip()):
        raise FileTypeError("the file is empty.", "empty")
    if head.lstrip()[:5].startswith(b"%PDF"):
        return Sniffed(PDF, ".pdf")
    if head.startswith(_ZIP):
        kind = _zip_type(source)
        return Sniffed(kind, BINARY_TYPES[kind])
    if head.startswith(_OLE):
        kind = _ole_type(source)
        return Sniffed(kind, BINARY_TYPES[kind])
    guessed = filetype.guess(head)
    if guessed is not None:
        if guessed.mime in (PNG, JPEG, TIFF):
            return Sniffed(guessed.mime, BINARY_TYPES[guessed.mime])
        raise FileTypeError(f"content is {guessed.mime} (.{guessed.extension}), which the document store does not "
                            f"accept (accepted: {', '.join(SUPPORTED_SUFFIXES)}).", "unsupported")
    ext = SUFFIX_ALIASES.get(extension, extension)
    text_source = source if isinstance(source, bytes) else head
    if decode_text(text_source, partial=partial) is None:
        if ext in BINARY_TYPES.values():
            raise FileTypeError(f"the file is named {ext} but is not a valid {ext[1:].upper()} (no {ext[1:].upper()} "
                                "header); it may be corrupt or mislabelled.", "corrupt")
        raise FileTypeError("content is unrecognised binary data (accepted: "
                            f"{', '.join(SUPPORTED_SUFFIXES)}).", "unsupported")
    if _HTML_START.match(head):
        return Sniffed(HTML, ".html")
    if ext in TEXT_TYPES and TEXT_TYPES[ext] != HTML:
        return Sniffed(TEXT_TYPES[ext], ext)
    return Sniffed("text/plain", ".txt")
