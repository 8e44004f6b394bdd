package linearize

import (
	"bytes"
	"fmt"
	"math"
	"sort"

	"github.com/anishathalye/porcupine"
)

// EventKind tells a Call from a Return. The zero value is invalid, so an
// Event left uninitialised is reported rather than misread.
type EventKind uint8

const (
	// Call is a process invoking Agreement with its contribution.
	Call EventKind = iota + 1
	// Return is Agreement returning the decided value to the process.
	Return
)

// String returns "call", "return" or "EventKind(n)".
func (k EventKind) String() string {
	switch k {
	case Call:
		return "call"
	case Return:
		return "return"
	default:
		return fmt.Sprintf("EventKind(%d)", uint8(k))
	}
}

// Event is one entry of a recorded history.
type Event struct {
	Kind     EventKind
	Process  int    // the calling process, >= 0 (porcupine's client id)
	Instance uint64 // the agreement id
	// Value is the canonical encoding of the contribution (Call) or of the
	// decided value (Return).
	Value []byte
	// Step is the event's position in the trace. Steps must not decrease
	// along the History; equal steps count as simultaneous (porcupine
	// intervals are closed, so such operations are concurrent).
	Step int
}

// History is a recorded trace of Agreement calls and returns, in trace order.
type History []Event

// Combine is the agreement's operation F on canonical encodings. It must be
// associative, commutative and idempotent, and return canonical encodings.
type Combine func(a, b []byte) ([]byte, error)

// PendingReturn is the return time given to an operation whose Call has no
// Return in the history: after every other event.
const PendingReturn int64 = math.MaxInt64

// Input is the porcupine input of one Agreement operation, as built by
// Operations and read by ConsensusModel.
type Input struct {
	Instance     uint64
	Process      int
	Contribution []byte
	// Visible holds the distinct contributions of every call for Instance
	// whose Call step is at or before this operation's return (its own
	// included). ConsensusModel checks validity against it: an operation
	// built by hand with Visible empty can only decide its own contribution.
	Visible [][]byte
}

// Output is the porcupine output of one Agreement operation. Returned is
// false for a call that never returned; such an output matches anything.
type Output struct {
	Returned bool
	Decided  []byte
}

type callKey struct {
	process  int
	instance uint64
}

// Operations turns a history into porcupine operations, one per Call, in the
// order of the calls: an operation is invoked at its Call step and returns at
// the matching Return step (same Process and Instance), or at PendingReturn
// if there is none. ClientId is the Process.
//
// It returns an error, and no operations, for a malformed history: an
// unknown Kind, a negative Process, a Step that decreases along the history
// or equals PendingReturn, a Return without an outstanding Call, or a second
// Call (or second Return) by one process for one instance.
func Operations(h History) ([]porcupine.Operation, error) {
	type opInfo struct {
		in       Input
		call     int64
		ret      int64
		returned bool
		decided  []byte
	}
	var ops []*opInfo
	index := make(map[callKey]int) // call key -> index in ops
	for i, e := range h {
		if e.Kind != Call && e.Kind != Return {
			return nil, fmt.Errorf("linearize: event %d: invalid kind %v", i, e.Kind)
		}
		if e.Process < 0 {
			return nil, fmt.Errorf("linearize: event %d: negative process %d", i, e.Process)
		}
		if int64(e.Step) == PendingReturn {
			return nil, fmt.Errorf("linearize: event %d: step %d is reserved for calls that never return", i, e.Step)
		}
		if i > 0 && e.Step < h[i-1].Step {
			return nil, fmt.Errorf("linearize: event %d: step %d is before the previous event's step %d", i, e.Step, h[i-1].Step)
		}
		key := callKey{e.Process, e.Instance}
		j, called := index[key]
		switch e.Kind {
		case Call:
			if called {
				return nil, fmt.Errorf("linearize: event %d: process %d calls instance %d a second time (first call at step %d)",
					i, e.Process, e.Instance, ops[j].call)
			}
			index[key] = len(ops)
			ops = append(ops, &opInfo{
				in: Input{
					Instance:     e.Instance,
					Process:      e.Process,
					Contribution: clone(e.Value),
				},
				call: int64(e.Step),
				ret:  PendingReturn,
			})
		case Return:
			if !called {
				return nil, fmt.Errorf("linearize: event %d: process %d returns from instance %d without a call", i, e.Process, e.Instance)
			}
			if ops[j].returned {
				return nil, fmt.Errorf("linearize: event %d: process %d returns from instance %d a second time (first return at step %d)",
					i, e.Process, e.Instance, ops[j].ret)
			}
			ops[j].returned = true
			ops[j].ret = int64(e.Step)
			ops[j].decided = clone(e.Value)
		}
	}

	// Visible sets: per instance, the calls in step order; an operation sees
	// every call whose step is at or before its return.
	byInstance := make(map[uint64][]*opInfo)
	for _, op := range ops {
		byInstance[op.in.Instance] = append(byInstance[op.in.Instance], op)
	}
	for _, group := range byInstance {
		for _, op := range group {
			var vis [][]byte
			for _, other := range group {
				if other.call <= op.ret && !containsBytes(vis, other.in.Contribution) {
					vis = append(vis, other.in.Contribution)
				}
			}
			sort.Slice(vis, func(a, b int) bool { return bytes.Compare(vis[a], vis[b]) < 0 })
			op.in.Visible = vis
		}
	}

	out := make([]porcupine.Operation, len(ops))
	for i, op := range ops {
		out[i] = porcupine.Operation{
			ClientId: op.in.Process,
			Input:    op.in,
			Call:     op.call,
			Output:   Output{Returned: op.returned, Decided: op.decided},
			Return:   op.ret,
		}
	}
	return out, nil
}

func clone(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return append([]byte(nil), b...)
}

func containsBytes(set [][]byte, b []byte) bool {
	for _, x := range set {
		if bytes.Equal(x, b) {
			return true
		}
	}
	return false
}
