#!/usr/bin/env python3
"""Build the held-out "new documents" PDF corpus.

Renders real public documentation text (reStructuredText pages from PyPI
source distributions) and Korean bill texts (konlpy's kobill corpus) to PDF
with reportlab.  RST markup is stripped to readable text; headings are bold;
every page has a page number in the footer.

Usage:
  python build_pdfs.py --celery-docs DIR --marshmallow-docs DIR \
      --coverage-docs DIR --kobill-dir DIR --font-dir DIR --out DIR

  --celery-docs       celery-X/docs/userguide
  --marshmallow-docs  marshmallow-X/docs
  --coverage-docs     coverage-X/doc
  --kobill-dir        konlpy/data/corpus/kobill (from the konlpy wheel)
  --font-dir          directory holding NanumGothic.ttf, NanumGothicBold.ttf,
                      DejaVuSans.ttf, DejaVuSans-Bold.ttf, DejaVuSansMono.ttf
                      (searched recursively)
Requires: reportlab (and pypdf for the --verify step).
"""
import argparse
import os
import re
import sys
import textwrap
from xml.sax.saxutils import escape

from reportlab import rl_config
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import cm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import (BaseDocTemplate, Frame, PageBreak,
                                PageTemplate, Paragraph, Preformatted)

# --------------------------------------------------------------------------
# RST -> blocks
# --------------------------------------------------------------------------
PUNCT = set('=-~^"\'`#*+.:_')
ADMON = {
    'note': 'Note', 'warning': 'Warning', 'tip': 'Tip', 'hint': 'Hint',
    'important': 'Important', 'seealso': 'See also', 'caution': 'Caution',
    'attention': 'Attention', 'danger': 'Danger', 'deprecated': 'Deprecated',
}
SKIP_DIRECTIVES = {
    'contents', 'highlight', 'toctree', 'autoclass', 'automodule',
    'autofunction', 'include', 'image', 'figure', 'raw', 'currentmodule',
    'module', 'literalinclude', 'cssclass', 'rst-class', 'index', 'only',
    'autodata', 'automethod', 'literalinclude',
}


def inline(text):
    """Strip inline RST markup; return plain text."""
    t = text
    # roles :role:`...`
    def role(m):
        body = m.group(2)
        mm = re.match(r'^(.*?)\s*<([^>]*)>$', body, re.S)
        if mm and mm.group(1):
            return mm.group(1)
        if mm:
            body = mm.group(2)
        body = body.lstrip('!')
        body = re.sub(r'^python:', '', body)
        if body.startswith('~'):
            body = body[1:].split('.')[-1]
            body = body.split('@')[-1]
        body = body.replace('~@', '').lstrip('@')
        return body
    # literals and role targets are protected from further markup processing
    lits = []

    def push(txt):
        lits.append(txt)
        return '\x00%d\x00' % (len(lits) - 1)
    t = re.sub(r'``(.+?)``', lambda m: push(m.group(1)), t)
    t = re.sub(r':([a-zA-Z0-9_:+-]+):`([^`]+)`', lambda m: push(role(m)), t)
    # hyperlinks `text <url>`_ / `text`_ / anonymous __
    t = re.sub(r'`([^`<]+?)\s*<[^>]+>`(__?)?', r'\1', t)
    t = re.sub(r'`~([\w.]+)`', lambda m: m.group(1).split('.')[-1], t)
    t = re.sub(r'`([^`]+?)`__?', r'\1', t)
    t = re.sub(r'`([^`]+?)`', r'\1', t)
    # emphasis
    t = re.sub(r'\*\*(.+?)\*\*', r'\1', t)
    t = re.sub(r'(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])', r'\1', t)
    # footnote refs, escapes, substitutions
    t = re.sub(r'\s*\[#\w*\]_', '', t)
    t = re.sub(r'\\(.)', lambda m: '' if m.group(1) == ' ' else m.group(1), t)
    t = re.sub(r'\|(\w[\w -]*)\|', r'\1', t)
    t = re.sub(r'\x00(\d+)\x00', lambda m: lits[int(m.group(1))], t)
    t = t.replace('\u200d', '').replace('\u200b', '')
    t = re.sub(r'\s+', ' ', t).strip()
    return t


def is_punct_line(s):
    s = s.rstrip()
    return len(s) >= 3 and len(set(s)) == 1 and s[0] in PUNCT


def indent_of(s):
    return len(s) - len(s.lstrip(' '))


def collect_indented(lines, i, base):
    """Collect lines after i that are blank or indented more than base."""
    body = []
    j = i
    while j < len(lines):
        ln = lines[j]
        if ln.strip() == '' or indent_of(ln) > base:
            body.append(ln)
            j += 1
        else:
            break
    while body and body[-1].strip() == '':
        body.pop()
    return body, j


def dedent_lines(body):
    return textwrap.dedent('\n'.join(body)).split('\n')


def parse_grid_table(tlines):
    """Return list of rows; each row list of cell strings."""
    border = tlines[0]
    cols = [m.start() for m in re.finditer(r'\+', border)]
    rows, cur = [], None
    for ln in tlines:
        if ln.startswith('+'):
            if cur is not None and any(c.strip() for c in cur):
                rows.append([inline(c) for c in cur])
            cur = [''] * (len(cols) - 1)
            continue
        for k in range(len(cols) - 1):
            cur[k] += ' ' + ln[cols[k] + 1:cols[k + 1]]
    return rows


def parse_list_table(body):
    rows, row = [], None
    cell = None
    for ln in dedent_lines(body):
        s = ln.strip()
        if s.startswith(':') or not s:
            continue
        if s.startswith('* -'):
            if row is not None:
                rows.append(row)
            row = [s[3:].strip()]
        elif s.startswith('- '):
            row.append(s[2:].strip())
        elif row is not None:
            row[-1] += ' ' + s
    if row is not None:
        rows.append(row)
    return [[inline(c.replace('|', ',')).strip(' ,') for c in r] for r in rows]


def rows_to_blocks(rows):
    out = []
    for r in rows:
        cells = [c for c in r]
        out.append(('bullet', ' — '.join(c if c else '(none)' for c in cells)))
    return out


class RstParser:
    def __init__(self):
        self.levels = []

    def heading_level(self, key):
        if key not in self.levels:
            self.levels.append(key)
        return self.levels.index(key)

    def parse(self, lines, depth=0):
        blocks = []
        i = 0
        n = len(lines)
        while i < n:
            ln = lines[i]
            s = ln.strip()
            if s == '':
                i += 1
                continue
            ind = indent_of(ln)
            # cog generator blocks
            if s.startswith('.. [[[cog'):
                while i < n and lines[i].strip() != '.. ]]]':
                    i += 1
                i += 1
                continue
            if s.startswith('.. [[[end]]]'):
                i += 1
                continue
            # overline heading
            if ind == 0 and is_punct_line(ln) and i + 2 < n and \
                    is_punct_line(lines[i + 2]) and lines[i + 1].strip():
                lvl = self.heading_level('o' + s[0])
                blocks.append(('h', lvl, inline(lines[i + 1])))
                i += 3
                continue
            # underline heading
            if ind == 0 and i + 1 < n and is_punct_line(lines[i + 1]) and \
                    not is_punct_line(ln) and \
                    len(lines[i + 1].rstrip()) >= len(s) - 1 and \
                    not s.startswith('..'):
                lvl = self.heading_level('u' + lines[i + 1].strip()[0])
                blocks.append(('h', lvl, inline(s)))
                i += 2
                continue
            # grid table
            if s.startswith('+-') and s.endswith('+'):
                tl = []
                while i < n and lines[i].strip() and \
                        lines[i].strip()[0] in '+|':
                    tl.append(lines[i].strip())
                    i += 1
                blocks.extend(rows_to_blocks(parse_grid_table(tl)))
                continue
            # directives
            m = re.match(r'^\.\. ([\w:-]+)::\s*(.*)$', s)
            if m:
                name, arg = m.group(1), m.group(2)
                body, j = collect_indented(lines, i + 1, ind)
                i = j
                # strip option lines
                bl = dedent_lines(body) if body else []
                while bl and re.match(r'^:[\w-]+:(\s|$)', bl[0].strip()):
                    bl.pop(0)
                while bl and not bl[0].strip():
                    bl.pop(0)
                if name in ('code-block', 'code', 'sourcecode', 'code-tab',
                            'parsed-literal', 'doctest'):
                    code = '\n'.join(bl).strip('\n')
                    if code:
                        blocks.append(('code', code))
                elif name == 'tabs':
                    sub = self.parse(bl, depth + 1)
                    codes = [b for b in sub if b[0] == 'code']
                    if codes:
                        blocks.append(codes[0])
                elif name in ADMON or name in ('admonition', 'topic',
                                               'sidebar'):
                    label = ADMON.get(name) or inline(arg)
                    sub = self.parse(bl, depth + 1)
                    if sub and sub[0][0] == 'p':
                        sub[0] = ('p', label + ': ' + sub[0][1])
                    else:
                        sub.insert(0, ('p', label + ':'))
                    blocks.extend(sub)
                elif name in ('versionadded', 'versionchanged',
                              'version-added', 'version-changed',
                              'deprecated'):
                    word = 'Changed' if 'changed' in name else 'New'
                    txt = inline('%s in version %s.' % (word, arg.strip()))
                    txt = re.sub(r'(?<!\.)\.\.$', '.', txt)
                    sub = self.parse(bl, depth + 1)
                    if sub and sub[0][0] == 'p':
                        sub[0] = ('p', txt + ' ' + sub[0][1])
                    else:
                        sub.insert(0, ('p', txt))
                    blocks.extend(sub)
                elif name == 'list-table':
                    blocks.extend(rows_to_blocks(parse_list_table(body)))
                elif name in ('hlist', 'tab', 'container', 'rubric'):
                    if name == 'rubric' and arg:
                        blocks.append(('h', 3, inline(arg)))
                    blocks.extend(self.parse(bl, depth + 1))
                else:
                    pass  # skipped directive
                continue
            # comments / targets / substitution definitions
            if s.startswith('..') or s.startswith('__ '):
                body, j = collect_indented(lines, i + 1, ind)
                i = j
                continue
            # bullets
            m = re.match(r'^([-*+•]|\d+\.|#\.|\(\w\))\s+(.*)$', s)
            if m and not s.startswith('**'):
                first = [m.group(2)]
                k = i + 1
                cont_ind = ind + len(m.group(1)) + 1
                while k < n and lines[k].strip() and \
                        indent_of(lines[k]) >= cont_ind - 1 and \
                        not re.match(r'^([-*+]|\d+\.)\s', lines[k].strip()):
                    first.append(lines[k].strip())
                    k += 1
                while k < n and lines[k].strip() and \
                        indent_of(lines[k]) > ind and \
                        not re.match(r'^([-*+]|\d+\.)\s', lines[k].strip()):
                    first.append(lines[k].strip())
                    k += 1
                txt = ' '.join(first)
                lit = txt.endswith('::')
                txt = inline(re.sub(r'::$', ':', txt))
                marker = m.group(1) if m.group(1)[0].isdigit() else '•'
                blocks.append(('bullet', txt, marker))
                body, j = collect_indented(lines, k, ind)
                i = j
                if body:
                    bl = dedent_lines(body)
                    if lit:
                        blocks.append(('code', '\n'.join(bl).strip('\n')))
                    else:
                        blocks.extend(self.parse(bl, depth + 1))
                continue
            # indented block (blockquote / definition body)
            if ind > 0 and depth >= 0:
                body, j = collect_indented(lines, i, ind - 1)
                i = j
                blocks.extend(self.parse(dedent_lines(body), depth + 1))
                continue
            # paragraph
            para = []
            while i < n and lines[i].strip() and indent_of(lines[i]) == ind:
                para.append(lines[i].strip())
                i += 1
            txt = ' '.join(para)
            literal = txt.endswith('::')
            if txt == '::':
                txt = ''
            elif literal:
                txt = re.sub(r'\s*::$', ':' if not txt.endswith(' ::') else '',
                             txt)
            if txt:
                # definition-list term followed by indented body
                if i < n and lines[i].strip() and indent_of(lines[i]) > ind \
                        and not literal and len(txt) < 40:
                    blocks.append(('term', inline(txt)))
                elif i < n and lines[i].strip() and \
                        indent_of(lines[i]) > ind and not literal:
                    # definition list whose "term" is really a wrapped line
                    body, j = collect_indented(lines, i, ind)
                    i = j
                    bl = dedent_lines(body)
                    k = 0
                    while k < len(bl) and bl[k].strip():
                        txt += ' ' + bl[k].strip()
                        k += 1
                    blocks.append(('p', inline(txt)))
                    blocks.extend(self.parse(bl[k:], depth + 1))
                else:
                    blocks.append(('p', inline(txt)))
            if literal:
                k = i
                while k < n and lines[k].strip() == '':
                    k += 1
                if k < n and indent_of(lines[k]) > ind:
                    body, j = collect_indented(lines, k, ind)
                    i = j
                    blocks.append(('code',
                                   '\n'.join(dedent_lines(body)).strip('\n')))
        return blocks


def rst_file_blocks(path):
    with open(path, encoding='utf-8') as f:
        lines = f.read().expandtabs(4).split('\n')
    return RstParser().parse(lines)


# --------------------------------------------------------------------------
# Korean bills -> blocks
# --------------------------------------------------------------------------
KO_HEADINGS = {'제안이유', '주요내용', '제안이유및주요내용', '참고사항', '부칙'}
KO_MARK = re.compile(r'^(①|②|③|④|⑤|⑥|⑦|⑧|⑨|⑩|[가나다라마바사아자차카타파하]\.|'
                     r'○|∙|•|\*|\d+\.|\d+의\d+\.|첫째|둘째|셋째|제\d+조(의\d+)?\()')


KO_ITEM = re.compile(r'^(제\d+조|\d+\.\s|\d+의\d+\.\s|[①-⑳]|'
                     r'[가나다라마바사아자차카타파하]\.\s|○|∙|•|·|\*)')


# characters NanumGothic has no glyph for -> visually equivalent ones
KO_CHARMAP = str.maketrans({'\u2024': '\u00b7', '\u2027': '\u00b7',
                            '\u2219': '\u00b7', '\uff65': '\u00b7',
                            '\uff62': '\u300c', '\uff63': '\u300d'})


def nospace(s):
    return re.sub(r'\s+', '', s)


def bill_blocks(path):
    with open(path, encoding='utf-8') as f:
        raw = [ln.rstrip('\n').replace('\u3000', ' ').replace('\x0c', '')
               .translate(KO_CHARMAP) for ln in f]
    lines = [ln for ln in raw if ln.strip()
             and not re.match(r'^\s*-\s*\d+\s*-\s*$', ln)]
    # cut comparison table / cost-estimate table
    for k, ln in enumerate(lines):
        if '구조문대비표' in nospace(ln):
            lines = lines[:k]
            break
        if '비용추계서' in ln:
            # drop the title line that precedes "...비용추계서"
            cut = k - 1 if lines[k - 1].startswith('국군부대의') else k
            lines = lines[:cut]
            break
    # header
    start = next(k for k, ln in enumerate(lines)
                 if nospace(ln).startswith('제안이유'))
    head = lines[:start]
    body = lines[start:]
    title_lines = []
    for ln in head:
        if ln.strip().startswith('(') or nospace(ln) in ('의안', '의안번호'):
            break
        title_lines.append(ln.strip())
    title = ' '.join(title_lines)
    title = re.sub(r'\s+', ' ', title)
    blocks = [('h', 0, title)]
    htxt = '\n'.join(head)
    meta = []
    m = re.search(r'\(([^()]*?의원)\s*대표발의\s*\)', htxt)
    if m:
        meta.append('대표발의: ' + m.group(1))
    m = re.search(r'^\s*(\d{4})\s*$', htxt, re.M)
    if m:
        meta.append('의안번호: ' + m.group(1))
    m = re.search(r'(발의|제출)연월일\s*:\s*([\d.\s]+\d\.)', htxt)
    if m:
        meta.append('%s연월일: %s' % (m.group(1),
                                    re.sub(r'\s+', ' ', m.group(2).strip())))
    m = re.search(r'발\s*의\s*자\s*:\s*(.*)$', htxt, re.S)
    if m:
        meta.append('발의자: ' + re.sub(r'\s+', ' ', m.group(1)).strip())
    m = re.search(r'제\s*출\s*자\s*:\s*(.*)$', htxt, re.M)
    if m:
        meta.append('제출자: ' + re.sub(r'\s+', '', m.group(1)))
    for x in meta:
        blocks.append(('p', x))
    tkey = nospace(title)
    paras = []  # list of [kind, text]
    i = 0
    prev_end_break = True
    while i < len(body):
        ln = body[i]
        s = ln.strip()
        # repeated title -> heading
        matched = False
        for k in (1, 2, 3):
            joined = nospace(''.join(body[i:i + k]))
            if joined == tkey:
                paras.append(['h2', title])
                i += k
                matched = True
                break
            if joined == tkey + '비용추계서':
                i = len(body)
                matched = True
                break
        if matched:
            prev_end_break = True
            continue
        ns = nospace(s)
        if ns in KO_HEADINGS:
            paras.append(['h3', '부칙' if ns == '부칙' else
                          ('제안이유 및 주요내용' if ns == '제안이유및주요내용'
                           else ns)])
            prev_end_break = True
            i += 1
            continue
        if re.match(r'^\d\.\s+\S', ln) and len(s) < 30:
            paras.append(['h3', re.sub(r'\s+', ' ', s)])
            prev_end_break = True
            i += 1
            continue
        if re.match(r'^법률\s+제\s+호$', s):
            paras.append(['p', '법률 제 호'])
            prev_end_break = True
            i += 1
            continue
        new_para = (prev_end_break or ln.startswith(' ') or not paras
                    or paras[-1][0] != 'p'
                    # a numbered item / article after a line with no
                    # trailing space (a finished item, not a wrapped word)
                    or (KO_ITEM.match(s) and not body[i - 1].endswith(' ')))
        if new_para:
            paras.append(['p', s])
        else:
            sep = ' ' if body[i - 1].endswith(' ') else ''
            paras[-1][1] = paras[-1][1] + sep + s
        # a sentence end, or a short stand-alone line such as "가. 파견목적"
        prev_end_break = s.endswith('.') or (len(s) < 20 and
                                             not ln.endswith(' '))
        i += 1
    for kind, txt in paras:
        txt = re.sub(r'\s+', ' ', txt).strip()
        if kind == 'h2':
            blocks.append(('h', 1, txt))
        elif kind == 'h3':
            blocks.append(('h', 2, txt))
        else:
            blocks.append(('p', txt))
    return blocks


# --------------------------------------------------------------------------
# PDF rendering
# --------------------------------------------------------------------------
def find_font(font_dir, name):
    for root, _, files in os.walk(font_dir):
        if name in files:
            return os.path.join(root, name)
    raise SystemExit('font not found: %s under %s' % (name, font_dir))


def register_fonts(font_dirs):
    def f(name):
        for d in font_dirs:
            try:
                return find_font(d, name)
            except SystemExit:
                pass
        raise SystemExit('font not found: ' + name)
    pdfmetrics.registerFont(TTFont('Body', f('DejaVuSans.ttf')))
    pdfmetrics.registerFont(TTFont('Body-Bold', f('DejaVuSans-Bold.ttf')))
    pdfmetrics.registerFont(TTFont('Mono', f('DejaVuSansMono.ttf')))
    pdfmetrics.registerFont(TTFont('Ko', f('NanumGothic.ttf')))
    pdfmetrics.registerFont(TTFont('Ko-Bold', f('NanumGothicBold.ttf')))


def styles(korean=False):
    body = 'Ko' if korean else 'Body'
    bold = 'Ko-Bold' if korean else 'Body-Bold'
    size = 10.5 if korean else 9.5
    st = {
        'p': ParagraphStyle('p', fontName=body, fontSize=size,
                            leading=size * 1.45, spaceAfter=5,
                            alignment=TA_LEFT),
        'bullet': ParagraphStyle('b', fontName=body, fontSize=size,
                                 leading=size * 1.45, spaceAfter=3,
                                 leftIndent=14, bulletIndent=4,
                                 bulletFontName=body, bulletFontSize=size),
        'term': ParagraphStyle('t', fontName=bold, fontSize=size,
                               leading=size * 1.45, spaceAfter=2),
        'code': ParagraphStyle('c', fontName='Mono', fontSize=7.8,
                               leading=10, leftIndent=12, spaceAfter=6,
                               spaceBefore=2),
        'title': ParagraphStyle('T', fontName=bold, fontSize=16,
                                leading=21, spaceAfter=6),
        'sub': ParagraphStyle('S', fontName=body, fontSize=8.5,
                              leading=12, spaceAfter=12),
    }
    for lvl, sz in enumerate((14, 12.5, 11, 10.5, 10)):
        st['h%d' % lvl] = ParagraphStyle('h%d' % lvl, fontName=bold,
                                         fontSize=sz, leading=sz * 1.35,
                                         spaceBefore=10 if lvl else 14,
                                         spaceAfter=5, keepWithNext=True)
    return st


def footer_factory(label, korean):
    def footer(canvas, doc):
        canvas.saveState()
        canvas.setFont('Ko' if korean else 'Body', 8)
        w, _ = A4
        canvas.drawString(2 * cm, 1.2 * cm, label)
        canvas.drawRightString(w - 2 * cm, 1.2 * cm,
                               'Page %d' % canvas.getPageNumber())
        canvas.restoreState()
    return footer


def render(out_path, title, subtitle, sections, footer_label, korean=False,
           section_page_break=False):
    st = styles(korean)
    story = [Paragraph(escape(title), st['title']),
             Paragraph(escape(subtitle), st['sub'])]
    for si, (sec_title, blocks) in enumerate(sections):
        if section_page_break and si > 0:
            story.append(PageBreak())
        if sec_title:
            story.append(Paragraph(escape(sec_title), st['h0']))
        for b in blocks:
            kind = b[0]
            if kind == 'h':
                lvl = min(b[1] + (1 if sec_title else 0), 4)
                story.append(Paragraph(escape(b[2]), st['h%d' % lvl]))
            elif kind == 'p':
                story.append(Paragraph(escape(b[1]), st['p']))
            elif kind == 'term':
                story.append(Paragraph(escape(b[1]), st['term']))
            elif kind == 'bullet':
                marker = b[2] if len(b) > 2 else '•'
                story.append(Paragraph(escape(b[1]), st['bullet'],
                                       bulletText=marker))
            elif kind == 'code':
                code = b[1]
                cl = code.split('\n')
                if len(cl) > 40:
                    cl = cl[:40] + ['...']
                story.append(Preformatted('\n'.join(cl), st['code'],
                                          maxLineLength=100,
                                          newLineChars=''))
    doc = BaseDocTemplate(out_path, pagesize=A4, leftMargin=2 * cm,
                          rightMargin=2 * cm, topMargin=2 * cm,
                          bottomMargin=2 * cm, title=title,
                          author=footer_label)
    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height,
                  id='body')
    # footer drawn at page end so it comes last in the extracted text
    doc.addPageTemplates([PageTemplate(id='page', frames=[frame],
                                       onPageEnd=footer_factory(footer_label,
                                                                korean))])
    doc.build(story)


def drop_leading_title(blocks):
    """Drop the page's own top-level title (we print our own section title)."""
    if blocks and blocks[0][0] == 'h':
        return blocks[0][2], blocks[1:]
    return None, blocks


def rst_sections(doc_dir, files):
    out = []
    for fn in files:
        t, blocks = drop_leading_title(rst_file_blocks(os.path.join(doc_dir,
                                                                     fn)))
        out.append((t or fn, blocks))
    return out


DOCS = {
    'celery': ('celery_calling_and_periodic_tasks.pdf',
               'Celery User Guide: Calling Tasks and Periodic Tasks',
               'Text from the Celery 5.7.0 documentation '
               '(docs/userguide/calling.rst, docs/userguide/periodic-tasks.rst). '
               'BSD 3-Clause License.',
               ['calling.rst', 'periodic-tasks.rst'],
               'Celery 5.7.0 documentation'),
    'marshmallow': ('marshmallow_schemas_fields_and_validation.pdf',
                    'marshmallow: Schemas, Nesting, Custom Fields and Validation',
                    'Text from the marshmallow 4.4.0 documentation (docs/why.rst, '
                    'quickstart.rst, nesting.rst, custom_fields.rst, '
                    'extending/pre_and_post_processing.rst, '
                    'extending/schema_validation.rst, '
                    'extending/custom_error_messages.rst). MIT License.',
                    ['why.rst', 'quickstart.rst', 'nesting.rst',
                     'custom_fields.rst',
                     'extending/pre_and_post_processing.rst',
                     'extending/schema_validation.rst',
                     'extending/custom_error_messages.rst'],
                    'marshmallow 4.4.0 documentation'),
    'coverage': ('coveragepy_measurement_and_configuration.pdf',
                 'Coverage.py: How It Works, Source Selection, Exclusion, '
                 'Branch Coverage and Configuration',
                 'Text from the coverage.py 7.17.5 documentation (doc/howitworks.rst, '
                 'source.rst, excluding.rst, branch.rst, subprocess.rst, '
                 'config.rst). Apache License 2.0.',
                 ['howitworks.rst', 'source.rst', 'excluding.rst',
                  'branch.rst', 'subprocess.rst', 'config.rst'],
                 'coverage.py 7.17.5 documentation'),
}
KOBILLS = ['1809890.txt', '1809893.txt', '1809894.txt', '1809895.txt',
           '1809896.txt', '1809897.txt', '1809898.txt', '1809899.txt']
KO_PDF = 'kobill_korean_bills_2010.pdf'


def verify(out_dir, names):
    from pypdf import PdfReader
    ok = True
    for nm in names:
        r = PdfReader(os.path.join(out_dir, nm))
        for pi, page in enumerate(r.pages, 1):
            t = page.extract_text() or ''
            if len(t.strip()) < 80 or '\ufffd' in t:
                ok = False
                print('BAD PAGE', nm, pi, repr(t[:100]))
        print('%-50s %3d pages' % (nm, len(r.pages)))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument('--celery-docs', required=True)
    ap.add_argument('--marshmallow-docs', required=True)
    ap.add_argument('--coverage-docs', required=True)
    ap.add_argument('--kobill-dir', required=True)
    ap.add_argument('--font-dir', action='append', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--dump-text', action='store_true',
                    help='also print the parsed blocks (debug)')
    a = ap.parse_args()
    rl_config.invariant = 1  # reproducible output (fixed dates and ids)
    os.makedirs(a.out, exist_ok=True)
    register_fonts(a.font_dir)
    dirs = {'celery': a.celery_docs, 'marshmallow': a.marshmallow_docs,
            'coverage': a.coverage_docs}
    names = []
    for key, (pdf, title, sub, files, label) in DOCS.items():
        secs = rst_sections(dirs[key], files)
        if a.dump_text:
            for t, bl in secs:
                print('#####', t)
                for b in bl:
                    print(b)
        render(os.path.join(a.out, pdf), title, sub, secs, label)
        names.append(pdf)
    secs = []
    for fn in KOBILLS:
        bl = bill_blocks(os.path.join(a.kobill_dir, fn))
        t, bl = drop_leading_title(bl)
        secs.append((t, bl))
        if a.dump_text:
            print('#####', t)
            for b in bl:
                print(b)
    render(os.path.join(a.out, KO_PDF),
           '국회 의안 모음: 2010년 11월 발의·제출 법률안 및 동의안 8건',
           '출처: KoNLPy 0.6.0 패키지에 포함된 kobill 말뭉치 '
           '(konlpy/data/corpus/kobill/ 1809890, 1809893, 1809894, 1809895, '
           '1809896, 1809897, 1809898, 1809899). 신·구조문대비표와 비용추계 표는 제외함.',
           secs, 'KoNLPy kobill corpus', korean=True, section_page_break=True)
    names.append(KO_PDF)
    if not verify(a.out, names):
        sys.exit(1)


if __name__ == '__main__':
    main()
