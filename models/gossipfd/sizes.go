package gossipfd

import (
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// Ranges of the flags of ftcheck check and simulate gossipfd, checked
// before anything is built from them.
const (
	// MaxCheckN bounds --n of an exhaustive check; MaxCheckDelta its
	// delay bound Δ (ticks).
	MaxCheckN     = 16
	MaxCheckDelta = 16
	// MaxRounds bounds the round counts (--cleanup, --window, --horizon,
	// --detect-bound, --max-rounds, --round).
	MaxRounds = 1000
	// MaxTicks bounds the times in ticks (--t-gossip, --ping-timeout,
	// --ticks-per-round, --delay-min, --delay-max).
	MaxTicks = 1_000_000
	// MaxTrials bounds --trials.
	MaxTrials = 1_000_000_000
)

// checkSizes checks the flags of ftcheck check gossipfd.
func checkSizes(n, crashes, cleanup, window, horizon, bound, delta int, tgossip, pingTimeout, maxRounds uint64) error {
	return flagcheck.First(
		flagcheck.Int("n", int64(n), 2, MaxCheckN, "exhaustive checking is for small n: use ftcheck simulate gossipfd beyond"),
		flagcheck.Int("crashes", int64(crashes), 0, int64(n), ""),
		flagcheck.Int("cleanup", int64(cleanup), 0, MaxRounds, "0: the paper's setting"),
		flagcheck.Int("window", int64(window), 0, MaxRounds, "0: two cycles"),
		flagcheck.Int("horizon", int64(horizon), 0, MaxRounds, "0: window + T_cleanup + two cycles + 2"),
		flagcheck.Int("detect-bound", int64(bound), 0, MaxRounds, "0: T_cleanup + two cycles + 1"),
		flagcheck.Int("delta", int64(delta), 1, MaxCheckDelta, ""),
		flagcheck.Uint("t-gossip", tgossip, 1, MaxTicks, ""),
		flagcheck.Uint("ping-timeout", pingTimeout, 1, MaxTicks, ""),
		flagcheck.Uint("max-rounds", maxRounds, 1, MaxRounds, ""),
	)
}

// simSizes checks the flags of ftcheck simulate gossipfd; --crashes only
// with --min-cleanup, the analysis that reads it.
func simSizes(n int, trials int64, ticks, delayMin, delayMax, pingTimeout uint64, cleanup, round, crashes int, minCleanup bool) error {
	if !minCleanup {
		crashes = 0
	}
	return flagcheck.First(
		flagcheck.Int("n", int64(n), 2, fd.MaxN, ""),
		flagcheck.Int("trials", trials, 0, MaxTrials, ""),
		flagcheck.Uint("ticks-per-round", ticks, 1, MaxTicks, ""),
		flagcheck.Uint("delay-min", delayMin, 0, MaxTicks, ""),
		flagcheck.Uint("delay-max", delayMax, 1, MaxTicks, ""),
		flagcheck.Uint("ping-timeout", pingTimeout, 1, MaxTicks, ""),
		flagcheck.Int("cleanup", int64(cleanup), 0, MaxRounds, "0: the paper's setting"),
		flagcheck.Int("round", int64(round), 1, MaxRounds, ""),
		flagcheck.Int("crashes", int64(crashes), 0, int64(n)-2, "two hosts stay alive"),
	)
}
