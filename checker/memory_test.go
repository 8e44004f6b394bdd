package checker

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestMemoryResidentBytes reads this process's resident set.
func TestMemoryResidentBytes(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc/self/statm")
	}
	if r := residentBytes("/proc/self/statm"); r < 1<<20 || r > 1<<40 {
		t.Fatalf("resident set %d bytes", r)
	}
	if r := residentBytes("/nonexistent/statm"); r != 0 {
		t.Fatalf("unreadable: %d", r)
	}
}

// TestMemoryGuardRSS: the guard stops when the resident set passes its
// limit, reads it at most every g.every (and at once for an allocation
// about to be made), and says which measure passed.
func TestMemoryGuardRSS(t *testing.T) {
	root := t.TempDir()
	writeStatm(t, root, 100<<20)
	g := newMemGuard(64*gib, root)
	g.every = time.Hour
	if g.check(0) || g.rssPeakBytes() != 100<<20 {
		t.Fatalf("below the limit: over %v, peak %d", g.stopped(), g.rssPeakBytes())
	}
	writeStatm(t, root, 65*gib)
	if g.check(0) {
		t.Fatal("resident set read again within g.every")
	}
	if !g.check(1) || !g.stopped() {
		t.Fatal("an allocation about to be made did not read the resident set")
	}
	if what, at, need := g.passedBy(); what != "resident set" || at != 65*gib || need != 1 {
		t.Fatalf("passed by %s at %d with %d", what, at, need)
	}

	g = newMemGuard(64*gib, root)
	if !g.check(0) {
		t.Fatal("first sample over the limit")
	}
	g = newMemGuard(1, root)
	if !g.check(0) {
		t.Fatal("heap over a 1-byte limit")
	}
	if what, _, _ := g.passedBy(); what != "Go heap" {
		t.Fatalf("passed by %s", what)
	}
}

// TestMemoryStopAtRSS: a search whose resident set passes the machine's
// bound, while its Go heap is far below it, stops gracefully, with a hint
// that names the resident set and where the bound came from.
func TestMemoryStopAtRSS(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "sys/fs/cgroup/cgroup.controllers", "memory\n")
	writeFile(t, root, "sys/fs/cgroup/memory.max", "68719476736\n") // 64 GiB: a bound of 56 GiB
	writeStatm(t, root, 60*gib)
	for _, opt := range []Options{{Workers: 2}, {Mode: DepthFirst}} {
		opt.machineRoot = root
		r := Search[pt](&cgrid{grid: grid{N: 100}}, opt)
		if r.Stop != StopMaxMemory || r.Complete || r.Err != nil || r.MemoryBound != 56*gib || r.RSSBytes != 60*gib ||
			!strings.Contains(r.Hint, "resident set reached 61440 MiB") || !strings.Contains(r.Hint, "cgroup v2 memory.max of / (65536 MiB)") {
			t.Fatalf("%v: stop %s complete %v err %v bound %d rss %d hint %q", opt.Mode, r.Stop, r.Complete, r.Err, r.MemoryBound, r.RSSBytes, r.Hint)
		}
	}
}
