#!/usr/bin/env python3
"""Checks what spider wrote for each case of the hostile corpus.

Usage: check-outputs.py CORPUS_DIR OUT_DIR

For case number i (manifest order), OUT_DIR holds i.rc, i.json, i.jerr
(--format=json) and i.trc, i.txt, i.terr (the text report).  Prints one
"not ok: ..." line per failed check and, last, "N checks, N failed".
"""
import json
import re
import sys

corpus, out = sys.argv[1], sys.argv[2]
checks = failures = 0

# ESC, CR, BEL, ... : every C0 control but LF (and TAB, which spider never
# writes), DEL, and the C1 controls as UTF-8.
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
# every byte but those CONTROL's first byte can be: deleting them leaves
# nothing from a clean output, in C's speed rather than the regex's
NOT_CONTROL_START = bytes(b for b in range(256)
                          if not (b <= 0x08 or 0x0b <= b <= 0x1f or b in (0x7f, 0xc2)))


def find_control(data):
    """CONTROL's first match in data, or None; the regex runs only on
    outputs that hold a byte it could start on."""
    if not data.translate(None, NOT_CONTROL_START):
        return None
    return CONTROL.search(data)
SANITIZER = re.compile(rb"AddressSanitizer|LeakSanitizer|runtime error:|"
                       rb"UndefinedBehaviorSanitizer")


def check(ok, name, what):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print("not ok: %r: %s" % (name, what))


def read(p):
    try:
        with open(p, "rb") as f:
            return f.read()
    except OSError:
        return b""


def error_lines(err):
    return [l for l in err.split(b"\n")
            if l.startswith(b"spider: ") and not l.startswith(b"spider: warning: ")]


with open(corpus + "/manifest.tsv", encoding="utf-8", errors="surrogateescape",
          newline="\n") as f:
    rows = [[x if x != "~" else "" for x in l.rstrip("\n").split("\t")]
            for l in f if l.strip()]
for i, (name, args, stdin, want, msg, events) in enumerate(rows):
    for mode, rc_f, so_f, se_f in (("json", "rc", "json", "jerr"),
                                   ("text", "trc", "txt", "terr")):
        rc = int(read("%s/%d.%s" % (out, i, rc_f)) or b"-1")
        so, se = read("%s/%d.%s" % (out, i, so_f)), read("%s/%d.%s" % (out, i, se_f))
        check(0 <= rc <= 3, name, "%s: exit %d (a signal, a timeout or worse)" % (mode, rc))
        check(not SANITIZER.search(se), name, "%s: sanitizer report: %r" % (mode, se[:300]))
        m = find_control(so) or find_control(se)
        check(not m, name, "%s: a control character %r reached the output" %
              (mode, m.group(0) if m else b""))
        if want == "ok":
            check(rc in (0, 1, 3), name, "%s: exit %d, want a verdict (0, 1, 3): %r"
                  % (mode, rc, se[:200]))
        else:
            check(rc == int(want), name, "%s: exit %d, want %s: %r" % (mode, rc, want, se[:300]))
        if rc == 2:
            check(len(error_lines(se)) == 1, name,
                  "%s: want one error line, got %r" % (mode, se[:300]))
        if msg:
            check(msg.encode("utf-8", "surrogateescape") in se, name,
                  "%s: stderr lacks %r: %r" % (mode, msg, se[:300]))
        if mode != "json" or rc not in (0, 1, 3):
            continue
        try:  # a strict decoder: UTF-8 and JSON both
            d = json.loads(so.decode("utf-8", errors="strict"))
        except (UnicodeDecodeError, ValueError) as e:
            check(False, name, "the JSON report does not decode: %s" % e)
            continue
        checks += 1
        if events:
            s = d["summary"]
            check(s["events"] == int(events), name,
                  "%s events kept, want %s" % (s["events"], events))
print("%d checks, %d failed" % (checks, failures))
sys.exit(1 if failures else 0)
