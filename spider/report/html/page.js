(function () {
  "use strict";
  const byId = (id) => document.getElementById(id);
  const data = JSON.parse(byId("spider-data").textContent);
  const S = data.strings;
  const str = (i) => (i >= 0 ? S[i] : "");
  const NS = document.querySelector("svg.legend").namespaceURI;
  const ROW_H = 24, LANE_W = 130, HEAD_H = 46, PAD = 8, R = 9.5, CW = 7.3;

  /* at most n code points, the rest as an ellipsis */
  function cut(s, n) {
    const cp = Array.from(s);
    return cp.length > n ? cp.slice(0, n - 1).join("") + "\u2026" : s;
  }
  function el(parent, name, attrs, text) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function titled(parent, cls, title) {
    const g = el(parent, "g", {class: cls});
    el(g, "title", {}, title);
    return g;
  }
  const base = (p) => p.slice(p.lastIndexOf("/") + 1) || p;

  /* the space-time diagram of group d into host: one lane per thread,
     grouped by node, time running down, the text of each event on the
     right */
  function draw(host, d) {
    const lanes = d.lanes, rows = d.rows;
    const lx = (l) => PAD + LANE_W * l + LANE_W / 2;
    const ry = (i) => HEAD_H + ROW_H * i + ROW_H / 2;
    const textX = PAD + LANE_W * lanes.length + 10;
    const texts = rows.map((r) => [cut(str(r[5]), 40), cut(str(r[6]), 64),
                                   cut(base(str(r[7])), 40) + ":" + r[8]]);
    const chars = Math.max(0, ...texts.map((t) => t.join("").length));
    const width = Math.ceil(textX + CW * (21 + chars) + 30 + PAD);
    const height = HEAD_H + ROW_H * rows.length + PAD;
    const svg = el(null, "svg", {class: "diagram", width: width,
      height: height, viewBox: "0 0 " + width + " " + height, role: "img",
      "aria-label": "space-time diagram"});
    for (let a = 0, band = 0; a < lanes.length; band++) {
      let b = a + 1;
      while (b < lanes.length && lanes[b][1] === lanes[a][1]) b++;
      const x = PAD + LANE_W * a, w = LANE_W * (b - a);
      const g = titled(svg, "node", "node " + str(lanes[a][1]));
      el(g, "rect", {class: band % 2 ? "nodeband alt" : "nodeband",
        x: x + 3, y: 2, width: w - 6, height: height - 4, rx: 6});
      el(g, "text", {class: "nodename", x: x + w / 2, y: 16},
         cut(str(lanes[a][1]), 16 * (b - a)));
      a = b;
    }
    rows.forEach((r, i) => {
      if (r[2] >= 0)
        el(svg, "rect", {class: "band", x: PAD, y: ry(i) - ROW_H / 2 + 1,
          width: width - 2 * PAD, height: ROW_H - 2});
    });
    rows.forEach((r, i) => { /* where witness events are left out */
      const before = i ? rows[i - 1][1] : 0;
      if (!d.omitted || r[1] <= before + 1) return;
      const y = ry(i) - ROW_H / 2;
      const g = titled(svg, "gap", "steps " + (before + 1) + " to " +
                       (r[1] - 1) + " are not drawn");
      el(g, "line", {x1: PAD, y1: y, x2: width - PAD, y2: y});
    });
    lanes.forEach((ln, l) => {
      const g = titled(svg, "thread", "thread " + str(ln[0]));
      el(g, "text", {class: "tname", x: lx(l), y: 34}, cut(str(ln[2]), 16));
      el(g, "line", {class: "lane", x1: lx(l), y1: HEAD_H - 4, x2: lx(l),
        y2: height - PAD});
    });
    d.locks.forEach((s) => {
      const top = ry(s[1]) - ROW_H / 2 + 2, bottom = ry(s[2]) + ROW_H / 2 - 2;
      const g = titled(svg, "locksec", "lock " + str(s[3]) + " held" +
        (s[4] & 1 ? "; its LOCK is not in this window" : "") +
        (s[4] & 2 ? "; its UNLOCK is not in this window" : ""));
      el(g, "rect", {class: s[4] ? "lock open" : "lock", x: lx(s[0]) - 12,
        y: top, width: 24, height: bottom - top, rx: 4});
      el(g, "text", {class: "lockname", x: lx(s[0]) - 15, y: top + 10},
         cut(str(s[3]), 12));
    });
    rows.forEach((r, i) => {
      const p = r[3];
      if (p < 0 || p >= i || rows[p][0] === r[0]) return;
      const x1 = lx(rows[p][0]), y1 = ry(p), x2 = lx(r[0]), y2 = ry(i);
      const len = Math.hypot(x2 - x1, y2 - y1);
      const ux = (x2 - x1) / len, uy = (y2 - y1) / len;
      const ex = x2 - ux * (R + 1), ey = y2 - uy * (R + 1);
      const bx = ex - ux * 9, by = ey - uy * 9;
      const from = str(rows[p][4]), to = str(r[4]);
      const msg = from === "SND" || to === "RCV";
      const g = titled(svg, "arrow " + (msg ? "msg" : "sync"),
                       "step " + r[1] + " waits on step " + rows[p][1]);
      el(g, "line", {x1: x1 + ux * R, y1: y1 + uy * R, x2: bx, y2: by});
      el(g, "polygon", {points: [ex, ey, bx - uy * 4.5, by + ux * 4.5,
                                 bx + uy * 4.5, by - ux * 4.5].join(" ")});
    });
    rows.forEach((r, i) => {
      const e = str(r[5]), x = lx(r[0]), y = ry(i), race = r[2] >= 0;
      const dot = el(svg, "circle", {class: race ? "ev race" : "ev", cx: x,
                                     cy: y, r: R});
      el(dot, "title", {}, str(lanes[r[0]][0]) + " (event " + r[9] +
         " of its thread): " + str(r[4]) + (e ? " " + e : "") + " at " +
         str(r[6]) + ", " + str(r[7]) + ":" + r[8]);
      if (r[1] > 0)
        el(svg, "text", {class: race ? "step hot" : "step", x: x, y: y + 3.5},
           String(r[1]));
      const t = el(svg, "text", {class: "row", x: textX, y: y + 4});
      if (race) el(t, "tspan", {class: "role"}, str(d.roles[r[2]]));
      el(t, "tspan", {class: "ty", x: textX + CW * 8}, str(r[4]));
      el(t, "tspan", {x: textX + CW * 21}, texts[i][0]);
      el(t, "tspan", {class: "loc", dx: 10},
         texts[i][1] + "\u2003" + texts[i][2]);
    });
    host.appendChild(svg);
  }

  const kind = byId("f-kind"), node = byId("f-node"), text = byId("f-text");
  const groups = Array.from(document.querySelectorAll("tr.group"));
  const texts = groups.map((g) =>
    (g.textContent + " " + g.nextElementSibling.textContent).toLowerCase());
  function show(g, open) {
    const detail = g.nextElementSibling;
    g.classList.toggle("open", open);
    g.querySelector("button.tog").setAttribute("aria-expanded", String(open));
    detail.hidden = g.hidden || !open;
    const host = detail.querySelector("div.dwrap");
    if (open && host && !host.firstChild)
      draw(host, data.groups[+host.dataset.group]);
  }
  function apply() {
    const k = kind.value, n = node.value;
    const t = text.value.trim().toLowerCase();
    let count = 0;
    groups.forEach((g, i) => {
      const ok = (!k || g.dataset.kind === k) && (!n || g.dataset.node === n) &&
                 (!t || texts[i].includes(t));
      g.hidden = !ok;
      show(g, g.classList.contains("open"));
      if (ok) count++;
    });
    byId("shown").textContent = count + " of " + groups.length +
                                " groups shown";
  }
  const all = (open) => () => groups.forEach((g) => {
    if (!g.hidden) show(g, open);
  });
  groups.forEach((g) => g.addEventListener("click",
    () => show(g, !g.classList.contains("open"))));
  byId("expand").addEventListener("click", all(true));
  byId("collapse").addEventListener("click", all(false));
  kind.addEventListener("change", apply);
  node.addEventListener("change", apply);
  text.addEventListener("input", apply);
  byId("filters").addEventListener("submit", (e) => e.preventDefault());
  /* #all opens every group, #g12 group 12 */
  const hash = location.hash.slice(1), one = byId(hash);
  if (hash === "all") groups.forEach((g) => g.classList.add("open"));
  else if (one && one.classList.contains("group")) {
    groups.forEach((g) => g.classList.toggle("open", g === one));
  }
  apply();
  if (one && one.classList.contains("group")) one.scrollIntoView();
})();
