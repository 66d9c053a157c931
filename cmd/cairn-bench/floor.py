#!/usr/bin/env python3
"""Check a PEPs eval report against the acceptance floor.

    cairn --base PEPS eval peps-eval.yaml --format json > REPORT.json
    python3 cmd/cairn-bench/floor.py REPORT.json

The floor is what ranking version 3 must reach on the real-data suite of
../shared/realdata (peps-eval.yaml): recall@k at least 0.85, MRR at least
0.72, at least 6 of the 10 commit questions with their commit in the top k
and at least 7 with it in the pack (a commit question is one whose first
expected URI is a record under events/; "in the pack" is any rank, as
first_relevant_rank > 0). The report is the JSON
of `cairn eval --format json` (query/eval/report.go): totals.recall_at_k.rate,
totals.mrr, and queries[].expected and first_relevant_rank.

Prints the four figures and exits 0 when all meet the floor, 1 when one does
not, 2 when the report cannot be read. Python 3 standard library only.
"""

import argparse
import json
import sys

MIN_RECALL = 0.85  # totals.recall_at_k.rate
MIN_MRR = 0.72  # totals.mrr
MIN_COMMITS_TOP = 6  # commit questions with their commit in the top k
MIN_COMMITS = 7  # commit questions with their commit in the pack


def figures(report):
    totals = report["totals"]
    recall = float(totals["recall_at_k"]["rate"])
    mrr = float(totals["mrr"])
    k = int(report["k"])
    commits = delivered = top = 0
    for q in report["queries"]:
        expected = q.get("expected") or []
        if expected and expected[0]["uri"].startswith("events/"):
            commits += 1
            rank = q["first_relevant_rank"]
            if rank > 0:
                delivered += 1
            if 0 < rank <= k:
                top += 1
    return recall, mrr, top, delivered, commits, k


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", help="the JSON report of cairn eval --format json")
    ap.add_argument("--min-recall", type=float, default=MIN_RECALL)
    ap.add_argument("--min-mrr", type=float, default=MIN_MRR)
    ap.add_argument("--min-commits-top", type=int, default=MIN_COMMITS_TOP)
    ap.add_argument("--min-commits", type=int, default=MIN_COMMITS)
    args = ap.parse_args()
    try:
        with open(args.report, encoding="utf-8") as f:
            report = json.load(f)
        recall, mrr, top, delivered, commits, k = figures(report)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("floor: cannot read %s as a cairn eval JSON report: %s" % (args.report, e), file=sys.stderr)
        return 2
    checks = [
        ("recall@%d" % k, "%.3f" % recall, "%.2f" % args.min_recall, recall >= args.min_recall),
        ("MRR", "%.3f" % mrr, "%.2f" % args.min_mrr, mrr >= args.min_mrr),
        ("commit questions with their commit in the top %d" % k, "%d of %d" % (top, commits),
         "%d" % args.min_commits_top, top >= args.min_commits_top),
        ("commit questions with their commit in the pack", "%d of %d" % (delivered, commits),
         "%d" % args.min_commits, delivered >= args.min_commits),
    ]
    for name, got, floor, ok in checks:
        print("floor: %-48s %-9s (floor %s) %s" % (name, got, floor, "ok" if ok else "BELOW"))
    if not all(ok for *_, ok in checks):
        print("floor: %s is below the acceptance floor" % args.report, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
