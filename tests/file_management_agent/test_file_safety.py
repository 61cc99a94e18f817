"""Name sanitising, duplicate suffixes, type detection by content and the store's root confinement."""

from __future__ import annotations

import io
import os
import unicodedata
import zipfile
from pathlib import Path

import docx
import pytest

from ai_llm.file_management_agent.document_store import LocalDocumentStore, UnsafePath
from ai_llm.file_management_agent.file_safety import (
    DOCX,
    PDF,
    InvalidFileName,
    UnsupportedContent,
    detect_type,
    next_free_name,
    sanitize_name,
)
from tests.conftest import eval_pdf

EXE_BYTES = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 50 + b"PE\x00\x00" + b"\x01" * 400


@pytest.mark.parametrize("name", [
    "../etc/passwd", "../../secret.pdf", "/etc/passwd", "a/b.pdf", "a\\b.pdf", "C:\\x.pdf", "c:x.pdf",
    "a\x00b.txt", "bell\x07.txt", "new\nline.txt", "CON", "con.txt", "LPT1.pdf", "nul.md", "..", ".", ".env",
    "", "   ", "x" * 300 + ".pdf", "a<b>.txt", "what?.pdf", "rtl\u202etxt.exe",
])
def test_bad_names_are_refused_with_a_reason(name: str) -> None:
    with pytest.raises(InvalidFileName) as info:
        sanitize_name(name)
    assert str(info.value)


def test_korean_names_are_kept_and_normalised_to_nfc() -> None:
    decomposed = unicodedata.normalize("NFD", "  주간 보고서 (최종).pdf ")
    clean = sanitize_name(decomposed)
    assert clean == unicodedata.normalize("NFC", "주간 보고서 (최종).pdf")
    assert clean != decomposed


def test_duplicate_names_get_the_next_free_suffix() -> None:
    assert next_free_name("report.pdf", set()) == "report.pdf"
    assert next_free_name("report.pdf", {"REPORT.pdf"}) == "report (2).pdf"
    assert next_free_name("report.pdf", {"report.pdf", "report (2).pdf"}) == "report (3).pdf"
    assert next_free_name("notes", {"notes"}) == "notes (2)"


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / "spool.part"
    path.write_bytes(data)
    return path


def test_a_pdf_named_txt_is_stored_as_a_pdf(tmp_path: Path) -> None:
    data = eval_pdf("infineon_i2c_protocol_v2.02.pdf").read_bytes()
    detected = detect_type(_write(tmp_path, "x", data), "protocol.txt")
    assert (detected.content_type, detected.extension, detected.name, detected.corrected) == \
        (PDF, ".pdf", "protocol.pdf", True)


def test_an_exe_named_pdf_is_refused_by_content(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedContent, match="x-msdownload"):
        detect_type(_write(tmp_path, "x", EXE_BYTES), "invoice.pdf")


def test_docx_text_and_binary(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("회의록")
    buffer = io.BytesIO()
    document.save(buffer)
    assert detect_type(_write(tmp_path, "x", buffer.getvalue()), "minutes.docx").content_type == DOCX
    text = detect_type(_write(tmp_path, "x", "가나다 plain text\n".encode()), "fake.pdf")
    assert (text.content_type, text.name) == ("text/plain", "fake.txt")
    assert detect_type(_write(tmp_path, "x", b"# Title\n"), "a.md").content_type == "text/markdown"
    with pytest.raises(UnsupportedContent):
        detect_type(_write(tmp_path, "x", bytes(range(256)) * 4), "data.txt")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("evil.sh", "rm -rf /")
    with pytest.raises(UnsupportedContent):
        detect_type(_write(tmp_path, "x", archive.getvalue()), "report.docx")
    with pytest.raises(UnsupportedContent, match="empty"):
        detect_type(_write(tmp_path, "x", b""), "a.txt")


def test_every_document_format_is_recognised_by_content(tmp_path: Path) -> None:
    from ai_llm.common import file_types
    from tests.internal_rag_agent.documents import make_deck, make_regulation, make_workbook

    cases = [(make_deck(), "slides.zip", file_types.PPTX, "slides.pptx"),
             (make_workbook(), "budget.xlsx", file_types.XLSX, "budget.xlsx"),
             (make_regulation(tmp_path / "r.hwpx").read_bytes(), "규정.hwpx", file_types.HWPX, "규정.hwpx"),
             (make_regulation(tmp_path / "r.hwp").read_bytes(), "규정", file_types.HWP, "규정.hwp"),
             (b"<!DOCTYPE html><html><body><p>hi</p></body></html>", "page.htm", file_types.HTML, "page.htm"),
             (b"\x89PNG\r\n\x1a\n" + bytes(64), "scan.jpg", file_types.PNG, "scan.png")]
    for data, name, content_type, stored in cases:
        detected = detect_type(_write(tmp_path, "x", data), name)
        assert (detected.content_type, detected.name) == (content_type, stored), name


def test_encrypted_and_legacy_office_files_are_refused_with_the_reason(tmp_path: Path) -> None:
    from msoffcrypto.format.ooxml import OOXMLFile

    from tests.internal_rag_agent.documents import make_word

    locked = io.BytesIO()
    OOXMLFile(io.BytesIO(make_word())).encrypt("pw", locked)
    with pytest.raises(UnsupportedContent, match="password-protected"):
        detect_type(_write(tmp_path, "x", locked.getvalue()), "minutes.docx")
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", b"\0" * 20_000_000)
    with pytest.raises(UnsupportedContent, match="zip bomb"):
        detect_type(_write(tmp_path, "x", bomb.getvalue()), "minutes.docx")


async def test_store_refuses_traversal_and_symlinks(tmp_path: Path) -> None:
    store = LocalDocumentStore(tmp_path / "root")
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    for key in ("../secret.txt", "/etc/passwd", "a/../../secret.txt", ".incoming", ""):
        with pytest.raises(UnsafePath):
            store.path(key)
    os.symlink(outside, store.root / "link.txt")
    with pytest.raises(UnsafePath):
        store.path("link.txt")
    with pytest.raises(UnsafePath):
        await store.read_all("link.txt")
    (store.root / "inside.txt").write_text("ok")
    os.symlink(store.root / "inside.txt", store.root / "alias.txt")
    with pytest.raises(UnsafePath):
        store.path("alias.txt")  # even a link that stays inside is not followed
    assert await store.read_all("inside.txt") == b"ok"
    with pytest.raises(UnsafePath):
        await store.delete("link.txt")
    assert outside.read_text() == "top secret"
