package msc

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sample is a small crash-and-detect run of three processes: four
// messages delivered, one still in flight, a crash, a detection, a call
// and a decision.
func sample() Chart {
	return Chart{
		Title:     "era n=3 crashes=1",
		Processes: 3,
		Steps: []string{
			"p0 is called propose(1); sends UP to p1, p2",
			"p1 delivers UP(v=1) from p0; sends DOWN to p0",
			"p2 crashes",
			"p0 delivers DOWN from p1",
			"p1 detects the crash of p2",
			"p1 delivers UP(v=1) from p0 <script>alert(1)</script>",
			"p0 decides 1",
		},
		Events: []Event{
			{Step: 1, Kind: Call, P: 0, Label: "propose(1)"},
			{Step: 1, Kind: Send, P: 0, Q: 1, MsgID: 1, Label: "UP"},
			{Step: 1, Kind: Send, P: 0, Q: 2, MsgID: 2, Label: "UP"},
			{Step: 1, Kind: Send, P: 0, Q: 1, MsgID: 5, Label: "UP'"},
			{Step: 2, Kind: Recv, P: 1, Q: 0, MsgID: 1},
			{Step: 2, Kind: Send, P: 1, Q: 0, MsgID: 3, Label: "DOWN"},
			{Step: 3, Kind: Crash, P: 2},
			{Step: 4, Kind: Recv, P: 0, Q: 1, MsgID: 3},
			{Step: 5, Kind: Detect, P: 1, Q: 2},
			{Step: 5, Kind: Send, P: 1, Q: 1, MsgID: 4, Label: "SELF"},
			{Step: 6, Kind: Recv, P: 1, Q: 0, MsgID: 5},
			{Step: 6, Kind: Recv, P: 1, Q: 1, MsgID: 4},
			{Step: 7, Kind: Decide, P: 0, Label: "1"},
		},
		States: [][]string{
			{"idle", "idle", "idle"},
			{"proposed 1", "idle", "idle"},
			{"proposed 1", "saw UP", "idle"},
			{"proposed 1", "saw UP", "crashed"},
			{"got DOWN", "saw UP", "crashed"},
			{"got DOWN", "suspects p2", "crashed"},
			{"got DOWN", "saw UP twice", "crashed"},
			{"decided 1", "saw UP twice", "crashed"},
		},
		Violation: "invariant Agreement violated after step 7: p0 decided 1 while </script> p2 …",
	}
}

const wantArrows, wantInFlight, wantEvents = 4, 1, 13

func render(t *testing.T, c Chart) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteHTMLStructure(t *testing.T) {
	c := sample()
	if a, f := c.Messages(); a != wantArrows || f != wantInFlight {
		t.Fatalf("Messages() = %d, %d", a, f)
	}
	page := render(t, c)
	for _, bad := range []string{"<script src", "<link", "@import", "url(http", "src=\"http", "href=\"http"} {
		if strings.Contains(page, bad) {
			t.Errorf("page references something external: %q", bad)
		}
	}
	// Exactly two scripts: the data and the drawing code; the chart's text
	// cannot close them.
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("%d <script> tags, want 2", n)
	}
	if n := strings.Count(page, "</script>"); n != 2 {
		t.Errorf("%d </script>, want 2 (chart text must be escaped)", n)
	}
	if !strings.Contains(page, `data-expect-arrows="4"`) || !strings.Contains(page, `data-expect-inflight="1"`) {
		t.Errorf("body lacks the expected counts")
	}
	// The embedded JSON decodes back to the chart.
	m := regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no embedded chart")
	}
	var back Chart
	if err := json.Unmarshal([]byte(m[1]), &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c, back); diff != "" {
		t.Fatalf("embedded chart differs (-want +got):\n%s", diff)
	}
	if !strings.Contains(page, "<title>era n=3 crashes=1</title>") {
		t.Error("no title")
	}
}

func TestValidate(t *testing.T) {
	for name, f := range map[string]func(*Chart){
		"no processes":  func(c *Chart) { c.Processes = 0 },
		"kind":          func(c *Chart) { c.Events[0].Kind = "teleport" },
		"process":       func(c *Chart) { c.Events[1].Q = 3 },
		"unsent":        func(c *Chart) { c.Events[4].MsgID = 99 },
		"before send":   func(c *Chart) { c.Events[4].Step = 0 },
		"twice":         func(c *Chart) { c.Events[7].MsgID = 1 },
		"states shape":  func(c *Chart) { c.States[2] = c.States[2][:2] },
		"names shape":   func(c *Chart) { c.Names = []string{"a"} },
		"negative step": func(c *Chart) { c.Events[0].Step = -1 },
	} {
		c := sample()
		f(&c)
		if err := WriteHTML(&bytes.Buffer{}, c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// The smallest chart: one process, nothing happens.
	if err := WriteHTML(&bytes.Buffer{}, Chart{Processes: 1}); err != nil {
		t.Fatal(err)
	}
}

// chromium returns the path of a headless Chromium, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not found: install Debian's chromium package to run this test")
	return ""
}

// browse runs bin headless on the file page with args and returns its
// standard output.
func browse(t *testing.T, bin, page string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.Bytes())
	}
	return out
}

// bodyAttr is the value of the body's attribute name in dom, or "".
func bodyAttr(dom, name string) string {
	m := regexp.MustCompile(`<body[^>]*\b` + name + `="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		return ""
	}
	return m[1]
}

// TestBrowser loads the page in headless Chromium and checks that the
// script drew every arrow, stub and mark, then takes a screenshot (kept at
// $MSC_SCREENSHOT when set).
func TestBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "chart.html")
	if err := os.WriteFile(page, []byte(render(t, sample())), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(browse(t, bin, page, "--dump-dom"))
	attr := func(name string) string { return bodyAttr(dom, name) }
	if got := attr("data-arrows"); got != "4" {
		t.Fatalf("data-arrows=%q, want 4 (did the script run?)", got)
	}
	if got, want := attr("data-inflight"), "1"; got != want {
		t.Errorf("data-inflight=%q, want %s", got, want)
	}
	if got := attr("data-events"); got != "13" {
		t.Errorf("data-events=%q, want %d", got, wantEvents)
	}
	if n := strings.Count(dom, `class="msg"`); n != wantArrows {
		t.Errorf("%d SVG elements of class msg, want %d", n, wantArrows)
	}
	if n := strings.Count(dom, `class="msg-inflight"`); n != wantInFlight {
		t.Errorf("%d in-flight stubs, want %d", n, wantInFlight)
	}
	if !strings.Contains(dom, "data-violation") {
		t.Error("violation not drawn")
	}
	shot := filepath.Join(dir, "chart.png")
	browse(t, bin, page, "--screenshot="+shot, "--window-size=1200,800", "--hide-scrollbars")
	b, err := os.ReadFile(shot)
	if err != nil || len(b) < 1000 || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("screenshot: %v, %d bytes", err, len(b))
	}
	if keep := os.Getenv("MSC_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
