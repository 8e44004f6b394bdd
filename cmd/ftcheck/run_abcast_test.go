package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunAbcastKillValidate runs one broadcast round of each variant over
// 5 core members (4 messages each, one every 10 ms) and kills a member
// other than p0, drawn at random, at a random time in the first 40 ms
// (the round's broadcasts span 30 ms: the kill falls before, during or
// after the victim's broadcasts). Every live process delivers the same
// messages in the same order: each position of the order is agreed by
// every live process, and the order holds every live member's 4 messages.
// The trace validates against the model.
func TestRunAbcastKillValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 0))
	for _, v := range []string{"consensus", "ub", "bb"} {
		k := fmt.Sprintf("%d@%dus", 1+rng.IntN(4), rng.IntN(40000))
		t.Logf("%s: draw seed %d: --kill %s", v, seed, k)
		sum := runAndValidate(t, "abcast", "--variant", v, "--n", "5", "--kill", k)
		live := 0
		for _, p := range sum.Processes {
			if !p.Killed {
				live++
			}
		}
		if len(sum.Processes) != 5 || len(sum.Instances) < 4*live || len(sum.Instances) > 20 {
			t.Errorf("%s: want 5 processes and an order of %d to 20 deliveries: %+v", v, 4*live, sum)
		}
		for _, in := range sum.Instances {
			if in.Returned != live {
				t.Errorf("%s: delivery %d made by %d of the %d live processes", v, in.Instance, in.Returned, live)
			}
		}
	}
}

// TestRunAbcastMutantRejectedByValidate: the consensus variant with
// batch-arrival-order delivers each decided batch in the member's own
// arrival order: its own message when it broadcasts it, the others' as
// they come. Members broadcast at the same moments, so two of them
// deliver some batch of five in different orders: the run reports the
// positions that differ (exit 1), and validate names the first delivery
// that breaks total order (exit 1).
func TestRunAbcastMutantRejectedByValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := filepath.Join(t.TempDir(), "abcast")
	code, out, errs := ftcheckProcess(t, "run", "abcast", "--variant", "consensus", "--n", "5", "--mutant", "batch-arrival-order", "--trace", dir)
	if code != 1 || !strings.Contains(out, "the live processes output different values") {
		t.Errorf("run: exit %d, want 1 with differing deliveries\n%s%s", code, out, errs)
	}
	vcode, vout, verrs := ftcheck(t, "validate", dir)
	if vcode != 1 || !strings.Contains(vout, "invariant total-order violated") {
		t.Errorf("validate: exit %d, want 1 with total order violated\n%s%s", vcode, vout, verrs)
	}
}

// TestRunAbcastBadUsage: p0, the sequencer or coordinator, is never
// killed, kills beyond the crash budget and a detector the run does not
// have are refused: exit 2, one line, before anything starts.
func TestRunAbcastBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{"run", "abcast", "--kill", "0@1ms"},                                                   // p0 never fails
		{"run", "abcast", "--crash-sequencer", "--kill", "0@1ms"},                              // not even when the model allows it
		{"run", "abcast", "--crash-sequencer"},                                                 // nothing would be delivered after its death
		{"run", "abcast", "--n", "5", "--kill", "1@1ms", "--kill", "2@1ms", "--kill", "3@1ms"}, // consensus: a Paxos majority must live
		{"run", "abcast", "--kill", "1@1ms", "--crashes", "0"},
		{"run", "abcast", "--n", "7"},
		{"run", "abcast", "--n", "x"},
		{"run", "abcast", "--variant", "ring"},
		{"run", "abcast", "--detector", "coordinator", "--kill", "1@1ms"}, // only p0 told: not the run's detector
	} {
		code, _, errs := ftcheck(t, args...)
		if code != 2 || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}
