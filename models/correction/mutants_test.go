package correction

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/registry"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// correctionMutantBounds are the smallest bounds found at which breadth-first
// search catches each Corrected Tree mutant, the property it breaks (§2.1)
// and the length of the shortest counterexample. Each mutant was searched
// at smaller P and fewer faults first and survived there.
//
// Two rows need more than the default asynchronous model of
// `ftcheck check correction`:
//
//   - kary-heap-order runs in lock-step rounds (--timing rounds), whose
//     state space is far smaller: the asynchronous search catches it at the
//     same bounds too (non-faulty-liveness, 21 steps, 554,503 states), but
//     takes too long for a unit test, and the complete check of the correct
//     protocol there takes 3,295,428 states.
//   - checked-stop-on-first-message cannot be caught while a crashed
//     process's messages in flight are still delivered: a process i that
//     hears from the right from k has been sent k's leftward messages to
//     every process between them, so stopping at once leaves nobody out.
//     It is caught when those messages may be lost (--lose-on-crash,
//     env.LossOnCrash): k's message to the gap is
//     lost with k, and the correct protocol's i would still have sent there
//     itself. With two faults at P = 4 the complete search of the correct
//     protocol does not finish in 110 s; it is checked to the depth of the
//     counterexample (correctDepth).
var correctionMutantBounds = []struct {
	mutant       mutant.Name
	args         []string
	lose         bool // --lose-on-crash (env.LossOnCrash)
	correctDepth int  // > 0: check the correct protocol only to this depth
	property     string
	steps        int
}{
	{corrsm.MutantUncoloredCorrects, strings.Fields("--P 4 --correction opportunistic --d 1 --faults 1 --faults-before-correction"), false, 0, "integrity", 6},
	{corrsm.MutantRelayStaleValue, strings.Fields("--P 4 --correction opportunistic --d 1 --faults 0"), false, 0, "payload", 3},
	{corrsm.MutantRedeliverOnCorrection, strings.Fields("--P 2 --correction opportunistic --d 1 --faults 0"), false, 0, "no-duplicates", 6},
	{corrsm.MutantOpportunisticWraps, strings.Fields("--P 2 --correction opportunistic --d 2 --faults 0"), false, 0, "termination", 7},
	{corrsm.MutantOpportunisticLeftOnly, strings.Fields("--P 5 --correction opportunistic --d 1 --faults 2 --faults-before-correction"), false, 0, "non-faulty-liveness", 10},
	{corrsm.MutantKaryHeapOrder, strings.Fields("--P 7 --tree kary --k 3 --correction opportunistic --d 1 --faults 1 --faults-before-correction --timing rounds"), false, 0, "non-faulty-liveness", 23},
	{corrsm.MutantCheckedStopEarly, strings.Fields("--P 4 --correction checked --faults 2"), true, 16, "non-faulty-liveness", 16},
}

// correctionRunner builds the model of args (ftcheck check correction
// flags), with --lose-on-crash if lose.
func correctionRunner(t *testing.T, args []string, lose bool) registry.Runner {
	t.Helper()
	if lose {
		args = append(slices.Clone(args), "--lose-on-crash")
	}
	return buildCorrection(t, args...)
}

// TestCorrectionMutantsCaught: exhaustive search catches every mutant of
// the Corrected Tree broadcast by the property it breaks, with a shortest
// counterexample of the pinned length that replays to the same violation,
// and the correct protocol holds at the same bounds.
func TestCorrectionMutantsCaught(t *testing.T) {
	seen := map[mutant.Name]bool{}
	for _, c := range correctionMutantBounds {
		seen[c.mutant] = true
		t.Run(string(c.mutant), func(t *testing.T) {
			r := correctionRunner(t, append(slices.Clone(c.args), "--mutant", string(c.mutant)), c.lose)
			res, tr := mustCatch(t, r, c.property, c.steps)
			t.Logf("%s after %d steps, %d states", c.property, len(tr.Steps), res.States)

			ok := correctionRunner(t, c.args, c.lose).BFS(checker.Options{MaxDepth: c.correctDepth})
			if ok.Err != nil || len(ok.Violations) > 0 {
				t.Fatalf("correct protocol at the same bounds: %v %v", ok.Err, first(ok.Violations))
			}
			if c.correctDepth == 0 && !ok.Complete {
				t.Fatalf("correct protocol at the same bounds: incomplete (%s)", ok.Stop)
			}
			if c.correctDepth > 0 && ok.Depth < c.correctDepth {
				t.Fatalf("correct protocol searched to depth %d, want %d", ok.Depth, c.correctDepth)
			}
		})
	}
	for _, m := range corrsm.Mutants {
		if !seen[m] {
			t.Errorf("mutant %s has no row", m)
		}
	}
}

// TestCheckedCorrectionFailsWithFailuresDuringCorrection: checked correction
// colors every live process "as long as no failures occur during the
// correction" (§3.1). With four failures at P = 6 (binomial in-order tree,
// lock-step rounds) it holds when they all happen before correction, and
// leaves p3 uncolored when two of them happen during correction:
//
//   - p2 dies before it is colored, so its child p3 is not; p4 colors its
//     child p5 and dies. The participants are p0, p1 and p5.
//   - p1 sends its first correction message left, to p0, and dies before
//     its right-hand messages (to p2, then p3). p5 sends to p4 (dead) and
//     to p0, and dies before its second left message, to p3.
//   - p0 has heard from its nearest right (p1) and left (p5) neighbours,
//     both of which it had sent to: checked correction stops it in both
//     directions. Nobody is left to send to p3.
//
// Dropping the round ticks gives a run of the asynchronous model with the
// same ending.
func TestCheckedCorrectionFailsWithFailuresDuringCorrection(t *testing.T) {
	base := strings.Fields("--P 6 --tree binomial-inorder --correction checked --faults 4")
	rounds := append(slices.Clone(base), "--timing", "rounds")

	before := buildCorrection(t, append(slices.Clone(rounds), "--faults-before-correction")...).BFS(checker.Options{})
	if before.Err != nil || !before.Complete || len(before.Violations) > 0 {
		t.Fatalf("failures before correction: err=%v complete=%v %v", before.Err, before.Complete, first(before.Violations))
	}
	t.Logf("failures before correction: %d states, all properties hold", before.States)

	r := buildCorrection(t, rounds...)
	res := r.BFS(checker.Options{})
	if res.Err != nil || len(res.Violations) == 0 {
		t.Fatalf("failures during correction: err=%v, no violation in %d states", res.Err, res.States)
	}
	tr := res.Violations[0]
	const wantMsg = "live processes [p3] are uncolored, yet nothing is left to deliver or fire (crashed: {p1,p2,p4,p5})"
	if tr.Violation.Property != "non-faulty-liveness" || len(tr.Steps) != 23 || !strings.HasSuffix(tr.Violation.Message, wantMsg) {
		t.Fatalf("got %s after %d steps (%q), want non-faulty-liveness after 23:\n%s", tr.Violation.Property, len(tr.Steps), tr.Violation.Message, tr)
	}
	// Which crashes came after the clock started correction.
	var during []string
	clock := false
	for _, s := range tr.Steps {
		switch s.Action.Kind {
		case env.Clock:
			clock = true
		case env.Crash:
			if clock {
				during = append(during, fmt.Sprint(core.Rank(s.Action.P)))
			}
		}
	}
	if got := strings.Join(during, ","); got != "p1,p5" {
		t.Fatalf("crashes during correction: %s, want p1,p5:\n%s", got, tr)
	}
	var ve *checker.ViolationError
	if err := r.Replay(tr); !errors.As(err, &ve) || ve.Violation.Property != "non-faulty-liveness" {
		t.Fatalf("replay: %v", err)
	}
	t.Logf("failures during correction: %d states, non-faulty-liveness after %d steps", res.States, len(tr.Steps))

	// The same run without the round ticks, in the asynchronous model.
	async := *tr
	async.Steps = nil
	for _, s := range tr.Steps {
		if s.Action.Kind != env.Tick {
			async.Steps = append(async.Steps, s)
		}
	}
	err := buildCorrection(t, base...).Replay(&async)
	if !errors.As(err, &ve) || ve.Violation.Property != "non-faulty-liveness" || !strings.HasSuffix(ve.Violation.Message, wantMsg) {
		t.Fatalf("asynchronous replay of %d steps: %v", len(async.Steps), err)
	}
}
