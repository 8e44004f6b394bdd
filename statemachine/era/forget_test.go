package era

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/internal/forgettest"
)

// TestForget: on every state of seeded random runs (and, rebalanced or
// not, under both ops and garbage collection), Forget keeps p, the Config,
// and every agreement's Input and Result (the reads of models/era's
// properties), resets S_p, Status, Current, Contributed and
// RequestedResult, leaves the receiver unchanged, is idempotent, and
// DecodeNode reads its encoding back to the same node (go-cmp).
func TestForget(t *testing.T) {
	kept := 0
	for _, cfg := range []Config{{N: 5}, {N: 6, Op: ULFM, GC: true}, {N: 4, Topology: Star, GC: true}, {N: 5, Op: ULFM}} {
		for _, n := range statesOfRuns(cfg, 30) {
			f, err := forgettest.Check(n, func(b []byte) (*Node, error) { return DecodeNode(b, n.Rank(), cfg) }, nodeDiff)
			if err != nil {
				t.Fatal(err)
			}
			if f.Rank() != n.Rank() || !f.Dead().Empty() {
				t.Fatalf("Forget of %v: %v", n, f)
			}
			for _, a := range n.Agreements() {
				if fmt.Sprint(f.Input(a)) != fmt.Sprint(n.Input(a)) || fmt.Sprint(f.Result(a)) != fmt.Sprint(n.Result(a)) {
					t.Fatalf("Forget of %v lost a=%d's input or Result: %v", n, a, f)
				}
				if f.Status(a) != NotContributed || f.Current(a) != nil || !f.Contributed(a).Empty() || !f.RequestedResult(a).Empty() {
					t.Fatalf("Forget of %v kept a=%d's variables: %v", n, a, f)
				}
				if n.Result(a) != nil {
					kept++
				}
			}
		}
	}
	if kept == 0 {
		t.Fatal("no forgotten state had a Result: the runs do not exercise Forget")
	}
}

// TestForgetMutantDropsResult: the test-only MutantForgetDropsResult is
// accepted by a Config and drops Result.
func TestForgetMutantDropsResult(t *testing.T) {
	cfg := Config{N: 4, Mutant: MutantForgetDropsResult}
	dropped := false
	for _, n := range statesOfRuns(cfg, 10) {
		for _, a := range n.Agreements() {
			if n.Result(a) != nil {
				if n.Forget().(*Node).Result(a) != nil {
					t.Fatalf("the mutant kept a=%d's Result of %v", a, n)
				}
				dropped = true
			}
		}
	}
	if !dropped {
		t.Fatal("no state with a Result")
	}
}
