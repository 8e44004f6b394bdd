package envtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// ErrIncomplete is wrapped by ComparePersistent's error when a search
// stopped at its state bound.
var ErrIncomplete = errors.New("envtest: search incomplete")

// PORReport compares a depth-first search with persistent sets
// (checker.Options.POR) against the unreduced one on the same model.
type PORReport struct {
	// States, Transitions: distinct states and generated transitions,
	// unreduced and reduced.
	States, ReducedStates           int64
	Transitions, ReducedTransitions int64
	// Quiescent is the number of distinct quiescent worlds (equal in both).
	Quiescent int
	// Violated lists the properties violated (equal in both), sorted,
	// comma-separated.
	Violated string
	// Pruned and Reexpanded are the reduced search's Result.Slept (enabled
	// actions left untaken) and Result.Reexpanded (stack-proviso
	// expansions).
	Pruned, Reexpanded int64
	// POR reports whether the reduced search used persistent sets.
	POR  bool
	Note string // its Result.PORNote
}

// ComparePersistent runs checker.DFS on m twice, without and with
// Options.POR, each continuing after violations (ContinueAfterViolation)
// and bounded by maxStates, with m's properties other than Eventually
// ones (which turn the reduction off) and one more: a quiescence property
// that records the encoding of every quiescent world. It returns
// an error when either search fails or is incomplete, when the reduced
// search visits more states, finds a different set of violated properties,
// or a different set of quiescent worlds (persistent sets preserve every
// quiescent world: checker/persistent.go), or when a reduced
// counterexample does not replay to its violation. It does not require the
// reduction to be used (see PORReport.POR).
func ComparePersistent(m *env.Model, maxStates int64) (PORReport, error) {
	var rep PORReport
	full, fq, err := dfsQuiet(m, maxStates, false)
	if err != nil {
		return rep, err
	}
	red, rq, err := dfsQuiet(m, maxStates, true)
	if err != nil {
		return rep, err
	}
	rep = PORReport{States: full.States, ReducedStates: red.States, Transitions: full.Transitions,
		ReducedTransitions: red.Transitions, Quiescent: len(fq), Violated: violated(full),
		Pruned: red.Slept, Reexpanded: red.Reexpanded, POR: red.POR, Note: red.PORNote}
	switch {
	case red.States > full.States:
		return rep, fmt.Errorf("%s: %d states with persistent sets, %d without", m.Name(), red.States, full.States)
	case violated(red) != rep.Violated:
		return rep, fmt.Errorf("%s: violated {%s} without persistent sets, {%s} with", m.Name(), rep.Violated, violated(red))
	case len(rq) != len(fq):
		return rep, fmt.Errorf("%s: %d quiescent worlds without persistent sets, %d with", m.Name(), len(fq), len(rq))
	}
	for k := range fq {
		if !rq[k] {
			return rep, fmt.Errorf("%s: a quiescent world of the unreduced search is missing with persistent sets", m.Name())
		}
	}
	for _, tr := range red.Violations {
		if _, err := checker.Replay[*env.World](m, tr); err == nil {
			return rep, fmt.Errorf("%s: the reduced counterexample of %s does not replay to a violation", m.Name(), tr.Violation.Property)
		}
	}
	return rep, nil
}

// quietRecorder is m with one more property, a quiescence property that
// never fails and records each quiescent world's encoding. Embedding keeps
// m's optional interfaces (Persistent among them).
type quietRecorder struct {
	*env.Model
	props []checker.Property[*env.World]
}

func (q quietRecorder) Properties() []checker.Property[*env.World] { return q.props }

// symRecorder is a quietRecorder with a canonical encoder (the symmetry of
// the model it records), the visited-set key under Options.Symmetry.
type symRecorder struct {
	quietRecorder
	canon checker.CanonicalEncoder[*env.World]
}

func (q symRecorder) EncodeCanonical(b []byte, w *env.World) []byte {
	return q.canon.EncodeCanonical(b, w)
}

// dfsQuiet runs DFS (with persistent sets when por) and returns the
// result and the set of quiescent worlds' encodings.
func dfsQuiet(m *env.Model, maxStates int64, por bool) (*checker.Result, map[string]bool, error) {
	encoding := func(w *env.World) (string, error) { return string(m.Encode(nil, w)), nil }
	res, seen, _, _, err := dfsKeys(m, nil, maxStates, por, false, encoding)
	return res, seen, err
}

func violated(r *checker.Result) string {
	var names []string
	for _, tr := range r.Violations {
		names = append(names, tr.Violation.Property)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}
