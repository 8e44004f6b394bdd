package linearize

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// This file adapts runs of the ERA environment (checker/env worlds of
// era.Node machines) to the neutral History of this package. It depends on
// the protocol; the protocol never depends on it.

// ERAHistoryOptions tune FromERAWorldsOpt.
type ERAHistoryOptions struct {
	// KeepCrashedReturns keeps the returns of processes that crashed later
	// in the run. By default they are dropped: a process that crashes never
	// returns as far as the history is concerned, which is what ERA's
	// non-uniform Agreement (§2.1, Theorem 2) promises. Kept, the check is
	// the uniform agreement ERA is known not to have.
	KeepCrashedReturns bool
}

// FromERAWorlds turns a run of the ERA environment into a History: worlds[0]
// is the initial world and worlds[i] the world after step i, as
// checker.Replay returns them. A call is invoked at the step that takes an
// env.Call action whose input is an era.Contribute (Instance A, Value the
// canonical encoding of V); it returns at the step whose LastEffects hold
// the EffReturn for that instance (possibly the call's own step, when the
// process decided before it called). Event.Step is the step number i.
// Processes crashed in the last world never return: their calls stay
// pending (see ERAHistoryOptions to keep their returns).
//
// It returns an error for worlds that are not consecutive steps of one run
// (depths not increasing by one), a call whose input is not an
// era.Contribute, or a return for an instance the process did not call.
func FromERAWorlds(worlds []*env.World) (History, error) {
	return FromERAWorldsOpt(worlds, ERAHistoryOptions{})
}

// FromERAWorldsOpt is FromERAWorlds with options.
func FromERAWorldsOpt(worlds []*env.World, opt ERAHistoryOptions) (History, error) {
	if len(worlds) == 0 {
		return nil, nil
	}
	last := worlds[len(worlds)-1]
	var h History
	type key struct {
		p int
		a uint64
	}
	called := map[key]bool{}
	for i := 1; i < len(worlds); i++ {
		prev, w := worlds[i-1], worlds[i]
		if w == nil || prev == nil {
			return nil, fmt.Errorf("linearize: world %d is nil", i)
		}
		if w.Depth() != prev.Depth()+1 {
			return nil, fmt.Errorf("linearize: world %d has depth %d after depth %d: not consecutive steps", i, w.Depth(), prev.Depth())
		}
		p := w.LastActor()
		a := w.LastAction()
		if a.Kind == env.Call {
			made := w.CallsMade(p)
			if len(made) == 0 {
				return nil, fmt.Errorf("linearize: step %d: %v called but made no call", i, p)
			}
			c, ok := made[len(made)-1].(era.Contribute)
			if !ok {
				return nil, fmt.Errorf("linearize: step %d: %v called %v (%T), not an era.Contribute", i, p, made[len(made)-1], made[len(made)-1])
			}
			if c.V == nil {
				return nil, fmt.Errorf("linearize: step %d: %v contributed ⊥", i, p)
			}
			called[key{int(p), c.A}] = true
			h = append(h, Event{Kind: Call, Process: int(p), Instance: c.A, Value: c.V.AppendBinary(nil), Step: i})
		}
		for _, e := range w.LastEffects() {
			if e.Kind != core.EffReturn {
				continue
			}
			if !called[key{int(p), e.Instance}] {
				return nil, fmt.Errorf("linearize: step %d: %v returns for a=%d without a call", i, p, e.Instance)
			}
			if e.Value == nil {
				return nil, fmt.Errorf("linearize: step %d: %v returns ⊥ for a=%d", i, p, e.Instance)
			}
			if !opt.KeepCrashedReturns && last.Crashed(p) {
				continue
			}
			h = append(h, Event{Kind: Return, Process: int(p), Instance: e.Instance, Value: e.Value.AppendBinary(nil), Step: i})
		}
	}
	return h, nil
}

// FromERATrace replays tr on m (checker.Replay, every property not marked
// ExpectFail checked) and returns the history of the run. A property
// violation does not stop it: the history of the states up to the
// violation is returned along with the *checker.ViolationError, so a
// caller may compare both verdicts. Other replay errors return no history.
func FromERATrace(m *env.Model, tr *checker.Trace) (History, []*env.World, error) {
	worlds, err := checker.Replay[*env.World](m, tr)
	var verr *checker.ViolationError
	if err != nil && !errors.As(err, &verr) {
		return nil, worlds, err
	}
	h, herr := FromERAWorlds(worlds)
	if herr != nil {
		return nil, worlds, herr
	}
	return h, worlds, err
}

// ERACombine is F of op (era.And, era.ULFM, or any era.Op) on canonical
// value encodings: both arguments are decoded with op.Decode (through a
// core.Decoder; trailing bytes are an error), combined, and re-encoded. A
// nil op is era.And.
func ERACombine(op era.Op) Combine {
	if op == nil {
		op = era.And
	}
	return func(a, b []byte) ([]byte, error) {
		x, err := decodeERAValue(op, a)
		if err != nil {
			return nil, err
		}
		y, err := decodeERAValue(op, b)
		if err != nil {
			return nil, err
		}
		v := op.Combine(x, y)
		if v == nil {
			return nil, fmt.Errorf("linearize: %s combine gave ⊥", op.Name())
		}
		return v.AppendBinary(nil), nil
	}
}

// ERADescribe renders a value encoding of op for porcupine's visualisation
// (the value's String, or the hex bytes if they do not decode).
func ERADescribe(op era.Op) func([]byte) string {
	if op == nil {
		op = era.And
	}
	return func(b []byte) string {
		v, err := decodeERAValue(op, b)
		if err != nil {
			return fmt.Sprintf("?0x%x", b)
		}
		return v.String()
	}
}

func decodeERAValue(op era.Op, b []byte) (core.Value, error) {
	d := core.NewDecoder(b)
	v, err := op.Decode(d)
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return nil, fmt.Errorf("linearize: %s value 0x%x: %w", op.Name(), b, err)
	}
	return v, nil
}
