#!/bin/sh
# t0180-html: the self-contained HTML report (--html=FILE, issue 12).
#
# Writes the page of two bundled traces (m3274: a message and a handler
# race; h5780), of the shared trace_10iter_10peer.log (365 groups, a lock
# held by a reader) and of a hostile copy of m3274 (markup, </script>,
# U+2028, control characters and invalid UTF-8 in every kind of name),
# each in the same run as the JSON report, and checks:
#   - the file alone: valid UTF-8, the Content-Security-Policy, no element
#     or attribute that could load anything (src, href, url(), <img>, ...),
#     no event-handler attribute, no URL at all, the diagrams' data block
#     parses and holds one diagram per group of the JSON report;
#   - in headless Chromium (Debian `chromium`, installed by `make deps`),
#     with every group opened (#all): no console message at all — a
#     deliberately broken copy (a script error, an image from the network)
#     proves that they are seen —; the DOM has one diagram per group, as
#     many highlighted (.race) events as the instance has, one dot per
#     witness event with its step number, one arrow per wait across
#     threads; the reader's lock of trace_10iter_10peer.log's first group
#     is shaded and named; the hostile names are shown as text;
#   - a PNG screenshot of each page stays in tests/tmp/t0180-html/.
# With SANITIZED=1 (the ASan pass) only the pages are written and checked
# as files.  About 6 s: Chromium takes about a second a page.
. tests/lib.sh

CYCLON=$SHARED/cyclon/trace_10iter_10peer.log

# The hostile copy of m3274 (names as JSON source; \xff is a raw byte).
python3 - "$TMP/hostile" <<'EOF'
import os, sys
out = sys.argv[1]
os.makedirs(out)
swap = [
    (b'NodeManager.container',
     b'V</script><script>console.error(\\"pwned-var\\")</script>\\u001b[31m\xff'),
    (b'm3274-kill', b'</script><img src=x onerror=console.error(2)>\\u2028kill'),
    (b'taxdc.m3274.NodeManager.onKill.65', b'\xe2\x80\xa8</SCRIPT><!--onKill.65'),
    (b'10.0.0.2', b"n2<svg/onload=console.error(3)>&amp;'\\\""),
]
lock = b'L<b>\'\\"\\u0085'
src = 'benchmarks/taxdc/m3274'
for name in sorted(os.listdir(src)):
    lines = []
    for line in open(os.path.join(src, name), 'rb'):
        for a, b in swap:
            line = line.replace(a, b)
        if b'pwned-var' in line and b'"R"' in line:  # the read holds a lock
            t = b'{"thread":"main@10.0.0.1","type":"%s","variable":"' + lock + b'"}\n'
            line = t % b'LOCK' + line + t % b'UNLOCK'
        lines.append(line)
    open(os.path.join(out, name), 'wb').write(b''.join(lines))
EOF

# The checks, in Python: `static NAME` on the file, `dom NAME` on the DOM
# Chromium dumped; both against the JSON report of the same run.
cat >"$TMP/check.py" <<'EOF'
import html, html.parser, json, re, sys

mode, base = sys.argv[1], sys.argv[2]
report = json.load(open(base + '.json', encoding='utf-8'))
groups = [g for k in ('data_races', 'message_races', 'handler_races',
                      'atomicity_violations', 'multi_variable_violations')
          for g in report.get(k, [])]
problems = []

def witness(g):
    return g['instance'].get('witness') or []

def events(g):
    i = g['instance']
    return i['accesses'] if 'accesses' in i else i['sends'] + i['receives']

class Page(html.parser.HTMLParser):
    """Every element with its attributes, parents and text."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.elements, self.data = [], [], []
    def handle_starttag(self, tag, attrs):
        e = {'tag': tag, 'attrs': dict(attrs), 'parents': list(self.stack),
             'text': []}
        self.elements.append(e)
        if tag not in ('meta', 'input', 'br', 'col', 'hr', 'wbr', 'img',
                       'link', 'source', 'embed', 'base', 'area', 'track'):
            self.stack.append(e)
    def handle_startendtag(self, tag, attrs):
        self.elements.append({'tag': tag, 'attrs': dict(attrs),
                              'parents': list(self.stack), 'text': []})
    def handle_endtag(self, tag):
        if any(e['tag'] == tag for e in self.stack):
            while self.stack.pop()['tag'] != tag:
                pass
    def handle_data(self, d):
        self.data.append(d)
        for e in self.stack:
            e['text'].append(d)

def classes(e):
    return e['attrs'].get('class', '').split()

def parse(path):
    p = Page()
    p.feed(open(path, encoding='utf-8').read())
    return p

def static():
    raw = open(base + '.html', 'rb').read()
    try:
        text = raw.decode('utf-8')
    except UnicodeDecodeError as e:
        problems.append('not UTF-8: %s' % e)
        return
    if not re.search(r'<meta http-equiv="Content-Security-Policy" '
                     r'content="default-src \'none\';', text):
        problems.append('no Content-Security-Policy')
    url = re.search(r'(?i)(?<![\w-])(https?|ftp|file|data|javascript):\S*', text)
    if 'hostile' not in base and url:
        problems.append('a URL: %s' % url.group(0))
    for e in parse(base + '.html').elements:
        if e['tag'] in ('img', 'link', 'iframe', 'object', 'embed', 'base',
                        'source', 'audio', 'video', 'image', 'use', 'frame'):
            problems.append('a <%s> element' % e['tag'])
        for a, v in e['attrs'].items():
            if a in ('src', 'href', 'xlink:href', 'action', 'srcset',
                     'poster', 'data', 'formaction') or a.startswith('on'):
                problems.append('<%s %s=%r>' % (e['tag'], a, v))
            if v and re.search(r'(?i)url\s*\(|@import', v):
                problems.append('url() in <%s %s>' % (e['tag'], a))
        if e['tag'] in ('style', 'script') and re.search(
                r'(?i)url\s*\(|@import|https?:', ''.join(e['text'])):
            problems.append('url() or @import in <%s>' % e['tag'])
    m = re.search(r'<script type="application/json" id="spider-data">(.*?)'
                  r'</script>', text, re.S)
    if not m:
        problems.append('no data block')
        return
    if re.search('[<>&\u2028\u2029]', m.group(1)):
        problems.append('<, >, &, U+2028 or U+2029 raw in the data block')
    data = json.loads(m.group(1))
    if len(data['groups']) != len(groups):
        problems.append('%d diagrams in the data, %d groups' %
                        (len(data['groups']), len(groups)))
    for i, (d, g) in enumerate(zip(data['groups'], groups)):
        want = len(witness(g)) or len(events(g))
        if d is None or len(d['rows']) != min(want, 160):
            problems.append('group %d: %s rows in the data, want %d' %
                            (i + 1, d and len(d['rows']), want))

def dom():
    # Chromium's serialisation is regular: regular expressions read it
    # (html.parser takes seconds on the 6 MB of trace_10iter_10peer's DOM)
    text = open(base + '.dom', encoding='utf-8').read()
    svgs = re.findall(r'<div class="dwrap" data-group="(\d+)"><svg '
                      r'class="diagram"(.*?)</svg>', text, re.S)
    if len(svgs) != len(groups):
        problems.append('%d diagrams for %d groups' % (len(svgs), len(groups)))
    shown = re.search(r'<span id="shown">([^<]*)</span>', text)
    want = '%d of %d groups shown' % (len(groups), len(groups))
    if not shown or shown.group(1) != want:
        problems.append('the script did not end: no "%s"' % want)
    svgs.sort(key=lambda s: int(s[0]))
    for i, ((_, svg), g) in enumerate(zip(svgs, groups)):
        dots = re.findall(r'<circle class="([^"]*)"', svg)
        hot = [c for c in dots if 'race' in c.split()]
        steps = [int(n) for n in re.findall(
            r'<text class="step(?: hot)?"[^>]*>(\d+)</text>', svg)]
        arrows = re.findall(r'<g class="arrow ', svg)
        w = witness(g)
        if not w:
            problems.append('group %d: no witness in the JSON report' % (i + 1))
        if len(hot) != len(events(g)):
            problems.append('group %d: %d events highlighted, the instance has %d'
                            % (i + 1, len(hot), len(events(g))))
        if len(dots) != len(w) or steps != [s['step'] for s in w]:
            problems.append('group %d: %d dots, steps %s; witness steps %s'
                            % (i + 1, len(dots), steps, [s['step'] for s in w]))
        waits = sum(1 for s in w if s['waits_for'] is not None and
                    (w[s['waits_for']]['thread'], w[s['waits_for']]['node']) !=
                    (s['thread'], s['node']))
        if len(arrows) != waits:
            problems.append('group %d: %d arrows, %d waits across threads'
                            % (i + 1, len(arrows), waits))
    plain = lambda s: html.unescape(re.sub(r'<[^>]*>', '', s))
    if base.endswith('cyclon') and svgs:
        # the issue's example: the reader holds lock 992366115, the writer none
        if '<title>lock 992366115 held' not in svgs[0][1]:
            problems.append('group 1: lock 992366115 is not shaded')
        rows = [plain(r) for r in re.findall(r'<tr class="race">(.*?)</tr>',
                                             text, re.S)][:2]
        if len(rows) < 2 or 'holds lock 992366115' not in rows[0] or \
           'holds no lock' not in rows[1]:
            problems.append('group 1: the reader\'s lock and the writer\'s '
                            'none are not said: %r' % rows)
    if base.endswith('hostile'):
        shown = plain(text)
        for s in ('console.error("pwned-var")', '\\xFF', '<img src=x',
                  '\\x1B[31m', 'L<b>', '\\xC2\\x85'):
            if s not in shown:
                problems.append('hostile: %r is not shown as text' % s)

{'static': static, 'dom': dom}[mode]()
for p in problems[:10]:
    print('    ' + p)
sys.exit(1 if problems else 0)
EOF

# page NAME TRACE...: the HTML and the JSON report of one run (--witness:
# the JSON shows the witnesses only then), then the checks on the file
pages=""
page() {
    name=$1; shift
    $SPIDER --no-timings -q -f json --witness --html="$TMP/$name.html" "$@" \
        >"$TMP/$name.json" 2>"$TMP/$name.err"
    st=$?
    if [ "$st" -eq 1 ] && [ -s "$TMP/$name.html" ]; then ok; else
        not_ok "$name: exit $st (want 1) or no HTML"
        sed 's/^/    /' "$TMP/$name.err" | head -5
        return
    fi
    pages="$pages $name"
    if python3 "$TMP/check.py" static "$TMP/$name"; then ok; else
        not_ok "$name.html as a file"; fi
}

page m3274 benchmarks/taxdc/m3274
page h5780 benchmarks/taxdc/h5780
page hostile "$TMP/hostile"
if [ -f "$CYCLON" ]; then
    page cyclon "$CYCLON"
else
    echo "note: $CYCLON absent: its page is not checked"
fi

# a page it cannot write: exit 2 and a message naming it
expect_status 2 $SPIDER --html="$TMP/no/such/dir/x.html" benchmarks/taxdc/m3274
if grep -q 'no/such/dir/x.html' "$TMP/err"; then ok; else
    not_ok "--html to an unwritable path: no message naming it"; fi

if [ -n "${SANITIZED:-}${QUICK:-}" ]; then # the sanitizer pass, make test: the pages only
    echo "note: the pages are not rendered in Chromium under SANITIZED or QUICK"
    finish
fi

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
    [ "$failures" -eq 0 ] || finish
    if command -v apt-cache >/dev/null 2>&1 &&
       apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        not_ok "chromium is missing but installable: run 'make deps'"
        finish
    fi
    echo "skip: chromium is not installed and apt-get cannot install it here"
    exit 77
fi

# load NAME: the page with every group open, its DOM and a screenshot;
# console messages (errors, refused loads, anything logged) go to NAME.log
load() {
    cpu_limit 120 600 "$CHROME" --headless --no-sandbox --disable-gpu \
        --disable-dev-shm-usage --hide-scrollbars --window-size=1280,1000 \
        --user-data-dir="$TMP/chromium" --enable-logging=stderr --v=0 \
        --screenshot="$TMP/$1.png" --dump-dom "file://$PWD/$TMP/$1.html#all" \
        >"$TMP/$1.dom" 2>"$TMP/$1.chromium"
    grep ':CONSOLE' "$TMP/$1.chromium" >"$TMP/$1.log"
}

# the detection works: a copy with a script error and an image to fetch
sed 's#</body>#<img src="http://127.0.0.1:9/x.png"><script>noSuchFunction()</script></body>#' \
    "$TMP/m3274.html" >"$TMP/broken.html"
load broken
if grep -q 'noSuchFunction' "$TMP/broken.log" &&
   grep -q 'Content Security Policy' "$TMP/broken.log"; then ok; else
    not_ok "a deliberate script error and network load were not seen:"
    sed 's/^/    /' "$TMP/broken.chromium" | tail -5
fi

for name in $pages; do
    load "$name"
    if [ -s "$TMP/$name.log" ]; then
        not_ok "$name.html: console messages in Chromium:"
        sed 's/^/    /' "$TMP/$name.log" | head -5
    else ok; fi
    if python3 "$TMP/check.py" dom "$TMP/$name"; then ok; else
        not_ok "$name.html: the DOM"; fi
    if [ "$(head -c 8 "$TMP/$name.png" | od -An -tx1 | tr -d ' \n')" = \
         89504e470d0a1a0a ] && [ "$(wc -c <"$TMP/$name.png")" -gt 20000 ]; then
        ok; else not_ok "$name.png: no screenshot"; fi
done
# --html alone draws witnesses in the page; the report on standard output
# shows them only with --witness
$SPIDER --no-timings -q -f json --html="$TMP/plain.html" benchmarks/taxdc/m3274 >"$TMP/plain.json" 2>/dev/null
if grep -q '"witness"' "$TMP/plain.json"; then not_ok "--html without --witness: the JSON report shows witnesses"
elif ! cmp -s "$TMP/plain.html" "$TMP/m3274.html"; then not_ok "--html without --witness: another page than with it"
else ok; fi
finish
