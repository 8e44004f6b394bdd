package ringfd

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// maySend is the ring detector's "may still send to" relation
// (env.Config.MaySend, for persistent sets in depth-first search), from
// the rules of statemachine/ringfd:
//
//   - an application process sends nothing (Process.Step records a
//     FAULT and emits no effect);
//   - a daemon sends to daemons: HB to its observer (heartbeatTick, and
//     recvHBRequest to whoever asks), HBRequest to the predecessor it mends
//     to (mend: any daemon up the ring), FAULT to its BMG neighbours
//     (reliableBroadcast over Config.Targets); it is taken to send to
//     every daemon, since the observer changes with any request and the
//     BMG of a small ring holds every daemon;
//   - a daemon sends to an application process only when it hosts it
//     (reliableBroadcast's star, "for all lp ∈ Hosted{i}").
//
// None of this depends on the state, so the relation holds on every path
// and for every mutant (they change guards, targets among daemons and the
// skip of mending, not who hosts whom; TestMaySendSound checks every one).
//
// The environment does not use it yet: checker/env's persistent sets turn
// themselves off for a model with crash groups (env.Config.Hosts), which
// this model always has (a daemon's crash takes its processes), so
// `--dfs --por` runs unreduced. The environment would need two more
// rules: a hosted rank in S brings its host into S when the host may
// crash (the group crash changes S's records), and under DetectorLocal
// only the crashable ranks a host of S observes join S.
func maySend(c *fd.Config) func(w *env.World, p, r core.Rank) bool {
	return func(_ *env.World, p, r core.Rank) bool {
		switch {
		case c.IsProcess(p):
			return false
		case c.IsProcess(r):
			return c.Host(r) == p
		}
		return true
	}
}
