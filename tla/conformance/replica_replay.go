package conformance

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	repmodel "github.com/ftkernel/ftkernel/models/replica"
	"github.com/ftkernel/ftkernel/statemachine/replica"
)

// RepInstance is an instance module of replica.qnt and the Go model with
// the same parameters.
type RepInstance struct {
	Module  string // e.g. "pingpong"
	Program string // a name of replica.ProgramNames
	Degrees []int  // replicas per logical process
	F       int    // crash budget (replicas)
}

// RepInstances are the instance modules of replica.qnt.
var RepInstances = []RepInstance{
	{"pingpong", "ping-pong", []int{2, 2}, 1},
	{"pingpong2", "ping-pong", []int{2, 2}, 2},
	{"pingpong0", "ping-pong", []int{2, 2}, 0},
	{"midexample", "mid-example", []int{2, 1, 2}, 1},
}

// Params are the models/replica parameters of the instance: unordered
// network, perfect detector, one round of ping-pong.
func (in RepInstance) Params(mut mutant.Name) repmodel.Params {
	return repmodel.Params{
		Program: in.Program, Procs: len(in.Degrees), Degrees: in.Degrees,
		Crashes: in.F, Network: env.Unordered, Mutant: mut,
	}
}

// Model is the Go model of the instance.
func (in RepInstance) Model(mut mutant.Name) (*repmodel.Model, error) {
	return repmodel.NewModel(in.Params(mut))
}

// ReplayReplicaITF replays the ITF trace at path, written by `quint run
// --mbt` on module in.Module of replica.qnt, on the Go machines of the
// instance (a deliberately broken variant when mut is set: a check that
// the comparison notices a wrong rule). Every spec step is one Go action:
//
//	Start(p)      Call p
//	Deliver(m)    Deliver m (index among the distinct messages src -> dst)
//	Pump(p)       Fire p's replica.PumpTimer
//	Crash(p)      Crash p
//	Detect(p, q)  Detect: p learns that q crashed
//
// After every step the spec's state is compared with the Go world's
// (RepState, cmp.Diff); the first difference is a *Divergence.
func ReplayReplicaITF(path string, in RepInstance, mut mutant.Name) (Stats, error) {
	st, tr, m, err := readReplayModel(path, in.Model, mut)
	if err != nil {
		return st, err
	}
	div := func(i int, diff string) error {
		s := tr.States[i]
		return &Divergence{File: path, Step: i, Action: fmt.Sprint(s["mbt::actionTaken"]), Picks: formatPicks(s, []string{"p", "q", "m"}, repMsgSpec), Diff: diff}
	}
	compare := func(i int, w *env.World) error {
		got, goErr := FromReplicaWorld(w, m.Config.Layout)
		return compareSpecState(&st, i, tr.States[i], fromReplicaSpec, nil, got, goErr, div)
	}
	err = replayEnvSteps(&st, tr, m, m.Init()[0], repGoAction, div, compare)
	return st, err
}

// repGoAction maps the spec step that led to state s to an env action.
func repGoAction(w *env.World, s map[string]any) (a checker.Action, err error) {
	defer recoverPicks(&err)
	get := somePicks(s)
	switch name := s["mbt::actionTaken"]; name {
	case "Start":
		return checker.Action{Kind: env.Call, P: int32(asInt(get("p")))}, nil
	case "Deliver":
		msg := repMsgSpec(get("m"))
		i, found := inFlightIndex(w, msg.Src, msg.Dst, RepMsgOf, msg)
		if !found {
			return a, fmt.Errorf("%+v is not in flight on the Go side", msg)
		}
		return checker.Action{Kind: env.Deliver, P: int32(msg.Dst), Q: int32(msg.Src), I: int32(i)}, nil
	case "Pump":
		return checker.Action{Kind: env.Fire, P: int32(asInt(get("p"))), I: replica.PumpTimer}, nil
	case "Crash":
		return checker.Action{Kind: env.Crash, P: int32(asInt(get("p")))}, nil
	case "Detect":
		return checker.Action{Kind: env.Detect, P: int32(asInt(get("p"))), Q: int32(asInt(get("q")))}, nil
	default:
		return a, fmt.Errorf("unknown spec action %v", name)
	}
}
