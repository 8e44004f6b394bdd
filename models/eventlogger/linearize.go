package eventlogger

import (
	"fmt"
	"math"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// The event log as a linearizable object: one log per application
// process, whose operations are save(det) → id, remove-up-to(id) and
// retrieve-since(id) → entries. The sequential specification:
//
//	state: the entries (id → det), the watermark removed up to, the
//	       last id given
//	save(d)           last += 1; entries[last] = d; return last
//	remove-up-to(k)   drop the entries with id ≤ k; watermark = max(watermark, k)
//	retrieve-since(k) the entries with id > k, by ascending id
//
// A history is recorded per process from the world: its calls made and
// its returns, in its own order (calls are blocking, so each call follows
// the previous return); a call that never returned (its process crashed)
// is pending, and may take effect at any time after it was made, or never.

// logInput is one operation's call.
type logInput struct {
	Proc core.Rank
	Op   el.Op
	Arg  uint64
	Det  string
}

// logState is the sequential log, comparable.
type logState struct {
	last, removed uint64
	entries       string // "id:det;" by ascending id
}

func (s logState) list() []el.Entry {
	var out []el.Entry
	for _, f := range strings.Split(s.entries, ";") {
		if f == "" {
			continue
		}
		var e el.Entry
		i := strings.IndexByte(f, ':')
		fmt.Sscan(f[:i], &e.ID)
		e.Det = f[i+1:]
		out = append(out, e)
	}
	return out
}

func fromList(s logState, es []el.Entry) logState {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%d:%s;", e.ID, e.Det)
	}
	s.entries = b.String()
	return s
}

// LogModel is the porcupine model of the per-process log, partitioned by
// process. Outputs are el.Result, or nil for a call that never returned.
func LogModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			groups := map[core.Rank][]porcupine.Operation{}
			var order []core.Rank
			for _, op := range h {
				p := op.Input.(logInput).Proc
				if _, ok := groups[p]; !ok {
					order = append(order, p)
				}
				groups[p] = append(groups[p], op)
			}
			out := make([][]porcupine.Operation, 0, len(order))
			for _, p := range order {
				out = append(out, groups[p])
			}
			return out
		},
		Init: func() interface{} { return logState{} },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s, in := state.(logState), input.(logInput)
			res, returned := output.(el.Result)
			es := s.list()
			switch in.Op {
			case el.OpSave:
				s.last++
				next := fromList(s, append(es, el.Entry{ID: s.last, Det: in.Det}))
				return !returned || res.ID == s.last, next
			case el.OpRemove:
				s.removed = max(s.removed, in.Arg)
				var keep []el.Entry
				for _, e := range es {
					if e.ID > in.Arg {
						keep = append(keep, e)
					}
				}
				return true, fromList(s, keep)
			case el.OpRetrieve:
				if !returned {
					return true, s
				}
				var want []el.Entry
				for _, e := range es {
					if e.ID > in.Arg {
						want = append(want, e)
					}
				}
				if len(want) != len(res.Entries) {
					return false, s
				}
				for i := range want {
					if want[i] != res.Entries[i] {
						return false, s
					}
				}
				return true, s
			}
			return false, s
		},
		Equal: func(a, b interface{}) bool { return a.(logState) == b.(logState) },
		DescribeOperation: func(input, output interface{}) string {
			in := input.(logInput)
			call := fmt.Sprintf("p%d %v(%d)", in.Proc, in.Op, in.Arg)
			if in.Op == el.OpSave {
				call = fmt.Sprintf("p%d save(%q)", in.Proc, in.Det)
			}
			if r, ok := output.(el.Result); ok {
				return call + " → " + r.String()
			}
			return call + " → (no return)"
		},
		DescribeState: func(state interface{}) string {
			s := state.(logState)
			return fmt.Sprintf("last=%d removed=%d [%s]", s.last, s.removed, s.entries)
		},
	}
}

// History is the operations of the application processes of w, with
// per-process times: call k of a process at 2k, its return at 2k+1, a
// call that never returned pending until the end of time.
func History(w *env.World, procs int) []porcupine.Operation {
	var ops []porcupine.Operation
	for p := range core.Rank(procs) {
		// A return's instance is its call's number (1, 2, … over the
		// process's incarnations); a call cut by a crash has none.
		rets := map[uint64]el.Result{}
		for _, r := range w.History(p) {
			if r.Kind == core.EffReturn {
				if res, ok := r.Value.(el.Result); ok {
					rets[r.Instance] = res
				}
			}
		}
		for i, in := range w.CallsMade(p) {
			li := logInput{Proc: p}
			switch c := in.(type) {
			case el.Save:
				li.Op, li.Det = el.OpSave, c.Det
			case el.RemoveUpTo:
				li.Op, li.Arg = el.OpRemove, c.ID
			case el.RetrieveSince:
				li.Op, li.Arg = el.OpRetrieve, c.ID
			default:
				continue
			}
			op := porcupine.Operation{ClientId: int(p), Input: li, Call: int64(2 * i), Return: math.MaxInt64 / 2}
			if res, ok := rets[uint64(i+1)]; ok && res.Op == li.Op {
				op.Output, op.Return = res, int64(2*i+1)
			}
			ops = append(ops, op)
		}
	}
	return ops
}

// Linearizable checks the history of w.
func Linearizable(w *env.World, procs int) error {
	ops := History(w, procs)
	if len(ops) == 0 {
		return nil
	}
	res, info := porcupine.CheckOperationsVerbose(LogModel(), ops, 0)
	if res == porcupine.Ok {
		return nil
	}
	var b strings.Builder
	for _, op := range ops {
		b.WriteString(LogModel().DescribeOperation(op.Input, op.Output))
		b.WriteString("; ")
	}
	_ = info
	return fmt.Errorf("the event log is not linearizable: %s", strings.TrimSuffix(b.String(), "; "))
}
