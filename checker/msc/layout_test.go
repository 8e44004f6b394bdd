package msc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// wide is a lasso of six processes and 40 steps: p0 and p1 exchange a
// REQUEST and a REPLY sent at step 1 and delivered at step 3 (their
// labels would meet at the same point), p0 crashes with p3, which it
// hosts, p0's PING to p5 is lost, its PING to p4 stays in flight, and
// steps 31–40 lead back to the state after step 30.
func wide() Chart {
	const n, last = 6, 40
	c := Chart{Title: "six processes", Processes: n, Loop: 10, Violation: "eventually done: a cycle of 10 steps never satisfies it"}
	for k := 1; k <= last; k++ {
		c.Steps = append(c.Steps, fmt.Sprintf("step %d: p%d does something with a rather long description of what it does", k, k%n))
	}
	for k := 0; k <= last; k++ {
		row := make([]string, n)
		for p := range row {
			row[p] = fmt.Sprintf("process p%d round=%d view={p0,p1,p2,p3,p4,p5} suspects={}", p, k)
		}
		c.States = append(c.States, row)
	}
	c.Events = []Event{
		{Step: 1, Kind: Send, P: 0, Q: 1, MsgID: 1, Label: "REQUEST"},
		{Step: 1, Kind: Send, P: 1, Q: 0, MsgID: 2, Label: "REPLY"},
		{Step: 2, Kind: Send, P: 0, Q: 5, MsgID: 3, Label: "PING"},
		{Step: 2, Kind: Send, P: 0, Q: 4, MsgID: 4, Label: "PING"},
		{Step: 3, Kind: Recv, P: 1, Q: 0, MsgID: 1},
		{Step: 3, Kind: Recv, P: 0, Q: 1, MsgID: 2},
		{Step: 4, Kind: Crash, P: 0},
		{Step: 4, Kind: Crash, P: 3, Label: "with its host p0"},
		{Step: 5, Kind: Lost, P: 5, Q: 0, MsgID: 3, Label: "PING"},
		{Step: 6, Kind: Detect, P: 1, Q: 0, Label: "p0 dead"},
		{Step: 6, Kind: Note, P: 2, Label: "suspects p0"},
	}
	for k := 31; k <= last; k++ {
		c.Events = append(c.Events,
			Event{Step: k, Kind: Send, P: k % 2, Q: 1 - k%2, MsgID: 100 + k, Label: "HB(seq=" + strconv.Itoa(k) + ")"},
			Event{Step: k, Kind: Recv, P: 1 - k%2, Q: k % 2, MsgID: 100 + k})
	}
	return c
}

// TestLegend: the page has a legend of the marks its chart uses: the
// dashed stubs (messages never delivered) and lost messages when there
// are any, the loop of a lasso; none for marks it does not use.
func TestLegend(t *testing.T) {
	entries := func(page string) map[string]bool {
		i := strings.Index(page, `<div id="legend">`)
		if i < 0 {
			t.Fatal("no legend")
		}
		out := map[string]bool{}
		for _, m := range regexp.MustCompile(`data-legend="([^"]+)"`).FindAllStringSubmatch(page[i:], -1) {
			out[m[1]] = true
		}
		return out
	}
	got := entries(render(t, sample()))
	for _, k := range []string{"msg", "msg-inflight", "crash", "detect", "call", "decide"} {
		if !got[k] {
			t.Errorf("sample: no legend entry %s", k)
		}
	}
	if got["lost"] || got["loop"] {
		t.Errorf("sample: legend %v has entries for marks it does not use", got)
	}
	got = entries(render(t, wide()))
	for _, k := range []string{"msg", "msg-inflight", "lost", "crash", "detect", "note", "loop"} {
		if !got[k] {
			t.Errorf("wide: no legend entry %s", k)
		}
	}
	if got["call"] || got["decide"] {
		t.Errorf("wide: legend %v has entries for marks it does not use", got)
	}
	if got := entries(render(t, Chart{Processes: 2})); got["msg-inflight"] {
		t.Error("a chart without messages has a legend entry for stubs")
	}
}

// TestLoopStart: a lasso's loop start is on the page (data-loop-start,
// the step after which the loop starts) and Validate refuses a loop
// longer than the chart; a lost message needs its send.
func TestLoopStart(t *testing.T) {
	c := wide()
	if c.Last() != 40 || c.LoopStart() != 30 {
		t.Fatalf("Last %d, LoopStart %d; want 40, 30", c.Last(), c.LoopStart())
	}
	if got := bodyAttr(render(t, c), "data-loop-start"); got != "30" {
		t.Errorf("body data-loop-start=%q, want 30", got)
	}
	if got := bodyAttr(render(t, sample()), "data-loop-start"); got != "" {
		t.Errorf("a chart that is not a lasso has a loop start: %q", got)
	}
	for name, f := range map[string]func(*Chart){
		"loop too long": func(c *Chart) { c.Loop = 41 },
		"negative loop": func(c *Chart) { c.Loop = -1 },
		"lost unsent":   func(c *Chart) { c.Events[8].MsgID = 99 },
		"lost and recv": func(c *Chart) { c.Events[8].MsgID = 1 },
	} {
		c := wide()
		f(&c)
		if err := WriteHTML(&bytes.Buffer{}, c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestStyleRules: the state table's rank column does not wrap; the chart
// scrolls inside a box no taller than the window.
func TestStyleRules(t *testing.T) {
	page := render(t, wide())
	for _, re := range []string{
		`#detail td\.rank\{[^}]*white-space:nowrap`,
		`#chart\{[^}]*overflow:auto`,
		`html,body\{height:100%\}`,
		`#wrap\{[^}]*min-height:0`,
		`className = "rank"`,
		`addEventListener\("keydown"`,
	} {
		if !regexp.MustCompile(re).MatchString(page) {
			t.Errorf("page lacks %s", re)
		}
	}
}

// probe runs in the page after the chart's script, in a 1400×1000 window,
// and records on the body: data-probe-fit ("ok" when every process name is
// inside the chart's box, or the box scrolls sideways, and the box is
// inside the window); data-probe-overlaps (pairs of labels whose boxes
// overlap); data-probe-keys (the step selected after each of ←, k, j,
// Home, →, End); data-probe-visible ("ok" when the selected row is inside
// the chart's box after Home and after End); data-probe-loop (the loop
// start marked in the drawing); data-probe-rank-ws (the rank cells'
// white-space); data-probe-crashes (crash marks drawn).
const probe = `<script>
(function () {
  var b = document.body, box = document.getElementById("chart"), r = box.getBoundingClientRect();
  var out = 0;
  document.querySelectorAll("#chart text.pname").forEach(function (t) {
    var q = t.getBoundingClientRect();
    if (q.right > r.right + 0.5 || q.left < r.left - 0.5) out++;
  });
  var ox = getComputedStyle(box).overflowX, scrolls = box.scrollWidth > box.clientWidth && (ox === "auto" || ox === "scroll");
  var inWindow = r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
  b.setAttribute("data-probe-fit", (out === 0 || scrolls) && inWindow ? "ok" :
    out + " names outside, scrolls " + scrolls + ", box bottom " + r.bottom + " right " + r.right + ", window " + innerWidth + "x" + innerHeight);
  var ts = Array.prototype.slice.call(document.querySelectorAll("#chart svg text.msglabel, #chart svg text.marklabel, #chart svg text.looplabel, #chart svg text.pname"));
  var rs = ts.map(function (t) { return t.getBoundingClientRect(); }), over = 0;
  for (var i = 0; i < rs.length; i++) for (var j = i + 1; j < rs.length; j++) {
    var a = rs[i], c = rs[j];
    if (Math.min(a.right, c.right) - Math.max(a.left, c.left) > 1 && Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top) > 1) over++;
  }
  b.setAttribute("data-probe-overlaps", over);
  function key(k) {
    document.dispatchEvent(new KeyboardEvent("keydown", {key: k, bubbles: true}));
    return b.getAttribute("data-selected-step");
  }
  function visible() {
    var row = document.querySelector("#chart rect.row.sel");
    if (!row) return "no selected row";
    var q = row.getBoundingClientRect(), v = box.getBoundingClientRect();
    return q.top >= v.top - 0.5 && q.bottom <= v.bottom + 0.5 ? "ok" : "row " + q.top + "-" + q.bottom + " box " + v.top + "-" + v.bottom;
  }
  var keys = [key("ArrowLeft"), key("k"), key("j"), key("Home")];
  var vis = [visible()];
  keys.push(key("ArrowRight"), key("End"));
  vis.push(visible());
  b.setAttribute("data-probe-keys", keys.join(","));
  b.setAttribute("data-probe-visible", vis[0] === "ok" && vis[1] === "ok" ? "ok" : vis.join("; "));
  var l = document.querySelector("#chart svg [data-loop-start]");
  b.setAttribute("data-probe-loop", l ? l.getAttribute("data-loop-start") : "");
  var td = document.querySelector("#detail td");
  b.setAttribute("data-probe-rank-ws", td ? getComputedStyle(td).whiteSpace : "");
  b.setAttribute("data-probe-crashes", document.querySelectorAll("#chart [data-kind=crash]").length);
})();
</script>
`

// TestBrowserWide loads the six-process lasso in headless Chromium with a
// 1400×1000 window: every lifeline is in view or the chart scrolls inside
// the window; no two labels overlap; ← k j Home → End step through the
// chart and keep the selected step in view; the loop start is drawn; the
// rank column does not wrap; both crashes are marked. The screenshot is
// kept at $MSC_SCREENSHOT_WIDE when set.
func TestBrowserWide(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "wide.html")
	html := strings.Replace(render(t, wide()), "</body>", probe+"</body>", 1)
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(browse(t, bin, page, "--dump-dom", "--window-size=1400,1000"))
	for _, c := range []struct{ attr, want string }{
		{"data-arrows", "12"},
		{"data-inflight", "2"},
		{"data-probe-fit", "ok"},
		{"data-probe-overlaps", "0"},
		{"data-probe-keys", "39,38,39,0,1,40"},
		{"data-probe-visible", "ok"},
		{"data-probe-loop", "30"},
		{"data-probe-rank-ws", "nowrap"},
		{"data-probe-crashes", "2"},
	} {
		if got := bodyAttr(dom, c.attr); got != c.want {
			t.Errorf("%s=%q, want %q", c.attr, got, c.want)
		}
	}
	if keep := os.Getenv("MSC_SCREENSHOT_WIDE"); keep != "" {
		browse(t, bin, page, "--screenshot="+keep, "--window-size=1400,1000")
	}
}
