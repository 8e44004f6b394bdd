package checker

import (
	"errors"
	"fmt"
	"slices"
)

// ErrNotEnabled is wrapped by the StepError of an action that is not among
// Model.Actions of the state it is taken in.
var ErrNotEnabled = errors.New("action not enabled")

// StepError says that step Step (counting from 1) of a trace could not be
// taken: the action is not enabled (ErrNotEnabled) or Apply failed.
type StepError struct {
	Step   int
	Action Action
	Err    error
}

func (e *StepError) Error() string {
	return fmt.Sprintf("checker: replay step %d %v: %v", e.Step, e.Action, e.Err)
}

func (e *StepError) Unwrap() error { return e.Err }

// ViolationError is Replay's error when a property fails along the trace.
type ViolationError struct {
	Violation Violation
}

func (e *ViolationError) Error() string { return "checker: " + e.Violation.String() }

// Replay rebuilds the states of tr: states[0] is Init()[tr.Init] and
// states[i] the state after step i. Along the way it checks the trace's
// violated property when tr.Violation is set (only that one: a trace found
// by search or walk then reproduces its violation exactly), and every
// property not marked ExpectFail when it is not.
//
// Errors: a *StepError when a step's action is not enabled or Apply fails;
// a *ViolationError, with the states up to the bad one, when a property
// fails (its Violation equals tr.Violation for a faithful counterexample);
// a plain error for a bad Init index or an unknown property name. A nil
// error means that all steps were taken and nothing failed.
//
// A lasso (tr.Loop > 0) is checked instead for what makes it one: every
// step is taken, the last state equals the state after tr.LoopStart() steps
// (same Model.Encode, or the same canonical encoding when the model is
// Symmetric or a CanonicalEncoder), and no state of the cycle is
// quiescent; the error is then a *ViolationError of LivelockProperty, and
// a plain error when the trace is not such a lasso. A lasso of an
// Eventually property (tr.Violation names one) is checked likewise, except
// that every state of its cycle must fail the property instead (quiescent
// or not); the *ViolationError then carries that property's violation.
func Replay[S any](m Model[S], tr *Trace) ([]S, error) {
	if tr.Loop > 0 {
		return replayLasso(m, tr)
	}
	ps, err := traceProperties(m, tr)
	if err != nil {
		return nil, err
	}
	acts, err := traceActions(m, tr)
	if err != nil {
		return nil, err
	}
	states, v, err := replayActions(m, tr.Init, acts, ps)
	if err != nil {
		return states, err
	}
	if v != nil {
		return states, &ViolationError{Violation: *v}
	}
	return states, nil
}

// traceActions lists the actions of tr's steps. A step whose kind name
// (Step.KindName) is not the model's name of its kind number is a
// *StepError: the trace was edited or written by another model.
func traceActions[S any](m Model[S], tr *Trace) ([]Action, error) {
	kn, _ := any(m).(KindNamer)
	acts := make([]Action, len(tr.Steps))
	for i, st := range tr.Steps {
		if kn != nil && st.KindName != "" && kn.KindName(st.Action.Kind) != st.KindName {
			return nil, &StepError{Step: i + 1, Action: st.Action,
				Err: fmt.Errorf("the trace names kind %d %q, the model %q", st.Action.Kind, st.KindName, kn.KindName(st.Action.Kind))}
		}
		acts[i] = st.Action
	}
	return acts, nil
}

// traceProperties is the property set Replay checks for tr.
func traceProperties[S any](m Model[S], tr *Trace) (*propSet[S], error) {
	var names []string
	if tr.Violation != nil {
		names = []string{tr.Violation.Property}
	}
	return selectProperties(m.Properties(), names)
}

// replayActions takes acts from initial state init, checking ps, and stops
// at the first violation (returned with the states up to the bad one).
func replayActions[S any](m Model[S], init int, acts []Action, ps *propSet[S]) ([]S, *Violation, error) {
	inits := m.Init()
	if init < 0 || init >= len(inits) {
		return nil, nil, fmt.Errorf("checker: replay: init %d out of range 0..%d", init, len(inits)-1)
	}
	s := inits[init]
	states := []S{s}
	if i, err := ps.checkState(m, s); err != nil {
		return states, ps.violation(i, err, 0), nil
	}
	var buf []Action
	for k, a := range acts {
		buf = m.Actions(s, buf[:0])
		if !slices.Contains(buf, a) {
			return states, nil, &StepError{Step: k + 1, Action: a, Err: ErrNotEnabled}
		}
		next, err := m.Apply(s, a)
		if err != nil {
			return states, nil, &StepError{Step: k + 1, Action: a, Err: err}
		}
		states = append(states, next)
		if i, err := ps.checkStep(s, a, next); err != nil {
			return states, ps.violation(i, err, k+1), nil
		}
		if i, err := ps.checkState(m, next); err != nil {
			return states, ps.violation(i, err, k+1), nil
		}
		s = next
	}
	return states, nil, nil
}

// describe fills the Text of steps along the path from init.
func describe[S any](m Model[S], init S, acts []Action) ([]Step, error) {
	steps := make([]Step, len(acts))
	kn, _ := any(m).(KindNamer)
	s := init
	for i, a := range acts {
		steps[i] = Step{Action: a, Text: m.Describe(s, a)}
		if kn != nil {
			steps[i].KindName = kn.KindName(a.Kind)
		}
		next, err := m.Apply(s, a)
		if err != nil {
			return steps, &StepError{Step: i + 1, Action: a, Err: err}
		}
		s = next
	}
	return steps, nil
}

// replayLasso replays a lasso and checks that it closes and never quiesces.
func replayLasso[S any](m Model[S], tr *Trace) ([]S, error) {
	acts, err := traceActions(m, tr)
	if err != nil {
		return nil, err
	}
	states, _, err := replayActions(m, tr.Init, acts, &propSet[S]{all: m.Properties()})
	if err != nil {
		return states, err
	}
	start, end := tr.LoopStart(), len(states)-1
	same := func(k keyer[S]) bool {
		return string(k.encode(nil, states[start])) == string(k.encode(nil, states[end]))
	}
	plain := keyer[S]{m: m}
	sym, useSym := newKeyer(m, Options{Symmetry: true})
	if !same(plain) && !(useSym && same(sym)) {
		return states, fmt.Errorf("checker: replay: the lasso's last state is not the state after step %d", start)
	}
	if tr.Violation != nil && tr.Violation.Property != LivelockProperty {
		return replayEventually(m, tr, states)
	}
	for i := start; i < end; i++ {
		if m.Quiescent(states[i]) {
			return states, fmt.Errorf("checker: replay: the lasso's state after step %d is quiescent", i)
		}
	}
	return states, &ViolationError{Violation: *lassoViolation(start, tr.Loop)}
}

// replayEventually checks that every state of the closed lasso tr (states
// replayed) fails the Eventually property tr.Violation names.
func replayEventually[S any](m Model[S], tr *Trace, states []S) ([]S, error) {
	ps, err := selectProperties(m.Properties(), []string{tr.Violation.Property})
	if err != nil {
		return states, err
	}
	if len(ps.ev) != 1 {
		return states, fmt.Errorf("checker: replay: a lasso of %q, which is not an eventually property", tr.Violation.Property)
	}
	prop := ps.all[ps.ev[0]]
	start := tr.LoopStart()
	for i := start; i < len(states)-1; i++ {
		if prop.Check(states[i]) == nil {
			return states, fmt.Errorf("checker: replay: %s holds in the lasso's state after step %d", prop.Name, i)
		}
	}
	return states, &ViolationError{Violation: *eventuallyViolation(prop.Name, start, tr.Loop, prop.Check(states[start]))}
}
