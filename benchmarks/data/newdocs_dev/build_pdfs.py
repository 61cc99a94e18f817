#!/usr/bin/env python3
"""Render a small evaluation corpus of real public documents to PDF.

Sources (downloaded from PyPI, see SOURCES.md):
  click 8.5.1 sdist     -> docs/*.md (MyST Markdown)         -> click_user_guide.pdf
  Jinja2 3.1.6 sdist    -> docs/templates.rst (reST)          -> jinja2_template_designer.pdf
  attrs 26.1.0 sdist    -> CHANGELOG.md (Markdown)            -> attrs_changelog.pdf
  konlpy 0.6.0 wheel    -> konlpy/data/corpus/kolaw/constitution.txt -> ko_constitution.pdf

Usage:
  python build_pdfs.py --click DIR --jinja DIR --attrs DIR --kolaw DIR \
      --font /usr/share/fonts/truetype/nanum/NanumGothic.ttf \
      --font-bold /usr/share/fonts/truetype/nanum/NanumGothicBold.ttf --out DIR

Requires reportlab.  Markup is stripped to readable text with a small
hand-written converter; code blocks become monospace paragraphs; Sphinx
directives that only produce generated output (autodoc, click:run, toctree,
contents) are dropped.
"""
import argparse
import html
import os
import re

from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import (Paragraph, Preformatted, SimpleDocTemplate,
                                Spacer)

# ---------------------------------------------------------------- inline ---

ROLE_RE = re.compile(r"\{[\w:.-]+\}`([^`]*)`")           # MyST {func}`x`
RST_ROLE_RE = re.compile(r":[\w:.-]+:`([^`]*)`")         # reST :func:`x`
RST_LINK_RE = re.compile(r"`([^`<]+?)\s*<[^>]+>`__?")    # `text <url>`_
RST_REF_RE = re.compile(r"`([^`]+)`__?")                  # `ref`_
MD_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")      # [text](url)


def _role_text(s):
    # "text <target>" -> text ; "~mod.func" -> func ; "!x" -> x
    m = re.match(r"^(.*?)\s*<[^>]*>$", s, re.S)
    if m and m.group(1):
        s = m.group(1)
    if s.startswith("~"):
        s = s[1:].split(".")[-1]
    return s.lstrip("!")


def inline(text, md):
    """Convert inline markup to reportlab mini-HTML."""
    codes = []

    def keep_code(s):
        codes.append(s)
        return "\x00%d\x00" % (len(codes) - 1)

    t = text
    t = re.sub(r"<!--.*?-->", "", t, flags=re.S)
    if md:
        # code spans and MyST roles, scanned left to right so that braces
        # inside a code span are never mistaken for a role prefix
        t = re.sub(r"(\{[\w:.-]+\})?(``?)([^`]+?)\2(?!`)",
                   lambda m: keep_code(_role_text(m.group(3)) if m.group(1) else m.group(3)), t)
        t = MD_LINK_RE.sub(lambda m: m.group(1), t)
        t = re.sub(r"<(https?://[^>]+)>", r"\1", t)
        t = re.sub(r":::\{(\w+)\}\s*", lambda m: m.group(1).capitalize() + ": ", t)   # inline colon fence
        t = re.sub(r"\s*:::\s*$", "", t)
    else:
        t = RST_ROLE_RE.sub(lambda m: keep_code(_role_text(m.group(1))), t)
        t = re.sub(r"``(.+?)``", lambda m: keep_code(m.group(1)), t)
        t = RST_LINK_RE.sub(lambda m: m.group(1), t)
        t = RST_REF_RE.sub(lambda m: m.group(1), t)
        t = re.sub(r"(?<![`\w])`([^`]+)`(?![`_\w])", lambda m: keep_code(m.group(1)), t)
        t = re.sub(r"\|([\w-]+)\|", r"\1", t)
        t = t.replace("\\ ", "")
    t = html.escape(t, quote=False)
    t = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", t)
    t = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<i>\1</i>", t)
    if md:
        t = re.sub(r"(?<![\w_])_(?!\s)(.+?)(?<!\s)_(?![\w_])", r"<i>\1</i>", t)
    t = re.sub(r"\\([*_`\\|])", r"\1", t)

    def put_code(m):
        return '<font face="Courier">%s</font>' % html.escape(codes[int(m.group(1))], quote=False)

    t = re.sub("\x00(\\d+)\x00", put_code, t)
    return t


# ---------------------------------------------------------------- blocks ---
# block = (kind, text) ; kind in h1 h2 h3 p li code note


def _dedent(lines):
    ind = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
    return [l[ind:] for l in lines]


def _strip_blank(lines):
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _drop_options(lines):
    """Drop leading ':option: value' lines of a directive body."""
    out = list(lines)
    while out and (re.match(r"^\s*:[\w-]+:", out[0]) or (not out[0].strip() and len(out) > 1 and re.match(r"^\s*:[\w-]+:", out[1]))):
        out.pop(0)
    return out


ADMONITIONS = {"note": "Note", "warning": "Warning", "caution": "Caution", "tip": "Tip",
               "hint": "Hint", "important": "Important", "danger": "Danger",
               "versionadded": "New in version", "versionchanged": "Changed in version",
               "deprecated": "Deprecated since version", "seealso": "See also", "admonition": ""}
CODE_DIRECTIVES = {"code-block", "sourcecode", "code", "click:example", "doctest", "testcode", "python"}
DROP_DIRECTIVES = {"click:run", "toctree", "contents", "currentmodule", "py:currentmodule", "highlight",
                   "include", "literalinclude", "image", "figure", "autoclass", "autofunction",
                   "automodule", "autodata", "automethod", "jinja:filters", "jinja:tests",
                   "towncrier-draft-entries", "only", "raw", "index", "tabs", "group-tab", "tab"}
SIGNATURE_DIRECTIVES = {"function", "class", "method", "property", "attribute", "data", "describe",
                        "py:function", "py:class", "py:method", "py:attribute", "py:data"}


def directive_blocks(name, arg, body, md):
    """Turn a directive (either syntax) into blocks."""
    body = _drop_options(body)
    body = _strip_blank(_dedent(body))
    if name in CODE_DIRECTIVES:
        return [("code", "\n".join(body))] if body else []
    if name == "eval-rst":
        return rst_blocks("\n".join(body))
    if name in ("tabs", "group-tab", "tab"):
        # keep tab content (e.g. shell-completion per shell) with the tab title
        out = []
        if arg and name != "tabs":
            out.append(("p", "<b>%s</b>" % html.escape(arg)))
        return out + (rst_blocks("\n".join(body)) if not md else md_blocks("\n".join(body)))
    if name in DROP_DIRECTIVES:
        return []
    if name == "list-table":
        rows, cur = [], None
        for l in body:
            m = re.match(r"^\*\s+-\s+(.*)$", l)
            m2 = re.match(r"^\s+-\s+(.*)$", l)
            if m:
                cur = [m.group(1)]
                rows.append(cur)
            elif m2 and cur is not None:
                cur.append(m2.group(1))
        out = [("p", "<b>%s</b>" % inline(arg, md))] if arg else []
        return out + [("li", inline(" | ".join(r), md)) for r in rows]
    if name in SIGNATURE_DIRECTIVES:
        out = [("p", '<font face="Courier"><b>%s</b></font>' % html.escape(arg.replace("\\", "")))]
        inner = rst_blocks("\n".join(body)) if not md else md_blocks("\n".join(body))
        return out + inner
    if name in ADMONITIONS:
        label = ADMONITIONS[name]
        if name == "admonition":
            head = "<b>%s</b>" % inline(arg, md) if arg else ""
        elif name.startswith("version") or name == "deprecated":
            head = "<i>%s %s.</i>" % (label, html.escape(arg)) if arg else "<i>%s</i>" % label
        else:
            head = "<b>%s:</b>" % label
            if arg:
                body = [arg] + body
        inner = md_blocks("\n".join(body)) if md else rst_blocks("\n".join(body))
        if inner and inner[0][0] == "p":
            inner[0] = ("note", (head + " " + inner[0][1]).strip())
        else:
            inner.insert(0, ("note", head))
        return [(("note" if k == "p" else k), v) for k, v in inner]
    # unknown directive: keep its text
    return md_blocks("\n".join(body)) if md else rst_blocks("\n".join(body))


# ----- reStructuredText

UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{1,}\s*$")
DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:.-]+)::\s*(.*)$")
BULLET = re.compile(r"^(\s*)([-*+]|#\.|\d+[.)])\s+(.*)$")


def rst_blocks(text):
    lines = text.expandtabs(4).splitlines()
    blocks, para = [], []
    levels = []
    n = len(lines)
    i = 0
    code_next = [False]

    def flush():
        if para:
            joined = " ".join(s.strip() for s in para)
            if joined.endswith("::"):
                code_next[0] = True
                joined = joined[:-1] if not joined.endswith(" ::") else joined[:-3]
            if joined.strip():
                m = BULLET.match(para[0])
                if m:
                    txt = " ".join([m.group(3)] + [s.strip() for s in para[1:]])
                    if code_next[0] and txt.endswith("::"):
                        txt = txt[:-1]
                    blocks.append(("li", inline(txt, False)))
                else:
                    blocks.append(("p", inline(joined, False)))
            para.clear()

    def take_indented(start, base):
        j = start
        body = []
        while j < n and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > base):
            body.append(lines[j])
            j += 1
        return body, j

    while i < n:
        line = lines[i]
        s = line.strip()
        # overline + title + underline
        if UNDERLINE.match(line) and i + 2 < n and UNDERLINE.match(lines[i + 2]) and lines[i + 1].strip():
            flush()
            ch = line.strip()[0] + "o"
            if ch not in levels:
                levels.append(ch)
            blocks.append(("h%d" % min(levels.index(ch) + 1, 3), inline(lines[i + 1].strip(), False)))
            i += 3
            continue
        if s and not line.startswith(" ") and i + 1 < n and UNDERLINE.match(lines[i + 1]) and len(lines[i + 1].strip()) >= len(s) and not para:
            ch = lines[i + 1].strip()[0]
            if ch not in levels:
                levels.append(ch)
            blocks.append(("h%d" % min(levels.index(ch) + 1, 3), inline(s, False)))
            i += 2
            continue
        m = DIRECTIVE.match(line)
        if m:
            flush()
            base = len(m.group(1))
            body, j = take_indented(i + 1, base)
            blocks.extend(directive_blocks(m.group(2), m.group(3).strip(), body, False))
            i = j
            continue
        if s.startswith(".. ") or s == "..":          # comment or target
            flush()
            base = len(line) - len(line.lstrip())
            _, j = take_indented(i + 1, base)
            i = j
            continue
        if not s:
            flush()
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        if code_next[0] and not para:
            code_next[0] = False
            body, j = take_indented(i, indent - 1)
            body = _strip_blank(_dedent(body))
            blocks.append(("code", "\n".join(body)))
            i = j
            continue
        code_next[0] = False
        if line.lstrip().startswith("+-") and not para:      # grid table
            j = i
            rows, cur = [], None
            while j < n and lines[j].strip() and lines[j].lstrip()[0] in "+|":
                l = lines[j].strip()
                if l.startswith("+"):
                    if cur:
                        rows.append(cur)
                    cur = None
                else:
                    cells = [c.strip() for c in l.strip("|").split("|")]
                    if cur is None:
                        cur = cells
                    else:
                        cur = [(a + " " + b).strip() for a, b in zip(cur, cells)]
                j += 1
            if cur:
                rows.append(cur)
            blocks.extend(("li", inline(" | ".join(r), False)) for r in rows)
            i = j
            continue
        if BULLET.match(line) and para and BULLET.match(para[0]):
            flush()
        para.append(line)
        i += 1
    flush()
    return blocks


# ----- Markdown (MyST)

FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*(\{([\w:.-]+)\}|[\w+-]*)\s*(.*)$")


def md_blocks(text):
    lines = text.expandtabs(4).splitlines()
    blocks, para = [], []
    n = len(lines)
    i = 0
    in_comment = False

    def flush():
        if para:
            m = BULLET.match(para[0])
            if m:
                txt = " ".join([m.group(3)] + [s.strip() for s in para[1:]])
                blocks.append(("li", inline(txt, True)))
            else:
                blocks.append(("p", inline(" ".join(s.strip() for s in para), True)))
            para.clear()

    while i < n:
        line = lines[i]
        s = line.strip()
        if in_comment:
            if "-->" in line:
                in_comment = False
            i += 1
            continue
        if s.startswith("<!--"):
            flush()
            if "-->" not in s:
                in_comment = True
            i += 1
            continue
        if re.match(r"^\([\w:.-]+\)=\s*$", s):
            flush()
            i += 1
            continue
        m = FENCE.match(line)
        if m:
            flush()
            fence = m.group(2)
            name = m.group(4)
            lang = m.group(3) if not name else None
            arg = m.group(5).strip()
            j = i + 1
            body = []
            while j < n and not re.match(r"^\s*" + re.escape(fence[0]) + "{%d,}\\s*$" % len(fence), lines[j]):
                body.append(lines[j])
                j += 1
            i = j + 1
            if name:
                blocks.extend(directive_blocks(name, arg, body, True))
            else:
                body = _strip_blank(_dedent(body))
                if body:
                    blocks.append(("code", "\n".join(body)))
            continue
        h = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if h:
            flush()
            blocks.append(("h%d" % min(len(h.group(1)), 3), inline(h.group(2), True)))
            i += 1
            continue
        if s.startswith("|"):
            flush()
            if not re.match(r"^\|[\s:|-]+\|$", s):
                cells = [c.strip() for c in s.strip("|").split("|")]
                blocks.append(("li", inline(" | ".join(cells), True)))
            i += 1
            continue
        if not s:
            flush()
            i += 1
            continue
        if re.match(r"^(-{3,}|\*{3,}|_{3,})$", s) or s == ">":   # horizontal rule / empty quote
            flush()
            i += 1
            continue
        if s.startswith("> "):
            line = s[2:]
        if BULLET.match(line) and para:
            flush()
        para.append(line)
        i += 1
    flush()
    return blocks


# --------------------------------------------------------------- render ---


def make_styles(font, font_bold, size=10):
    body = ParagraphStyle("body", fontName=font, fontSize=size, leading=size * 1.4, spaceAfter=size * 0.5)
    return {
        "title": ParagraphStyle("title", fontName=font_bold, fontSize=20, leading=26, spaceAfter=6, alignment=TA_CENTER),
        "subtitle": ParagraphStyle("subtitle", fontName=font, fontSize=10, leading=14, spaceAfter=18, alignment=TA_CENTER),
        "h1": ParagraphStyle("h1", fontName=font_bold, fontSize=16, leading=21, spaceBefore=14, spaceAfter=8),
        "h2": ParagraphStyle("h2", fontName=font_bold, fontSize=13, leading=17, spaceBefore=10, spaceAfter=6),
        "h3": ParagraphStyle("h3", fontName=font_bold, fontSize=11, leading=15, spaceBefore=8, spaceAfter=4),
        "p": body,
        "li": ParagraphStyle("li", parent=body, leftIndent=14, bulletIndent=4, spaceAfter=size * 0.3),
        "note": ParagraphStyle("note", parent=body, leftIndent=12, rightIndent=12),
        "code": ParagraphStyle("code", fontName="Courier", fontSize=size * 0.85, leading=size * 1.15,
                               leftIndent=12, spaceAfter=size * 0.6, spaceBefore=2),
    }


def render(blocks, out_path, title, subtitle, font, font_bold, pagesize=LETTER, size=10, para_font=None):
    st = make_styles(font, font_bold, size)
    story = [Paragraph(html.escape(title), st["title"]), Paragraph(html.escape(subtitle), st["subtitle"])]
    for kind, text in blocks:
        if not text.strip():
            continue
        if kind == "code":
            lines = []
            for l in text.splitlines():       # hard-wrap long code lines
                while len(l) > 88:
                    lines.append(l[:88])
                    l = "    " + l[88:]
                lines.append(l)
            story.append(Preformatted("\n".join(lines), st["code"]))
        elif kind == "li":
            try:
                story.append(Paragraph(text, st["li"], bulletText="\u2022"))
            except Exception:
                story.append(Paragraph(html.escape(re.sub(r"<[^>]+>", "", text)), st["li"], bulletText="\u2022"))
        else:
            try:
                story.append(Paragraph(text, st[kind]))
            except Exception:
                story.append(Paragraph(html.escape(re.sub(r"<[^>]+>", "", text)), st[kind]))

    def footer(canvas, doc):
        canvas.saveState()
        canvas.setFont(font, 8)
        w, h = doc.pagesize
        canvas.drawCentredString(w / 2, 12 * mm, "%s \u2014 page %d" % (title, doc.page))
        canvas.restoreState()

    doc = SimpleDocTemplate(out_path, pagesize=pagesize, leftMargin=22 * mm, rightMargin=22 * mm,
                            topMargin=20 * mm, bottomMargin=22 * mm, title=title, author=subtitle)
    doc.build(story, onFirstPage=footer, onLaterPages=footer)


def ko_blocks(text):
    """Korean law text: '제N장 ...' / '제N절' -> headings, '부칙' -> heading, other lines -> paragraphs."""
    blocks = []
    for line in text.splitlines():
        s = line.strip()
        if not s:
            continue
        if re.match(r"^제\d+장\s", s) or s == "부칙" or re.match(r"^부\s*칙", s) or s == "전문":
            blocks.append(("h1", html.escape(s)))
        elif re.match(r"^제\d+절\s", s):
            blocks.append(("h2", html.escape(s)))
        else:
            m = re.match(r"^(제\d+조(의\d+)?)\s*(.*)$", s)
            if m:
                blocks.append(("p", "<b>%s</b> %s" % (html.escape(m.group(1)), html.escape(m.group(3)))))
            else:
                blocks.append(("p", html.escape(s)))
    return blocks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--click", required=True, help="extracted click-8.5.1 sdist dir")
    ap.add_argument("--jinja", required=True, help="extracted jinja2-3.1.6 sdist dir")
    ap.add_argument("--attrs", required=True, help="extracted attrs-26.1.0 sdist dir")
    ap.add_argument("--kolaw", required=True, help="konlpy/data/corpus/kolaw dir from the konlpy wheel")
    ap.add_argument("--font", required=True, help="Korean-capable TTF, e.g. NanumGothic.ttf")
    ap.add_argument("--font-bold", required=True, help="bold TTF, e.g. NanumGothicBold.ttf")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    pdfmetrics.registerFont(TTFont("Nanum", a.font))
    pdfmetrics.registerFont(TTFont("NanumBold", a.font_bold))
    pdfmetrics.registerFontFamily("Nanum", normal="Nanum", bold="NanumBold", italic="Nanum", boldItalic="NanumBold")

    def read(*p):
        with open(os.path.join(*p), encoding="utf-8") as f:
            return f.read()

    # 1. click user guide
    click_pages = ["options.md", "arguments.md", "prompts.md", "exceptions.md", "testing.md", "shell-completion.md"]
    blocks = []
    for name in click_pages:
        blocks += md_blocks(read(a.click, "docs", name))
    render(blocks, os.path.join(a.out, "click_user_guide.pdf"), "Click User Guide (selected chapters)",
           "Click 8.5.1 documentation, Pallets (BSD-3-Clause)", "Helvetica", "Helvetica-Bold")

    # 2. Jinja2 template designer documentation
    blocks = rst_blocks(read(a.jinja, "docs", "templates.rst"))
    render(blocks, os.path.join(a.out, "jinja2_template_designer.pdf"), "Jinja Template Designer Documentation",
           "Jinja2 3.1.6 documentation, Pallets (BSD-3-Clause)", "Helvetica", "Helvetica-Bold")

    # 3. attrs changelog
    blocks = md_blocks(read(a.attrs, "CHANGELOG.md"))
    render(blocks, os.path.join(a.out, "attrs_changelog.pdf"), "attrs Changelog",
           "attrs 26.1.0, Hynek Schlawack and the attrs contributors (MIT)", "Helvetica", "Helvetica-Bold")

    # 4. Korean constitution
    blocks = ko_blocks(read(a.kolaw, "constitution.txt"))
    title_line = blocks[0][1]
    render(blocks[1:], os.path.join(a.out, "ko_constitution.pdf"), title_line,
           "konlpy 0.6.0 말뭉치 (kolaw/constitution.txt)", "Nanum", "NanumBold", pagesize=A4, size=10.5)


if __name__ == "__main__":
    main()
