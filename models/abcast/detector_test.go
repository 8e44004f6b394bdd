package abcast_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/abcast"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// TestDetectorSoundness is the guard of --detector none and coordinator:
// the detection steps they remove change nothing a property reads (UB's
// and BB's members never read a suspicion; in the consensus variant only
// p0 acts on one, while p0 cannot crash). On small models, correct and
// with each mutant of the variant, with and without --crash-sequencer
// (none only), the searches with the perfect detector and with the
// reduced one reach the same views (every member's calls made and
// delivery history, and the crashed set), the same views at quiescence and
// the same violated properties (ContinueAfterViolation), in fewer states.
// The counterexamples with the reduced detector are shorter by the
// detection steps quiescence waits for. The consensus variant is compared
// over the oracle consensus (--consensus oracle) by default and over
// Paxos, correct and with wait-full-batch, with FTKERNEL_LONG=1 (its
// smallest core with a crash has three members: 1,758,302 worlds).
func TestDetectorSoundness(t *testing.T) {
	cases := []abcast.Params{
		{Variant: ab.UB, Core: 3, Messages: 1, Crashes: 1, Detector: env.DetectorNone},
		{Variant: ab.BB, Core: 3, Messages: 1, Crashes: 1, Detector: env.DetectorNone},
		{Variant: ab.UB, Core: 3, Messages: 1, Crashes: 1, CrashSequencer: true, Detector: env.DetectorNone},
		{Variant: ab.BB, Core: 2, Messages: 2, Crashes: 1, CrashSequencer: true, Detector: env.DetectorNone},
		{Variant: ab.UB, Core: 2, Messages: 2, Crashes: 1, Detector: env.DetectorNone},
		{Variant: ab.ConsensusBased, Core: 3, Messages: 1, K: 3, Crashes: 1, Oracle: true, Detector: env.DetectorLocal},
	}
	if modeltest.Long() {
		cases = append(cases, abcast.Params{Variant: ab.ConsensusBased, Core: 3, Messages: 1, K: 3, Crashes: 1, Detector: env.DetectorLocal})
	}
	for _, c := range cases {
		muts := variantMutants(c.Variant)
		if c.Variant == ab.ConsensusBased && !c.Oracle {
			// over Paxos the perfect detector's searches of the mutants
			// that reorder deliveries pass two million worlds
			muts = []mutant.Name{mutant.None, ab.MutantWaitFullBatch}
		}
		for _, mut := range muts {
			reduced := c
			reduced.Mutant = mut
			p := reduced
			p.Detector = env.DetectorPerfect
			perfect := detectorRun(t, p)
			none := detectorRun(t, reduced)
			name := fmt.Sprintf("%v core=%d messages=%d k=%d crashes=%d crash-sequencer=%v mutant=%q detector=%v", p.Variant, p.Core, p.Messages, p.K, p.Crashes, p.CrashSequencer, mut, reduced.Detector)
			if !maps.Equal(perfect.views, none.views) || !maps.Equal(perfect.quiet, none.quiet) {
				t.Errorf("%s: views %d/%d quiescent %d/%d (perfect/reduced) differ", name, len(perfect.views), len(none.views), len(perfect.quiet), len(none.quiet))
			}
			if perfect.verdict != none.verdict {
				t.Errorf("%s: verdicts differ: perfect %s, reduced %s", name, perfect.verdict, none.verdict)
			}
			if none.states >= perfect.states {
				t.Errorf("%s: %d states with the reduced detector, %d with the perfect one", name, none.states, perfect.states)
			}
			t.Logf("%-60s states %7d → %7d, views %5d, quiescent views %4d, {%s} shortest %s → %s", name, perfect.states, none.states, len(none.views), len(none.quiet), none.verdict, perfect.lengths, none.lengths)
		}
	}
}

// variantMutants are mutant.None and the mutants that act in variant v
// (batch-overlap's searches are left out: they do not fit small bounds).
func variantMutants(v ab.Variant) []mutant.Name {
	switch v {
	case ab.UB:
		return []mutant.Name{mutant.None, ab.MutantReuseNumber}
	case ab.BB:
		return []mutant.Name{mutant.None, ab.MutantReuseNumber, ab.MutantDeliverOnPayload}
	}
	return []mutant.Name{mutant.None, ab.MutantDeliverBeforeDecision, ab.MutantBatchArrivalOrder, ab.MutantWaitFullBatch}
}

// detectorOutcome is what TestDetectorNoneSoundness compares.
type detectorOutcome struct {
	states       int
	views, quiet map[string]bool
	verdict      string // violated properties
	lengths      string // and their shortest counterexamples' lengths
}

func detectorRun(t *testing.T, p abcast.Params) detectorOutcome {
	t.Helper()
	m, err := abcast.NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	o := detectorOutcome{views: map[string]bool{}, quiet: map[string]bool{}}
	o.states, err = envtest.Explore(m, 2_000_000, func(w *env.World) error {
		v := deliveryView(w)
		o.views[v] = true
		if m.Quiescent(w) {
			o.quiet[v] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res := checker.BFS[*env.World](m, checker.Options{ContinueAfterViolation: true})
	if res.Err != nil || !res.Complete {
		t.Fatalf("%s: complete=%v: %v", m.Name(), res.Complete, res.Err)
	}
	short := map[string]int{}
	for _, v := range res.Violations {
		if l, ok := short[v.Violation.Property]; !ok || len(v.Steps) < l {
			short[v.Violation.Property] = len(v.Steps)
		}
	}
	var lengths []string
	for _, prop := range slices.Sorted(maps.Keys(short)) {
		lengths = append(lengths, fmt.Sprint(short[prop]))
	}
	o.verdict = strings.Join(slices.Sorted(maps.Keys(short)), ",")
	o.lengths = strings.Join(lengths, ",")
	return o
}

// deliveryView is what the properties read of w: each member's calls made
// and delivery history, and the crashed set.
func deliveryView(w *env.World) string {
	var b strings.Builder
	for r := range core.Rank(w.N()) {
		fmt.Fprintf(&b, "%v calls=%d crashed=%v:", r, len(w.CallsMade(r)), w.Crashed(r))
		for _, rec := range w.History(r) {
			if rec.Kind == core.EffDeliver {
				fmt.Fprintf(&b, " %v", rec.Value)
			}
		}
		b.WriteString(";")
	}
	return b.String()
}

// TestForgetSoundness is the guard of --forget-crashed
// (envtest.CompareForget): the forgetting search finds the same violated
// properties, its quiescent worlds are exactly the images of the plain
// search's, it visits no more states, and its counterexamples replay on
// both models, breadth-first and with persistent sets, on small models of
// each variant (consensus over the oracle), correct and with their
// mutants; the consensus row over Paxos runs with FTKERNEL_LONG=1.
func TestForgetSoundness(t *testing.T) {
	cases := []abcast.Params{
		{Variant: ab.UB, Core: 3, Messages: 1, Crashes: 1, Detector: env.DetectorNone},
		{Variant: ab.BB, Core: 3, Messages: 1, Crashes: 1, Detector: env.DetectorNone},
		{Variant: ab.BB, Core: 3, Messages: 1, Crashes: 1},
		{Variant: ab.UB, Core: 2, Messages: 2, Crashes: 1, CrashSequencer: true},
		{Variant: ab.ConsensusBased, Core: 3, Messages: 1, K: 3, Crashes: 1, Oracle: true, Detector: env.DetectorLocal},
	}
	if modeltest.Long() {
		cases = append(cases, abcast.Params{Variant: ab.ConsensusBased, Core: 3, Messages: 1, K: 3, Crashes: 1, Detector: env.DetectorLocal})
	}
	for _, p := range cases {
		for _, mut := range variantMutants(p.Variant) {
			p.Mutant = mut
			p.ForgetCrashed = false
			plain, err := abcast.NewModel(p)
			if err != nil {
				t.Fatal(err)
			}
			p.ForgetCrashed = true
			forget, err := abcast.NewModel(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, por := range []bool{false, true} {
				rep, err := envtest.CompareForget(plain, forget, 3_000_000, por)
				if err != nil {
					t.Fatalf("%s por=%v: %v", forget.Name(), por, err)
				}
				t.Logf("%-90s por=%-5v states %7d → %7d, quiescent %d → %d {%s}", forget.Name(), por, rep.States, rep.ForgetStates, rep.Quiescent, rep.ForgetQuiescent, rep.Violated)
			}
		}
	}
}

// TestOracleViews: the consensus variant over Oracle (--consensus oracle,
// the decided-batch consensus of tla/abcast.qnt) reaches exactly the
// views (every member's deliveries and calls, the crashed set), the views
// at quiescence and the violated properties that it reaches over Paxos,
// correct and with each consensus mutant, at two members with two
// messages each (k = 2 and 3); with FTKERNEL_LONG=1 also at three members,
// one message each, a crash (--detector coordinator --forget-crashed).
// So the complete searches over the oracle speak for the atomic broadcast
// over Paxos as far as these bounds go; Paxos is checked on its own
// (models/paxos).
func TestOracleViews(t *testing.T) {
	cases := []abcast.Params{
		{Variant: ab.ConsensusBased, Core: 2, Messages: 2, K: 2},
		{Variant: ab.ConsensusBased, Core: 2, Messages: 2, K: 3},
	}
	if modeltest.Long() {
		cases = append(cases, abcast.Params{Variant: ab.ConsensusBased, Core: 3, Messages: 1, K: 3, Crashes: 1,
			Detector: env.DetectorLocal, ForgetCrashed: true})
	}
	for _, c := range cases {
		for _, mut := range variantMutants(c.Variant) {
			c.Mutant, c.Oracle = mut, false
			paxos := detectorRun(t, c)
			c.Oracle = true
			oracle := detectorRun(t, c)
			name := fmt.Sprintf("core=%d messages=%d k=%d crashes=%d mutant=%q", c.Core, c.Messages, c.K, c.Crashes, mut)
			if !maps.Equal(paxos.views, oracle.views) || !maps.Equal(paxos.quiet, oracle.quiet) {
				t.Errorf("%s: views %d/%d quiescent %d/%d (paxos/oracle) differ", name, len(paxos.views), len(oracle.views), len(paxos.quiet), len(oracle.quiet))
			}
			if paxos.verdict != oracle.verdict {
				t.Errorf("%s: verdicts differ: paxos %s, oracle %s", name, paxos.verdict, oracle.verdict)
			}
			t.Logf("%-50s states %7d (paxos) → %6d (oracle), views %5d, quiescent views %4d, {%s} shortest %s → %s", name, paxos.states, oracle.states, len(oracle.views), len(oracle.quiet), oracle.verdict, paxos.lengths, oracle.lengths)
		}
	}
}
