#!/usr/bin/env python3
"""Score vramdoctor logs on a held-out round: python3 score.py hNNN [hMMM ...]
Each round dir holds NN.log files and labels.jsonl ({"file","kind","accept":[...],"source","why"})."""
import json, subprocess, sys, os
VD = os.environ.get("VRAMDOCTOR", "vramdoctor")
tot = ok = 0
for rd in sys.argv[1:]:
    labels = [json.loads(l) for l in open(os.path.join(rd, "labels.jsonl")) if l.strip()]
    for lab in labels:
        p = os.path.join(rd, lab["file"])
        r = subprocess.run([VD, "logs", "--json", p], capture_output=True, text=True)
        try:
            d = json.loads(r.stdout)["diagnosis"] or {}
            got, code = d.get("kind", "NONE"), d.get("code", "")
        except Exception:
            got, code = f"ERR{r.returncode}", r.stderr.strip()[:80]
        want = [lab["kind"]] + list(lab.get("accept", []))
        hit = got in want
        tot += 1; ok += hit
        flag = "ok  " if hit else ("MISS!W" if got == "WEIGHTS" else "MISS")
        print(f"{flag} {rd}/{lab['file']} got={got}/{code} want={'|'.join(want)}  [{lab.get('source','')}]")
print(f"TOTAL {ok}/{tot}")
