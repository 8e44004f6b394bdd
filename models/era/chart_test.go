package era

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/msc"
	"github.com/ftkernel/ftkernel/registry"
)

// TestChartOfUniformCounterexample: the 7-step uniform-agreement
// counterexample draws one delivered UP, one DOWN still in flight when its
// sender crashes, two crashes, one detection before the end and two
// decisions.
func TestChartOfUniformCounterexample(t *testing.T) {
	r := build(t, "era", "--n", "3", "--crashes", "2")
	res := r.BFS(checker.Options{Properties: []string{"uniform-agreement"}})
	if len(res.Violations) == 0 {
		t.Fatal("no counterexample")
	}
	c, err := r.(registry.Charter).Chart(res.Violations[0])
	if err != nil {
		t.Fatal(err)
	}
	arrows, inflight := c.Messages()
	count := map[string]int{}
	for _, e := range c.Events {
		count[e.Kind]++
	}
	if arrows != 1 || inflight != 1 || count[msc.Crash] != 2 || count[msc.Decide] != 2 || count[msc.Detect] != 2 {
		t.Fatalf("arrows=%d inflight=%d events=%v", arrows, inflight, count)
	}
	if len(c.Steps) != 7 || len(c.States) != 8 || c.Violation == "" {
		t.Fatalf("steps=%d states=%d violation=%q", len(c.Steps), len(c.States), c.Violation)
	}
}
