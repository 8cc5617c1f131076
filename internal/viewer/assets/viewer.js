// hwepoch trace viewer: draws the states embedded in #trace-data (see
// internal/viewer). No network, no libraries; everything is built with DOM
// calls and text nodes, so no string from a trace is parsed as markup.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("trace-data").textContent);
  var N = D.steps.length;
  var R = D.replicas;
  var SVGNS = "http://www.w3.org/2000/svg";

  // States: step 0 carries every variable, later steps what changed.
  var states = [];
  for (var i = 0; i < N; i++) {
    var s = {};
    var prev = i > 0 ? states[i - 1] : {};
    for (var k in prev) s[k] = prev[k];
    for (var k2 in D.steps[i].set) s[k2] = D.steps[i].set[k2];
    states.push(s);
  }
  var maxLEO = 1;
  states.forEach(function (s) { R.forEach(function (r) { maxLEO = Math.max(maxLEO, s.log[r].length); }); });
  // First step of each violation run, for the lanes and the verdict.
  var firstBad = {};
  D.steps.forEach(function (st, i) {
    (st.violated || []).forEach(function (v) { if (!(v.inv in firstBad)) firstBad[v.inv] = i; });
  });

  function el(tag, attrs) {
    var e = document.createElement(tag);
    for (var a in attrs || {}) {
      if (a === "text") e.textContent = attrs[a];
      else if (a === "cls") e.className = attrs[a];
      else e.setAttribute(a, attrs[a]);
    }
    for (var c = 2; c < arguments.length; c++) {
      var ch = arguments[c];
      if (ch == null) continue;
      e.appendChild(typeof ch === "string" ? document.createTextNode(ch) : ch);
    }
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    return e;
  }
  function color(ep) { return ep < 0 ? "#ffffff" : D.palette[ep % D.palette.length]; }
  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }
  // Inline `code` of the docs' Markdown, as text nodes and <code>.
  function md(text) {
    var span = el("span");
    String(text).split("`").forEach(function (part, j) {
      var t = part.replace(/\*\*/g, "");
      span.appendChild(j % 2 ? el("code", { text: t }) : document.createTextNode(t));
    });
    return span;
  }
  var C = D.colors;
  document.documentElement.style.setProperty("--hw", C.hw);
  document.documentElement.style.setProperty("--bad", C.violated);
  document.documentElement.style.setProperty("--chg", C.changed);

  // Header.
  var root = document.body;
  root.appendChild(el("h1", { text: D.title }));
  (D.subtitle || "").split("\n").forEach(function (l) { if (l) root.appendChild(el("p", { cls: "sub", text: l })); });
  root.appendChild(el("p", { cls: "meta", text: D.kind + " · " + D.source + " · " + D.policy + " (Kafka " + D.release + ")" }));
  if ((D.subtitle || "").indexOf(D.config) < 0) root.appendChild(el("p", { cls: "meta", text: D.config }));
  var verdict = el("p", { id: "verdict" });
  var bad = Object.keys(firstBad);
  if (bad.length) {
    verdict.className = "bad";
    verdict.textContent = "violated: " + bad.map(function (n) { return n + " (from step " + firstBad[n] + ")"; }).join(", ");
  } else if (D.invariants.length) {
    verdict.textContent = "all " + D.invariants.length + " checked invariants hold at every step";
  }
  if (D.mismatch) {
    verdict.className = "bad";
    verdict.textContent += (verdict.textContent ? "; " : "") + "the " + D.mismatch.side + " departs at step " + D.mismatch.step;
  }
  root.appendChild(verdict);
  var legend = el("div", { cls: "legend" });
  var maxE = 0;
  states.forEach(function (s) { R.forEach(function (r) { s.log[r].forEach(function (x) { maxE = Math.max(maxE, x.epoch); }); }); maxE = Math.max(maxE, s.ctrlEpoch); });
  for (var e = 0; e <= maxE; e++) legend.appendChild(el("span", null, el("span", { cls: "sw", style: "background:" + color(e) }), "e" + e));
  legend.appendChild(el("span", null, el("span", { cls: "sw", style: "background:" + C.hw + ";width:3px" }), "HW"));
  legend.appendChild(el("span", null, el("span", { cls: "sw", style: "background:" + C.changed }), "changed"));
  legend.appendChild(el("span", null, el("span", { cls: "sw", style: "border:2px solid " + C.violated }), "invariant violated"));
  root.appendChild(legend);

  // Controls.
  var nav = el("nav", { "aria-label": "steps" });
  function button(label, title, f) {
    var b = el("button", { type: "button", title: title, "aria-label": title, text: label });
    b.addEventListener("click", f);
    nav.appendChild(b);
    return b;
  }
  button("|◀", "first step (Home)", function () { go(0); });
  button("◀", "previous step (←)", function () { go(cur - 1); });
  var slider = el("input", { id: "slider", type: "range", min: "0", max: String(N - 1), value: "0", "aria-label": "step" });
  nav.appendChild(slider);
  button("▶", "next step (→)", function () { go(cur + 1); });
  button("▶|", "last step (End)", function () { go(N - 1); });
  var counter = el("span", { id: "counter", "aria-live": "polite" });
  nav.appendChild(counter);
  nav.appendChild(el("span", { cls: "keys", text: "← → Home End" }));
  root.appendChild(nav);
  slider.addEventListener("input", function () { go(parseInt(slider.value, 10)); });

  // Lanes: one row per replica, one column per step: the replica's role
  // (a leader filled with its epoch's colour, a follower outlined in it,
  // offline greyed), a dot where the step changed the replica, red where a
  // violation begins, the current step framed, a lasso's cycle bracketed.
  var lanes = el("section", { cls: "lanes", id: "lanes" });
  var colW = 16, rowH = 18, labW = 34, top = 14;
  var W = labW + N * colW + 8, H = top + R.length * rowH + (D.loop >= 0 ? 22 : 8);
  var sv = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, "font-size": "9", "font-family": "DejaVu Sans Mono, monospace" });
  for (var j = 0; j < N; j += (N > 40 ? 5 : 1)) {
    var t = svg("text", { x: labW + j * colW + colW / 2, y: 10, "text-anchor": "middle", fill: C.muted });
    t.textContent = j;
    sv.appendChild(t);
  }
  R.forEach(function (r, ri) {
    var lt = svg("text", { x: 2, y: top + ri * rowH + 12, "font-size": "11" });
    lt.textContent = r;
    sv.appendChild(lt);
  });
  for (var si = 0; si < N; si++) {
    var g = svg("g", { "class": "col", "data-step": si });
    var s0 = states[si];
    R.forEach(function (r, ri) {
      var role = s0.role[r], ep = s0.leaderEpoch[r];
      var x = labW + si * colW + 1, y = top + ri * rowH + 1;
      var fill = role === "Leader" ? color(ep) : role === "Offline" ? "#e4e4e4" : "#ffffff";
      var stroke = role === "Follower" || role === "Leader" ? "#555" : "#bbb";
      var rc = svg("rect", { x: x, y: y, width: colW - 2, height: rowH - 3, rx: 2, fill: fill, stroke: stroke, "stroke-width": 0.6 });
      if (role === "Follower") { rc.setAttribute("stroke", color(ep)); rc.setAttribute("stroke-width", 2.5); }
      var ttl = svg("title", {});
      ttl.textContent = "step " + si + " " + r + ": " + D.steps[si].labels[ri] + ", leo " + s0.log[r].length + " hw " + s0.hw[r];
      rc.appendChild(ttl);
      g.appendChild(rc);
      if (si > 0 && replicaChanged(states[si - 1], s0, r))
        g.appendChild(svg("circle", { cx: x + colW / 2 - 1, cy: y + rowH - 6, r: 2, fill: C.text }));
    });
    if ((D.steps[si].violated || []).some(function (v) { return v.fresh; }))
      g.appendChild(svg("rect", { x: labW + si * colW, y: top - 1, width: colW, height: R.length * rowH + 1, fill: "none", stroke: C.violated, "stroke-width": 2 }));
    if (D.mismatch && D.mismatch.step === si)
      g.appendChild(svg("rect", { x: labW + si * colW, y: top - 1, width: colW, height: R.length * rowH + 1, fill: "none", stroke: C.violated, "stroke-width": 2, "stroke-dasharray": "3 2" }));
    g.addEventListener("click", (function (n) { return function () { go(n); }; })(si));
    sv.appendChild(g);
  }
  if (D.loop >= 0) {
    var ly = top + R.length * rowH + 6, x0 = labW + D.loop * colW + 2, x1 = labW + N * colW - 2;
    sv.appendChild(svg("path", { d: "M" + x0 + " " + ly + "v6H" + x1 + "v-6", fill: "none", stroke: "#7a3db8", "stroke-width": 1.5, id: "cycle-mark" }));
    var ct = svg("text", { x: x0 + 2, y: ly + 15, fill: "#7a3db8" });
    ct.textContent = "cycle: after step " + (N - 1) + " the trace returns to step " + D.loop;
    sv.appendChild(ct);
  }
  var curMark = svg("rect", { x: labW, y: top - 3, width: colW, height: R.length * rowH + 5, fill: "none", stroke: C.hw, "stroke-width": 2, id: "cur-mark" });
  sv.appendChild(curMark);
  lanes.appendChild(sv);
  root.appendChild(lanes);

  var stepBox = el("section", { id: "step" });
  root.appendChild(stepBox);
  var mismatchBox = el("section", { id: "mismatch", hidden: "" });
  root.appendChild(mismatchBox);
  var reps = el("section", { id: "replicas" });
  root.appendChild(reps);
  var ctrl = el("section", { id: "ctrl" });
  root.appendChild(ctrl);
  var varsBox = el("details", { id: "allvars" }, el("summary", { text: "every variable at this step (changed ones marked)" }));
  var varsTable = el("table");
  varsBox.appendChild(varsTable);
  root.appendChild(varsBox);

  function replicaChanged(a, b, r) {
    return ["log", "epochCache", "hwCheckpoint", "role", "leaderEpoch", "hw", "fetchState", "isr", "leader"].some(function (v) { return !same(a[v][r], b[v][r]); });
  }

  function field(text, changed) { return el("span", { cls: "f" + (changed ? " chg" : "") , text: text }); }

  function drawReplica(s, p, r, ri, label) {
    var changed = p && replicaChanged(p, s, r);
    var box = el("div", { cls: "replica" + (changed ? " changed" : "") + (s.role[r] === "Offline" ? " offline" : ""), "data-replica": r });
    var up = s.role[r] !== "Offline";
    var head = el("div", { cls: "rhead" },
      el("span", { cls: "rname", text: r }),
      field(label, p && (p.role[r] !== s.role[r] || p.leaderEpoch[r] !== s.leaderEpoch[r] || p.fetchState[r] !== s.fetchState[r])),
      field("leo " + s.log[r].length, p && p.log[r].length !== s.log[r].length),
      up ? field("hw " + s.hw[r], p && p.hw[r] !== s.hw[r]) : null,
      field("ckpt " + s.hwCheckpoint[r], p && p.hwCheckpoint[r] !== s.hwCheckpoint[r]),
      s.leader[r] !== "None" ? field("leader " + s.leader[r], p && p.leader[r] !== s.leader[r]) : null,
      s.role[r] === "Leader" ? field("isr {" + s.isr[r].join(",") + "}", p && !same(p.isr[r], s.isr[r])) : null);
    box.appendChild(head);
    var lg = s.log[r], old = p ? p.log[r] : lg;
    var n = Math.max(maxLEO, 1);
    var wrap = el("div", { cls: "logwrap" });
    var log = el("div", { cls: "log", style: "width:calc(var(--cell) * " + (n + 1) + ")" });
    var acked = {};
    (s.acked || []).forEach(function (a) { acked[a.offset + ":" + a.id] = true; });
    for (var o = 0; o < n; o++) log.appendChild(el("div", { cls: "off", style: "left:calc(var(--cell) * " + o + ")", text: String(o) }));
    for (o = 0; o < Math.max(lg.length, old.length); o++) {
      var pos = "left:calc(var(--cell) * " + o + ");";
      if (o >= lg.length) {
        // Truncated by this step: drawn as a ghost of what was there.
        log.appendChild(el("div", { cls: "cell gone", style: pos, "data-offset": o, title: "offset " + o + ": m" + old[o].id + " (e" + old[o].epoch + ") removed by this step", text: "m" + old[o].id }));
        continue;
      }
      var x = lg[o];
      var c = el("div", { cls: "cell" + (p && !same(old[o], x) ? " chg" : ""), style: pos + "background:" + color(x.epoch), "data-offset": o, "data-epoch": x.epoch,
        title: "offset " + o + ": record m" + x.id + ", epoch " + x.epoch + (acked[o + ":" + x.id] ? ", acknowledged" : ""), text: "m" + x.id });
      if (acked[o + ":" + x.id]) c.appendChild(el("span", { cls: "ack" }));
      log.appendChild(c);
    }
    var cache = s.epochCache[r];
    cache.forEach(function (en, k) {
      var end = k + 1 < cache.length ? cache[k + 1].start : lg.length;
      if (end > en.start) log.appendChild(el("div", { cls: "cache", style: "left:calc(var(--cell) * " + en.start + ");width:calc(var(--cell) * " + (end - en.start) + " - 3px);background:" + color(en.epoch), title: "epoch cache: e" + en.epoch + " from " + en.start }));
      else log.appendChild(el("div", { cls: "cacheflag", style: "left:calc(var(--cell) * " + en.start + ")", title: "epoch cache: e" + en.epoch + " from " + en.start + " (no record yet)" }));
    });
    if (up) log.appendChild(el("div", { cls: "hwbar", style: "left:calc(var(--cell) * " + s.hw[r] + " - 3px)", title: "HW " + s.hw[r] }));
    log.appendChild(el("div", { cls: "ckpt", style: "left:calc(var(--cell) * " + s.hwCheckpoint[r] + " - 6px)", title: "replication-offset-checkpoint " + s.hwCheckpoint[r] }));
    wrap.appendChild(log);
    box.appendChild(wrap);
    var ctext = cache.map(function (en) { return "e" + en.epoch + "→" + en.start; }).join(" ");
    var cacheChanged = p && !same(p.epochCache[r], cache);
    box.appendChild(el("div", { cls: "cachetext" }, "epoch cache ", el("span", { cls: "f" + (cacheChanged ? " chg" : ""), text: ctext ? "{" + ctext + "}" : "{} (empty)" }),
      s.role[r] === "Follower" ? "  fetch " + s.fetchState[r] : ""));
    return box;
  }

  function msgText(m) {
    if (!m || m.type === "None") return "";
    var parts = [];
    for (var k in m) if (k !== "type") parts.push(k + " " + (typeof m[k] === "object" ? JSON.stringify(m[k]) : m[k]));
    return m.type + "(" + parts.join(", ") + ")";
  }

  function varTable(table, s, p, other, differ) {
    table.textContent = "";
    var head = el("tr", null, el("th", { text: "variable" }), el("th", { text: other ? "model" : "value" }));
    if (other) head.appendChild(el("th", { text: "implementation (abstracted)" }));
    table.appendChild(head);
    Object.keys(s).sort().forEach(function (v) {
      var cls = differ && differ.indexOf(v) >= 0 ? "differ" : p && !same(p[v], s[v]) ? "chg" : "";
      var tr = el("tr", { cls: cls, "data-var": v }, el("td", { text: v }), el("td", { text: JSON.stringify(s[v]) }));
      if (other) tr.appendChild(el("td", { text: other[v] === undefined ? "—" : JSON.stringify(other[v]) }));
      table.appendChild(tr);
    });
  }

  var cur = -1;
  function go(n) {
    n = Math.max(0, Math.min(N - 1, n | 0));
    if (n === cur) return;
    cur = n;
    var st = D.steps[n], s = states[n], p = n > 0 ? states[n - 1] : null;
    slider.value = String(n);
    var inCycle = D.loop >= 0 && n >= D.loop;
    counter.textContent = "step " + n + " of " + (N - 1) + (inCycle ? " (in the cycle)" : "");
    document.body.setAttribute("data-step", String(n));
    curMark.setAttribute("x", String(labW + n * colW));
    var colLeft = labW + n * colW;
    if (colLeft < lanes.scrollLeft || colLeft + colW > lanes.scrollLeft + lanes.clientWidth) lanes.scrollLeft = Math.max(0, colLeft - lanes.clientWidth / 2);

    // The step: action, spec action, caption, note, violations, Kafka.
    stepBox.textContent = "";
    var alarm = (st.violated || []).some(function (v) { return v.fresh; }) || (D.mismatch && D.mismatch.step === n);
    stepBox.className = alarm ? "alarm" : "";
    stepBox.appendChild(el("div", { id: "action" }, n + " " + st.action));
    if (st.spec) {
      var ps = Object.keys(st.params || {}).map(function (k) { return k + " = " + st.params[k]; }).join(", ");
      stepBox.appendChild(el("div", { cls: "spec", id: "spec" }, "spec action ", el("code", { text: st.spec }), ps ? " with " + ps : ""));
    }
    if (st.caption && st.caption !== st.action) stepBox.appendChild(el("div", { cls: "caption", text: st.caption }));
    if (st.note) stepBox.appendChild(el("div", { cls: "note", text: st.note }));
    var vbox = el("div", { id: "violation" });
    (st.violated || []).forEach(function (v) {
      var line = el("div", { cls: "violation" + (v.fresh ? " fresh" : " still"), "data-inv": v.inv });
      if (v.fresh) line.appendChild(el("span", { cls: "badge", text: "breaks here" }));
      line.appendChild(document.createTextNode("✗ " + v.inv + ": " + v.why + (v.fresh ? "" : " (violated since step " + sinceStep(v.inv, n) + ")")));
      vbox.appendChild(line);
    });
    stepBox.appendChild(vbox);
    if (D.loop >= 0 && n === N - 1) stepBox.appendChild(el("div", { cls: "cyclebox", id: "cycle", text: "↻ the trace is a lasso: after this state it returns to step " + D.loop + ", and steps " + D.loop + "–" + n + " repeat forever" }));
    else if (inCycle) stepBox.appendChild(el("div", { cls: "cyclebox", text: "↻ in the cycle (steps " + D.loop + "–" + (N - 1) + ")" }));
    if (D.mismatch && D.mismatch.step !== n) stepBox.appendChild(el("div", { cls: "violation still", text: "the " + D.mismatch.side + " departs from the model at step " + D.mismatch.step }));
    var kr = st.spec && D.kafka[st.spec];
    if (kr) {
      var det = el("details", { cls: "kafka", id: "kafka", open: "" }, el("summary", { text: "Kafka code " + st.spec + " follows (" + D.policy + " = Kafka " + D.release + ")" }));
      det.appendChild(el("p", null, el("b", { text: "source: " }), md(kr.source)));
      (kr.release || []).forEach(function (c) { det.appendChild(el("p", null, el("b", { text: c.behaviour + ": " }), md(c.text))); });
      stepBox.appendChild(det);
    }

    // Replicas.
    reps.textContent = "";
    R.forEach(function (r, ri) { reps.appendChild(drawReplica(s, p, r, ri, st.labels[ri])); });

    // Controller, messages, ghosts.
    ctrl.textContent = "";
    ctrl.appendChild(el("p", { cls: p && (p.ctrlLeader !== s.ctrlLeader || p.ctrlEpoch !== s.ctrlEpoch || !same(p.ctrlIsr, s.ctrlIsr)) ? "chgtext" : "", text: st.ctrl }));
    R.forEach(function (r) {
      var m = msgText(s.inflight[r]);
      if (m) ctrl.appendChild(el("p", { cls: p && !same(p.inflight[r], s.inflight[r]) ? "chgtext" : "", text: "in flight for " + r + ": " + m }));
      var a = msgText(s.alterPartition[r]);
      if (a) ctrl.appendChild(el("p", { cls: p && !same(p.alterPartition[r], s.alterPartition[r]) ? "chgtext" : "", text: "AlterPartition of " + r + ": " + a }));
      (s.controllerQueue[r] || []).forEach(function (q) { ctrl.appendChild(el("p", { text: "controller → " + r + ": " + msgText(q) })); });
    });
    var ids = function (xs) { return "{" + xs.map(function (x) { return "m" + x.id + "@" + x.offset; }).join(" ") + "}"; };
    ctrl.appendChild(el("p", { cls: p && !same(p.acked, s.acked) ? "chgtext" : "", text: "acknowledged " + ids(s.acked) }));
    ctrl.appendChild(el("p", { cls: p && !same(p.committed, s.committed) ? "chgtext" : "", text: "committed (ever below a leader's HW) " + ids(s.committed) }));

    // A refinement mismatch: both states side by side at its step.
    var mm = D.mismatch;
    if (mm && mm.step === n) {
      mismatchBox.hidden = false;
      mismatchBox.textContent = "";
      mismatchBox.appendChild(el("h2", { text: "step " + n + ": the " + mm.side + " departs from the model" }));
      mismatchBox.appendChild(el("p", { text: mm.what }));
      mismatchBox.appendChild(el("p", { text: mm.got ? "differing variables: " + mm.differ.join(", ") : "no state of the other side to show" }));
      var tb = el("table", { id: "mismatch-table" });
      varTable(tb, mm.model, null, mm.got || {}, mm.differ);
      mismatchBox.appendChild(tb);
    } else {
      mismatchBox.hidden = true;
      mismatchBox.textContent = "";
    }
    varTable(varsTable, s, p, null, null);
    if (history.replaceState) history.replaceState(null, "", "#step=" + n);
  }

  function sinceStep(inv, n) {
    var k = n;
    while (k > 0 && (D.steps[k - 1].violated || []).some(function (v) { return v.inv === inv; })) k--;
    return k;
  }

  document.addEventListener("keydown", function (e) {
    if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey) return; // the slider steps itself
    var to = { ArrowLeft: cur - 1, ArrowRight: cur + 1, Home: 0, End: N - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  });
  function fromHash() {
    var m = /step=(\d+)/.exec(location.hash);
    return m ? parseInt(m[1], 10) : 0;
  }
  // A link to #step=N on the same page moves it there.
  window.addEventListener("hashchange", function () { go(fromHash()); });
  go(fromHash());
})();
