package all

import (
	"os"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
)

// porConfigs are the models on which partial-order reduction is compared
// with the unreduced search, each with every mutant of its protocol.
// The short set runs in CI; FTKERNEL_POR_FULL=1 adds larger bounds.
var porConfigs = []struct {
	protocol string
	args     string
	full     bool // only with FTKERNEL_POR_FULL
}{
	{"era", "--n 3 --crashes 1", false},
	{"era", "--n 3 --crashes 2", false},
	{"era", "--n 3 --crashes 2 --network fifo", false},
	{"era", "--n 3 --crashes 1 --lose-on-crash", false},
	{"era", "--n 3 --crashes 1 --topology star", false},
	{"era", "--n 3 --crashes 1 --topology string --op ulfm", false},
	{"era", "--n 2 --crashes 1 --agreements 2", false},
	{"era", "--n 4 --crashes 0", false},
	{"correction", "--P 3", false},
	{"correction", "--P 3 --correction opportunistic", false},
	{"correction", "--P 3 --correction delayed", false},
	{"correction", "--P 3 --correction none", false},
	{"twophase", "--rm 3", false},
	{"era", "--n 4 --crashes 1", true},
	{"era", "--n 4 --crashes 1 --topology star", true},
	{"era", "--n 4 --crashes 1 --network fifo", true},
	{"era", "--n 3 --crashes 1 --blocking --agreements 2", true},
	{"era", "--n 5 --crashes 0", true},
	{"correction", "--P 3 --faults 2", true},
	{"correction", "--P 3 --correction opportunistic --start overlapped", true},
	{"correction", "--P 3 --correction optimized", true},
	{"twophase", "--rm 5", true},
}

var violatedSet = modeltest.ViolatedSet

// TestPORSoundness: on every configuration above and every mutant of its
// protocol, BFS with Options.POR finds the same distinct states and the
// same violated properties as without (every property searched to its
// first violation), stops with the same verdict in the default mode, and
// reduced + slept transitions equal the unreduced count. Counts do not
// depend on the number of workers, and every reduced counterexample
// replays to its violation.
//
// The default suite checks every mutant of the configurations under
// 50,000 states and only the correct protocol of the larger ones (the
// correction rows at P=3, whose mutants take most of four minutes);
// FTKERNEL_LONG=1 checks every mutant of every row, and CI runs it as a
// step of its own (ci/long.sh).
func TestPORSoundness(t *testing.T) {
	full := os.Getenv("FTKERNEL_POR_FULL") != ""
	long := full || os.Getenv("FTKERNEL_LONG") == "1"
	var gen, red int64
	var secFull, secPOR float64
	for _, c := range porConfigs {
		if c.full && !full {
			continue
		}
		p, err := registry.Lookup(c.protocol)
		if err != nil {
			t.Fatal(err)
		}
		eachVariant(t, c.protocol, c.args, func(name string, args []string, mut string) bool {
			r, err := p.Build(args)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			opt := checker.Options{Workers: 2, ContinueAfterViolation: true}
			a := r.BFS(opt)
			opt.POR = true
			b := r.BFS(opt)
			if a.Err != nil || b.Err != nil {
				t.Fatalf("%s: %v / %v", name, a.Err, b.Err)
			}
			if c.protocol != "twophase" && !b.POR {
				t.Fatalf("%s: POR not used: %s", name, b.PORNote)
			}
			if a.States != b.States || a.Complete != b.Complete {
				t.Fatalf("%s: %d states (complete %v) without POR, %d (complete %v) with", name, a.States, a.Complete, b.States, b.Complete)
			}
			if a.Complete && b.Transitions+b.Slept != a.Transitions {
				t.Fatalf("%s: %d generated + %d slept with POR, %d without", name, b.Transitions, b.Slept, a.Transitions)
			}
			if va, vb := violatedSet(a), violatedSet(b); va != vb {
				t.Fatalf("%s: violated {%s} without POR, {%s} with", name, va, vb)
			}
			for _, tr := range b.Violations {
				if err := r.Replay(tr); err == nil {
					t.Fatalf("%s: POR counterexample of %s does not replay to a violation", name, tr.Violation.Property)
				}
			}
			// Default mode: stop at the first violating level.
			d0 := r.BFS(checker.Options{Workers: 1})
			d1 := r.BFS(checker.Options{Workers: 1, POR: true})
			d2 := r.BFS(checker.Options{Workers: 2, POR: true})
			if (len(d0.Violations) > 0) != (len(d1.Violations) > 0) {
				t.Fatalf("%s: stop %s without POR, %s with", name, d0.Stop, d1.Stop)
			}
			if d1.States != d2.States || d1.Transitions != d2.Transitions || violatedSet(d1) != violatedSet(d2) {
				t.Fatalf("%s: POR counts depend on workers: %d/%d {%s} vs %d/%d {%s}", name,
					d1.States, d1.Transitions, violatedSet(d1), d2.States, d2.Transitions, violatedSet(d2))
			}
			gen += a.Transitions
			red += b.Transitions
			secFull += a.Seconds
			secPOR += b.Seconds
			t.Logf("%-70s states %8d generated %9d → %9d (slept %d, re-expanded %d) {%s}", name, a.States, a.Transitions, b.Transitions, b.Slept, b.Reexpanded, violatedSet(a))
			// Without FTKERNEL_LONG: mutants of the small configurations only.
			if !long && a.States > 50000 {
				t.Logf("%s: its mutants run with FTKERNEL_LONG=1", name)
				return true
			}
			return false
		})
	}
	t.Logf("total generated %d without POR, %d with (%.1f%%); %.2fs vs %.2fs", gen, red, 100*float64(red)/float64(gen), secFull, secPOR)
}
