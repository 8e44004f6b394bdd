package hyperquicksort

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

// ReplayOnChecked replays steps, a run of NetModel(p) (such as the merged
// logs of `ftcheck run hyperquicksort`), on the model `ftcheck check
// hyperquicksort` explores (NewModel(p) with the input vector the run
// sorts), checking its properties after every step and at the end. The
// mapping: a process's call of round k is the model's Start, preceded,
// for the round's first call, by the barrier of round k−1 and the
// environment's choice of the round's non-recommended set (the processes
// the node knew dead); a PIVOT or LIST delivery is the model's delivery
// of the same message, put off to the receiver's Start when it came
// before; STORE deliveries, crashes and reports have no step of their own
// (the model's store is written when a process ends its part of a round).
// The final lists by virtual rank must be the network model's. It
// returns the number of the model's steps.
func ReplayOnChecked(p Params, steps []checker.Step) (int, error) {
	em, err := NetModel(p)
	if err != nil {
		return 0, err
	}
	q := p
	q.Inputs, q.Mutant, q.Schedule = 1, p.Mutant, nil
	m, err := NewModel(q)
	if err != nil {
		return 0, err
	}
	m.inputs = [][][]int32{p.RunInput()}
	w, mw := em.Init()[0], m.Init()[0]
	taken := 0
	apply := func(a checker.Action) error {
		next, err := m.Apply(mw, a)
		if err != nil {
			return fmt.Errorf("check's model, step %d (%s): %v", taken+1, m.KindName(a.Kind), err)
		}
		mw = next
		taken++
		if err := m.check(mw, checker.Invariant); err != nil {
			return fmt.Errorf("check's model, step %d (%s): %v", taken, m.Describe(mw, a), err)
		}
		return nil
	}
	deliver := func(msg hq.Msg) error {
		enc := msg.AppendBinary(nil)
		i := slices.IndexFunc(mw.net, func(x hq.Msg) bool { return bytes.Equal(x.AppendBinary(nil), enc) })
		if i < 0 {
			return fmt.Errorf("check's model: %v is not in flight", msg)
		}
		return apply(checker.Action{Kind: Deliver, P: int32(msg.To), Q: int32(msg.From), I: int32(i)})
	}
	deferred := make([][]hq.Msg, p.N)
	for i, st := range steps {
		a := st.Action
		var msg core.Message
		if a.Kind == env.Deliver {
			msg, _ = w.Message(a)
		}
		next, err := em.Apply(w, a)
		if err != nil {
			return taken, fmt.Errorf("network model, step %d: %v", i+1, err)
		}
		w = next
		switch a.Kind {
		case env.Call:
			r := core.Rank(a.P)
			views := w.Node(r).(*hq.Node).Views()
			k := len(views) - 1
			if mw.round < k {
				if err := apply(checker.Action{Kind: Barrier}); err != nil {
					return taken, err
				}
			}
			if !mw.chosen {
				if err := apply(checker.Action{Kind: Choose, P: setMask(views[k])}); err != nil {
					return taken, err
				}
			}
			if err := apply(checker.Action{Kind: Start, P: int32(r)}); err != nil {
				return taken, err
			}
			for _, d := range deferred[r] {
				if err := deliver(d); err != nil {
					return taken, err
				}
			}
			deferred[r] = nil
		case env.Deliver:
			s, ok := msg.(hq.Sort)
			if !ok {
				continue // a STORE: the model wrote the store at the sender's end of round
			}
			if len(w.Node(s.To).(*hq.Node).Views()) <= s.Round {
				deferred[s.To] = append(deferred[s.To], s.Msg) // came before the receiver's call
				continue
			}
			if err := deliver(s.Msg); err != nil {
				return taken, err
			}
		}
	}
	var final hq.Lists
	for r := range core.Rank(p.N) {
		if nd := w.Node(r).(*hq.Node); !w.Crashed(r) && nd.Barriers() == nd.Rounds() && final == nil {
			final = nd.Store()
		}
	}
	if final == nil {
		return taken, nil // the run did not end: nothing more to compare
	}
	if err := apply(checker.Action{Kind: Barrier}); err != nil {
		return taken, err
	}
	if err := m.check(mw, checker.Quiescence); err != nil {
		return taken, fmt.Errorf("check's model at the end: %v", err)
	}
	out, _ := m.Output(mw)
	if hq.FormatLists(out) != hq.FormatLists(final) {
		return taken, fmt.Errorf("check's model ends with %s, the run with %s", hq.FormatLists(out), hq.FormatLists(final))
	}
	return taken, nil
}
