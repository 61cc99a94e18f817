#!/usr/bin/env python3
"""Rebuild formats_holdout3 from the downloaded public sources and the two Korean texts written for this set,
then check the QA file against it.

    python build.py [--src /tmp/h3src] [--out DIR] [--fonts /usr/share/fonts/truetype] [--qa FILE]

--src must hold (see SOURCES.md for how they were downloaded):
    werkzeug-3.1.9/  structlog-26.1.0/  arrow-1.4.0/  packaging-26.4/  tenacity-9.2.1/  itsdangerous-2.2.0/
    h11-0.16.0/        (PyPI sdists, unpacked)
    debian-faq-ko/     (the Debian package debian-faq-ko 11.1, unpacked with dpkg-deb -x)
Fonts: fonts-nanum (NanumMyeongjo), fonts-dejavu, fonts-liberation.
Needs python-hwpx, python-docx, python-pptx, openpyxl, Pillow, numpy, pypdf (the repo venv).

The English documents and the Debian FAQ chapter copy their sentences from the source files; the build only
re-arranges them and adds layout. The two company rules (취업규칙 as HWPX, 출장 여비 규정 as a scan) are original
writing, kept in ko_texts.py next to this script. After building, every file is opened again with its own
library and every "answer" / "evidence" of the QA file (../rag_formats_holdout3.jsonl) is looked up in that
file's text, at the location or page the item names. For the image-only scans the text of a page is what the
renderer drew on it (recorded in scan_pages.json next to this script).
"""
from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from html import escape
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ next to the data
sys.path.insert(0, str(HERE.parent))  # ../fmtlib.py (benchmarks/data/fmtlib.py, used unchanged)
sys.path.insert(0, str(HERE))
import fmtlib as F  # noqa: E402
import ko_texts  # noqa: E402

SET = "formats_holdout3"
AUTHOR = f"{SET} build.py"
SCAN_PAGES: dict[str, list[list[str]]] = {}  # file name -> per page, the text lines drawn on it

FILES = {
    "hwpx": "hangyeol_employment_rules_2025.hwpx",
    "hwp": "debian_faq_ko_ch6_archive.hwp",
    "scan_ko": "hangyeol_travel_expense_rules_scan.pdf",
    "docx": "werkzeug_dev_server_and_debugger.docx",
    "pptx": "structlog_release_briefing_25.1-26.1.pptx",
    "xlsx": "arrow_changelog_1.0-1.4.xlsx",
    "csv": "packaging_changes_26.2-26.4.csv",
    "html": "tenacity_retrying_guide.html",
    "scan_tiff": "itsdangerous_concepts_scan.tiff",
    "scan_pdf": "h11_readme_scan.pdf",
}


# ---------------------------------------------------------------------------
# Korean originals (ko_texts.py): the small markup -> parts
# ---------------------------------------------------------------------------
def ko_lines(text: str):
    """-> list of (kind, value): h1 / h2 / center / p / note / table(rows)."""
    out = []
    for line in text.strip("\n").split("\n"):
        if line.startswith("| "):
            cells = [c.strip() for c in line[2:].split(" | ")]
            if out and out[-1][0] == "table":
                assert len(cells) == len(out[-1][1][0]), line
                out[-1][1].append(cells)
            else:
                out.append(("table", [cells]))
        elif line.startswith("== "):
            out.append(("h2", line[3:]))
        elif line.startswith("= "):
            out.append(("h1", line[2:]))
        elif line.startswith("> "):
            out.append(("center", line[2:]))
        elif line.startswith("※ "):
            out.append(("note", line))
        elif line.strip():
            out.append(("p", line))
    return out


def build_hwpx(out: Path):
    parts = []
    for kind, v in ko_lines(ko_texts.EMPLOYMENT_RULES):
        if kind in ("center", "note"):
            parts.append(("p", v))
        else:
            parts.append((kind, v))
    return F.hwp_write(parts, out / FILES["hwpx"])


# ---------------------------------------------------------------------------
# Korean: Debian FAQ, chapter 6 (데비안 아카이브), from the DocBook HTML of debian-faq-ko
# ---------------------------------------------------------------------------
class DocbookText(HTMLParser):
    """Blocks of a DocBook XSL chapter page: ("h", level, text), ("p", text), ("li", text), ("dt", text),
    ("fn", text) for footnotes. Navigation header/footer and the table of contents are skipped."""

    SKIP = ("navheader", "navfooter", "toc")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks = []
        self.buf = []
        self.stack = []  # (tag, skip?, footnote?)
        self.kind = None

    def _skipping(self):
        return any(s for _, s, _ in self.stack)

    def _in_fn(self):
        return any(f for _, _, f in self.stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class") or ""
        if tag in ("br", "hr", "img", "meta", "link"):
            return
        skip = any(c in cls.split() for c in self.SKIP)
        fn = "footnotes" in cls.split()
        self.stack.append((tag, skip, fn))
        if self._skipping():
            return
        if tag == "sup" and "footnote" in cls:  # a footnote mark in the text: left out
            self.stack[-1] = (tag, True, fn)
            return
        if tag == "a" and "footnote" in cls.split():
            self.stack[-1] = (tag, True, fn)
            return
        if tag in ("h1", "h2", "h3", "h4"):
            self._flush()
            self.kind = ("h", int(tag[1]))
        elif tag == "p":
            self._flush()
            self.kind = ("fn",) if self._in_fn() else (("li",) if any(t == "li" for t, _, _ in self.stack[:-1])
                                                      else ("p",))
        elif tag == "dt":
            self._flush()
            self.kind = ("dt",)

    def handle_endtag(self, tag):
        if tag in ("br", "hr", "img", "meta", "link"):
            return
        while self.stack:
            t, _, _ = self.stack.pop()
            if t == tag:
                break
        if tag in ("h1", "h2", "h3", "h4", "p", "dt"):
            self._flush()

    def handle_data(self, data):
        if self._skipping() or self.kind is None:
            return
        self.buf.append(data)

    def _flush(self):
        t = F.squash("".join(self.buf))
        if t and self.kind:
            self.blocks.append((*self.kind, t))
        self.buf = []
        self.kind = None


def build_hwp(faq: Path, out: Path):
    html = (faq / "usr/share/doc/debian/FAQ/ko/ftparchives.ko.html").read_text(encoding="utf-8")
    p = DocbookText()
    p.feed(html)
    blocks = p.blocks
    bare = re.sub(r'<a href="#ftn\.[^"]*" class="footnote"[^>]*>.*?</a>', "", html)  # footnote marks
    src = F.squash(re.sub(r"<[^>]+>", " ", bare).replace("&quot;", '"').replace("&amp;", "&"))
    parts = [("h1", "Debian GNU/Linux FAQ — 6장. 데비안 아카이브"),
             ("p", "Debian GNU/Linux FAQ 버전 11.0 저작권 © 1996-2021 Software in the Public Interest")]
    fns = []
    for b in blocks:
        if b[0] == "h":
            if b[1] == 1:
                continue  # the chapter title is the document title above
            parts.append(("h2", b[2]))
        elif b[0] == "fn":
            fns.append(b[1])
        else:
            parts.append(("p", b[1]))
    # footnote paragraphs keep their mark "[n]"; continuation paragraphs of a footnote follow it
    parts.append(("h2", "각주"))
    parts += [("p", t) for t in fns]
    # a table of the codenames, every cell copied from the list in 6.2.2 ("woody (데비안 3.0) 카우보이,")
    rows = [["코드명", "릴리스", "토이 스토리 캐릭터"]]
    for b in blocks:
        m = re.match(r"^(\w+) \((데비안|Debian) ?\.?([\d.]+)\)\s?(.*?)[,.]?$", b[-1]) if b[0] == "li" else None
        if m:
            rows.append([m.group(1), f"{m.group(2)} {m.group(3)}" if m.group(2) == "Debian" else f"데비안 {m.group(3)}",
                         m.group(4).lstrip("은는").strip()])
    assert len(rows) == 19, len(rows)
    parts += [("h2", "부록: 코드명 정리표 (6.2.2절의 목록)"), ("table", rows)]
    for k, v in parts:
        if k == "p" and not v.startswith("Debian GNU/Linux FAQ 버전"):
            assert F.check_in_source(v, src), v
    for r in rows[1:]:
        for c in r:
            assert F.check_in_source(c.replace("데비안 2.0", "데비안.2.0"), src), c
    return F.hwp_write(parts, out / FILES["hwp"])


# ---------------------------------------------------------------------------
# Korean scan: 출장 여비 규정 (original), statute layout with hanging indents and two tables
# ---------------------------------------------------------------------------
def render_ko_rules(lines, fonts_dir: Path, *, size_pt=11.5, dpi=200, footer="- {page} -"):
    from PIL import Image, ImageDraw
    W, H = int(8.27 * dpi), int(11.69 * dpi)
    mx, my = int(0.95 * dpi), int(0.85 * dpi)
    px = lambda pt: int(round(pt / 72 * dpi))
    reg = F._font(fonts_dir / "nanum/NanumMyeongjo.ttf", px(size_pt))
    bold = F._font(fonts_dir / "nanum/NanumMyeongjoBold.ttf", px(size_pt))
    title = F._font(fonts_dir / "nanum/NanumMyeongjoBold.ttf", px(size_pt * 1.7))
    small = F._font(fonts_dir / "nanum/NanumMyeongjo.ttf", px(size_pt * 0.85))
    hfont = F._font(fonts_dir / "nanum/NanumMyeongjoBold.ttf", px(size_pt * 1.1))
    lh = int(reg.size * 1.62)
    pages, drawn = [], []
    st = {"y": 0}

    def new_page():
        img = Image.new("L", (W, H), 255)
        pages.append((img, ImageDraw.Draw(img)))
        drawn.append([])
        st["y"] = my

    def text(x, s, font, fill=20):
        d = pages[-1][1]
        d.text((x, st["y"]), s, font=font, fill=fill)
        drawn[-1].append(s)

    def need(h):
        if st["y"] + h > H - my:
            new_page()

    new_page()
    width = W - 2 * mx
    for kind, v in lines:
        d = pages[-1][1]
        if kind == "h1":
            st["y"] += px(size_pt * 0.3)
            tw = d.textlength(v, font=title)
            text((W - tw) / 2, v, title)
            st["y"] += int(title.size * 1.7)
        elif kind == "center":
            tw = d.textlength(v, font=small)
            text((W - tw) / 2, v, small, fill=60)
            st["y"] += int(small.size * 1.6)
        elif kind == "h2":
            need(lh * 3)
            st["y"] += int(lh * 0.6)
            text(mx, v, hfont)
            st["y"] += int(lh * 1.15)
        elif kind in ("p", "note"):
            # hanging indent: "① …" continues under the text after the mark, "1. …" likewise, deeper
            m = re.match(r"^([①-⑳] |\d+\. |※ )", v)
            art = re.match(r"^(제\d+조\([^)]*\))", v)
            base = mx + (px(size_pt * 1.0) if m and not m.group(1).startswith(("※",)) and
                         re.match(r"^[①-⑳]", v) else 0)
            if m and m.group(1)[0].isdigit():
                base = mx + px(size_pt * 2.0)
            hang = base + (int(d.textlength(m.group(1), font=reg)) if m else 0)
            if art:
                st["y"] += int(lh * 0.25)
            lines_ = F._wrap(d, reg, v, W - mx - base)
            first, rest = lines_[0], " ".join(lines_[1:])
            need(lh)
            if art and first.startswith(art.group(1)):
                text(base, art.group(1), bold)
                rest_first = first[len(art.group(1)):]
                if rest_first:
                    d2 = pages[-1][1]
                    x2 = base + int(d2.textlength(art.group(1), font=bold))
                    d2.text((x2, st["y"]), rest_first, font=reg, fill=20)
                    drawn[-1][-1] = first  # the line as read: bold title and the rest
            else:
                text(base, first, reg)
            st["y"] += lh
            if rest:
                for l in F._wrap(d, reg, rest, W - mx - hang):
                    need(lh)
                    text(hang, l, reg)
                    st["y"] += lh
        elif kind == "table":
            rows = v
            ncol = len(rows[0])
            colw = [max(d.textlength(r[c], font=reg) for r in rows) + px(size_pt * 1.6) for c in range(ncol)]
            scale = width / sum(colw)
            colw = [w * scale for w in colw]
            rh = int(lh * 1.15)
            need(rh * len(rows) + lh)
            st["y"] += int(lh * 0.2)
            top = st["y"]
            x0 = mx
            dd = pages[-1][1]
            for i, r in enumerate(rows):
                x = x0
                if i == 0:
                    dd.rectangle([x0, st["y"], x0 + width, st["y"] + rh], fill=232)
                for c, cell in enumerate(r):
                    f = bold if i == 0 else reg
                    tw = dd.textlength(cell, font=f)
                    cx = x + (colw[c] - tw) / 2
                    dd.text((cx, st["y"] + (rh - reg.size) / 2 - 2), cell, font=f, fill=20)
                    x += colw[c]
                drawn[-1].append(" ".join(r))
                st["y"] += rh
            # grid
            for i in range(len(rows) + 1):
                dd.line([x0, top + i * rh, x0 + width, top + i * rh], fill=40, width=2 if i in (0, 1, len(rows)) else 1)
            x = x0
            for c in range(ncol + 1):
                dd.line([x, top, x, top + rh * len(rows)], fill=40, width=1)
                if c < ncol:
                    x += colw[c]
            st["y"] += int(lh * 0.4)
    imgs = [p[0] for p in pages]
    for k, (img, d) in enumerate(pages):
        t = footer.format(page=k + 1, pages=len(pages))
        d.text(((W - d.textlength(t, font=small)) / 2, H - my + px(size_pt)), t, font=small, fill=90)
    return imgs, drawn


def build_scan_ko(fonts_dir: Path, out: Path):
    lines = ko_lines(ko_texts.TRAVEL_RULES)
    pages, drawn = render_ko_rules(lines, fonts_dir)
    assert len(pages) == 2, len(pages)
    scans = [F.degrade(p, seed=3301 + k)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan_ko"]
    F.save_pdf_scan(scans, path)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# English scans: record the text drawn on each page (as formats_holdout2 does)
# ---------------------------------------------------------------------------
def render_traced(items, fonts, **kw):
    from PIL import ImageDraw
    calls = []
    orig = ImageDraw.ImageDraw.text

    def text(self, xy, t, *a, **k):
        calls.append((id(self.im), t))
        return orig(self, xy, t, *a, **k)
    ImageDraw.ImageDraw.text = text
    try:
        pages = F.render_pages(items, fonts, **kw)
    finally:
        ImageDraw.ImageDraw.text = orig
    ids = [id(p.im) for p in pages]
    drawn = [[t for i, t in calls if i == pid and t != "•"] for pid in ids]
    return pages, drawn


def sphinx_prep(text: str) -> str:
    """doctest-style directives of Sphinx -> code blocks; hidden test set-up and output dropped."""
    text = re.sub(r"(?m)^(\s*)\.\. testcode::\s*$", r"\1.. code-block:: python", text)
    text = re.sub(r"(?m)^(\s*)\.\. (testsetup|testoutput)::", r"\1.. raw:: \2", text)
    return text


def build_scan_tiff(itsd: Path, fonts_dir: Path, out: Path):
    text = doc_titles((itsd / "docs/concepts.rst").read_text(encoding="utf-8"), itsd / "docs")
    blocks = F.parse_rst(text)
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "dejavu/DejaVuSerif.ttf", fonts_dir / "dejavu/DejaVuSerif-Bold.ttf",
                    fonts_dir / "dejavu/DejaVuSansMono.ttf")
    pages, drawn = render_traced(items, fonts, size_pt=10, page_in=(8.5, 11.0), margin_in=(0.9, 0.8),
                                 line_gap=1.38, footer="ItsDangerous documentation: General Concepts — {page}")
    assert len(pages) == 2, len(pages)
    # a bilevel office scan: degrade, then threshold, stored as CCITT group 4
    scans = [F.binarize(F.degrade(p, seed=2201 + k, noise=5.0, specks=0.0005)[0], 150) for k, p in enumerate(pages)]
    path = out / FILES["scan_tiff"]
    scans[0].save(path, save_all=True, append_images=scans[1:], compression="group4", dpi=(200, 200))
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


def build_scan_pdf(h11: Path, fonts_dir: Path, out: Path):
    text = (h11 / "README.rst").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^(\d)\) ", r"\1. ", text)  # "1) First, ..." enumerations, which fmtlib reads as "1. "
    blocks = F.parse_rst(text)
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "liberation/LiberationSerif-Regular.ttf",
                    fonts_dir / "liberation/LiberationSerif-Bold.ttf",
                    fonts_dir / "liberation/LiberationMono-Regular.ttf")
    pages, drawn = render_traced(items, fonts, size_pt=10.5, page_in=(8.27, 11.69), margin_in=(0.9, 0.8),
                                 footer="h11 README — page {page} of {pages}")
    assert len(pages) == 2, len(pages)
    scans = [F.degrade(p, seed=1600 + k)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan_pdf"]
    F.save_pdf_scan(scans, path)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# DOCX: Werkzeug "Serving WSGI Applications" and "Debugging Applications", with the API reference that Sphinx
# puts in place of the autofunction / autoclass directives (signature defaults and :param: fields as tables)
# ---------------------------------------------------------------------------
def py_api(path: Path, name: str):
    """(signature, docstring, {param: default-source}) of a function, or of a class's __init__."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name)
    doc = ast.get_docstring(node)
    fn = node if isinstance(node, ast.FunctionDef) else \
        next(n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    args = [a.arg for a in fn.args.args if a.arg != "self"]
    defaults = dict(zip(args[len(args) - len(fn.args.defaults):], [ast.unparse(d) for d in fn.args.defaults]))
    sig = f"{name}(" + ", ".join(f"{a}={defaults[a]}" if a in defaults else a for a in args) + ")"
    return sig, doc, defaults


def split_fields(doc: str):
    """docstring -> (text before the fields + directives after them, [(param, text)])."""
    lines = doc.split("\n")
    body, params, i = [], [], 0
    while i < len(lines):
        m = re.match(r"^:param (\w+):\s*(.*)$", lines[i])
        if m:
            txt = [m.group(2)]
            i += 1
            while i < len(lines) and lines[i].startswith(" ") and lines[i].strip():
                txt.append(lines[i].strip())
                i += 1
            params.append((m.group(1), F.rst_inline(" ".join(txt))))
        else:
            body.append(lines[i])
            i += 1
    return "\n".join(body), params


def api_blocks(doc, src: Path, name: str, prefix: str):
    sig, ds, defaults = py_api(src, name)
    body, params = split_fields(ds)
    F.docx_code(doc, prefix + sig)
    blocks = F.parse_rst(body)
    F.docx_blocks(doc, blocks)
    if params:
        rows = [[p, defaults.get(p, ""), t] for p, t in params]
        F.docx_table(doc, ["Parameter", "Default", "Description"], rows, widths=[3.6, 3.0, 10.4], size=9)
        doc.add_paragraph()


def doc_titles(text: str, docs: Path) -> str:
    """:doc: links show the title of the page they point to, as Sphinx renders them."""
    def title(mm):
        f = docs / (mm.group(1).lstrip("/") + ".rst")
        lines = [l for l in f.read_text(encoding="utf-8").split("\n") if l.strip()]
        t = next(a for a, b in zip(lines, lines[1:]) if re.fullmatch(r"([=\-~^])\1+", b.strip())
                 and not re.fullmatch(r"([=\-~^])\1+", a.strip()) and not a.startswith(".."))
        return f":doc:`{t.strip()} <{mm.group(1)}>`"
    return re.sub(r":doc:`([^`<>]+)`", title, text)


def werkzeug_text(path: Path) -> tuple[str, dict[str, str], list]:
    text = path.read_text(encoding="utf-8")
    links = {m.group(1): m.group(2) for m in re.finditer(r"`([^`<]+?)\s*<(https?://[^>]+)>`_", text)}
    # the Sphinx simple table of hosts-file locations
    m = re.search(r"(?m)^    =+ =+\n((?:    .*\n)+?)    =+ =+\n", text)
    if m:
        rows = [re.split(r"\s{2,}", l.strip(), maxsplit=1) for l in m.group(1).split("\n") if l.strip()]
        text = text[:m.start()] + "@@TABLE 0\n" + text[m.end():]
        tables = [rows]
    else:
        tables = []
    text = re.sub(r"(?m)^\.\. (autofunction|autoclass):: (\w+)[ \t]*$", r"@@API \2", text)
    # the doctest under the first Quickstart step becomes a literal block
    m = re.search(r"(1\.  Generate an SSL key and store it somewhere):\n\n((?:    .+\n)+)", text)
    if m:  # (indented one step more, so that it stays inside the list item once the item is dedented)
        text = text[:m.start()] + m.group(1) + "::\n\n" + "".join("    " + l + "\n" for l in m.group(2).splitlines()) \
            + text[m.end():]
    text = doc_titles(text, path.parent)
    return text, links, tables


def build_docx(wz: Path, out: Path):
    from docx import Document
    from docx.shared import Cm, Pt
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.2)
    doc.styles["Normal"].font.name = "Calibri"
    doc.styles["Normal"].font.size = Pt(10.5)
    F.docx_code_style(doc)
    sec.header.paragraphs[0].text = "개발팀 참고자료 · Werkzeug 3.1.9 documentation — serving.rst, debug.rst"
    fns = F.DocxFootnotes(doc)
    used = set()
    apis = {"run_simple": ("src/werkzeug/serving.py", "werkzeug.serving."),
            "is_running_from_reloader": ("src/werkzeug/serving.py", "werkzeug.serving."),
            "make_ssl_devcert": ("src/werkzeug/serving.py", "werkzeug.serving."),
            "DebuggedApplication": ("src/werkzeug/debug/__init__.py", "class werkzeug.debug.")}
    first = True
    ntables = 0
    for fn in ("serving.rst", "debug.rst"):
        text, links, tables = werkzeug_text(wz / "docs" / fn)
        targets: dict[str, str] = {}
        blocks = F.parse_rst(text, targets=targets)
        links.update({k: v for k, v in targets.items() if v.startswith("http")})

        def on_para(p, t):
            for name, url in links.items():
                mm = re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", F.plain(t), re.I)
                if name.lower() not in used and mm:
                    used.add(name.lower())
                    fns.add(p, f"{mm.group(0)}: {url}")
        for b in blocks:
            if b[0] == "p" and re.fullmatch(r"=+", F.plain(b[1]).strip()):
                continue  # over-line of the title
            if b[0] == "p" and b[1].startswith("@@TABLE "):
                rows = tables[int(b[1][len("@@TABLE "):])]
                F.docx_table(doc, ["System", "Location of the hosts file"], [[r[0], F.rst_inline(r[1])] for r in rows],
                             widths=[4.0, 10.0], size=9.5)
                ntables += 1
                continue
            if b[0] == "p" and b[1].startswith("@@API "):
                name = b[1][len("@@API "):].strip()
                f, prefix = apis[name]
                api_blocks(doc, wz / f, name, prefix)
                ntables += name != "is_running_from_reloader"
                continue
            if b[0] == "h":
                doc.add_heading(F.plain(b[2]), level=min(b[1], 3))
                if first:
                    p = doc.add_paragraph()
                    p.add_run("Source: Werkzeug 3.1.9 documentation, docs/serving.rst and docs/debug.rst, with the "
                              "API entries (run_simple, is_running_from_reloader, make_ssl_devcert, "
                              "DebuggedApplication) taken from the docstrings in src/werkzeug. Parameters are "
                              "given as tables; the defaults are those of the function signatures.").italic = True
                    first = False
                continue
            F.docx_blocks(doc, [b], on_para=on_para)
    F.docx_core(doc, "Werkzeug development server and debugger", "Werkzeug 3.1.9 docs/serving.rst, docs/debug.rst",
                AUTHOR, "werkzeug, run_simple, reloader, SSL, debugger, PIN")
    path = out / FILES["docx"]
    doc.save(path)
    F.fix_zip_times(path)
    return path, ntables, len(used)


# ---------------------------------------------------------------------------
# PPTX: structlog 25.1.0 – 26.1.0 release briefing
# ---------------------------------------------------------------------------
def structlog_changes(sl: Path):
    blocks = F.parse_md((sl / "CHANGELOG.md").read_text(encoding="utf-8"))
    rel, order = {}, []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^(\d+\.\d+\.\d+) - (\d{4}-\d\d-\d\d)$", F.plain(title or ""))
        if not m:
            continue
        secs = {}
        cur = None
        for b in body:
            if b[0] == "h" and b[1] == 3:
                cur = F.plain(b[2])
                secs.setdefault(cur, [])
            elif b[0] == "ul" and cur:
                for it in b[1]:
                    secs[cur].append(F.plain(" ".join(x[1] for x in it if x[0] == "p")))
            elif b[0] == "p" and cur:
                secs[cur].append(F.plain(b[1]))
        rel[m.group(1)] = (m.group(2), secs)
        order.append(m.group(1))
    return rel, order


def build_pptx(sl: Path, out: Path):
    rel, order = structlog_changes(sl)
    vers = ["26.1.0", "25.5.0", "25.4.0", "25.3.0", "25.2.0", "25.1.0"]
    prs = F._pptx()
    F.slide_title(prs, "structlog 25.1.0 – 26.1.0 릴리스 브리핑",
                  f"Changes in structlog 25.1.0 ({rel['25.1.0'][0]}) to 26.1.0 ({rel['26.1.0'][0]})\n"
                  "Source: structlog 26.1.0 sdist, CHANGELOG.md",
                  notes="All slide text is copied from the structlog changelog (CHANGELOG.md, Keep a Changelog "
                        "format). Bullets give the first sentence of each entry; the speaker notes hold the full "
                        "entries with their pull request and issue numbers.")
    kinds = ["Added", "Changed", "Deprecated", "Removed", "Fixed"]
    rows = [[v, rel[v][0]] + [str(len(rel[v][1].get(k, []))) for k in kinds] for v in vers]
    F.slide_table(prs, "Release timeline", ["Version", "Released"] + kinds, rows, [1.5, 1.9, 1.3, 1.4, 1.6, 1.5, 1.3],
                  notes="Release dates and entry counts per section as given in CHANGELOG.md. "
                        f"24.4.0 ({rel['24.4.0'][0]}) and earlier releases are not part of this briefing. "
                        "Calendar versioning: the first number of the version is the year, the second number is "
                        "incremented with each release, starting at 1 for each year.")

    def slide(title, v, secs):
        bullets, notes = [], [f"{v} ({rel[v][0]})"]
        for s in secs:
            es = rel[v][1].get(s, [])
            if not es:
                continue
            bullets.append((0, s))
            bullets += [(1, F.first_sentence(F.split_refs(e)[0])) for e in es]
            notes += [f"{s}:"] + ["- " + e for e in es]
        F.slide_bullets(prs, title, bullets, notes="\n".join(notes))
    slide("26.1.0: removals, deprecations and additions", "26.1.0", ["Removed", "Deprecated", "Added"])
    slide("26.1.0: changes and fixes", "26.1.0", ["Changed", "Fixed"])
    slide("25.5.0: additions", "25.5.0", ["Added"])
    slide("25.5.0: deprecations, changes and fixes", "25.5.0", ["Deprecated", "Changed", "Fixed"])
    # 25.4.0 and 25.3.0 share a slide
    b, notes = [], []
    for v in ("25.4.0", "25.3.0"):
        notes.append(f"{v} ({rel[v][0]})")
        for s in kinds:
            es = rel[v][1].get(s, [])
            if es:
                b.append((0, f"{v} — {s}"))
                b += [(1, F.first_sentence(F.split_refs(e)[0])) for e in es]
                notes += [f"{s}:"] + ["- " + e for e in es]
    F.slide_bullets(prs, f"25.4.0 ({rel['25.4.0'][0]}) and 25.3.0 ({rel['25.3.0'][0]})", b, notes="\n".join(notes))
    slide(f"25.2.0 ({rel['25.2.0'][0]})", "25.2.0", kinds)
    slide("25.1.0: additions and changes", "25.1.0", ["Added", "Changed"])
    slide("25.1.0: fixes", "25.1.0", ["Fixed"])
    F.pptx_core(prs, "structlog 25.1.0 – 26.1.0 release briefing", "structlog 26.1.0 CHANGELOG.md", AUTHOR)
    path = out / FILES["pptx"]
    prs.save(path)
    F.fix_zip_times(path)
    return path, len(prs.slides)


# ---------------------------------------------------------------------------
# XLSX: arrow changelog 1.0.0 – 1.4.0
# ---------------------------------------------------------------------------
def arrow_changes(ar: Path):
    blocks = F.parse_rst((ar / "CHANGELOG.rst").read_text(encoding="utf-8"))
    rel = []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^(\d+\.\d+\.\d+) \((\d{4}-\d\d-\d\d?)\)$", F.plain(title or ""))
        if not m or not m.group(1).startswith("1."):
            continue
        items = []
        for b in body:
            if b[0] == "ul":
                for it in b[1]:
                    t = F.plain(" ".join(x[1] for x in it if x[0] == "p"))
                    tm = re.match(r"^\[([A-Z]+)\]\s*(.*)$", t)
                    items.append((tm.group(1), "item", tm.group(2)) if tm else ("", "item", t))
            elif b[0] == "p":
                items.append(("", "paragraph", F.plain(b[1])))
        rel.append((m.group(1), m.group(2), items))
    return rel


def build_xlsx(ar: Path, out: Path):
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    rel = arrow_changes(ar)
    wb = Workbook()
    ws = wb.active
    ws.title = "Changes"
    ws.append(["Version", "Date", "Tag", "Change", "Pull request"])
    n = 0
    for ver, date, items in rel:
        for tag, kind, text in items:
            refs = ", ".join(re.findall(r"(?:PR )?#\d+", text))
            ws.append([ver, date, tag, text, refs])
            n += 1
    fill = PatternFill("solid", fgColor="E2EFDA")
    for c in ws[1]:
        c.font, c.fill = Font(bold=True), fill
    for row in ws.iter_rows(min_row=2):
        for c in row:
            c.alignment = Alignment(vertical="top", wrap_text=(c.column == 4))
    for col, w in zip("ABCDE", [9, 12, 11, 100, 22]):
        ws.column_dimensions[col].width = w
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:E{n + 1}"
    tags = []
    for _, _, items in rel:
        for t, k, _ in items:
            if k == "item" and t and t not in tags:
                tags.append(t)
    ws2 = wb.create_sheet("Releases")
    ws2.append(["Version", "Date"] + tags + ["Total items"])
    for ver, date, items in rel:
        cnt = [sum(1 for t, k, _ in items if t == tag and k == "item") for tag in tags]
        ws2.append([ver, date] + cnt + [sum(1 for _, k, _ in items if k == "item")])
    for c in ws2[1]:
        c.font, c.fill = Font(bold=True), fill
    ws2.column_dimensions["A"].width = 10
    ws2.column_dimensions["B"].width = 12
    ws2.freeze_panes = "C2"
    wb.properties.creator = AUTHOR
    wb.properties.title = "arrow changelog 1.0.0 – 1.4.0"
    wb.properties.created = wb.properties.modified = F.FIXED_TIME
    path = out / FILES["xlsx"]
    wb.save(path)
    F.fix_zip_times(path)
    return path, n, tags


# ---------------------------------------------------------------------------
# CSV: packaging changes 26.2 – 26.4
# ---------------------------------------------------------------------------
def build_csv(pk: Path, out: Path):
    text = (pk / "CHANGELOG.rst").read_text(encoding="utf-8")
    text = re.sub(r":pull:`", ":pr:`", text)
    blocks = F.parse_rst(text)
    rows = []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^(\d+\.\d+) - (\d{4}-\d\d-\d\d)$", F.plain(title or ""))
        if not m or m.group(1) not in ("26.4", "26.3", "26.2"):
            continue
        cat = ""
        for b in body:
            if b[0] == "p" and re.fullmatch(r"[A-Z][\w ,/-]+:", F.plain(b[1]).strip()):
                cat = F.plain(b[1]).strip().rstrip(":")
            elif b[0] == "ul":
                for it in b[1]:
                    t = F.plain(" ".join(x[1] for x in it if x[0] == "p"))
                    refs = "; ".join(re.findall(r"#\d+", t))
                    rows.append([m.group(1), m.group(2), cat, t, refs])
            elif b[0] == "p":
                rows.append([m.group(1), m.group(2), cat, F.plain(b[1]), "; ".join(re.findall(r"#\d+", F.plain(b[1])))])
    path = out / FILES["csv"]
    F.write_csv(path, ["version", "date", "category", "change", "pull_requests"], rows)
    return path, len(rows)


# ---------------------------------------------------------------------------
# HTML: tenacity README (the docs' index page), in a Read-the-Docs-like page shell
# ---------------------------------------------------------------------------
HTML_TMPL = """<!DOCTYPE html>
<html class="writer-html5" lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{title} — Tenacity documentation</title>
<link rel="canonical" href="https://tenacity.readthedocs.io/en/latest/">
<style>
body {{ margin: 0; font-family: Lato, "Helvetica Neue", Arial, sans-serif; color: #404040; background: #edf0f2; }}
.topbar {{ background: #2980b9; color: #fff; padding: 0.5em 1.2em; display: flex; gap: 1.5em; align-items: center; }}
.topbar a {{ color: #fff; text-decoration: none; font-size: 0.9em; }}
.wrap {{ display: flex; min-height: 100vh; }}
nav.wy-nav-side {{ width: 300px; background: #343131; color: #d9d9d9; padding: 1em; font-size: 0.9em; }}
nav.wy-nav-side a {{ color: #d9d9d9; text-decoration: none; }}
nav.wy-nav-side p.caption {{ color: #55a5d9; text-transform: uppercase; font-weight: bold; margin-top: 1.4em; }}
nav.wy-nav-side input {{ width: 90%; padding: 0.4em; border-radius: 50px; border: 1px solid #2472a4; }}
.content {{ flex: 1; background: #fcfcfc; padding: 1.5em 3em; max-width: 900px; }}
.breadcrumbs {{ font-size: 0.85em; color: #777; border-bottom: 1px solid #e1e4e5; padding-bottom: 0.6em; }}
pre {{ background: #f8f8f8; border: 1px solid #e1e4e5; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }}
.cookie-consent {{ position: fixed; bottom: 0; left: 0; right: 0; background: #222; color: #eee; padding: 1em 2em;
  font-size: 0.9em; display: flex; gap: 1em; align-items: center; }}
.cookie-consent button {{ padding: 0.4em 1em; }}
footer {{ border-top: 1px solid #e1e4e5; margin-top: 3em; padding-top: 1em; font-size: 0.8em; color: #777; }}
.ethical-ad {{ border: 1px dashed #ccc; padding: 0.6em; font-size: 0.8em; color: #666; margin: 1em 0; }}
</style>
</head>
<body>
<header class="topbar" role="banner">
  <a class="brand" href="index.html"><strong>Tenacity</strong></a>
  <a href="index.html">Docs</a>
  <a href="changelog.html">Changelog</a>
  <a href="api.html">API Reference</a>
  <a href="https://github.com/jd/tenacity">GitHub</a>
</header>
<div class="wrap">
<nav class="wy-nav-side" aria-label="Navigation menu">
  <form id="rtd-search-form" class="wy-form" action="search.html" method="get" role="search">
    <input type="text" name="q" placeholder="Search docs" aria-label="Search docs">
  </form>
  <p class="caption">Contents</p>
  <ul>
{toc}
  </ul>
  <p class="caption">More</p>
  <ul>
    <li><a href="changelog.html">Changelog</a></li>
    <li><a href="api.html">API Reference</a></li>
  </ul>
  <div class="ethical-ad" role="complementary">Ads by EthicalAds · Hosting sponsored by Read the Docs. Read the Docs is a community-supported site.</div>
</nav>
<main class="content">
<div class="breadcrumbs" role="navigation" aria-label="Page navigation"><a href="index.html">Docs</a> » {title} · <a href="_sources/index.rst.txt">View page source</a></div>
<div class="document" role="main" itemscope itemtype="http://schema.org/Article">
<article itemprop="articleBody">
{body}
</article>
</div>
<footer>
  <div class="rst-footer-buttons"><a class="btn-next" href="changelog.html">Next: Changelog »</a></div>
  <p>© Copyright 2016 Étienne Bersac, 2016 Julien Danjou, 2016 Joshua Harlow, 2013-2014 Ray Holder. Licensed under the Apache License, Version 2.0.</p>
  <p>Built with Sphinx using a theme provided by Read the Docs. Page source: doc/source/index.rst in the tenacity 9.2.1 source distribution.</p>
</footer>
</main>
</div>
<div class="cookie-consent" id="cookie-consent" role="dialog" aria-label="Cookie consent">
  <p>This site uses cookies from Read the Docs to deliver its services and to analyse traffic. By continuing, you agree to their use.</p>
  <button type="button" data-choice="accept">Accept</button>
  <button type="button" data-choice="decline">Decline</button>
  <a href="https://docs.readthedocs.io/en/stable/privacy-policy.html">Learn more</a>
</div>
<script>
document.querySelectorAll('#cookie-consent button').forEach(function (b) {{
  b.addEventListener('click', function () {{ document.getElementById('cookie-consent').style.display = 'none'; }});
}});
</script>
</body>
</html>
"""


def build_html(ten: Path, out: Path):
    text = sphinx_prep((ten / "doc/source/index.rst").read_text(encoding="utf-8"))
    blocks = F.parse_rst(text)
    title = F.plain(next(b for b in blocks if b[0] == "h")[2])
    toc = []
    for b in blocks:
        if b[0] == "h" and b[1] in (2, 3):
            ind = "    " if b[1] == 2 else "      "
            toc.append(f'{ind}<li class="toctree-l{b[1] - 1}"><a href="#{F.slug(b[2])}">{escape(F.plain(b[2]))}</a></li>')
    html = HTML_TMPL.format(title=escape(title), toc="\n".join(toc), body=F.html_blocks(blocks))
    path = out / FILES["html"]
    path.write_text(html, encoding="utf-8")
    return path, sum(1 for b in blocks if b[0] == "h")


# ---------------------------------------------------------------------------
# reading the files back (own library per format) for the QA check
# ---------------------------------------------------------------------------
def norm(s: str) -> str:
    s = (s or "").replace("\u00a0", " ").replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", "", s)


def read_units(path: Path):
    """Return (units, pages): units = list of (location, text) in reading order; pages = list of page texts."""
    ext = path.suffix.lower()
    units: list[tuple[str, str]] = []
    if ext in (".hwpx", ".hwp"):
        from hwpx import HwpxDocument
        d = HwpxDocument.open(path)
        head = None
        for p in d.paragraphs:
            t = p.text if isinstance(p.text, str) else str(p.text)
            if not t.strip() and not p.tables:
                continue
            m = re.match(r"^(제\d+조(?:의\d+)?)[ (]", t)
            if str(p.style_id_ref) not in ("0", "None", ""):  # a heading (add_heading styles)
                head = t.strip()
            elif m:
                head = m.group(1)
            for tb in p.tables:
                for r in range(tb.row_count):
                    units.append((head or "", " ".join(tb.cell(r, c).text for c in range(tb.column_count))))
            if t.strip():
                units.append((head or "", t))
        return units, None
    if ext == ".docx":
        from docx import Document
        from docx.table import Table
        from docx.text.paragraph import Paragraph
        d = Document(path)
        head = ""
        for el in d.element.body.iterchildren():
            tag = el.tag.split("}")[1]
            if tag == "p":
                p = Paragraph(el, d)
                if p.style.name.startswith("Heading"):
                    head = p.text
                units.append((head, p.text))
            elif tag == "tbl":
                t = Table(el, d)
                for row in t.rows:
                    units.append((head, " ".join(c.text for c in row.cells)))
        fpart = [r.target_part for r in d.part.rels.values() if r.reltype.endswith("/footnotes")]
        for fp in fpart:
            units.append(("footnotes", re.sub(r"<[^>]+>", "", fp.blob.decode("utf-8"))))
        return units, None
    if ext == ".pptx":
        from pptx import Presentation
        pr = Presentation(path)
        for k, s in enumerate(pr.slides, 1):
            loc = f"슬라이드 {k}"
            for sh in s.shapes:
                if sh.has_text_frame:
                    for p in sh.text_frame.paragraphs:
                        units.append((loc, "".join(r.text for r in p.runs)))
                if sh.has_table:
                    for row in sh.table.rows:
                        units.append((loc, " ".join(c.text for c in row.cells)))
            if s.has_notes_slide:
                for line in s.notes_slide.notes_text_frame.text.split("\n"):
                    units.append((loc, line))
        return units, None
    if ext == ".xlsx":
        from openpyxl import load_workbook
        wb = load_workbook(path)
        for ws in wb:
            for i, row in enumerate(ws.iter_rows(values_only=True), 1):
                units.append((f"{ws.title}!{i}", " ".join("" if v is None else str(v) for v in row)))
        return units, None
    if ext == ".csv":
        import csv
        with open(path, encoding="utf-8", newline="") as f:
            for i, row in enumerate(csv.reader(f), 1):
                units.append((f"{path.stem}!{i}", " ".join(row)))
        return units, None
    if ext == ".html":
        head = [""]
        buf: list[str] = []
        state = {"in_h": False, "hbuf": []}

        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                if tag in ("h1", "h2", "h3", "h4"):
                    flush()
                    state["in_h"], state["hbuf"] = True, []
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd", "ul", "ol"):
                    flush()

            def handle_endtag(self, tag):
                if tag in ("h1", "h2", "h3", "h4"):
                    head[0] = "".join(state["hbuf"]).strip()
                    units.append((head[0], head[0]))
                    state["in_h"] = False
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd"):
                    flush()

            def handle_data(self, data):
                (state["hbuf"] if state["in_h"] else buf).append(data)

        def flush():
            t = "".join(buf).strip()
            if t:
                units.append((head[0], t))
            buf.clear()
        P().feed(path.read_text(encoding="utf-8"))
        flush()
        return units, None
    if ext == ".pdf":
        from pypdf import PdfReader
        r = PdfReader(path)
        assert not "".join((pg.extract_text() or "") for pg in r.pages).strip(), f"{path.name} has a text layer"
    if ext in (".pdf", ".png", ".tif", ".tiff"):
        pages = json.loads((HERE / "scan_pages.json").read_text(encoding="utf-8"))[path.name]
        return [], [" ".join(p) for p in pages]
    raise ValueError(path)


def check_qa(out: Path, qa: Path):
    items = [json.loads(l) for l in qa.read_text(encoding="utf-8").splitlines() if l.strip()]
    cache = {}
    bad = 0
    for it in items:
        f = out / it["file"]
        assert f.exists(), it["file"]
        if it["file"] not in cache:
            cache[it["file"]] = read_units(f)
        units, pages = cache[it["file"]]
        if it["kind"] == "near_miss":
            assert it["answer"] is None and it["evidence"] is None and it["pages"] == [] and it["location"] is None, it
            continue
        ans, ev = norm(it["answer"]), norm(it["evidence"])
        if pages is not None:
            assert it["pages"] and it["location"] is None, it["id"]
            text = norm(" ".join(pages[p - 1] for p in it["pages"]))
            ok = ev in text and ans in ev
            where = it["pages"]
        else:
            assert it["pages"] == [] and it["location"], it["id"]
            loc = it["location"]
            scope = [t for l, t in units if l == loc]
            if not scope:  # a heading's text: everything under it until the next heading of the same file
                scope = [t for l, t in units if norm(l) == norm(loc)]
            # the evidence is one whole unit (sentence, paragraph, bullet, table row, note line) or part of one;
            # the answer is in the evidence or in the same unit (a table row: the answer may be another cell)
            hits = [t for t in scope if ev in norm(t)]
            ok = bool(hits) and any(ans in ev or ans in norm(t) for t in hits)
            where = loc
        if not ok:
            bad += 1
            print(f"  FAIL {it['id']} {it['file']} @ {where}: answer/evidence not found\n      {it['evidence']}")
    print(f"  QA: {len(items)} items checked, {bad} failures")
    assert bad == 0


# ---------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/tmp/h3src", type=Path)
    ap.add_argument("--out", default=HERE / "docs", type=Path)
    ap.add_argument("--fonts", default="/usr/share/fonts/truetype", type=Path)
    ap.add_argument("--qa", default=HERE.parent / "rag_formats_holdout3.jsonl", type=Path)
    a = ap.parse_args()
    s = a.src
    a.out.mkdir(parents=True, exist_ok=True)
    print(build_hwpx(a.out))
    print(build_hwp(s / "debian-faq-ko", a.out))
    print(build_scan_ko(a.fonts, a.out))
    print(build_docx(s / "werkzeug-3.1.9", a.out))
    print(build_pptx(s / "structlog-26.1.0", a.out))
    print(build_xlsx(s / "arrow-1.4.0", a.out))
    print(build_csv(s / "packaging-26.4", a.out))
    print(build_html(s / "tenacity-9.2.1", a.out))
    print(build_scan_tiff(s / "itsdangerous-2.2.0", a.fonts, a.out))
    print(build_scan_pdf(s / "h11-0.16.0", a.fonts, a.out))
    (HERE / "scan_pages.json").write_text(json.dumps(SCAN_PAGES, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    F.verify(a.out)
    if a.qa.exists():
        check_qa(a.out, a.qa)
    else:
        print(f"  (no QA file at {a.qa})")


if __name__ == "__main__":
    main()
