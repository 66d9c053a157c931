#!/usr/bin/env python3
"""Rank the candidates of an eval suite with the peers a user could pick instead of cairn.

    cairn --base BASE eval SUITE.yaml --candidates CANDS.jsonl --format json > REPORT.json
    python3 cmd/cairn-bench/peers.py CANDS.jsonl [--report REPORT.json] [--per-query]

The candidate dump (query/eval/candidates.go) holds, for every question, the
URIs of the window cairn ranked from, and once per item its projected text in
three columns: id (identifier fields and relation values), title and body. Each
peer ranks exactly those candidates over exactly that text:

  fts5 porter    SQLite FTS5, tokenize='porter unicode61', bm25(fts, 10, 5, 1)
  fts5 unicode61 SQLite FTS5, tokenize='unicode61', bm25(fts, 10, 5, 1)
  bm25           plain Okapi BM25 (k1 1.2, b 0.75) over the three columns as one text

A peer's query is the question's words (runs of letters and digits, each once),
any of which may match. Statistics are those of the question's candidate set.
Ties are broken by URI. recall@k counts a question when all its expected URIs
are in the first k; MRR is the mean of 1/(best rank of an expected URI), 0 when
none matches. A peer's rank is in its whole ranking, since a peer has no token
budget, where cairn's is in its pack; recall@k is not affected by that.

cairn's own figures come from the dump (the ranks it gave), or from the report
with --report. Every ranker's figures are then given again by the kind of item
each question expects (pages, records) and by its source. Needs only Python 3 with sqlite3 (FTS5 built in).
"""

import argparse
import json
import math
import re
import sqlite3
import sys
from collections import Counter

WORD = re.compile(r"\w+", re.UNICODE)
K1, B = 1.2, 0.75
WEIGHTS = (10.0, 5.0, 1.0)  # id, title, body


def words(text):
    return WORD.findall(text.lower())


def load(path):
    items, queries = {}, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            rec = json.loads(line)
            if rec["kind"] == "item":
                items[rec["uri"]] = rec
            elif rec["kind"] == "query":
                queries.append(rec)
            else:
                sys.exit("%s:%d: a line of unknown kind %r" % (path, n, rec["kind"]))
    return items, queries


def fts_query(question):
    terms = list(dict.fromkeys(words(question)))
    return " OR ".join('"%s"' % t.replace('"', '""') for t in terms)


class FTS:
    """One FTS5 table per distinct candidate set, so bm25's statistics are the window's."""

    def __init__(self, items, tokenize):
        self.items, self.tokenize = items, tokenize
        self.db = sqlite3.connect(":memory:")
        self.tables = {}

    def table(self, cands):
        key = tuple(cands)
        if key not in self.tables:
            name = "fts%d" % len(self.tables)
            self.db.execute("CREATE VIRTUAL TABLE %s USING fts5(id, title, body, tokenize=%r)" % (name, self.tokenize))
            # rowid i+1 is cands[i]: the URI is no column, so bm25 weighs exactly id, title and body.
            self.db.executemany("INSERT INTO %s(rowid, id, title, body) VALUES (?, ?, ?, ?)" % name,
                                ((i + 1, self.items[u]["id"], self.items[u]["title"], self.items[u]["body"]) for i, u in enumerate(cands)))
            self.tables[key] = name
        return self.tables[key]

    def rank(self, question, cands):
        q = fts_query(question)
        if not q:
            return []
        name = self.table(cands)
        rows = self.db.execute(
            "SELECT rowid, bm25(%s, ?, ?, ?) FROM %s WHERE %s MATCH ?" % (name, name, name), (*WEIGHTS, q)).fetchall()
        # bm25 is lower for better matches; ties go by URI.
        return [u for _, u in sorted((s, cands[rowid - 1]) for rowid, s in rows)]


class BM25:
    """Plain Okapi BM25 over id, title and body as one text."""

    def __init__(self, items):
        self.items, self.cache = items, {}
        self.docs = {}

    def doc(self, uri):
        if uri not in self.docs:
            it = self.items[uri]
            toks = words("\n".join((it["id"], it["title"], it["body"])))
            self.docs[uri] = (Counter(toks), len(toks))
        return self.docs[uri]

    def stats(self, cands):
        key = tuple(cands)
        if key not in self.cache:
            df, total = Counter(), 0
            for u in cands:
                tf, n = self.doc(u)
                df.update(tf.keys())
                total += n
            self.cache[key] = (df, total / len(cands) if cands else 0.0)
        return self.cache[key]

    def rank(self, question, cands):
        terms = list(dict.fromkeys(words(question)))
        df, avg = self.stats(cands)
        n = len(cands)
        scored = []
        for u in cands:
            tf, length = self.doc(u)
            s = 0.0
            for t in terms:
                f = tf.get(t)
                if not f:
                    continue
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * length / avg))
            if s > 0:
                scored.append((-s, u))
        scored.sort()
        return [u for _, u in scored]


def figures(ranks, k):
    """ranks: per question, the rank of each expected URI (0: none). Returns (hits, of, mrr)."""
    asked = [r for r in ranks if r]
    hits = sum(1 for r in asked if all(0 < x <= k for x in r))
    rr = sum(1.0 / min(x for x in r if x) if any(r) else 0.0 for r in asked)
    return hits, len(asked), (rr / len(asked) if asked else 0.0)


def line(name, ranks, k):
    out = []
    for part in (ranks, ranks[0::2], ranks[1::2]):  # all, odd (1, 3, …), even (2, 4, …)
        hits, of, mrr = figures(part, k)
        out.append("%2d/%-2d = %.3f  %.3f" % (hits, of, hits / of if of else 0.0, mrr))
    return "%-16s %s" % (name, "   ".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("candidates", help="the JSON lines cairn eval --candidates wrote")
    ap.add_argument("--report", help="cairn eval's JSON report, for cairn's own figures")
    ap.add_argument("--per-query", action="store_true", help="also print each question's first relevant rank per ranker")
    args = ap.parse_args()

    items, queries = load(args.candidates)
    if not queries:
        sys.exit("%s holds no questions" % args.candidates)
    k = queries[0]["k"]
    peers = [("fts5 porter", FTS(items, "porter unicode61")), ("fts5 unicode61", FTS(items, "unicode61")), ("bm25", BM25(items))]
    ranks = {"cairn": [q["cairn_ranks"] for q in queries]}
    if args.report:
        with open(args.report, encoding="utf-8") as f:
            report = json.load(f)
        ranks["cairn"] = [[e["rank"] for e in q["expected"]] for q in report["queries"]]
        if len(ranks["cairn"]) != len(queries):
            sys.exit("%s has %d questions, the dump %d: run both from one cairn eval" % (args.report, len(ranks["cairn"]), len(queries)))
    for name, peer in peers:
        ranks[name] = []
        for q in queries:
            order = {u: i + 1 for i, u in enumerate(peer.rank(q["question"], q["candidates"]))}
            ranks[name].append([order.get(u, 0) for u in q["expected"]])

    names = ["cairn"] + [n for n, _ in peers]
    if args.per_query:
        print("%3s  %s  question" % ("n", "  ".join("%6s" % n[:6] for n in names)))
        for i, q in enumerate(queries):
            best = [min((x for x in ranks[n][i] if x), default=0) for n in names]
            print("%3d  %s  %s" % (q["n"], "  ".join("%6s" % (b or "-") for b in best), q["question"]))
        print()
    print("%d questions, %d candidate items; ranks over each question's window" % (len(queries), len(items)))
    print("%-16s %s" % ("ranker", "   ".join("%-14s %5s" % ("%s recall@%d" % (part, k), "MRR") for part in ("all", "odd", "even"))))
    for n in names:
        print(line(n, ranks[n], k))
    for title, key in (("kind", "expected_kinds"), ("source", "expected_sources")):
        groups = {}
        for i, q in enumerate(queries):
            got = set(q.get(key) or [])
            if got:
                groups.setdefault(got.pop() if len(got) == 1 else "mixed", []).append(i)
        order = sorted(groups, key=lambda g: (g == "mixed", g))
        print()
        print("%-16s %s" % ("by " + title, "   ".join("%-14s %5s" % ("%s recall@%d" % (g[:8], k), "MRR") for g in order)))
        for n in names:
            cells = []
            for g in order:
                hits, of, mrr = figures([ranks[n][i] for i in groups[g]], k)
                cells.append("%2d/%-2d = %.3f  %.3f" % (hits, of, hits / of if of else 0.0, mrr))
            print("%-16s %s" % (n, "   ".join(cells)))


if __name__ == "__main__":
    main()
