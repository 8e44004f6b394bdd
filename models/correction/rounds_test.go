package correction

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// outcomes wraps an env model of the corrected broadcast with one more
// quiescence property, which never fails and records each quiescent
// world's outcome: per process, crashed or not, colored or not, and how
// many messages it sent.
type outcomes struct {
	*env.Model
	seen map[string]bool
}

func (o *outcomes) Properties() []checker.Property[*env.World] {
	ps := append([]checker.Property[*env.World](nil), o.Model.Properties()...)
	return append(ps, checker.Property[*env.World]{
		Name: "record-outcome", Kind: checker.Quiescence,
		Check: func(w *env.World) error {
			var b strings.Builder
			for p := core.Rank(0); int(p) < w.N(); p++ {
				n := w.Node(p).(*corrsm.Node)
				fmt.Fprintf(&b, "%v:crashed=%v,colored=%v,sent=%d ", p, w.Crashed(p), n.Colored(), n.Sent())
			}
			o.seen[b.String()] = true
			return nil
		},
	})
}

// TestCorrectionRoundsRefineAsync: lock-step rounds (--timing rounds) are a
// restriction of the asynchronous model, so every outcome of a quiescent
// world under rounds is one the asynchronous model reaches too, and rounds
// reach fewer states. Checked at sizes where the asynchronous model is
// exhaustive in seconds.
func TestCorrectionRoundsRefineAsync(t *testing.T) {
	for _, args := range []string{
		"--P 3 --faults 1 --faults-before-correction",
		"--P 3 --faults 2",
		"--P 4 --correction opportunistic --d 1 --faults 1",
		"--P 3 --correction delayed --faults 1 --faults-before-correction",
		"--P 5 --correction opportunistic --d 1 --faults 2",
	} {
		var res [2]*checker.Result
		var out [2]*outcomes
		for i, timing := range []string{"async", "rounds"} {
			p, _ := registry.Lookup("correction")
			r, err := p.Build(append(strings.Fields(args), "--timing", timing))
			if err != nil {
				t.Fatalf("%s --timing %s: %v", args, timing, err)
			}
			m, ok := registry.EnvModel(r)
			if !ok {
				t.Fatalf("correction runner has no env model")
			}
			out[i] = &outcomes{Model: m, seen: map[string]bool{}}
			res[i] = checker.DFS[*env.World](out[i], checker.Options{})
			if !res[i].Complete || len(res[i].Violations) > 0 {
				t.Fatalf("%s --timing %s: complete %v, %d violations", args, timing, res[i].Complete, len(res[i].Violations))
			}
		}
		for o := range out[1].seen {
			if !out[0].seen[o] {
				t.Fatalf("%s: rounds reach the outcome %s, which the asynchronous model does not", args, o)
			}
		}
		if res[1].States >= res[0].States {
			t.Fatalf("%s: %d states in rounds, %d asynchronous", args, res[1].States, res[0].States)
		}
		t.Logf("%-70s async %8d states, %3d outcomes; rounds %6d states, %3d outcomes", args, res[0].States, len(out[0].seen), res[1].States, len(out[1].seen))
	}
}

// TestCorrectionRoundsBounds: the exhaustive check of checked
// correction in lock-step rounds with every fault set before correction holds
// (F = P-1), for each tree, at P = 6; README "Exhaustive checking" gives
// P = 8 and 10 (ftcheck check correction … --timing rounds).
func TestCorrectionRoundsBounds(t *testing.T) {
	for _, tree := range []string{"binomial", "binomial-inorder", "kary", "lame", "optimal"} {
		p, _ := registry.Lookup("correction")
		r, err := p.Build([]string{"--tree", tree, "--P", "6", "--faults", "5", "--timing", "rounds", "--faults-before-correction"})
		if err != nil {
			t.Fatal(err)
		}
		res := r.BFS(checker.Options{})
		if !res.Complete || len(res.Violations) > 0 {
			t.Fatalf("%s: complete %v, violations %v", tree, res.Complete, violatedSet(res))
		}
		t.Logf("tree=%-17s P=6 F=5: %d states, %d generated", tree, res.States, res.Transitions)
	}
}
