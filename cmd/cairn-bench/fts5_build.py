#!/usr/bin/env python3
"""The peer a user could write in an afternoon: index a cairn base in SQLite FTS5.

Usage: fts5_build.py BASE DB

Reads what a cairn build reads for its index, the same way: every record
document (events/<day>/<source>.json and index/<source>.json), each record's
fields evaluated through its document's own fields map (the jq subset of
cairn's record documents: .key, .a.b, ."odd key", [n], [-1], []), and every
page (wiki/, projects/, tasks/), its YAML frontmatter split off and its title
taken from the frontmatter or the first heading. Every item becomes one row of
one FTS5 table (uri, kind, title, body), tokenised by unicode61 with porter
folding, as peers.py's best lexical peer ranks. DB is written afresh.

cairn-bench runs it paired with cairn's cold build on the same base, so the
CPU ratio of the two is read from one run. Standard library only.
"""

import json
import os
import re
import sqlite3
import sys

LAYERS_DOCS = ("events", "index")
LAYERS_PAGES = ("wiki", "projects", "tasks")
STEP = re.compile(r'\.(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_][A-Za-z0-9_-]*))|\[(-?\d*)\]')
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
FRONT_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.M)


def parse_path(path):
    """A field path as a list of steps: a key (str), an index (int) or None for []."""
    steps, pos = [], 0
    while pos < len(path):
        m = STEP.match(path, pos)
        if not m:
            raise ValueError("bad field path %r at %d" % (path, pos))
        quoted, bare, index = m.groups()
        if quoted is not None:
            steps.append(json.loads('"%s"' % quoted))
        elif bare is not None:
            steps.append(bare)
        else:
            steps.append(None if index == "" else int(index))
        pos = m.end()
    return steps


def evaluate(value, steps):
    """Every scalar a path reaches; objects and arrays are never stringified."""
    if not steps:
        if value is None or isinstance(value, (dict, list)):
            return []
        return [value if isinstance(value, str) else json.dumps(value)]
    step, rest = steps[0], steps[1:]
    if isinstance(step, str):
        return evaluate(value.get(step), rest) if isinstance(value, dict) else []
    if not isinstance(value, list):
        return []
    if step is None:
        out = []
        for v in value:
            out.extend(evaluate(v, rest))
        return out
    if -len(value) <= step < len(value):
        return evaluate(value[step], rest)
    return []


def records(path, rel):
    with open(path, "rb") as f:
        doc = json.loads(f.read())
    fields = {}
    for name, paths in (doc.get("fields") or {}).items():
        fields[name] = [parse_path(p) for p in (paths if isinstance(paths, list) else [paths])]
    for rec in doc.get("records") or []:
        values = {name: [v for steps in plist for v in evaluate(rec, steps)] for name, plist in fields.items()}
        ident = " ".join(values.get("id", []))
        title = " ".join(values.get("title", []))
        body = " ".join(v for name, vs in sorted(values.items()) if name not in ("id", "title", "time") for v in vs)
        yield (rel + "#" + ident, "record", title, ident + " " + body)


def page(path, rel):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    front, body = "", text
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end >= 0:
            front, body = text[4:end], text[end + 4:]
    m = FRONT_TITLE.search(front) or HEADING.search(body)
    title = m.group(1).strip("'\"") if m else os.path.basename(rel)
    return (rel, "page", title, front + "\n" + body)


def walk(base, layer):
    top = os.path.join(base, layer)
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(folder, name)
            yield full, os.path.relpath(full, base).replace(os.sep, "/")


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    base, db_path = argv[1], argv[2]
    if os.path.exists(db_path):
        os.remove(db_path)
    db = sqlite3.connect(db_path)
    db.execute("CREATE VIRTUAL TABLE items USING fts5(uri UNINDEXED, kind UNINDEXED, title, body, tokenize='porter unicode61')")
    rows = 0
    for layer in LAYERS_DOCS:
        for full, rel in walk(base, layer):
            if rel.endswith(".json"):
                batch = list(records(full, rel))
                db.executemany("INSERT INTO items VALUES (?, ?, ?, ?)", batch)
                rows += len(batch)
    for layer in LAYERS_PAGES:
        for full, rel in walk(base, layer):
            if rel.endswith(".md"):
                db.execute("INSERT INTO items VALUES (?, ?, ?, ?)", page(full, rel))
                rows += 1
    db.commit()
    db.close()
    print("fts5_build: %d items into %s" % (rows, db_path), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
