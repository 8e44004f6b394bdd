package conformance

import (
	"fmt"
	"iter"
	"path/filepath"
	"slices"

	eramodel "github.com/ftkernel/ftkernel/models/era"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// Stats counts what a replay did.
type Stats struct {
	SpecSteps int // transitions of the spec trace (states - 1)
	GoSteps   int // Go actions applied
	DCSteps   int // spec DC steps (Go stutters: DC is inside the Go step)
	Stutters  int // other spec steps without a Go counterpart
	Compared  int // states compared
}

// Divergence is the first point where the Go world and the spec state
// differ, or where a spec step cannot be taken on the Go side.
type Divergence struct {
	File   string
	Step   int    // index of the spec state (the ITF "#meta" index)
	Action string // the spec action that led to it
	Picks  string // its nondeterministic picks
	Diff   string // cmp.Diff(spec, Go), or why the step could not be taken
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("%s: state %d after %s(%s): Go and spec diverge (-spec +go):\n%s",
		filepath.Base(d.File), d.Step, d.Action, d.Picks, d.Diff)
}

// ReplayITF replays the ITF trace at path, generated from era_go.qnt with
// `--step stepEager --mbt`, on the Go ERA machines: an env.Model built
// with eramodel.NewModel (N from the trace, crash budget f, Unordered,
// env.LossOnCrash, the inputs of the trace's first state). It returns a
// *Divergence at the first difference.
func ReplayITF(path string, f int) (Stats, error) {
	return ReplayITFMutant(path, f, mutant.None)
}

// ReplayITFMutant is ReplayITF on the Go machines of a deliberately broken
// variant (era.Mutants): a check that the comparison notices a wrong rule.
func ReplayITFMutant(path string, f int, mut mutant.Name) (Stats, error) {
	st, tr, err := readReplay(path)
	if err != nil {
		return st, err
	}
	s0 := tr.States[0]
	inputs := map[int]map[int]int{}
	for p, v := range intKeyed(s0["input"]) {
		inputs[p] = map[int]int{}
		for a, x := range intKeyed(v) {
			inputs[p][a] = asInt(x)
		}
	}
	n := len(inputs)
	nags := len(inputs[0])
	// Each process calls Agreement in the order the trace does, then the
	// agreements it never calls.
	order := make([][]int, n)
	for _, s := range tr.States[1:] {
		if s["mbt::actionTaken"] == "CallAgreement" {
			p, _ := pick(s, "p")
			a, _ := pick(s, "a")
			order[asInt(p)] = append(order[asInt(p)], asInt(a))
		}
	}
	sched := make([][]core.Input, n)
	for p := range n {
		for a := range nags {
			if !slices.Contains(order[p], a) {
				order[p] = append(order[p], a)
			}
		}
		for _, a := range order[p] {
			sched[p] = append(sched[p], era.Contribute{A: uint64(a), V: era.Flag(inputs[p][a])})
		}
	}
	m, err := eramodel.NewModel(eramodel.Params{
		N: n, Crashes: f, Agreements: nags, Values: 4, Topology: era.Binary,
		Network: env.Unordered, Loss: env.LossOnCrash, Op: era.And, Mutant: mut,
	}, [][][]core.Input{sched})
	if err != nil {
		return st, err
	}
	w := m.Init()[0]
	div := func(i int, diff string) error {
		s := tr.States[i]
		return &Divergence{File: path, Step: i, Action: fmt.Sprint(s["mbt::actionTaken"]), Picks: formatPicks(s, []string{"p", "q", "a", "m"}, asMsg), Diff: diff}
	}
	compare := func(i int) error {
		spec, err := fromSpec(tr.States[i])
		if err != nil {
			return err
		}
		st.Compared++
		if d := cmp.Diff(spec, FromWorld(w, nags)); d != "" {
			return div(i, d)
		}
		return nil
	}
	if err := compare(0); err != nil {
		return st, err
	}
	var buf []checker.Action
	for i := 1; i < len(tr.States); {
		s := tr.States[i]
		act, ok, err := goAction(w, s)
		if err != nil {
			return st, div(i, err.Error())
		}
		if ok {
			buf = m.Actions(w, buf[:0])
			if !slices.Contains(buf, act) {
				return st, div(i, fmt.Sprintf("Go action %s (%v) is not enabled", env.KindName(act.Kind), act))
			}
			next, err := m.Apply(w, act)
			if err != nil {
				return st, div(i, err.Error())
			}
			w = next
			st.GoSteps++
		} else {
			st.Stutters++
		}
		// the spec's DC steps that follow are inside the Go step
		j := i
		for j+1 < len(tr.States) && tr.States[j+1]["mbt::actionTaken"] == "DC" {
			j++
			st.DCSteps++
		}
		if err := compare(j); err != nil {
			return st, err
		}
		i = j + 1
	}
	return st, nil
}

// readReplay reads the ITF trace at path to replay it: the trace, which
// has states, and the Stats of its replay with SpecSteps set.
func readReplay(path string) (Stats, *itfTrace, error) {
	var st Stats
	tr, err := readITF(path)
	if err != nil {
		return st, nil, err
	}
	if len(tr.States) == 0 {
		return st, nil, fmt.Errorf("%s: no states", path)
	}
	st.SpecSteps = len(tr.States) - 1
	return st, tr, nil
}

// goAction maps the spec step that led to state s to an env action, or
// ok = false for a spec step the Go environment has no counterpart for.
func goAction(w *env.World, s map[string]any) (a checker.Action, ok bool, err error) {
	defer recoverPicks(&err)
	get := somePicks(s)
	switch name := s["mbt::actionTaken"]; name {
	case "CallAgreement":
		p, ag := asInt(get("p")), asInt(get("a"))
		pend := w.PendingCalls(core.Rank(p))
		if len(pend) == 0 || pend[0].(era.Contribute).A != uint64(ag) {
			return a, false, fmt.Errorf("p%d's next Go call is not Agreement(·, %d)", p, ag)
		}
		return checker.Action{Kind: env.Call, P: int32(p)}, true, nil
	case "RecvUP", "RecvDOWN", "RecvRESULTREQUEST", "DropFromCrashed":
		msg := asMsg(get("m"))
		kind := env.Deliver
		if name == "DropFromCrashed" {
			if w.Crashed(core.Rank(msg.Dst)) {
				return a, false, nil // Go discarded it when the receiver crashed
			}
			kind = env.Lose
		}
		i, found := inFlightIndex(w, msg.Src, msg.Dst, MsgOf, msg)
		if !found {
			return a, false, fmt.Errorf("%v is not in flight on the Go side", msg)
		}
		return checker.Action{Kind: kind, P: int32(msg.Dst), Q: int32(msg.Src), I: int32(i)}, true, nil
	case "Crash":
		return checker.Action{Kind: env.Crash, P: int32(asInt(get("p")))}, true, nil
	case "Detect":
		return checker.Action{Kind: env.Detect, P: int32(asInt(get("p"))), Q: int32(asInt(get("q")))}, true, nil
	case "DC":
		return a, false, fmt.Errorf("DC that does not follow an event (the trace was not generated with --step stepEager?)")
	default:
		return a, false, fmt.Errorf("unknown spec action %v", name)
	}
}

// recoverPicks, deferred by a function mapping a spec step to a Go action,
// makes a panic on the step's picks (a missing pick, one of the wrong
// shape) its error.
func recoverPicks(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("bad picks: %v", r)
	}
}

// somePicks gives the value of a Some pick of state s by name; it panics
// when there is none (see recoverPicks).
func somePicks(s map[string]any) func(name string) any {
	return func(name string) any {
		v, ok := pick(s, name)
		if !ok {
			panic("no pick " + name)
		}
		return v
	}
}

// distinctInFlight yields, in canonical order, the distinct messages in
// flight from src to dst, abstracted by of (MsgOf, CorrMsgOf), with their
// index among them: the operand I of Deliver/Lose
// (env.World.InFlight lists one envelope per copy, in that order).
func distinctInFlight[M comparable](w *env.World, src, dst int, of func(src, dst core.Rank, m core.Message) M) iter.Seq2[int, M] {
	return func(yield func(int, M) bool) {
		i, prev := -1, *new(M)
		for _, e := range w.InFlight() {
			if int(e.To) != dst || int(e.From) != src {
				continue
			}
			m := of(e.From, e.To, e.Msg)
			if i < 0 || m != prev {
				i++
				prev = m
				if !yield(i, m) {
					return
				}
			}
		}
	}
}

// inFlightIndex is the operand I of Deliver/Lose for msg, sent from src to
// dst: its position among the distinct messages in flight from src to dst
// (see distinctInFlight).
func inFlightIndex[M comparable](w *env.World, src, dst int, of func(src, dst core.Rank, m core.Message) M, msg M) (int, bool) {
	for i, m := range distinctInFlight(w, src, dst, of) {
		if m == msg {
			return i, true
		}
	}
	return 0, false
}

// nthInFlight is the i-th distinct message in flight from src to dst (see
// distinctInFlight).
func nthInFlight[M comparable](w *env.World, src, dst int, of func(src, dst core.Rank, m core.Message) M, i int) (M, bool) {
	for j, m := range distinctInFlight(w, src, dst, of) {
		if j == i {
			return m, true
		}
	}
	return *new(M), false
}

// formatPicks formats the Some picks of a state among keys, in that order,
// e.g. "p=1 a=0"; the message pick m is shown as asMsg decodes it (as
// picked when it does not decode).
func formatPicks[M any](s map[string]any, keys []string, asMsg func(any) M) string {
	var out string
	for _, k := range keys {
		if v, ok := pick(s, k); ok {
			if out != "" {
				out += " "
			}
			if k == "m" {
				func() {
					defer func() { recover() }()
					v = asMsg(v)
				}()
			}
			out += fmt.Sprintf("%s=%v", k, v)
		}
	}
	return out
}
