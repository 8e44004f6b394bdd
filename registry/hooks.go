package registry

import (
	"errors"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/msc"
)

// ModelCharter is implemented by models that are not the message-passing
// environment but draw their traces as message sequence charts themselves
// (the round model of gossipfd, say). ChartOf finds it behind a Runner.
type ModelCharter interface {
	Chart(tr *checker.Trace) (msc.Chart, error)
}

// checkedModel is implemented by every Runner that Erase makes: the model
// it searches, as given to Erase.
type checkedModel interface {
	checked() any
	replayStates(tr *checker.Trace) ([]any, error)
}

func (r *runner[S]) checked() any { return r.m }

func (r *runner[S]) replayStates(tr *checker.Trace) ([]any, error) {
	ss, err := checker.Replay(r.m, tr)
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out, err
}

// ChartOf returns what draws r's traces as message sequence charts: r
// itself when it is a Charter (a message-passing model), else the model r
// searches when it is a ModelCharter. ok is false for a model without
// charts.
func ChartOf(r Runner) (c Charter, ok bool) {
	if ch, ok := r.(Charter); ok {
		return ch, true
	}
	if cm, ok := r.(checkedModel); ok {
		if mc, ok := cm.checked().(ModelCharter); ok {
			return mc, true
		}
	}
	return nil, false
}

// ErrNoStates is ReplayStates' error for a Runner that Erase did not make.
var ErrNoStates = errors.New("registry: the runner exposes no states")

// ReplayStates replays tr on the model r searches and returns the states
// it passes through, the initial one first, as the model's own state
// values (an *env.World for a message-passing model). The error is
// checker.Replay's: a *checker.ViolationError when the last state violates
// a property (then every state is returned), another error with the states
// up to the failing step.
func ReplayStates(r Runner, tr *checker.Trace) ([]any, error) {
	cm, ok := r.(checkedModel)
	if !ok {
		return nil, ErrNoStates
	}
	return cm.replayStates(tr)
}
