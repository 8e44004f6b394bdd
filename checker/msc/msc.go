// Package msc draws a counterexample as a message sequence chart: one
// self-contained HTML page (inline CSS, inline SVG drawn by a small inline
// script from embedded JSON; no external scripts, fonts or styles) with a
// lifeline per process, an arrow per message from the step that sent it to
// the step that delivered it, crashes, detections, calls, decisions and
// notes marked on the lifelines, each step's text and the processes' states
// shown on click, and the violated property at the end.
//
// The input is a Chart, a neutral description that the environment layer
// builds from a checker.Trace; this package knows nothing of any model.
package msc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"
)

// Event kinds.
const (
	Send   = "send"   // P sends message MsgID to Q
	Recv   = "recv"   // P receives message MsgID from Q
	Crash  = "crash"  // P crashes (its lifeline ends)
	Detect = "detect" // P detects the crash of Q
	Call   = "call"   // P is called (a client operation starts)
	Decide = "decide" // P decides (an operation returns)
	Note   = "note"   // anything else about P
)

var kinds = map[string]bool{Send: true, Recv: true, Crash: true, Detect: true, Call: true, Decide: true, Note: true}

// Chart is what the page draws. Steps count from 1 as in a checker.Trace
// (step k is the k-th action); step 0 is the initial state.
type Chart struct {
	// Title heads the page (the model's name, say).
	Title string `json:"title,omitempty"`
	// Processes is the number of lifelines, numbered 0..Processes-1.
	Processes int `json:"processes"`
	// Names, when set, labels the lifelines (len(Names) == Processes);
	// otherwise they are "p0", "p1", ….
	Names []string `json:"names,omitempty"`
	// Steps[k-1] is the text of step k (checker.Step.Text); optional.
	Steps []string `json:"steps,omitempty"`
	// Events are drawn on the lifelines, in the row of their step.
	Events []Event `json:"events"`
	// States, optional, is States[k][p]: process p's state after step k
	// (States[0] the initial states), shown when a step is clicked.
	States [][]string `json:"states,omitempty"`
	// Violation, when set, is shown after the last step.
	Violation string `json:"violation,omitempty"`
}

// Event is one mark on a lifeline. A message is a Send and the Recv with the
// same MsgID (MsgID is unique per message in the chart); a Send without its
// Recv is a message still in flight at the end, drawn as a dashed stub.
type Event struct {
	Step  int    `json:"step"`
	Kind  string `json:"kind"`
	P     int    `json:"p"`
	Q     int    `json:"q"`
	MsgID int    `json:"msg"`
	Label string `json:"label,omitempty"`
}

// Messages returns the number of delivered messages (arrows) and of
// messages in flight (stubs) the page draws for c.
func (c *Chart) Messages() (arrows, inFlight int) {
	sent := map[int]bool{}
	for _, e := range c.Events {
		if e.Kind == Send {
			sent[e.MsgID] = true
		}
	}
	for _, e := range c.Events {
		if e.Kind == Recv && sent[e.MsgID] {
			arrows++
			delete(sent, e.MsgID)
		}
	}
	return arrows, len(sent)
}

// Validate reports the first inconsistency of c: no process, an unknown
// kind, a process out of range, a negative step, a message sent or received
// twice, a receive without its send or before it, or States or Names of the
// wrong shape.
func (c *Chart) Validate() error {
	if c.Processes < 1 {
		return fmt.Errorf("msc: %d processes", c.Processes)
	}
	if c.Names != nil && len(c.Names) != c.Processes {
		return fmt.Errorf("msc: %d names for %d processes", len(c.Names), c.Processes)
	}
	sends, recvs := map[int]Event{}, map[int]bool{}
	for i, e := range c.Events {
		if !kinds[e.Kind] {
			return fmt.Errorf("msc: event %d: unknown kind %q", i, e.Kind)
		}
		if e.Step < 0 {
			return fmt.Errorf("msc: event %d: step %d", i, e.Step)
		}
		if e.P < 0 || e.P >= c.Processes {
			return fmt.Errorf("msc: event %d: process %d out of range", i, e.P)
		}
		needQ := e.Kind == Send || e.Kind == Recv || e.Kind == Detect
		if needQ && (e.Q < 0 || e.Q >= c.Processes) {
			return fmt.Errorf("msc: event %d: process %d out of range", i, e.Q)
		}
		if e.Kind == Send {
			if _, dup := sends[e.MsgID]; dup {
				return fmt.Errorf("msc: message %d sent twice", e.MsgID)
			}
			sends[e.MsgID] = e
		}
	}
	for i, e := range c.Events {
		if e.Kind != Recv {
			continue
		}
		s, ok := sends[e.MsgID]
		switch {
		case !ok:
			return fmt.Errorf("msc: event %d: message %d received but never sent", i, e.MsgID)
		case recvs[e.MsgID]:
			return fmt.Errorf("msc: message %d received twice", e.MsgID)
		case s.Step > e.Step:
			return fmt.Errorf("msc: message %d received at step %d before it was sent at step %d", e.MsgID, e.Step, s.Step)
		}
		recvs[e.MsgID] = true
	}
	for k, row := range c.States {
		if len(row) != c.Processes {
			return fmt.Errorf("msc: states after step %d: %d for %d processes", k, len(row), c.Processes)
		}
	}
	return nil
}

// WriteHTML writes the page of c to w. The drawing is done in the browser
// from the chart embedded as JSON; once drawn, the page's body carries
// data-arrows (message arrows drawn, each an SVG element of class "msg"),
// data-inflight (stubs, class "msg-inflight") and data-events (marks, class
// "ev"), so a test can check that the script ran. The body also carries
// data-expect-arrows, written here from Messages.
func WriteHTML(w io.Writer, c Chart) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.Events == nil {
		c.Events = []Event{}
	}
	js, err := json.Marshal(c) // escapes <, > and & so it cannot close the script
	if err != nil {
		return err
	}
	arrows, inFlight := c.Messages()
	title := c.Title
	if title == "" {
		title = "counterexample"
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</title>\n<style>\n")
	b.WriteString(css)
	b.WriteString("</style>\n</head>\n<body data-expect-arrows=\"")
	b.WriteString(strconv.Itoa(arrows))
	b.WriteString("\" data-expect-inflight=\"")
	b.WriteString(strconv.Itoa(inFlight))
	b.WriteString("\">\n<h1>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</h1>\n<noscript><p>This chart is drawn by a script: enable JavaScript.</p></noscript>\n")
	b.WriteString("<div id=\"wrap\"><div id=\"chart\"></div><div id=\"detail\"><p class=\"hint\">Click a step or a mark to see its text and the processes' states.</p></div></div>\n")
	b.WriteString("<script type=\"application/json\" id=\"data\">")
	b.Write(js)
	b.WriteString("</script>\n<script>\n")
	b.WriteString(script)
	b.WriteString("</script>\n</body>\n</html>\n")
	_, err = w.Write(b.Bytes())
	return err
}

const css = `body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:16px;color:#222;background:#fff}
h1{font-size:18px;margin:0 0 12px}
#wrap{display:flex;gap:16px;align-items:flex-start}
#chart{flex:0 0 auto;overflow:auto;max-width:75vw;border:1px solid #ddd}
#detail{flex:1 1 260px;min-width:220px;border:1px solid #ddd;padding:8px 12px;position:sticky;top:8px}
#detail h2{font-size:15px;margin:4px 0}
#detail table{border-collapse:collapse;width:100%}
#detail td{border-top:1px solid #eee;padding:2px 4px;vertical-align:top;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;word-break:break-word}
.hint{color:#777}
svg text{font-size:12px;fill:#222}
.lifeline{stroke:#888;stroke-width:1.5}
.dead{stroke:#bbb;stroke-dasharray:4 4}
.row{fill:transparent;cursor:pointer}
.row:hover,.row.sel{fill:#eef4ff}
.stepno{fill:#666;font-size:11px}
.steptext{fill:#555;font-size:11px}
.msg{stroke:#1f5fbf;stroke-width:1.6;fill:none}
.msg-inflight{stroke:#1f5fbf;stroke-width:1.4;stroke-dasharray:5 4;fill:none}
.msglabel{fill:#1f5fbf;font-size:11px}
.ev{cursor:pointer}
.crash{stroke:#c00;stroke-width:3}
.detect{fill:#e69500}
.call{fill:#2a9d3a}
.decide{fill:#7b3fbf}
.note{fill:#666}
.sendpt,.recvpt{fill:#1f5fbf}
.violation{fill:#fde8e8;stroke:#c00}
.violation-text{fill:#900;font-weight:600}
.pname{font-weight:600;font-size:13px}
`

const script = `(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var c = JSON.parse(document.getElementById("data").textContent);
  var n = c.processes, evs = c.events || [], steps = c.steps || [], states = c.states || [];
  var last = Math.max(steps.length, states.length - 1, 0);
  evs.forEach(function (e) { if (e.step > last) last = e.step; });
  var left = 260, colW = 150, top = 56, rowH = 34;
  var width = left + n * colW + 20;
  var vioH = c.violation ? 44 : 0;
  var height = top + (last + 1) * rowH + vioH + 20;
  function x(p) { return left + p * colW + colW / 2; }
  function y(k) { return top + k * rowH + rowH / 2; }
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function txt(s, attrs, parent) { var t = el("text", attrs, parent); t.textContent = s; return t; }
  function name(p) { return c.names ? c.names[p] : "p" + p; }
  var svg = el("svg", {width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img"});
  el("defs", {}, svg).innerHTML = '<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fbf"/></marker>';
  var rows = el("g", {}, svg), lines = el("g", {}, svg), msgs = el("g", {}, svg), marks = el("g", {}, svg);
  var detail = document.getElementById("detail");
  var selected = null;
  function show(k, extra) {
    if (selected) selected.classList.remove("sel");
    selected = rowEls[k]; if (selected) selected.classList.add("sel");
    detail.textContent = "";
    var h = document.createElement("h2");
    h.textContent = k === 0 ? "Initial state" : "Step " + k;
    detail.appendChild(h);
    if (k > 0 && steps[k - 1] !== undefined) { var p = document.createElement("p"); p.textContent = steps[k - 1]; detail.appendChild(p); }
    if (extra) { var q = document.createElement("p"); q.textContent = extra; q.className = "hint"; detail.appendChild(q); }
    if (states[k]) {
      var t = document.createElement("table");
      for (var i = 0; i < n; i++) {
        var tr = t.insertRow(), a = tr.insertCell(), b = tr.insertCell();
        a.textContent = name(i); b.textContent = states[k][i];
      }
      detail.appendChild(t);
    }
  }
  var rowEls = [];
  for (var k = 0; k <= last; k++) {
    var r = el("rect", {class: "row", x: 0, y: top + k * rowH, width: width, height: rowH, "data-step": k}, rows);
    rowEls.push(r);
    (function (k) { r.addEventListener("click", function () { show(k); }); })(k);
    txt(k === 0 ? "init" : String(k), {class: "stepno", x: 6, y: y(k) + 4}, rows);
    if (k > 0 && steps[k - 1] !== undefined) {
      var s = steps[k - 1]; if (s.length > 38) s = s.slice(0, 37) + "\u2026";
      var st = txt(s, {class: "steptext", x: 40, y: y(k) + 4}, rows);
      el("title", {}, st).textContent = steps[k - 1];
    }
  }
  var crashed = {};
  evs.forEach(function (e) { if (e.kind === "crash" && (crashed[e.p] === undefined || e.step < crashed[e.p])) crashed[e.p] = e.step; });
  for (var p = 0; p < n; p++) {
    txt(name(p), {class: "pname", x: x(p), y: 36, "text-anchor": "middle"}, lines);
    var end = crashed[p] !== undefined ? y(crashed[p]) : y(last) + rowH / 2;
    el("line", {class: "lifeline", x1: x(p), y1: 44, x2: x(p), y2: end}, lines);
    if (crashed[p] !== undefined) el("line", {class: "lifeline dead", x1: x(p), y1: end, x2: x(p), y2: y(last) + rowH / 2}, lines);
  }
  var sends = {}, arrows = 0, inflight = 0, nev = 0;
  evs.forEach(function (e) { if (e.kind === "send") sends[e.msg] = e; });
  var delivered = {};
  function label(g, s, lx, ly) { if (s) txt(s, {class: "msglabel", x: lx, y: ly, "text-anchor": "middle"}, g); }
  evs.forEach(function (e) {
    if (e.kind !== "recv" || !sends[e.msg] || delivered[e.msg]) return;
    delivered[e.msg] = true;
    var s = sends[e.msg], x1 = x(s.p), y1 = y(s.step), x2 = x(e.p), y2 = y(e.step);
    var d = x1 === x2 ? "M" + x1 + "," + y1 + " C" + (x1 + 60) + "," + y1 + " " + (x2 + 60) + "," + y2 + " " + (x2 + 4) + "," + y2
                      : "M" + x1 + "," + y1 + " L" + x2 + "," + y2;
    var a = el("path", {class: "msg", d: d, "marker-end": "url(#arrow)", "data-msg": e.msg, "data-from-step": s.step, "data-to-step": e.step}, msgs);
    el("title", {}, a).textContent = (s.label || e.label || "message " + e.msg) + ": " + name(s.p) + " \u2192 " + name(e.p) + ", sent at step " + s.step + ", delivered at step " + e.step;
    label(msgs, s.label || e.label, (x1 + x2) / 2 + (x1 === x2 ? 50 : 0), (y1 + y2) / 2 - 4);
    a.addEventListener("click", function () { show(e.step, "delivers " + (s.label || "message " + e.msg) + " sent at step " + s.step); });
    arrows++;
  });
  evs.forEach(function (e) {
    if (e.kind !== "send" || delivered[e.msg]) return;
    var x1 = x(e.p), y1 = y(e.step), x2 = x1 + (x(e.q) > x1 ? 1 : -1) * colW * 0.45;
    if (e.q === e.p) x2 = x1 + colW * 0.45;
    var a = el("path", {class: "msg-inflight", d: "M" + x1 + "," + y1 + " L" + x2 + "," + (y1 + rowH * 0.6), "data-msg": e.msg}, msgs);
    el("title", {}, a).textContent = (e.label || "message " + e.msg) + ": " + name(e.p) + " \u2192 " + name(e.q) + ", sent at step " + e.step + ", never delivered";
    inflight++;
  });
  evs.forEach(function (e) {
    var cx = x(e.p), cy = y(e.step), m, what;
    switch (e.kind) {
    case "send": m = el("circle", {cx: cx, cy: cy, r: 3, class: "ev sendpt"}, marks); what = "sends " + (e.label || "message " + e.msg) + " to " + name(e.q); break;
    case "recv": m = el("circle", {cx: cx, cy: cy, r: 3, class: "ev recvpt"}, marks); what = "receives " + (e.label || "message " + e.msg) + " from " + name(e.q); break;
    case "crash":
      m = el("g", {class: "ev crashmark"}, marks);
      el("line", {class: "crash", x1: cx - 8, y1: cy - 8, x2: cx + 8, y2: cy + 8}, m);
      el("line", {class: "crash", x1: cx - 8, y1: cy + 8, x2: cx + 8, y2: cy - 8}, m);
      what = "crashes"; break;
    case "detect":
      m = el("path", {class: "ev detect", d: "M" + cx + "," + (cy - 7) + " l7,7 l-7,7 l-7,-7 z"}, marks);
      what = "detects the crash of " + name(e.q); break;
    default:
      m = el("rect", {class: "ev " + e.kind, x: cx - 6, y: cy - 6, width: 12, height: 12, rx: e.kind === "decide" ? 6 : 2}, marks);
      what = e.kind + (e.label ? ": " + e.label : "");
    }
    if (e.label && e.kind !== "send" && e.kind !== "recv") txt(e.label, {class: "msglabel", x: cx + 10, y: cy - 8}, marks);
    m.setAttribute("data-kind", e.kind);
    el("title", {}, m).textContent = name(e.p) + " " + what + " (step " + e.step + ")";
    m.addEventListener("click", function (ev) { ev.stopPropagation(); show(e.step, name(e.p) + " " + what); });
    nev++;
  });
  if (c.violation) {
    var vy = top + (last + 1) * rowH + 6;
    el("rect", {class: "violation", x: 4, y: vy, width: width - 8, height: vioH - 12, rx: 4}, svg);
    var vt = txt("violated: " + c.violation, {class: "violation-text", x: 14, y: vy + 20}, svg);
    vt.setAttribute("data-violation", "");
  }
  document.getElementById("chart").appendChild(svg);
  document.body.setAttribute("data-arrows", arrows);
  document.body.setAttribute("data-inflight", inflight);
  document.body.setAttribute("data-events", nev);
  show(last);
})();
`
