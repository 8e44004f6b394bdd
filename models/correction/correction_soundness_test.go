package correction

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestCorrectionEnvSoundness checks the environment under Corrected Trees
// and Corrected Gossip in the configurations the model supports (every
// correction, both starts, failures before correction or at any step,
// asynchronous and lock-step rounds, loss on crash, the tree shapes,
// gossip dissemination): on every world of a small exhaustive run and
// along random walks at a larger P, Quiescent agrees with Actions
// (envtest.Quiescence: a run ends exactly when nothing but budget crashes
// is left; armed timers, the clock and the next round are work) and two
// worlds that differ never share an encoding or a fingerprint
// (envtest.Distinct). It fails on an env encoding that forgets the crashed
// set or the number of copies in flight, and on a Quiescent that forgets
// armed timers; see checker/env/soundness_*_test.go for the planted bugs.
// The model uses no failure detector (env.DetectorNone): correction
// replaces it, so props.DetectorComplete is not in its property list.
func TestCorrectionEnvSoundness(t *testing.T) {
	modeltest.CheckEnvRuns(t, "correction", [][2]string{ // model flags: exhaustive, walked at a larger size
		{"--P 2 --faults 1 --faults-before-correction", "--P 8 --faults 3 --faults-before-correction"},
		{"--P 2 --faults 1", "--P 8 --faults 3"},
		{"--P 3 --faults 1 --start overlapped --correction opportunistic --d 1", "--P 8 --faults 2 --start overlapped --correction opportunistic --d 2"},
		{"--P 3 --faults 1 --correction optimized --d 1", "--P 8 --faults 2 --correction optimized --d 2"},
		{"--P 2 --faults 1 --correction delayed --delay 1", "--P 8 --faults 2 --correction delayed --delay 2"},
		{"--P 3 --faults 1 --correction none", "--P 8 --faults 2 --correction none"},
		{"--P 4 --faults 1 --timing rounds", "--P 8 --faults 3 --timing rounds"},
		{"--P 2 --faults 1 --lose-on-crash", "--P 8 --faults 2 --lose-on-crash"},
		{"--P 2 --faults 1 --tree binomial-inorder", "--P 8 --faults 2 --tree lame"},
		{"--P 2 --faults 1 --tree gossip --seed 1", "--P 6 --faults 2 --tree gossip --gossip-rounds 2 --seed 2"},
	}, envtest.Plan{MaxStates: 150_000, Seed: 1, Walks: 50, Depth: 200}, envtest.Plan{Seed: 2, Walks: 100, Depth: 500})
}
