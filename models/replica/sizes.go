package replica

import (
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
)

// Ranges of the size flags of ftcheck check and simulate replica, checked
// before anything is built from them.
const (
	// MaxProcs bounds --procs and MaxDegree --degree: at most 512
	// replicas, beyond any exhaustive check and still cheap for walks.
	MaxProcs  = 64
	MaxDegree = 8
	// MaxRounds bounds --rounds (ping-pong exchanges).
	MaxRounds = 64
	// MaxTicks bounds the gossip stack's times in ticks (--delta,
	// --t-gossip, --ping-timeout) and its rounds (--max-rounds,
	// --cleanup).
	MaxTicks = 1000
	// MaxFailureP and MaxFailureR bound --p and --r of
	// --failure-probability, MaxTrials its --trials (each trial draws up to
	// p·r numbers).
	MaxFailureP = 1 << 20
	MaxFailureR = 64
	MaxTrials   = 1_000_000_000
	// MaxWalks bounds --walks and MaxSteps --max-steps: a walk keeps its
	// actions, 16 bytes a step.
	MaxWalks = 1_000_000
	MaxSteps = 100_000_000
)

// sizes checks the model's size flags against their ranges.
func (f *replicaFlags) sizes() error {
	s := &f.stack
	return flagcheck.First(
		flagcheck.Int("procs", int64(f.procs), 1, MaxProcs, ""),
		flagcheck.Int("degree", int64(f.degree), 1, MaxDegree, ""),
		flagcheck.Int("rounds", int64(f.rounds), 0, MaxRounds, ""),
		flagcheck.Int("delta", int64(s.delta), 1, MaxTicks, ""),
		flagcheck.Uint("t-gossip", s.tgossip, 1, MaxTicks, ""),
		flagcheck.Uint("ping-timeout", s.pingTimeout, 1, MaxTicks, ""),
		flagcheck.Uint("max-rounds", s.maxRounds, 1, MaxTicks, ""),
		flagcheck.Uint("cleanup", s.cleanup, 0, MaxTicks, ""),
	)
}

// simSizes checks the flags of ftcheck simulate replica's own analyses:
// those of --failure-probability with it, the walks' otherwise.
func simSizes(failureProbability bool, p, r, trials, walks, maxSteps int) error {
	if failureProbability {
		return flagcheck.First(
			flagcheck.Int("p", int64(p), 1, MaxFailureP, ""),
			flagcheck.Int("r", int64(r), 1, MaxFailureR, ""),
			flagcheck.Int("trials", int64(trials), 0, MaxTrials, ""),
		)
	}
	return flagcheck.First(
		flagcheck.Int("walks", int64(walks), 1, MaxWalks, ""),
		flagcheck.Int("max-steps", int64(maxSteps), 1, MaxSteps, ""),
	)
}
