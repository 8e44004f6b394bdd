package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRingfdGoWalksInSpec turns random walks of the Go daemons (N = 4,
// F = 2, under ringfd.qnt's abstraction: see WalkRingfd) into Quint run
// tests (each Go step is the spec action, then .expect of the Go state)
// and runs them with `quint test`; a copy of one walk with a wrong
// expected state must fail. Knob: GO_WALKS (default 2).
func TestRingfdGoWalksInSpec(t *testing.T) {
	quint := quintBin(t)
	var runs []string
	steps, crashes := 0, 0
	var first *RingfdWalk
	for i := range envInt("GO_WALKS", 2) {
		g, err := WalkRingfd(4, 2, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = g
		}
		steps += len(g.Steps)
		crashes += len(g.Steps[len(g.Steps)-1].After.Crashed)
		runs = append(runs, g.QuintRun(fmt.Sprintf("walk%dTest", i)))
	}
	dir := t.TempDir()
	src := RingfdQuintModule("replayRingfdWalks", "./ringfd", 4, 2, []int{1, 2}, runs...)
	if err := os.WriteFile(filepath.Join(dir, "replayRingfdWalks.qnt"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, ok := quintTest(t, "ringfd.qnt", quint, dir, "replayRingfdWalks.qnt", "replayRingfdWalks"); !ok {
		t.Fatalf("Go walks do not replay in ringfd.qnt:\n%s", out)
	}
	t.Logf("%d Go walks (%d steps, %d crashes) replay in ringfd.qnt", len(runs), steps, crashes)

	// the same walk with daemon 0's last Reported altered must be rejected
	broken := *first
	broken.Steps = append([]RingfdStep(nil), first.Steps...)
	last := &broken.Steps[len(broken.Steps)-1].After
	rep := append([][]int(nil), last.Reported...)
	rep[0] = append(append([]int(nil), rep[0]...), 99)
	last.Reported = rep
	src = RingfdQuintModule("replayRingfdBroken", "./ringfd", 4, 2, []int{1, 2}, broken.QuintRun("brokenTest"))
	if err := os.WriteFile(filepath.Join(dir, "replayRingfdBroken.qnt"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, ok := quintTest(t, "ringfd.qnt", quint, dir, "replayRingfdBroken.qnt", "replayRingfdBroken")
	if ok {
		t.Fatalf("quint test passed on a wrong expected state:\n%s", out)
	}
	if !strings.Contains(out, "brokenTest") || !strings.Contains(out, "Expect condition does not hold") {
		t.Fatalf("quint test failed, but not on the altered expectation:\n%s", out)
	}
	t.Logf("the walk with a wrong expected Reported is rejected (Expect condition does not hold true)")
}
