package conformance

import (
	"fmt"
	"strings"

	corrmodel "github.com/ftkernel/ftkernel/models/correction"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/correction"
)

// CorrInstance is an instance module of correction.qnt and the Go model
// with the same parameters.
type CorrInstance struct {
	Module string // e.g. "correction4"
	P, F   int
	Tree   correction.TreeKind // BinomialInterleaved or BinomialInOrder
}

// CorrInstances are the instance modules of correction.qnt.
var CorrInstances = []CorrInstance{
	{"correction3", 3, 1, correction.BinomialInterleaved},
	{"correction4", 4, 2, correction.BinomialInterleaved},
	{"correction5", 5, 2, correction.BinomialInterleaved},
	{"correction6inorder", 6, 2, correction.BinomialInOrder},
}

// Params are the registry parameters of the instance: checked correction,
// synchronized start, up to F non-root failures before the start (the
// root survives), the full (not Compact) node state.
func (in CorrInstance) Params(mut mutant.Name) corrmodel.Params {
	return corrmodel.Params{
		P: in.P, Tree: correction.Tree{Kind: in.Tree}, Correction: correction.Checked,
		Start: correction.Synchronized, Faults: in.F, FaultsBeforeCorrection: true, Mutant: mut,
	}
}

// Model is the Go environment of the instance.
func (in CorrInstance) Model(mut mutant.Name) (*env.Model, error) {
	return corrmodel.NewModel(in.Params(mut))
}

// qual is the name the instance is imported as in generated Quint
// modules: "c4" for correction4 (the module names themselves are taken).
func (in CorrInstance) qual() string { return "c" + strings.TrimPrefix(in.Module, "correction") }

// quintImport imports the instance from correction.qnt at importPath
// (e.g. "./correction"), qualified by in.qual(); the importing module
// also imports trees.* from there.
func (in CorrInstance) quintImport(importPath string) string {
	tree := "binomial"
	if in.Tree == correction.BinomialInOrder {
		tree = "binomialInOrder"
	}
	return fmt.Sprintf("  import correction(P = %d, F = %d, CHILDREN = %s(%d), VARIANT = \"\") as %s from %q\n",
		in.P, in.F, tree, in.P, in.qual(), importPath)
}

// ReplayCorrectionITF replays the ITF trace at path, written by `quint run
// --mbt` on module in.Module of correction.qnt, on the Go machines of the
// instance (a deliberately broken variant when mut is set: a check that
// the comparison notices a wrong rule). Every spec step is one Go action:
//
//	Broadcast          Call at the root
//	RecvTree(m)        Deliver m (index among the distinct messages src -> dst)
//	RecvCorrection(m)  Deliver m
//	Clock              Clock
//	Start(p)           Fire(p, TimerStart)
//	SendSlot(p)        Fire(p, TimerSendSlot)
//	Crash(p)           Crash(p)
//
// After every step the spec's state is compared with the Go world's
// (CorrState); the first difference is a *Divergence.
func ReplayCorrectionITF(path string, in CorrInstance, mut mutant.Name) (Stats, error) {
	st, tr, m, err := readReplayModel(path, in.Model, mut)
	if err != nil {
		return st, err
	}
	div := func(i int, diff string) error {
		s := tr.States[i]
		return &Divergence{File: path, Step: i, Action: fmt.Sprint(s["mbt::actionTaken"]), Picks: formatPicks(s, []string{"p", "m"}, asCorrMsg), Diff: diff}
	}
	compare := func(i int, w *env.World) error {
		got, goErr := FromCorrectionWorld(w)
		return compareSpecState(&st, i, tr.States[i], fromCorrectionSpec, func(spec CorrState) error {
			if len(spec.Nodes) != in.P {
				return fmt.Errorf("%s: %d processes in the trace, the instance %s has P = %d", path, len(spec.Nodes), in.Module, in.P)
			}
			return nil
		}, got, goErr, div)
	}
	err = replayEnvSteps(&st, tr, m, m.Init()[0], corrGoAction, div, compare)
	return st, err
}

// corrGoAction maps the spec step that led to state s to an env action.
func corrGoAction(w *env.World, s map[string]any) (a checker.Action, err error) {
	defer recoverPicks(&err)
	get := somePicks(s)
	switch name := s["mbt::actionTaken"]; name {
	case "Broadcast":
		return checker.Action{Kind: env.Call, P: 0}, nil
	case "RecvTree", "RecvCorrection":
		msg := asCorrMsg(get("m"))
		i, found := inFlightIndex(w, msg.Src, msg.Dst, CorrMsgOf, msg)
		if !found {
			return a, fmt.Errorf("%v is not in flight on the Go side", msg)
		}
		return checker.Action{Kind: env.Deliver, P: int32(msg.Dst), Q: int32(msg.Src), I: int32(i)}, nil
	case "Clock":
		return checker.Action{Kind: env.Clock}, nil
	case "Start":
		return checker.Action{Kind: env.Fire, P: int32(asInt(get("p"))), I: int32(correction.TimerStart)}, nil
	case "SendSlot":
		return checker.Action{Kind: env.Fire, P: int32(asInt(get("p"))), I: int32(correction.TimerSendSlot)}, nil
	case "Crash":
		return checker.Action{Kind: env.Crash, P: int32(asInt(get("p")))}, nil
	default:
		return a, fmt.Errorf("unknown spec action %v", name)
	}
}
