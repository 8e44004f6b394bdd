package env

import (
	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Ignorable reports whether a, an action Actions lists, may still be
// enabled in a quiescent world: a budget crash (Crash of a rank outside
// Config.Fail) or a restart (Recover, CrashRecovery). A crash or restart
// within the budget is a fault the environment may
// inject, never work a run owes, so a run may end with budget left; a Fail
// rank must crash in every run, so its Crash is not ignorable. This is the
// declaration Quiescent keeps: Quiescent(s) holds exactly when every
// action of Actions(s) is Ignorable (checked on random walks and small
// exhaustive runs of every env model by the soundness tests, with
// envtest.Quiescence). A model that wraps Model and owes other actions
// (a benchmark's kills) overrides it.
func (m *Model) Ignorable(a checker.Action) bool {
	return a.Kind == Crash && !m.fail.Has(core.Rank(a.P)) || a.Kind == Recover
}
