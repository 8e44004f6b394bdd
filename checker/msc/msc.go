// Package msc draws a counterexample as a message sequence chart: one
// self-contained HTML page (inline CSS, inline SVG drawn by a small inline
// script from embedded JSON; no external scripts, fonts or styles) with a
// lifeline per process, an arrow per message from the step that sent it to
// the step that delivered it, crashes, detections, calls, decisions and
// notes marked on the lifelines, each step's text and the processes' states
// shown on click or with the keyboard (← → or j k: the previous and next
// step), a lasso's loop marked, a legend of the marks the chart uses, and
// the violated property at the end. The columns narrow to fit the window,
// down to a minimum; beyond it the chart scrolls inside the window, with
// the process names kept in view.
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
	Lost   = "lost"   // message MsgID from Q to P is lost (never delivered)
)

var kinds = map[string]bool{Send: true, Recv: true, Crash: true, Detect: true, Call: true, Decide: true, Note: true, Lost: true}

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
	// Loop, when positive, makes the chart a lasso (checker.Trace.Loop):
	// its last Loop steps lead back to the state after step Last()-Loop,
	// where the loop starts.
	Loop int `json:"loop,omitempty"`
}

// Last is the number of the chart's last step (its rows are 0..Last()):
// the largest of len(Steps), len(States)-1 and every event's step.
func (c *Chart) Last() int {
	last := max(len(c.Steps), len(c.States)-1, 0)
	for _, e := range c.Events {
		last = max(last, e.Step)
	}
	return last
}

// LoopStart is the step after which a lasso's loop starts (Last()-Loop),
// or -1 when c is not a lasso.
func (c *Chart) LoopStart() int {
	if c.Loop <= 0 {
		return -1
	}
	return c.Last() - c.Loop
}

// Event is one mark on a lifeline. A message is a Send and the Recv with the
// same MsgID (MsgID is unique per message in the chart); a Send without its
// Recv is a message never delivered, drawn as a dashed stub: one with a
// Lost event (P the receiver, Q the sender) was lost at that step, its stub
// ending in a small cross; any other is still in flight at the end (or
// addressed to a process that crashed). A message sent and received in the
// same step is drawn within that step's row.
type Event struct {
	Step  int    `json:"step"`
	Kind  string `json:"kind"`
	P     int    `json:"p"`
	Q     int    `json:"q"`
	MsgID int    `json:"msg"`
	Label string `json:"label,omitempty"`
}

// Messages returns the number of delivered messages (arrows) and of
// messages never delivered (stubs: lost, or still in flight at the end) the
// page draws for c.
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
// (or lost) twice, a receive or loss without its send or before it, States
// or Names of the wrong shape, or a loop longer than the chart.
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
		needQ := e.Kind == Send || e.Kind == Recv || e.Kind == Detect || e.Kind == Lost
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
		if e.Kind != Recv && e.Kind != Lost {
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
	if c.Loop < 0 || c.Loop > c.Last() {
		return fmt.Errorf("msc: loop of %d steps in %d", c.Loop, c.Last())
	}
	return nil
}

// WriteHTML writes the page of c to w. The drawing is done in the browser
// from the chart embedded as JSON; once drawn, the page's body carries
// data-arrows (message arrows drawn, each an SVG element of class "msg"),
// data-inflight (stubs, class "msg-inflight"), data-events (marks, class
// "ev") and data-selected-step (the step shown in the detail panel), so a
// test can check that the script ran. The body also carries
// data-expect-arrows and data-expect-inflight, written here from Messages,
// and, for a lasso, data-loop-start (LoopStart). The legend (id "legend")
// is written here and lists the marks c uses.
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
	if ls := c.LoopStart(); ls >= 0 {
		b.WriteString("\" data-loop-start=\"")
		b.WriteString(strconv.Itoa(ls))
	}
	b.WriteString("\">\n<h1>")
	b.WriteString(html.EscapeString(title))
	b.WriteString("</h1>\n")
	writeLegend(&b, &c, arrows, inFlight)
	b.WriteString("<noscript><p>This chart is drawn by a script: enable JavaScript.</p></noscript>\n")
	b.WriteString("<div id=\"wrap\"><div id=\"chart\" tabindex=\"0\"></div><div id=\"detail\"><p class=\"hint\">Click a step or a mark to see its text and the processes' states.</p></div></div>\n")
	b.WriteString("<script type=\"application/json\" id=\"data\">")
	b.Write(js)
	b.WriteString("</script>\n<script>\n")
	b.WriteString(script)
	b.WriteString("</script>\n</body>\n</html>\n")
	_, err = w.Write(b.Bytes())
	return err
}

// legendItem is one entry of the legend: a 30×16 SVG sample and its text.
type legendItem struct {
	kind, sample, text string
}

// writeLegend writes the legend of the marks c uses, and the keys.
func writeLegend(b *bytes.Buffer, c *Chart, arrows, stubs int) {
	has := map[string]bool{}
	for _, e := range c.Events {
		has[e.Kind] = true
	}
	var items []legendItem
	if arrows > 0 {
		items = append(items, legendItem{"msg", `<line class="lgmsg" x1="2" y1="3" x2="26" y2="13" marker-end="url(#lg-arrow)"/>`,
			"message, from the step that sends it to the step that delivers it"})
	}
	if stubs > 0 {
		items = append(items, legendItem{"msg-inflight", `<line class="lgstub" x1="2" y1="3" x2="22" y2="12"/>`,
			"dashed stub: a message never delivered (still in flight at the end, or sent to a crashed process)"})
	}
	if has[Lost] {
		items = append(items, legendItem{"lost", `<line class="lgstub" x1="2" y1="3" x2="20" y2="11"/><path class="lostmark" d="M17,8 l6,6 M23,8 l-6,6"/>`,
			"dashed stub ending in ×: a message lost"})
	}
	if has[Crash] {
		items = append(items, legendItem{"crash", `<line class="lifeline" x1="15" y1="0" x2="15" y2="8"/><line class="lifeline dead" x1="15" y1="8" x2="15" y2="16"/><path class="crash" d="M9,2 l12,12 M21,2 l-12,12"/>`,
			"crash: the lifeline ends (also for a process that dies with its host)"})
	}
	if has[Detect] {
		items = append(items, legendItem{"detect", `<path class="detect" d="M15,1 l7,7 l-7,7 l-7,-7 z"/>`, "detection of a crash"})
	}
	if has[Call] {
		items = append(items, legendItem{"call", `<rect class="call" x="9" y="2" width="12" height="12" rx="2"/>`, "call (an operation starts)"})
	}
	if has[Decide] {
		items = append(items, legendItem{"decide", `<rect class="decide" x="9" y="2" width="12" height="12" rx="6"/>`, "decision (an operation returns)"})
	}
	if has[Note] {
		items = append(items, legendItem{"note", `<rect class="note" x="9" y="2" width="12" height="12" rx="2"/>`, "note"})
	}
	if ls := c.LoopStart(); ls >= 0 {
		items = append(items, legendItem{"loop", `<rect class="looprow" x="0" y="0" width="30" height="16"/><path class="loopmark" d="M26,14 h-8 v-11 h8" marker-end="url(#lg-loop)"/>`,
			fmt.Sprintf("loop: steps %d–%d lead back to the state after step %d, where the loop starts", ls+1, c.Last(), ls)})
	}
	b.WriteString("<div id=\"legend\"><svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\"><defs>")
	b.WriteString(`<marker id="lg-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fbf"/></marker>`)
	b.WriteString(`<marker id="lg-loop" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#b7791f"/></marker>`)
	b.WriteString("</defs></svg>")
	for _, it := range items {
		fmt.Fprintf(b, "<span class=\"item\" data-legend=\"%s\"><svg width=\"30\" height=\"16\" aria-hidden=\"true\">%s</svg>%s</span>", it.kind, it.sample, html.EscapeString(it.text))
	}
	b.WriteString("<span class=\"item keys\"><kbd>←</kbd><kbd>→</kbd> or <kbd>k</kbd><kbd>j</kbd>: previous / next step; <kbd>Home</kbd><kbd>End</kbd>: first / last</span></div>\n")
}

const css = `html,body{height:100%}
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;padding:12px 16px;box-sizing:border-box;color:#222;background:#fff;display:flex;flex-direction:column}
h1{font-size:18px;margin:0 0 6px;flex:0 0 auto}
#legend{flex:0 0 auto;display:flex;flex-wrap:wrap;gap:4px 16px;margin:0 0 8px;font-size:12px;color:#444}
#legend .item{display:inline-flex;align-items:center;gap:4px;white-space:nowrap}
#legend kbd{font:11px ui-monospace,Menlo,Consolas,monospace;border:1px solid #ccc;border-radius:3px;padding:0 3px;margin:0 1px;background:#f7f7f7}
#wrap{flex:1 1 auto;min-height:0;display:flex;gap:16px;align-items:stretch}
#chart{flex:1 1 0;min-width:0;overflow:auto;border:1px solid #ddd;position:relative;outline:none}
#chart .head{position:sticky;top:0;z-index:1;background:#fff;border-bottom:1px solid #eee;width:max-content}
#chart svg{display:block}
#detail{flex:0 0 320px;overflow:auto;border:1px solid #ddd;padding:8px 12px}
#detail h2{font-size:15px;margin:4px 0}
#detail table{border-collapse:collapse;width:100%}
#detail td{border-top:1px solid #eee;padding:2px 4px;vertical-align:top;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;word-break:break-word}
#detail td.rank{white-space:nowrap;word-break:normal;font-weight:600}
#detail tr.changed td{background:#fff8e1}
.hint{color:#777}
svg text{font-size:12px;fill:#222}
.lifeline{stroke:#888;stroke-width:1.5}
.dead{stroke:#bbb;stroke-dasharray:4 4}
.row{fill:transparent;cursor:pointer}
.row.looprow,.looprow{fill:#fdf6e3}
.row.loopstart{fill:#fbe3b0}
.row:hover,.row.sel{fill:#eef4ff}
.loopmark{stroke:#b7791f;stroke-width:2;fill:none}
.looplabel{fill:#8a5a12;font-size:11px;font-weight:600}
.stepno{fill:#666;font-size:11px}
.steptext{fill:#555;font-size:11px}
.msg,.lgmsg{stroke:#1f5fbf;stroke-width:1.6;fill:none}
.msg-inflight,.lgstub{stroke:#1f5fbf;stroke-width:1.4;stroke-dasharray:5 4;fill:none}
.lostmark{stroke:#c00;stroke-width:2;fill:none}
.msglabel{fill:#1f5fbf;font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
.marklabel{fill:#333;font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
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
  var loopStart = c.loop > 0 ? last - c.loop : -1;
  var box = document.getElementById("chart"), detail = document.getElementById("detail");
  var headH = 40, rowH = 34, pad = 6, avail = box.clientWidth - 40;
  var colW = Math.max(90, Math.min(150, Math.floor((avail - 250) / n)));
  var left = Math.max(250, Math.min(380, avail - n * colW));
  var width = left + n * colW + 20;
  var vioH = c.violation ? 44 : 0;
  var height = pad + (last + 1) * rowH + vioH + 20;
  function x(p) { return left + p * colW + colW / 2; }
  function y(k) { return pad + k * rowH + rowH / 2; }
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function txt(s, attrs, parent) { var t = el("text", attrs, parent); t.textContent = s; return t; }
  function name(p) { return c.names ? c.names[p] : "p" + p; }
  function fit(t, s, w) {
    if (t.getComputedTextLength() <= w) return;
    var lo = 0, hi = s.length;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      t.textContent = s.slice(0, mid) + "\u2026";
      if (t.getComputedTextLength() <= w) lo = mid; else hi = mid - 1;
    }
    t.textContent = s.slice(0, lo) + "\u2026";
  }
  var headDiv = document.createElement("div");
  headDiv.className = "head";
  var head = el("svg", {width: width, height: headH, "aria-hidden": "true"});
  headDiv.appendChild(head);
  var svg = el("svg", {width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "img"});
  box.appendChild(headDiv);
  box.appendChild(svg);
  txt("step", {class: "stepno", x: 6, y: headH - 14}, head);
  for (var p = 0; p < n; p++) {
    var pn = txt(name(p), {class: "pname", x: x(p), y: headH - 14, "text-anchor": "middle"}, head);
    fit(pn, name(p), colW - 8);
    el("title", {}, pn).textContent = name(p);
  }
  el("defs", {}, svg).innerHTML = '<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fbf"/></marker>' +
    '<marker id="looparrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#b7791f"/></marker>';
  var rows = el("g", {}, svg), lines = el("g", {}, svg), msgs = el("g", {}, svg), marks = el("g", {}, svg), labels = el("g", {}, svg);
  var selected = null, cur = -1;
  function show(k, extra) {
    if (selected) selected.classList.remove("sel");
    selected = rowEls[k]; if (selected) selected.classList.add("sel");
    cur = k;
    document.body.setAttribute("data-selected-step", k);
    detail.textContent = "";
    var h = document.createElement("h2");
    h.textContent = k === 0 ? "Initial state" : "Step " + k;
    detail.appendChild(h);
    if (k > 0 && steps[k - 1] !== undefined) { var p = document.createElement("p"); p.textContent = steps[k - 1]; detail.appendChild(p); }
    var notes = [];
    if (extra) notes.push(extra);
    if (k === loopStart) notes.push("The loop starts after this step: steps " + (loopStart + 1) + "\u2013" + last + " lead back to this state.");
    if (loopStart >= 0 && k === last) notes.push("The loop closes: this step leads back to the state after step " + loopStart + ".");
    notes.forEach(function (s) { var q = document.createElement("p"); q.textContent = s; q.className = "hint"; detail.appendChild(q); });
    if (states[k]) {
      var t = document.createElement("table");
      for (var i = 0; i < n; i++) {
        var tr = t.insertRow(), a = tr.insertCell(), b = tr.insertCell();
        a.className = "rank";
        a.textContent = name(i); b.textContent = states[k][i];
        if (k > 0 && states[k - 1] && states[k - 1][i] !== states[k][i]) tr.className = "changed";
      }
      detail.appendChild(t);
    }
  }
  function reveal(k) {
    var t = headH + pad + k * rowH, b = t + rowH;
    if (t < box.scrollTop + headH) box.scrollTop = t - headH - rowH;
    else if (b > box.scrollTop + box.clientHeight) box.scrollTop = b - box.clientHeight + rowH;
  }
  var rowEls = [];
  for (var k = 0; k <= last; k++) {
    var cls = "row";
    if (loopStart >= 0 && k > loopStart) cls += " looprow";
    if (k === loopStart) cls += " loopstart";
    var r = el("rect", {class: cls, x: 0, y: pad + k * rowH, width: width, height: rowH, "data-step": k}, rows);
    rowEls.push(r);
    (function (k) { r.addEventListener("click", function () { show(k); }); })(k);
    txt(k === 0 ? "init" : String(k), {class: "stepno", x: 6, y: y(k) + 4}, rows);
    if (k > 0 && steps[k - 1] !== undefined) {
      var st = txt(steps[k - 1], {class: "steptext", x: 44, y: y(k) + 4}, rows);
      fit(st, steps[k - 1], left - 56);
      el("title", {}, st).textContent = steps[k - 1];
    }
  }
  var placed = [], hidden = 0;
  function free(b) {
    for (var i = 0; i < placed.length; i++) {
      var a = placed[i];
      if (b.x < a.x + a.width + 2 && a.x < b.x + b.width + 2 && b.y < a.y + a.height + 1 && a.y < b.y + b.height + 1) return false;
    }
    return true;
  }
  function place(s, cls, cands) {
    var t = txt(s, {class: cls}, labels);
    for (var i = 0; i < cands.length; i++) {
      t.setAttribute("x", cands[i][0]); t.setAttribute("y", cands[i][1]); t.setAttribute("text-anchor", cands[i][2] || "middle");
      var b = t.getBBox();
      if (free(b)) { placed.push({x: b.x, y: b.y, width: b.width, height: b.height}); return t; }
    }
    labels.removeChild(t);
    hidden++;
    return null;
  }
  if (loopStart >= 0) {
    var ly = pad + (loopStart + 1) * rowH;
    el("line", {class: "loopmark", x1: 0, y1: ly, x2: width, y2: ly, "stroke-dasharray": "6 3"}, rows);
    var br = el("path", {class: "loopmark loop-start", "data-loop-start": loopStart, "marker-end": "url(#looparrow)",
      d: "M40," + y(last) + " H33 V" + (ly + 3) + " H40"}, rows);
    el("title", {}, br).textContent = "loop: steps " + (loopStart + 1) + "\u2013" + last + " lead back to the state after step " + loopStart;
    place("\u21ba loop starts after step " + loopStart + "; step " + last + " leads back here", "looplabel", [[width - 6, ly - 4, "end"], [width - 6, ly + 13, "end"]]);
  }
  var crashed = {};
  evs.forEach(function (e) { if (e.kind === "crash" && (crashed[e.p] === undefined || e.step < crashed[e.p])) crashed[e.p] = e.step; });
  for (var q = 0; q < n; q++) {
    var end = crashed[q] !== undefined ? y(crashed[q]) : y(last) + rowH / 2;
    el("line", {class: "lifeline", x1: x(q), y1: 0, x2: x(q), y2: end}, lines);
    if (crashed[q] !== undefined) el("line", {class: "lifeline dead", x1: x(q), y1: end, x2: x(q), y2: y(last) + rowH / 2}, lines);
  }
  var sends = {}, lost = {}, arrows = 0, inflight = 0, nev = 0;
  evs.forEach(function (e) { if (e.kind === "send") sends[e.msg] = e; if (e.kind === "lost") lost[e.msg] = e; });
  var delivered = {}, at = {}, todo = [];
  evs.forEach(function (e) {
    if (e.kind !== "recv" || !sends[e.msg] || delivered[e.msg]) return;
    delivered[e.msg] = true;
    var s = sends[e.msg], x1 = x(s.p), y1 = y(s.step), x2 = x(e.p), y2 = y(e.step);
    if (s.step === e.step) { y1 -= rowH * 0.3; y2 += rowH * 0.3; }
    at["s" + e.msg] = y1; at["r" + e.msg] = y2;
    var d = x1 === x2 ? "M" + x1 + "," + y1 + " C" + (x1 + 60) + "," + y1 + " " + (x2 + 60) + "," + y2 + " " + (x2 + 4) + "," + y2
                      : "M" + x1 + "," + y1 + " L" + x2 + "," + y2;
    var a = el("path", {class: "msg", d: d, "marker-end": "url(#arrow)", "data-msg": e.msg, "data-from-step": s.step, "data-to-step": e.step}, msgs);
    var what = s.label || e.label || "message " + e.msg;
    el("title", {}, a).textContent = what + ": " + name(s.p) + " \u2192 " + name(e.p) + ", sent at step " + s.step + ", delivered at step " + e.step;
    a.addEventListener("click", function () { show(e.step, "delivers " + what + " sent at step " + s.step); });
    if (s.label || e.label) {
      var cands = [];
      if (x1 === x2) cands = [[x1 + 50, (y1 + y2) / 2 - 4], [x1 + 50, (y1 + y2) / 2 + 12]];
      else [0.5, 0.35, 0.65, 0.22, 0.78, 0.12, 0.88].forEach(function (t) {
        var px = x1 + (x2 - x1) * t, py = y1 + (y2 - y1) * t;
        cands.push([px, py - 4], [px, py + 13]);
      });
      todo.push([s.label || e.label, cands]);
    }
    arrows++;
  });
  evs.forEach(function (e) {
    if (e.kind !== "send" || delivered[e.msg]) return;
    var x1 = x(e.p), y1 = y(e.step), dx = e.q === e.p ? colW * 0.45 : (x(e.q) > x1 ? 1 : -1) * colW * 0.45;
    var x2 = x1 + dx, y2 = y1 + rowH * 0.6, l = lost[e.msg];
    if (l) {
      x2 = e.q === e.p ? x1 + colW * 0.45 : x1 + (x(e.q) - x1) * 0.5;
      y2 = l.step > e.step ? y(l.step) : y1 + rowH * 0.6;
      at["l" + e.msg] = [x2, y2];
    }
    at["s" + e.msg] = y1;
    var a = el("path", {class: "msg-inflight", d: "M" + x1 + "," + y1 + " L" + x2 + "," + y2, "data-msg": e.msg}, msgs);
    el("title", {}, a).textContent = (e.label || "message " + e.msg) + ": " + name(e.p) + " \u2192 " + name(e.q) + ", sent at step " + e.step +
      (l ? ", lost at step " + l.step : ", never delivered");
    inflight++;
  });
  var markTodo = [];
  evs.forEach(function (e) {
    var cx = x(e.p), cy = y(e.step), m, what;
    switch (e.kind) {
    case "send":
      if (at["s" + e.msg] !== undefined) cy = at["s" + e.msg];
      m = el("circle", {cx: cx, cy: cy, r: 3, class: "ev sendpt"}, marks); what = "sends " + (e.label || "message " + e.msg) + " to " + name(e.q); break;
    case "recv":
      if (at["r" + e.msg] !== undefined) cy = at["r" + e.msg];
      m = el("circle", {cx: cx, cy: cy, r: 3, class: "ev recvpt"}, marks); what = "receives " + (e.label || "message " + e.msg) + " from " + name(e.q); break;
    case "lost":
      if (at["l" + e.msg]) { cx = at["l" + e.msg][0]; cy = at["l" + e.msg][1]; }
      m = el("path", {class: "ev lostmark", d: "M" + (cx - 4) + "," + (cy - 4) + " l8,8 M" + (cx + 4) + "," + (cy - 4) + " l-8,8"}, marks);
      what = "loses " + (e.label || "message " + e.msg) + " from " + name(e.q); break;
    case "crash":
      m = el("g", {class: "ev crashmark"}, marks);
      el("line", {class: "crash", x1: cx - 8, y1: cy - 8, x2: cx + 8, y2: cy + 8}, m);
      el("line", {class: "crash", x1: cx - 8, y1: cy + 8, x2: cx + 8, y2: cy - 8}, m);
      what = "crashes" + (e.label ? " (" + e.label + ")" : ""); break;
    case "detect":
      m = el("path", {class: "ev detect", d: "M" + cx + "," + (cy - 7) + " l7,7 l-7,7 l-7,-7 z"}, marks);
      what = "detects the crash of " + name(e.q); break;
    default:
      m = el("rect", {class: "ev " + e.kind, x: cx - 6, y: cy - 6, width: 12, height: 12, rx: e.kind === "decide" ? 6 : 2}, marks);
      what = e.kind + (e.label ? ": " + e.label : "");
    }
    if (e.label && e.kind !== "send" && e.kind !== "recv" && e.kind !== "lost")
      markTodo.push([e.label, [[cx + 10, cy - 8, "start"], [cx + 10, cy + 16, "start"], [cx - 10, cy - 8, "end"], [cx - 10, cy + 16, "end"]]]);
    m.setAttribute("data-kind", e.kind);
    el("title", {}, m).textContent = name(e.p) + " " + what + " (step " + e.step + ")";
    m.addEventListener("click", function (ev) { ev.stopPropagation(); show(e.step, name(e.p) + " " + what); });
    nev++;
  });
  markTodo.forEach(function (t) { place(t[0], "marklabel", t[1]); });
  todo.forEach(function (t) { place(t[0], "msglabel", t[1]); });
  if (c.violation) {
    var vy = pad + (last + 1) * rowH + 6;
    el("rect", {class: "violation", x: 4, y: vy, width: width - 8, height: vioH - 12, rx: 4}, svg);
    var vt = txt("violated: " + c.violation, {class: "violation-text", x: 14, y: vy + 20}, svg);
    fit(vt, "violated: " + c.violation, width - 28);
    el("title", {}, vt).textContent = c.violation;
    vt.setAttribute("data-violation", "");
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var k;
    switch (ev.key) {
    case "ArrowLeft": case "k": case "p": k = cur - 1; break;
    case "ArrowRight": case "j": case "n": k = cur + 1; break;
    case "Home": k = 0; break;
    case "End": k = last; break;
    default: return;
    }
    ev.preventDefault();
    k = Math.max(0, Math.min(last, k));
    show(k);
    reveal(k);
  });
  document.body.setAttribute("data-arrows", arrows);
  document.body.setAttribute("data-inflight", inflight);
  document.body.setAttribute("data-events", nev);
  document.body.setAttribute("data-labels-hidden", hidden);
  show(last);
})();
`
