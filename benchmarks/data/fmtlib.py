"""Shared helpers of the builders of formats_holdout7 and formats_dev_ko (the other formats sets are rendered by ai_llm/evals/sets/).

Everything here turns real source text (reStructuredText / Markdown docs from PyPI
sdists, Korean bill texts from the konlpy wheel) into documents. Nothing here adds facts:
the writers only copy text, re-arrange it and add layout.

Inline markup is kept with four control characters so each writer can style it:
\x01...\x02 = code span, \x03...\x04 = bold.  ``plain()`` removes them.
"""
from __future__ import annotations

import copy
import csv
import datetime as _dt
import random
import re
import textwrap
from pathlib import Path

C1, C2, B1, B2 = "\x01", "\x02", "\x03", "\x04"
FIXED_TIME = _dt.datetime(2026, 1, 5, 9, 0, 0)


def plain(s: str) -> str:
    return s.translate({1: None, 2: None, 3: None, 4: None})


def squash(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


# ---------------------------------------------------------------------------
# reStructuredText inline markup
# ---------------------------------------------------------------------------
_CODE_ROLES = {
    "attr", "class", "meth", "func", "data", "exc", "mod", "obj", "envvar", "file",
    "py:attr", "py:class", "py:meth", "py:func", "py:data", "py:exc", "py:mod", "py:obj",
    "option", "command", "program", "samp", "const", "kbd",
}
LINK_NAMES: list[str] = []  # names of `name`_ references seen (for footnotes)


def _role(role: str, body: str) -> str:
    body = body.strip()
    m = re.match(r"^(.*?)\s*<([^<>]+)>$", body, re.S)
    if m and m.group(1).strip():
        return m.group(1).strip()
    if m:
        body = m.group(2)
    if role in ("issue", "pr"):
        return ", ".join("#" + x.strip() for x in body.split(","))
    if role == "ghsa":
        return "GHSA-" + body
    if role == "user":
        return "@" + body
    if role in ("doc", "ref"):
        return body.rstrip("/").split("/")[-1]
    tilde = body.startswith("~")
    body = body.lstrip("~").lstrip(".")
    if tilde:
        body = body.split(".")[-1]
    if role in ("meth", "func", "py:meth", "py:func") and not body.endswith(")"):
        body += "()"
    if role in _CODE_ROLES:
        return C1 + body + C2
    return body


def rst_inline(s: str) -> str:
    s = squash(s)
    keep: list[str] = []

    def stash(v: str) -> str:
        keep.append(v)
        return f"\x00{len(keep) - 1}\x00"

    s = re.sub(r"``(.+?)``", lambda m: stash(C1 + m.group(1) + C2), s)
    s = re.sub(r":([A-Za-z0-9_.+:-]+):`([^`]+)`", lambda m: stash(_role(m.group(1), m.group(2))), s)
    s = re.sub(r"`([^`<]+?)\s*<([^`>]+)>`(?:__?)?", lambda m: stash(m.group(1)), s)

    def named(m):
        LINK_NAMES.append(m.group(1))
        return stash(m.group(1))

    s = re.sub(r"`([^`]+)`_(?!\w)", named, s)
    s = re.sub(r"`([^`]+)`", lambda m: stash(C1 + m.group(1) + C2), s)
    s = re.sub(r"(?<![\w`])([A-Za-z][\w.-]*)_(?![\w])", named, s)
    s = re.sub(r"\*\*(.+?)\*\*", lambda m: B1 + m.group(1) + B2, s)
    s = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", s)
    s = re.sub(r"\\(.)", r"\1", s)
    for _ in range(3):
        s = re.sub(r"\x00(\d+)\x00", lambda m: keep[int(m.group(1))], s)
    return s


# ---------------------------------------------------------------------------
# reStructuredText blocks
# ---------------------------------------------------------------------------
# Block forms: ("h", level, text) ("p", text) ("code", text) ("ul", [blocks,...])
# ("ol", [blocks,...]) ("admon", Kind, blocks) ("version", text) ("data", name, blocks)
# ("table", rows) ("tab", label, blocks)
_ADMON = {"note", "warning", "caution", "important", "tip", "attention", "hint", "danger",
          "seealso", "admonition", "error"}
_SKIP_DIR = {"currentmodule", "toctree", "contents", "module", "include", "raw", "image",
             "figure", "only", "rst-class", "highlight", "literalinclude", "autoclass",
             "automodule", "autofunction", "autodata", "meta", "index", "sectnum", "jinja:filters",
             "jinja:tests", "click:example", "click:run", "autosummary", "topic"}
_UNDER = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _dedent(lines: list[str]) -> list[str]:
    ind = min((_indent(l) for l in lines if l.strip()), default=0)
    return [l[ind:] if l.strip() else "" for l in lines]


def _take_indented(lines, i, min_indent=1):
    """Lines from i on that are blank or indented >= min_indent; returns (block, next_i)."""
    out = []
    n = len(lines)
    while i < n and (not lines[i].strip() or _indent(lines[i]) >= min_indent):
        out.append(lines[i])
        i += 1
    while out and not out[-1].strip():
        out.pop()
        i -= 1
    return out, i


def parse_rst(text: str, _levels: dict | None = None, targets: dict | None = None) -> list:
    lines = text.expandtabs(4).split("\n")
    levels = {} if _levels is None else _levels
    targets = {} if targets is None else targets
    return _rst(lines, levels, targets)


def _rst(lines, levels, targets):
    out: list = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        # section heading (title + underline)
        if i + 1 < n and line.strip() and _indent(line) == 0 and _UNDER.match(lines[i + 1]) \
                and len(lines[i + 1].strip()) >= max(3, len(line.strip()) - 4) and not _UNDER.match(line):
            ch = lines[i + 1].strip()[0]
            lvl = levels.setdefault(ch, len(levels) + 1)
            out.append(("h", lvl, rst_inline(line)))
            i += 2
            continue
        if line.startswith(".."):
            m = re.match(r"^\.\.\s+([\w:.-]+)::\s*(.*)$", line)
            body, j = _take_indented(lines, i + 1, 1)
            body = _dedent(body)
            if not m:
                t = re.match(r"^\.\.\s+_([^:]+):\s*(\S.*)?$", line)
                if t and t.group(2):
                    targets[t.group(1).strip().lower()] = t.group(2).strip()
                i = j
                continue
            name, arg = m.group(1), m.group(2).strip()
            # directive options
            k = 0
            while k < len(body) and re.match(r"^:[\w-]+:", body[k]):
                k += 1
            content = body[k:]
            if name in ("code-block", "code", "sourcecode", "code-block::"):
                out.append(("code", "\n".join(_dedent(content)).strip("\n")))
            elif name in _ADMON:
                inner = ([arg] if arg and name != "admonition" else []) + content
                kind = arg if name == "admonition" and arg else name.capitalize()
                if name == "seealso":
                    kind = "See also"
                out.append(("admon", kind, _rst(inner, levels, targets)))
            elif name in ("versionadded", "versionchanged", "deprecated", "versionremoved"):
                txt = rst_inline(" ".join(l.strip() for l in content if l.strip()))
                head = {"versionadded": "Added in version", "versionchanged": "Changed in version",
                        "deprecated": "Deprecated since version",
                        "versionremoved": "Removed in version"}[name]
                out.append(("version", f"{head} {arg}" + (f": {txt}" if txt else ".")))
            elif name in ("py:data", "data", "confval", "envvar"):
                out.append(("data", arg, _rst(content, levels, targets)))
            elif name == "tabs":
                tabs = [b for b in _rst(content, levels, targets) if b[0] == "tab"]
                if tabs:
                    out.extend(tabs[0][2])
            elif name in ("group-tab", "tab"):
                out.append(("tab", arg, _rst(content, levels, targets)))
            elif name in _SKIP_DIR:
                pass
            else:
                pass  # unknown directive: dropped
            i = j
            continue
        mb = re.match(r"^([-*+])(\s+)(\S.*)$", line)
        me = re.match(r"^(\d+|#)\.(\s+)(\S.*)$", line)
        if mb or me:
            kind = "ul" if mb else "ol"
            items = []
            while i < n:
                line = lines[i]
                mm = re.match(r"^([-*+])(\s+)(\S.*)$", line) if kind == "ul" else \
                    re.match(r"^(\d+|#)\.(\s+)(\S.*)$", line)
                if not mm:
                    break
                ci = len(mm.group(1)) + len(mm.group(2)) + (0 if kind == "ul" else 1)
                body, j = _take_indented(lines, i + 1, ci)
                item_lines = [mm.group(3)] + [l[ci:] if l.strip() else "" for l in body]
                items.append(_rst(item_lines, levels, targets))
                i = j
                while i < n and not lines[i].strip():
                    i += 1
            out.append((kind, items))
            continue
        if _indent(line) > 0:
            body, j = _take_indented(lines, i, 1)
            out.extend(_rst(_dedent(body), levels, targets))
            i = j
            continue
        # paragraph
        para = []
        while i < n and lines[i].strip() and _indent(lines[i]) == 0:
            if para and i + 1 < n and _UNDER.match(lines[i + 1]) and not _UNDER.match(lines[i]):
                break
            para.append(lines[i])
            i += 1
        text = " ".join(l.strip() for l in para)
        literal = False
        if text.endswith("::"):
            literal = True
            text = text[:-2].rstrip() if text[:-2].endswith(" ") else text[:-1]
            text = text.rstrip()
        # a paragraph directly followed by an indented block that is not literal = definition
        if text:
            out.append(("p", rst_inline(text)))
        if literal:
            while i < n and not lines[i].strip():
                i += 1
            body, j = _take_indented(lines, i, 1)
            if body:
                out.append(("code", "\n".join(_dedent(body)).strip("\n")))
            i = j
    return out


# ---------------------------------------------------------------------------
# Markdown (CommonMark subset + MyST bits used by the sources)
# ---------------------------------------------------------------------------
MD_LINKS: list[tuple[str, str]] = []


def md_inline(s: str, collect_links: bool = False) -> str:
    s = squash(s)
    keep: list[str] = []

    def stash(v: str) -> str:
        keep.append(v)
        return f"\x00{len(keep) - 1}\x00"

    s = re.sub(r"``\s?(.+?)\s?``", lambda m: stash(C1 + m.group(1) + C2), s)
    s = re.sub(r"`([^`]+)`", lambda m: stash(C1 + m.group(1) + C2), s)
    s = re.sub(r"<code>(.*?)</code>", lambda m: stash(C1 + m.group(1) + C2), s)
    s = re.sub(r"\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)", "", s)
    s = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", s)

    def link(m):
        txt, url = m.group(1), m.group(2).strip()
        if collect_links and url.startswith("http"):
            MD_LINKS.append((plain(txt), url))
        return txt

    s = re.sub(r"\[([^\]]+)\]\(([^)]*)\)", link, s)
    s = re.sub(r"\[([^\]]+)\]\[[^\]]*\]", r"\1", s)
    s = re.sub(r"<(https?://[^>]+)>", r"\1", s)
    s = re.sub(r"<br\s*/?>", " ", s)
    s = re.sub(r"</?[a-zA-Z][^>]*>", "", s)
    s = re.sub(r"\*\*(.+?)\*\*", lambda m: B1 + m.group(1) + B2, s)
    s = re.sub(r"(?<!\w)__(.+?)__(?!\w)", lambda m: B1 + m.group(1) + B2, s)
    s = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"\1", s)
    s = re.sub(r"(?<![\w])_(?!\s)(.+?)(?<!\s)_(?![\w])", r"\1", s)
    s = re.sub(r"\\([\[\]\\`*_{}()#+\-.!<>|])", r"\1", s)
    s = s.replace("&mdash;", "—").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    for _ in range(3):
        s = re.sub(r"\x00(\d+)\x00", lambda m: keep[int(m.group(1))], s)
    return squash(s) if not keep else s.strip()


_MD_LIST = re.compile(r"^(\s*)([-*+]|\d+[.)])(\s+)(\S.*)$")
_MD_FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(.*)$")


def _md_block_start(line: str) -> bool:
    return bool(re.match(r"^\s{0,3}(#{1,6}\s|```|~~~|>|<)", line) or _MD_LIST.match(line)
                or re.match(r"^\s{0,3}(-{3,}|\*{3,}|_{3,})\s*$", line))


def parse_md(text: str, collect_links: bool = False) -> list:
    return _md(text.expandtabs(4).split("\n"), collect_links)


def _md(lines, cl):
    out: list = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        fm = _MD_FENCE.match(line)
        if fm:
            fence, info = fm.group(2), fm.group(3).strip()
            body = []
            i += 1
            while i < n and not lines[i].strip().startswith(fence):
                body.append(lines[i])
                i += 1
            i += 1
            body = _dedent(body)
            if info.startswith("{") and "}" in info:
                name = info[1:info.index("}")]
                # MyST options
                while body and re.match(r"^:[\w-]+:", body[0]):
                    body.pop(0)
                if name in _ADMON:
                    out.append(("admon", name.capitalize(), _md(body, cl)))
                elif name == "eval-rst":
                    out.extend(parse_rst("\n".join(body)))
                elif name in ("code-block", "code"):
                    out.append(("code", "\n".join(body).strip("\n")))
                continue
            out.append(("code", "\n".join(body).strip("\n")))
            continue
        hm = re.match(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if hm:
            out.append(("h", len(hm.group(1)), md_inline(hm.group(2), cl)))
            i += 1
            continue
        if re.match(r"^\s{0,3}\[[^\]]+\]:\s*\S+", line):  # link reference definition
            i += 1
            continue
        if re.match(r"^\(.*\)=\s*$", line.strip()):  # MyST target
            i += 1
            continue
        if re.match(r"^\s{0,3}(-{3,}|\*{3,}|_{3,})\s*$", line):
            i += 1
            continue
        if line.lstrip().startswith("<") and not line.lstrip().startswith("<http"):
            blk = []
            while i < n and lines[i].strip():
                blk.append(lines[i])
                i += 1
            raw = " ".join(blk)
            sm = re.search(r"<summary>(.*?)</summary>", raw)
            if sm:
                out.append(("p", md_inline(sm.group(1), cl)))
                continue
            txt = md_inline(re.sub(r"<img[^>]*>", "", raw), cl)
            if plain(txt).strip(" —-"):
                out.append(("p", txt))
            continue
        if line.lstrip().startswith("|") and i + 1 < n and re.match(r"^\s*\|?\s*:?-{3,}", lines[i + 1]):
            rows = []
            while i < n and lines[i].lstrip().startswith("|"):
                if not re.match(r"^\s*\|?\s*:?-{3,}", lines[i]):
                    rows.append([md_inline(c, cl) for c in lines[i].strip().strip("|").split("|")])
                i += 1
            out.append(("table", rows))
            continue
        lm = _MD_LIST.match(line)
        if lm:
            base = len(lm.group(1))
            ordered = lm.group(2)[0].isdigit()
            items = []
            while i < n:
                lm = _MD_LIST.match(lines[i])
                if not lm or len(lm.group(1)) != base or lm.group(2)[0].isdigit() != ordered:
                    break
                ci = base + len(lm.group(2)) + len(lm.group(3))
                item = [lm.group(4)]
                i += 1
                while i < n:
                    l = lines[i]
                    if not l.strip():
                        # continue after blank only if next non-blank line is indented enough
                        k = i
                        while k < n and not lines[k].strip():
                            k += 1
                        if k < n and _indent(lines[k]) >= max(ci, base + 2):
                            item.extend([""] * (k - i))
                            i = k
                            continue
                        break
                    if _indent(l) >= base + 2:
                        item.append(l[min(ci, _indent(l)):])
                        i += 1
                        continue
                    if _md_block_start(l):
                        break
                    item.append(l.strip())  # lazy continuation
                    i += 1
                items.append(_md(item, cl))
                while i < n and not lines[i].strip():
                    k = i
                    while k < n and not lines[k].strip():
                        k += 1
                    if k < n and _MD_LIST.match(lines[k]) and len(_MD_LIST.match(lines[k]).group(1)) == base:
                        i = k
                    break
            out.append(("ol" if ordered else "ul", items))
            continue
        if line.lstrip().startswith(">"):
            blk = []
            while i < n and lines[i].strip().startswith(">"):
                blk.append(lines[i].strip()[1:].lstrip())
                i += 1
            out.append(("admon", "Note", _md(blk, cl)))
            continue
        if _indent(line) >= 4:
            blk, i = _take_indented(lines, i, 4)
            out.append(("code", "\n".join(_dedent(blk))))
            continue
        para = [line]
        i += 1
        while i < n and lines[i].strip() and not _md_block_start(lines[i]):
            if re.match(r"^\s*(=+|-+)\s*$", lines[i]):
                break
            para.append(lines[i])
            i += 1
        if i < n and re.match(r"^\s*=+\s*$", lines[i]):
            out.append(("h", 1, md_inline(" ".join(para), cl)))
            i += 1
            continue
        if i < n and re.match(r"^\s*-+\s*$", lines[i]) and lines[i].strip():
            out.append(("h", 2, md_inline(" ".join(para), cl)))
            i += 1
            continue
        txt = md_inline(" ".join(l.strip() for l in para), cl)
        if plain(txt).strip():
            out.append(("p", txt))
    return out


# ---------------------------------------------------------------------------
# block helpers
# ---------------------------------------------------------------------------
def block_text(blocks, sep=" ") -> str:
    """All prose text of blocks (code left out), markers kept."""
    parts = []
    for b in blocks:
        if b[0] in ("p", "version"):
            parts.append(b[-1])
        elif b[0] in ("ul", "ol"):
            for it in b[1]:
                parts.append(block_text(it, sep))
        elif b[0] == "admon":
            parts.append(f"{b[1]}: " + block_text(b[2], sep))
        elif b[0] == "data":
            parts.append(block_text(b[2], sep))
    return sep.join(p for p in parts if p)


def sections(blocks, level):
    """Split a block list on headings of `level`: [(title, [blocks])] (title None for preface)."""
    out = [(None, [])]
    for b in blocks:
        if b[0] == "h" and b[1] == level:
            out.append((b[2], []))
        else:
            out[-1][1].append(b)
    if not out[0][1]:
        out.pop(0)
    return out


def first_sentence(s: str) -> str:
    m = re.match(r"^(.+?[.!?])(\s|$)", s)
    return m.group(1) if m else s


# ---------------------------------------------------------------------------
# Korean bill text: join hard-wrapped lines
# ---------------------------------------------------------------------------
def bill_join(raw: str) -> str:
    """Join a bill passage that the PDF-to-text step wrapped into short lines.

    A wrapped line that ended with a space continues after a space; one that did not
    ends mid-word and the next line is glued on. Page markers "- n -" are dropped."""
    raw = raw.replace("\x0c", "")
    lines = [l for l in raw.split("\n") if l.strip() and not re.fullmatch(r"\s*- \d+ -\s*", l)]
    s, prev_space = "", False
    for l in lines:
        if not s:
            s = l.strip()
        elif prev_space:
            s = s + " " + l.strip()
        else:
            s = s + l.strip()
        prev_space = l.endswith(" ") or l.endswith("\t")
    return re.sub(r"[ \u00a0]+", " ", s).strip()


_NEW_PARA = re.compile(r"^(\s|[①-⑳]|부\s+칙|제\d+조(의\d+)?\(|[가-하]\.\s)")


def bill_paras(raw: str) -> list[str]:
    """Split a wrapped bill passage into paragraphs and join each one (see bill_join).

    A line starts a new paragraph when it is indented, starts with a circled number,
    "부 칙", an article heading "제N조(", or when the line before ended a sentence."""
    raw = raw.replace("\x0c", "")
    lines = [l for l in raw.split("\n") if l.strip() and not re.fullmatch(r"\s*- \d+ -\s*", l)]
    groups: list[list[str]] = []
    for l in lines:
        prev = groups[-1][-1] if groups else None
        if prev is None or _NEW_PARA.match(l) or prev.rstrip().endswith(".") \
                or (re.match(r"^제\d+조", l) and not prev.endswith(" ")) \
                or re.match(r"^부\s+칙\s*$", prev.strip()):
            groups.append([l])
        else:
            groups[-1].append(l)
    return [bill_join("\n".join(g)) for g in groups]


class Bill:
    """A kobill text with helpers to cut passages between marker strings."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.raw = self.path.read_text(encoding="utf-8")

    def cut(self, start: str, end: str | None = None, *, include_end: bool = True, after: str | None = None) -> str:
        pos0 = self.raw.index(after) if after else 0
        a = self.raw.index(start, pos0)
        if end is None:
            b = len(self.raw)
        else:
            b = self.raw.index(end, a + len(start) - 1 if end != start else a + 1)
            if include_end:
                b += len(end)
        return bill_join(self.raw[a:b])

    def paras(self, start: str, end: str, *, after: str | None = None, include_end=False,
              split: tuple = (), merge: tuple = ()) -> list[str]:
        """Paragraphs between start and end. split: regexes that begin a new paragraph even
        inside a joined one; merge: prefixes of paragraphs that continue the one before."""
        pos0 = self.raw.index(after) if after else 0
        a = self.raw.index(start, pos0)
        b = self.raw.index(end, a + 1)
        if include_end:
            b += len(end)
        # back up to the start of the line so indentation is seen
        a = self.raw.rfind("\n", 0, a) + 1
        out = bill_paras(self.raw[a:b])
        for sp in split:  # regular expressions; a paragraph is cut where one matches
            res = []
            for p in out:
                m = re.search(sp, p)
                if m and m.start() > 0:
                    res += [p[:m.start()].strip(), p[m.start():].strip()]
                else:
                    res.append(p)
            out = res
        res = []
        for p in out:
            if res and any(p.startswith(m) for m in merge):
                res[-1] = res[-1] + " " + p
            else:
                res.append(p)
        return res

    def has(self, s: str) -> bool:
        return s in self.raw

    def lines_between(self, start: str, end: str, after: str | None = None) -> list[str]:
        pos0 = self.raw.index(after) if after else 0
        a = self.raw.index(start, pos0)
        b = self.raw.index(end, a)
        return [squash(l) for l in self.raw[a:b].split("\n") if squash(l)]


def check_in_source(text: str, source: str) -> bool:
    """True if text occurs in source once all whitespace is removed."""
    source = re.sub(r"(?m)^\s*- \d+ -\s*$", "", source)
    strip = lambda t: re.sub(r"\s+", "", t)
    return strip(plain(text)) in strip(source)


# ---------------------------------------------------------------------------
# DOCX
# ---------------------------------------------------------------------------
def docx_add_runs(par, text, *, mono="Consolas", size=None):
    from docx.shared import Pt
    for piece in re.split(r"(\x01.*?\x02|\x03.*?\x04)", text):
        if not piece:
            continue
        if piece.startswith(C1):
            r = par.add_run(piece[1:-1])
            r.font.name = mono
            if size:
                r.font.size = Pt(size)
        elif piece.startswith(B1):
            r = par.add_run(plain(piece[1:-1]))
            r.bold = True
            # code inside bold
        else:
            r = par.add_run(piece)
            if size:
                r.font.size = Pt(size)
    return par


def docx_code_style(doc):
    from docx.enum.style import WD_STYLE_TYPE
    from docx.shared import Pt, RGBColor
    st = doc.styles.add_style("Source Code", WD_STYLE_TYPE.PARAGRAPH)
    st.base_style = doc.styles["Normal"]
    st.font.name = "Consolas"
    st.font.size = Pt(8.5)
    st.font.color.rgb = RGBColor(0x20, 0x20, 0x20)
    pf = st.paragraph_format
    pf.space_before = Pt(2)
    pf.space_after = Pt(6)
    pf.left_indent = Pt(18)
    return st


def docx_code(doc, code):
    p = doc.add_paragraph(style="Source Code")
    lines = code.split("\n")
    for k, l in enumerate(lines):
        r = p.add_run(l)
        if k < len(lines) - 1:
            r.add_break()
    return p


class DocxFootnotes:
    """Minimal footnote support for python-docx (which has no footnote API)."""

    NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    CT = "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"
    RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"

    def __init__(self, doc):
        from docx.opc.packuri import PackURI
        from docx.opc.part import XmlPart
        from docx.oxml import parse_xml
        xml = (f'<w:footnotes xmlns:w="{self.NS}">'
               '<w:footnote w:type="separator" w:id="-1"><w:p><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr><w:r><w:separator/></w:r></w:p></w:footnote>'
               '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>'
               '</w:footnotes>')
        self.part = XmlPart(PackURI("/word/footnotes.xml"), self.CT, parse_xml(xml), doc.part.package)
        doc.part.relate_to(self.part, self.RT)
        self.next_id = 1
        from docx.enum.style import WD_STYLE_TYPE
        from docx.shared import Pt
        names = {st.name for st in doc.styles}
        if "Footnote Text" not in names:
            st = doc.styles.add_style("Footnote Text", WD_STYLE_TYPE.PARAGRAPH)
            st.base_style = doc.styles["Normal"]
            st.font.size = Pt(8.5)
            st.paragraph_format.space_after = Pt(0)
        if "Footnote Reference" not in names:
            st = doc.styles.add_style("Footnote Reference", WD_STYLE_TYPE.CHARACTER)
            st.font.superscript = True

    def add(self, paragraph, text):
        from docx.oxml import parse_xml
        from xml.sax.saxutils import escape
        fid = self.next_id
        self.next_id += 1
        fn = parse_xml(
            f'<w:footnote xmlns:w="{self.NS}" w:id="{fid}"><w:p><w:pPr><w:pStyle w:val="FootnoteText"/></w:pPr>'
            f'<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteRef/></w:r>'
            f'<w:r><w:t xml:space="preserve"> {escape(text)}</w:t></w:r></w:p></w:footnote>')
        self.part.element.append(fn)
        run = paragraph.add_run()
        run._r.append(parse_xml(f'<w:rPr xmlns:w="{self.NS}"><w:rStyle w:val="FootnoteReference"/></w:rPr>'))
        run._r.append(parse_xml(f'<w:footnoteReference xmlns:w="{self.NS}" w:id="{fid}"/>'))
        return fid


def docx_blocks(doc, blocks, *, level_offset=0, list_level=0, on_para=None):
    """Write parsed blocks into doc. on_para(paragraph, text) is called for prose paragraphs."""
    for b in blocks:
        k = b[0]
        if k == "h":
            doc.add_heading(plain(b[2]), level=min(max(b[1] + level_offset, 1), 4))
        elif k == "p":
            p = doc.add_paragraph()
            docx_add_runs(p, b[1])
            if on_para:
                on_para(p, b[1])
        elif k == "version":
            p = doc.add_paragraph()
            r = p.add_run(plain(b[1]))
            r.italic = True
        elif k == "code":
            docx_code(doc, b[1])
        elif k in ("ul", "ol"):
            style = "List Bullet" if k == "ul" else "List Number"
            if list_level:
                style += " 2"
            for item in b[1]:
                first = True
                for sub in item:
                    if first and sub[0] == "p":
                        p = doc.add_paragraph(style=style)
                        docx_add_runs(p, sub[1])
                        if on_para:
                            on_para(p, sub[1])
                        first = False
                    else:
                        first = False
                        docx_blocks(doc, [sub], level_offset=level_offset, list_level=1, on_para=on_para)
        elif k == "admon":
            p = doc.add_paragraph()
            r = p.add_run(b[1] + ": ")
            r.bold = True
            docx_add_runs(p, block_text(b[2]))
            for sub in b[2]:
                if sub[0] == "code":
                    docx_code(doc, sub[1])
        elif k == "table":
            docx_table(doc, b[1][0], b[1][1:])
        elif k == "data":
            p = doc.add_paragraph()
            docx_add_runs(p, C1 + b[1] + C2)
            docx_blocks(doc, b[2], level_offset=level_offset, on_para=on_para)


def docx_table(doc, header, rows, widths=None, size=9, style="Light Grid Accent 1"):
    from docx.shared import Pt, Cm
    t = doc.add_table(rows=1, cols=len(header))
    try:
        t.style = doc.styles[style]
    except KeyError:
        t.style = doc.styles["Table Grid"]
    for j, h in enumerate(header):
        c = t.rows[0].cells[j]
        c.text = ""
        r = c.paragraphs[0].add_run(plain(h))
        r.bold = True
        r.font.size = Pt(size)
    for row in rows:
        cells = t.add_row().cells
        for j, v in enumerate(row):
            cells[j].text = ""
            paras = v if isinstance(v, list) else [v]
            for pi, pv in enumerate(paras):
                par = cells[j].paragraphs[0] if pi == 0 else cells[j].add_paragraph()
                docx_add_runs(par, pv, size=size)
    if widths:
        for row in t.rows:
            for j, w in enumerate(widths):
                row.cells[j].width = Cm(w)
    return t


def docx_core(doc, title, subject, author="", keywords=""):
    cp = doc.core_properties
    cp.title = title
    cp.subject = subject
    cp.author = author
    cp.keywords = keywords
    cp.created = FIXED_TIME
    cp.modified = FIXED_TIME
    cp.last_modified_by = author
    cp.revision = 1


# ---------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------
def html_inline(s: str) -> str:
    from html import escape
    out = []
    for piece in re.split(r"(\x01.*?\x02|\x03.*?\x04)", s):
        if not piece:
            continue
        if piece.startswith(C1):
            out.append("<code>" + escape(piece[1:-1]) + "</code>")
        elif piece.startswith(B1):
            out.append("<strong>" + html_inline(piece[1:-1]) + "</strong>")
        else:
            out.append(escape(piece, quote=False))
    return "".join(out)


def slug(s: str) -> str:
    s = re.sub(r"[^\w\s-]", "", plain(s).lower())
    return re.sub(r"[\s_]+", "-", s).strip("-") or "section"


def html_blocks(blocks, level_offset=0, ids=None) -> str:
    from html import escape
    ids = {} if ids is None else ids
    out = []
    for b in blocks:
        k = b[0]
        if k == "h":
            lvl = min(max(b[1] + level_offset, 1), 6)
            sid = slug(b[2])
            if sid in ids:
                ids[sid] += 1
                sid = f"{sid}-{ids[sid]}"
            else:
                ids[sid] = 0
            out.append(f'<h{lvl} id="{sid}">{html_inline(b[2])}</h{lvl}>')
        elif k == "p":
            out.append(f"<p>{html_inline(b[1])}</p>")
        elif k == "version":
            out.append(f'<p class="versionmodified"><em>{html_inline(b[1])}</em></p>')
        elif k == "code":
            out.append(f'<pre><code>{escape(b[1])}</code></pre>')
        elif k in ("ul", "ol"):
            out.append(f"<{k}>")
            for it in b[1]:
                if len(it) == 1 and it[0][0] == "p":
                    out.append(f"<li>{html_inline(it[0][1])}</li>")
                else:
                    out.append("<li>" + html_blocks(it, level_offset, ids) + "</li>")
            out.append(f"</{k}>")
        elif k == "admon":
            cls = slug(b[1])
            out.append(f'<div class="admonition {cls}"><p class="admonition-title">{escape(b[1])}</p>'
                       + html_blocks(b[2], level_offset, ids) + "</div>")
        elif k == "table":
            rows = b[1]
            out.append("<table><thead><tr>" + "".join(f"<th>{html_inline(c)}</th>" for c in rows[0])
                       + "</tr></thead><tbody>")
            for r in rows[1:]:
                out.append("<tr>" + "".join(f"<td>{html_inline(c)}</td>" for c in r) + "</tr>")
            out.append("</tbody></table>")
        elif k == "data":
            out.append(f'<dl class="py data"><dt><code>{escape(b[1])}</code></dt><dd>'
                       + html_blocks(b[2], level_offset, ids) + "</dd></dl>")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# scans (image-only)
# ---------------------------------------------------------------------------
KO_GLYPH_MAP = str.maketrans({"․": "·", "‧": "·", "∙": "·", "･": "·", "⋅": "·", "｢": "「", "｣": "」"})


class Fonts:
    def __init__(self, regular, bold, mono=None):
        self.regular, self.bold, self.mono = regular, bold, mono or regular


def _font(path, px):
    from PIL import ImageFont
    return ImageFont.truetype(str(path), px)


def _has_glyph(font, ch, _cache={}):
    key = (font.path, font.size, ch)
    if key not in _cache:
        miss = font.getmask("\U000F0000")
        m = font.getmask(ch)
        _cache[key] = not (m.size == miss.size and bytes(m) == bytes(miss))
    return _cache[key]


def _filter_glyphs(font, s):
    return "".join(c for c in s if c in " \n" or _has_glyph(font, c))


def _wrap(draw, font, text, width, korean=False):
    words = text.split(" ")
    lines, cur = [], ""
    for w in words:
        cand = (cur + " " + w) if cur else w
        if draw.textlength(cand, font=font) <= width:
            cur = cand
            continue
        if cur:
            lines.append(cur)
        # a word longer than a line: break by characters
        while draw.textlength(w, font=font) > width:
            k = len(w)
            while k > 1 and draw.textlength(w[:k], font=font) > width:
                k -= 1
            lines.append(w[:k])
            w = w[k:]
        cur = w
    if cur:
        lines.append(cur)
    return lines


def render_pages(items, fonts: Fonts, *, dpi=200, page_in=(8.27, 11.69), margin_in=(0.95, 0.9),
                 size_pt=11.0, line_gap=1.45, header=None, footer=None, korean=False, trace=None):
    """items: list of (kind, text); kind in title, subtitle, h, p, li, code, center, right, gap.
    Returns a list of clean grayscale PIL images (one per page)."""
    from PIL import Image, ImageDraw
    W, H = int(page_in[0] * dpi), int(page_in[1] * dpi)
    mx, my = int(margin_in[0] * dpi), int(margin_in[1] * dpi)
    px = lambda pt: int(round(pt / 72 * dpi))
    f_body = _font(fonts.regular, px(size_pt))
    f_bold = _font(fonts.bold, px(size_pt))
    f_h = _font(fonts.bold, px(size_pt * 1.2))
    f_title = _font(fonts.bold, px(size_pt * 1.6))
    f_sub = _font(fonts.regular, px(size_pt * 1.05))
    f_code = _font(fonts.mono, px(size_pt * 0.85))
    f_small = _font(fonts.regular, px(size_pt * 0.8))
    pages = []
    img = draw = None
    y = 0

    def new_page():
        nonlocal img, draw, y
        img = Image.new("L", (W, H), 255)
        draw = ImageDraw.Draw(img)
        y = my
        pages.append(img)
        if header:
            draw.text((mx, my - px(size_pt * 2.2)), header, font=f_small, fill=90)

    new_page()
    width = W - 2 * mx
    for kind, text in items:
        if kind == "gap":
            y += int(px(size_pt) * float(text or 1))
            continue
        font = {"title": f_title, "subtitle": f_sub, "h": f_h, "p": f_body, "li": f_body, "code": f_code,
                "center": f_body, "right": f_body, "bold": f_bold}[kind]
        text = _filter_glyphs(font, plain(text))
        indent = px(size_pt * 1.4) if kind == "li" else (px(size_pt * 1.2) if kind == "code" else 0)
        lh = int(font.size * (1.2 if kind == "code" else line_gap))
        if kind == "code":
            lines = []
            for raw in text.split("\n"):
                lines.extend(_wrap(draw, font, raw, width - indent) or [""])
        else:
            lines = _wrap(draw, font, text, width - indent - (px(size_pt) if kind == "li" else 0), korean)
        before = {"title": 0.2, "subtitle": 0.1, "h": 0.9, "p": 0.35, "li": 0.15, "code": 0.3}.get(kind, 0.3)
        after = {"title": 0.8, "subtitle": 0.6, "h": 0.35}.get(kind, 0.2)
        if kind == "h" and y + lh * 3 > H - my:
            new_page()
        y += int(px(size_pt) * before)
        for li, line in enumerate(lines):
            if y + lh > H - my:
                new_page()
            if trace is not None and li == 0:
                trace.append((len(pages), kind, line))
            x = mx + indent
            if kind == "li" and li == 0:
                draw.text((mx + indent - px(size_pt), y), "•", font=font, fill=25)
            if kind == "li":
                x += 0
            if kind in ("title", "center", "subtitle"):
                x = (W - draw.textlength(line, font=font)) / 2
            elif kind == "right":
                x = W - mx - draw.textlength(line, font=font)
            draw.text((x, y), line, font=font, fill=25)
            y += lh
        y += int(px(size_pt) * after)
    if footer:
        for k, p in enumerate(pages):
            d = ImageDraw.Draw(p)
            t = footer.format(page=k + 1, pages=len(pages))
            d.text(((W - d.textlength(t, font=f_small)) / 2, H - my + px(size_pt)), t, font=f_small, fill=90)
    return pages


def degrade(img, *, seed, angle=None, noise=5.0, specks=0.0004, blur=0.55, paper=246):
    """Make a clean page look scanned: ink spread, tone, slight rotation (<= 1 degree), noise."""
    import numpy as np
    from PIL import Image, ImageFilter
    rng = random.Random(seed)
    if angle is None:
        angle = rng.uniform(0.25, 0.85) * rng.choice([-1, 1])
    g = img.filter(ImageFilter.GaussianBlur(blur))
    a = np.asarray(g).astype(np.float32)
    a = paper - (255 - a) * (paper - 20) / 235.0  # paper tone
    g = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    g = g.rotate(angle, resample=Image.BICUBIC, expand=False, fillcolor=paper)
    nrng = np.random.default_rng(seed)
    a = np.asarray(g).astype(np.float32)
    a += nrng.normal(0, noise, a.shape)
    if specks:
        m = nrng.random(a.shape) < specks
        a[m] = nrng.uniform(40, 150, m.sum())
    # faint uneven illumination
    h, w = a.shape
    yy = np.linspace(-1, 1, h)[:, None]
    xx = np.linspace(-1, 1, w)[None, :]
    a -= 6 * (xx ** 2 + yy ** 2)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)), angle


def save_pdf_scan(pages, path, dpi=200, quality=72):
    first, rest = pages[0], pages[1:]
    first.save(path, "PDF", save_all=True, append_images=rest, resolution=float(dpi), quality=quality,
               creationDate=FIXED_TIME.timetuple(), modDate=FIXED_TIME.timetuple(), producer="scanner")


def binarize(img, threshold=150):
    return img.point(lambda v: 255 if v > threshold else 0, mode="1")


# ---------------------------------------------------------------------------
# misc
# ---------------------------------------------------------------------------
def write_csv(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def fix_zip_times(path):
    """Rewrite a zip (docx/pptx/xlsx/hwpx) with fixed timestamps so rebuilds are stable."""
    import zipfile
    import io
    data = Path(path).read_bytes()
    zin = zipfile.ZipFile(io.BytesIO(data))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zout:
        for info in zin.infolist():
            ni = zipfile.ZipInfo(info.filename, date_time=(2026, 1, 5, 9, 0, 0))
            ni.compress_type = info.compress_type
            ni.external_attr = info.external_attr
            data = zin.read(info.filename)
            if info.filename == "docProps/core.xml":
                data = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(<)",
                              rb"\g<1>2026-01-05T09:00:00Z\g<2>", data)
            zout.writestr(ni, data)
    Path(path).write_bytes(buf.getvalue())


# ---------------------------------------------------------------------------
# writers shared by both build scripts
# ---------------------------------------------------------------------------
def hwp_write(parts, path: Path):
    import random
    import uuid
    import hwpx.oxml._document_impl as _impl
    from hwpx import HwpxDocument
    rng = random.Random(path.name)  # deterministic paragraph ids, so a rebuild is identical
    _impl.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)
    d = HwpxDocument.new()
    for part in parts:
        kind = part[0]
        if kind == "h1":
            d.add_heading(part[1], level=1)
        elif kind == "h2":
            d.add_heading(part[1], level=2)
        elif kind == "p":
            d.add_paragraph(part[1], style="바탕글")
        elif kind == "table":
            rows = part[1]
            t = d.add_table(len(rows), len(rows[0]))
            for i, r in enumerate(rows):
                for j, v in enumerate(r):
                    t.set_cell_text(i, j, v)
            d.add_paragraph("", style="바탕글")
    d.save_to_path(str(path))
    if path.suffix == ".hwpx":
        fix_zip_times(path)
    path.chmod(0o644)
    return path


def main_points_table(points):
    rows = [["구분", "주요내용", "관련 조문"]]
    for p in points:
        m = re.match(r"^([가-하])\.\s*(.*)$", p)
        ref = re.findall(r"\(안 ([^()]*?)\)\.?$", m.group(2))
        rows.append([m.group(1), m.group(2), ref[-1] if ref else ""])
    return rows


_REF = re.compile(r"\s*((?:(?:#\d+|GHSA-[0-9a-z-]+)(?:,\s*)?)+)\s*$")


def split_refs(text: str):
    t = plain(text).strip()
    m = _REF.search(t)
    if m and m.start() > 0:
        return t[: m.start()].rstrip(), m.group(1).strip().rstrip(",")
    m = re.search(r"\s*\(((?:#\d+(?:,\s*)?)+)\)\s*$", t)
    if m:
        return t[: m.start()].rstrip(), m.group(1)
    return t, ""


def _pptx():
    from pptx import Presentation
    from pptx.util import Inches
    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)
    return prs


def _place(shape, l, t, w, h):
    from pptx.util import Inches
    shape.left, shape.top, shape.width, shape.height = Inches(l), Inches(t), Inches(w), Inches(h)


def slide_title(prs, title, subtitle, notes=None):
    s = prs.slides.add_slide(prs.slide_layouts[0])
    s.shapes.title.text = title
    _place(s.shapes.title, 0.8, 2.0, 11.7, 1.5)
    s.placeholders[1].text = subtitle
    _place(s.placeholders[1], 0.8, 3.8, 11.7, 1.6)
    if notes:
        s.notes_slide.notes_text_frame.text = notes
    return s


def slide_bullets(prs, title, bullets, notes=None, size=None):
    from pptx.util import Pt
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = title
    _place(s.shapes.title, 0.6, 0.3, 12.1, 1.0)
    for r in s.shapes.title.text_frame.paragraphs[0].runs:
        r.font.size = Pt(30)
    body = s.placeholders[1]
    _place(body, 0.6, 1.45, 12.1, 5.7)
    tf = body.text_frame
    tf.word_wrap = True
    total = sum(len(t) for _, t in bullets)
    size = size or (20 if total < 400 else 18 if total < 650 else 16 if total < 900 else 14 if total < 1200 else 12)
    for k, (lvl, text) in enumerate(bullets):
        p = tf.paragraphs[0] if k == 0 else tf.add_paragraph()
        p.text = text
        p.level = lvl
        for r in p.runs:
            r.font.size = Pt(size - 2 * lvl)
    if notes:
        s.notes_slide.notes_text_frame.text = notes
    return s


def slide_table(prs, title, header, rows, widths, notes=None, size=12):
    from pptx.util import Inches, Pt
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = title
    _place(s.shapes.title, 0.6, 0.3, 12.1, 1.0)
    for r in s.shapes.title.text_frame.paragraphs[0].runs:
        r.font.size = Pt(30)
    shape = s.shapes.add_table(len(rows) + 1, len(header), Inches(0.6), Inches(1.5), Inches(sum(widths)),
                               Inches(0.4 * (len(rows) + 1)))
    tbl = shape.table
    for j, w in enumerate(widths):
        tbl.columns[j].width = Inches(w)
    for i, row in enumerate([header] + rows):
        for j, v in enumerate(row):
            cell = tbl.cell(i, j)
            cell.text = str(v)
            for p in cell.text_frame.paragraphs:
                for r in p.runs:
                    r.font.size = Pt(size)
                    r.font.bold = i == 0
    if notes:
        s.notes_slide.notes_text_frame.text = notes
    return s


def pptx_core(prs, title, subject, author):
    cp = prs.core_properties
    cp.title, cp.subject, cp.author = title, subject, author
    cp.created = cp.modified = FIXED_TIME
    cp.last_modified_by = author
    cp.revision = 1


def blocks_to_items(blocks):
    items = []
    for b in blocks:
        k = b[0]
        if k == "h":
            items.append(("title" if b[1] == 1 else "h", b[2]))
        elif k == "p":
            items.append(("p", b[1]))
        elif k == "version":
            items.append(("p", b[1]))
        elif k == "code":
            items.append(("code", b[1]))
        elif k in ("ul", "ol"):
            for n, it in enumerate(b[1], 1):
                txt = block_text([x for x in it if x[0] == "p"][:1])
                items.append(("li", txt) if k == "ul" else ("p", f"{n}. {txt}"))
                for sub in it[1:]:
                    items.extend(blocks_to_items([sub]))
        elif k == "admon":
            items.append(("p", f"{b[1]}: " + block_text(b[2])))
    return items


def verify(out: Path):
    """Open every output with its own library and print a one-line summary."""
    import csv
    from html.parser import HTMLParser
    from docx import Document
    from hwpx import HwpxDocument
    from openpyxl import load_workbook
    from PIL import Image
    from pptx import Presentation
    from pypdf import PdfReader
    total = 0
    for p in sorted(out.iterdir()):
        if p.suffix in (".py", ".md") or p.name.startswith("."):
            continue
        total += p.stat().st_size
        ext = p.suffix.lower()
        if ext in (".hwpx", ".hwp"):
            d = HwpxDocument.open(p)
            txt = d.text.plain() if callable(d.text.plain) else d.text.plain
            arts = len(re.findall(r"제\d+조(?:의\d+)?\(", txt))
            info = f"{len(txt)} chars, {len(d.tables.all)} tables, {arts} article headings"
        elif ext == ".docx":
            d = Document(p)
            heads = sum(1 for x in d.paragraphs if x.style.name.startswith("Heading"))
            info = f"{len(d.paragraphs)} paragraphs, {heads} headings, {len(d.tables)} tables"
        elif ext == ".pptx":
            pr = Presentation(p)
            notes = sum(1 for s in pr.slides if s.has_notes_slide and s.notes_slide.notes_text_frame.text.strip())
            tables = sum(1 for s in pr.slides for sh in s.shapes if sh.has_table)
            info = f"{len(pr.slides)} slides, {notes} with notes, {tables} tables"
        elif ext == ".xlsx":
            wb = load_workbook(p)
            info = ", ".join(f"{ws.title}: {ws.max_row - 1} data rows" for ws in wb)
        elif ext == ".csv":
            with open(p, encoding="utf-8", newline="") as f:
                rows = list(csv.reader(f))
            info = f"{len(rows) - 1} data rows, {len(rows[0])} columns"
        elif ext == ".html":
            tags = []

            class P(HTMLParser):
                def handle_starttag(self, tag, attrs):
                    tags.append(tag)
            P().feed(p.read_text(encoding="utf-8"))
            info = "has " + ", ".join(t for t in ("nav", "article", "footer") if t in tags) + \
                   f"; {sum(t in ('h1', 'h2', 'h3') for t in tags)} headings"
        elif ext == ".pdf":
            r = PdfReader(p)
            text = "".join((pg.extract_text() or "") for pg in r.pages)
            assert not text.strip(), f"{p.name} has a text layer"
            info = f"{len(r.pages)} pages, image only (no text layer)"
        elif ext in (".png", ".tif", ".tiff"):
            im = Image.open(p)
            info = f"{getattr(im, 'n_frames', 1)} page(s), {im.size[0]}x{im.size[1]}, mode {im.mode}, dpi {im.info.get('dpi')}"
        else:
            info = "?"
        print(f"  ok  {p.name:48s} {p.stat().st_size:>9,d} B  {info}")
    print(f"  total {total / 1e6:.2f} MB")
    assert total < 8e6


