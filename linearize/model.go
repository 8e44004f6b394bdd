package linearize

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// decision is the per-instance state: ⊥ (decided == false) or the decided
// value's encoding. It is comparable, and never mutated.
type decision struct {
	decided bool
	value   string
}

// ConsensusModel is the porcupine model of the one-shot agreement object
// described in the package documentation, partitioned by Instance. Inputs
// must be Input and outputs Output, as built by Operations. Describe renders
// an encoding for the visualisation; nil renders it in hex.
//
// A step whose Combine call fails is illegal; Check reports such failures as
// errors instead.
func ConsensusModel(f Combine, describe func([]byte) string) porcupine.Model {
	return consensusModel(f, describe, nil)
}

func consensusModel(f Combine, describe func([]byte) string, fail func(error)) porcupine.Model {
	if describe == nil {
		describe = func(b []byte) string { return fmt.Sprintf("0x%x", b) }
	}
	report := func(err error) {
		if fail != nil {
			fail(err)
		}
	}
	return porcupine.Model{
		Partition: partitionByInstance,
		Init:      func() interface{} { return decision{} },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			ok, next, err := step(f, state, input, output)
			if err != nil {
				report(err)
				return false, state
			}
			return ok, next
		},
		Equal: func(a, b interface{}) bool { return a.(decision) == b.(decision) },
		Hash: func(state interface{}) uint64 {
			s := state.(decision)
			h := fnv.New64a()
			if s.decided {
				h.Write([]byte{1})
				h.Write([]byte(s.value))
			}
			return h.Sum64()
		},
		DescribeOperation: func(input, output interface{}) string {
			in, ok1 := input.(Input)
			out, ok2 := output.(Output)
			if !ok1 || !ok2 {
				return fmt.Sprintf("%v -> %v", input, output)
			}
			if !out.Returned {
				return fmt.Sprintf("agree(%s) → (no return)", describe(in.Contribution))
			}
			return fmt.Sprintf("agree(%s) → %s", describe(in.Contribution), describe(out.Decided))
		},
		DescribeState: func(state interface{}) string {
			s := state.(decision)
			if !s.decided {
				return "⊥"
			}
			return "decided " + describe([]byte(s.value))
		},
	}
}

// step is the sequential specification; see the package documentation.
func step(f Combine, state, input, output interface{}) (bool, interface{}, error) {
	s, ok := state.(decision)
	if !ok {
		return false, state, fmt.Errorf("linearize: state %T is not the model's", state)
	}
	in, ok := input.(Input)
	if !ok {
		return false, state, fmt.Errorf("linearize: input %T is not an Input", input)
	}
	out, ok := output.(Output)
	if !ok {
		return false, state, fmt.Errorf("linearize: output %T is not an Output", output)
	}
	if !out.Returned {
		return true, s, nil // a call that never returned matches anything
	}
	d := out.Decided
	// Agreement.
	if s.decided && s.value != string(d) {
		return false, s, nil
	}
	// Participation: F(d, c) == d.
	if inc, err := included(f, in.Contribution, d); err != nil || !inc {
		return false, s, err
	}
	// Validity: d == F over the visible contributions included in d.
	var join []byte
	for _, x := range append([][]byte{in.Contribution}, in.Visible...) {
		inc, err := included(f, x, d)
		if err != nil {
			return false, s, err
		}
		if !inc {
			continue
		}
		if join == nil {
			join = x
			continue
		}
		if join, err = f(join, x); err != nil {
			return false, s, fmt.Errorf("linearize: combine: %w", err)
		}
	}
	if !bytes.Equal(join, d) {
		return false, s, nil
	}
	return true, decision{decided: true, value: string(d)}, nil
}

// included reports x ≤ d, i.e. F(d, x) == d.
func included(f Combine, x, d []byte) (bool, error) {
	j, err := f(d, x)
	if err != nil {
		return false, fmt.Errorf("linearize: combine: %w", err)
	}
	return bytes.Equal(j, d), nil
}

// partitionByInstance splits a history into one partition per Instance, in
// increasing Instance order. Operations whose input is not an Input share one
// extra partition (their steps are illegal).
func partitionByInstance(history []porcupine.Operation) [][]porcupine.Operation {
	groups := make(map[uint64][]porcupine.Operation)
	var other []porcupine.Operation
	for _, op := range history {
		in, ok := op.Input.(Input)
		if !ok {
			other = append(other, op)
			continue
		}
		groups[in.Instance] = append(groups[in.Instance], op)
	}
	ids := make([]uint64, 0, len(groups))
	for id := range groups {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([][]porcupine.Operation, 0, len(ids)+1)
	for _, id := range ids {
		out = append(out, groups[id])
	}
	if len(other) > 0 {
		out = append(out, other)
	}
	return out
}

// Check reports whether h is linearizable with respect to ConsensusModel(f,
// describe), with no time limit. When it is not and htmlPath is not empty, it
// writes porcupine's HTML visualisation of the history and its longest
// partial linearizations to htmlPath. An error (and ok == false) means a
// malformed history, a nil f, a failing Combine, or an unwritable htmlPath.
func Check(h History, f Combine, describe func([]byte) string, htmlPath string) (ok bool, err error) {
	res, err := CheckTimeout(h, f, describe, htmlPath, 0)
	return err == nil && res == porcupine.Ok, err
}

// CheckTimeout is Check with a time limit (0 for none). It returns
// porcupine.Unknown when the limit was reached before a verdict; the
// visualisation is written for Illegal and Unknown results.
func CheckTimeout(h History, f Combine, describe func([]byte) string, htmlPath string, timeout time.Duration) (porcupine.CheckResult, error) {
	if f == nil {
		return porcupine.Unknown, errors.New("linearize: nil Combine")
	}
	ops, err := Operations(h)
	if err != nil {
		return porcupine.Unknown, err
	}
	var (
		mu       sync.Mutex // porcupine checks partitions in parallel
		firstErr error
	)
	model := consensusModel(f, describe, func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
		}
	})
	res, info := porcupine.CheckOperationsVerbose(model, ops, timeout)
	mu.Lock()
	stepErr := firstErr
	mu.Unlock()
	if stepErr != nil {
		return porcupine.Unknown, stepErr
	}
	if res != porcupine.Ok && htmlPath != "" {
		if err := porcupine.VisualizePath(model, info, htmlPath); err != nil {
			return res, fmt.Errorf("linearize: writing visualisation: %w", err)
		}
	}
	return res, nil
}
