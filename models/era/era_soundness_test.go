package era

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestERAEnvSoundness checks the environment under ERA in every
// configuration the model supports (topologies, networks, loss, blocking
// calls, GC, the ULFM operation, two agreements, N = 1 and 2, Fail ranks):
// on every world of a small exhaustive run and along random walks at a
// larger N, Quiescent agrees with Actions (envtest.Quiescence: a run ends
// exactly when nothing but budget crashes is left) and two worlds that
// differ never share an encoding or a fingerprint (envtest.Distinct). It
// fails on an env encoding that forgets the crashed set or the number of
// copies of a message in flight, and on a Quiescent that forgets pending
// work; see checker/env/soundness_*_test.go for the planted bugs.
func TestERAEnvSoundness(t *testing.T) {
	modeltest.CheckEnvRuns(t, "era", [][2]string{ // model flags: exhaustive, walked at a larger size
		{"--n 3 --crashes 2", "--n 6 --crashes 3"},
		{"--n 3 --crashes 1 --topology star", "--n 6 --crashes 2 --topology star"},
		{"--n 3 --crashes 1 --topology string", "--n 6 --crashes 2 --topology string"},
		{"--n 3 --crashes 1 --network fifo", "--n 6 --crashes 2 --network fifo"},
		{"--n 3 --crashes 1 --lose-on-crash", "--n 6 --crashes 3 --lose-on-crash"},
		{"--n 2 --crashes 1 --agreements 2 --values 1 --blocking --gc", "--n 5 --crashes 2 --agreements 2 --blocking --gc"},
		{"--n 2 --crashes 1 --agreements 2 --values 1", "--n 5 --crashes 2 --agreements 2"},
		{"--n 3 --crashes 1 --op ulfm --values 1", "--n 6 --crashes 2 --op ulfm"},
		{"--n 3 --crashes 0 --fail 1", "--n 6 --crashes 1 --fail 2,4"},
		{"--n 1 --crashes 0", "--n 2 --crashes 1"},
	}, envtest.Plan{MaxStates: 100_000, Seed: 1, Walks: 50, Depth: 100}, envtest.Plan{Seed: 2, Walks: 100, Depth: 300})
}

// TestULFMBenchQuiescence: the MPIX_Comm_agree benchmark model owes the
// kill of every faulty rank (its Quiescent waits for them), so it must not
// inherit env's declaration that budget crashes are ignorable.
func TestULFMBenchQuiescence(t *testing.T) {
	m, err := NewULFMBenchModel(ULFMBenchParams{ERA: Params{N: 4, Fail: []core.Rank{2}}, Warmup: 1, Post: 1})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := envtest.Check(m, envtest.Plan{Seed: 3, Walks: 50, Depth: 2000})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d distinct worlds, %d visited, %d quiescent", rep.Distinct, rep.Visited, rep.Quiescent)
}
