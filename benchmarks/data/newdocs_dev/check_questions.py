#!/usr/bin/env python3
"""Validate rag_newdocs_dev.jsonl against the PDFs in this folder (needs pypdf).

usage: python check_questions.py [JSONL] [PDF_DIR]
Checks: valid JSONL, unique ids, per-kind counts, near_miss shape, and that each
answerable item's evidence occurs (whitespace removed) on one of its pages.
"""
import collections, json, os, re, sys
from pypdf import PdfReader

here = os.path.dirname(os.path.abspath(__file__))
jsonl = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "rag_newdocs_dev.jsonl")
pdf_dir = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "docs")
ns = lambda s: re.sub(r"\s+", "", s)
cache = {}


def page_texts(name):
    if name not in cache:
        cache[name] = [p.extract_text() or "" for p in PdfReader(os.path.join(pdf_dir, name)).pages]
    return cache[name]


items = [json.loads(l) for l in open(jsonl, encoding="utf-8") if l.strip()]
ids = [d["id"] for d in items]
assert len(ids) == len(set(ids)), "duplicate ids"
bad = 0
for d in items:
    if d["kind"] == "near_miss":
        ok = d["answer"] is None and d["pages"] == [] and d["evidence"] is None and d["file"] is None
    else:
        texts = page_texts(d["file"])
        ok = any(ns(d["evidence"]) in ns(texts[p - 1]) for p in d["pages"])
        if d["kind"] == "followup":
            ok = ok and len(d.get("history", [])) == 2
    if not ok:
        bad += 1
        print("FAIL", d["id"])
print(len(items), "items;", dict(collections.Counter(d["kind"] for d in items)))
print("failures:", bad)
sys.exit(1 if bad else 0)
