package ringfd

import (
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// Ranges of the flags of ftcheck check and simulate ringfd, checked before
// anything is built from them. Times are in ticks.
const (
	// MaxCheckN and MaxCheckProcs bound --n and --procs of an exhaustive
	// check; MaxCheckDelta its --delay bound Δ.
	MaxCheckN     = 8
	MaxCheckProcs = 8
	MaxCheckDelta = 16
	// MaxTicks bounds the periods, timeouts and delays in ticks.
	MaxTicks = 1_000_000
	// MaxHorizon bounds simulate's --crash-at and --horizon (ticks).
	MaxHorizon = 1_000_000_000
)

// checkSizes checks the flags of ftcheck check ringfd.
func checkSizes(n, procs, crashes, delta int, period, timeout uint64) error {
	return flagcheck.First(
		flagcheck.Int("n", int64(n), 1, MaxCheckN, "exhaustive checking is for small N: use ftcheck simulate ringfd beyond"),
		flagcheck.Int("procs", int64(procs), 0, MaxCheckProcs, ""),
		flagcheck.Int("crashes", int64(crashes), 0, int64(n)-1, "one daemon survives"),
		flagcheck.Int("delta", int64(delta), 1, MaxCheckDelta, ""),
		flagcheck.Uint("period", period, 1, MaxTicks, "a heartbeat period of 0 ticks never ends"),
		flagcheck.Uint("timeout", timeout, 1, MaxTicks, ""),
	)
}

// simSizes checks the flags of ftcheck simulate ringfd.
func simSizes(n, procs int, period, timeout, delayMin, delayMax, startup, crashAt, horizon uint64) error {
	return flagcheck.First(
		flagcheck.Int("n", int64(n), 1, fd.MaxDaemons, ""),
		flagcheck.Int("procs", int64(procs), 0, fd.MaxProcs, ""),
		flagcheck.Uint("period", period, 1, MaxTicks, "a heartbeat period of 0 ticks never ends"),
		flagcheck.Uint("timeout", timeout, 0, MaxTicks, "0: 2·period"),
		flagcheck.Uint("delay-min", delayMin, 0, MaxTicks, ""),
		flagcheck.Uint("delay-max", delayMax, 1, MaxTicks, "--zero-delay delivers in the tick of the send"),
		flagcheck.Uint("startup-delay", startup, 0, MaxTicks, ""),
		flagcheck.Uint("crash-at", crashAt, 0, MaxHorizon, ""),
		flagcheck.Uint("horizon", horizon, 0, MaxHorizon, ""),
	)
}
