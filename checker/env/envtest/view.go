package envtest

import (
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// WorldView is what a world shows through env.World's read methods,
// written out plainly so that go-cmp can compare two worlds without the
// environment's encoding: the encoding is what the comparison checks.
// Depth and the last step are left out (they are not part of the state).
// Timers armed for the next round (LockStepRounds) are not readable and
// are left out too.
type WorldView struct {
	N        int
	Schedule int        // schedule alternative (Init order)
	Clocks   int        // Clock actions taken
	Crashed  []int      // ascending
	Procs    []ProcView // by rank
}

// ProcView is one process of a WorldView.
type ProcView struct {
	// Node is the canonical encoding of the node's state (its AppendBinary,
	// the protocol's own: whether it forgets a field is the decoder
	// round-trip tests' concern).
	Node      []byte
	Crashed   bool
	Inbox     []Copy // one entry per copy in flight to this process, InFlight order
	Detected  []int  // ranks it has been told are dead, ascending
	CallsMade int
	Pending   int // calls not made yet
	Awaiting  bool
	History   []RecordView
	Timers    []uint64
}

// Copy is one copy of a message in flight: its sender and encoding.
type Copy struct {
	From int
	Msg  []byte
}

// RecordView is one env.Record with its value as its encoding.
type RecordView struct {
	Kind     core.EffectKind
	Instance uint64
	Value    []byte // nil for no value
}

// View reads w through its exported methods only.
func View(w *env.World) WorldView {
	v := WorldView{N: w.N(), Schedule: w.Schedule(), Clocks: w.Clocks()}
	for p := range w.N() {
		if w.Crashed(core.Rank(p)) {
			v.Crashed = append(v.Crashed, p)
		}
	}
	v.Procs = make([]ProcView, w.N())
	for p := range v.Procs {
		r := core.Rank(p)
		pv := &v.Procs[p]
		pv.Node = w.Node(r).AppendBinary(nil)
		pv.Crashed = w.Crashed(r)
		pv.CallsMade, pv.Pending = len(w.CallsMade(r)), len(w.PendingCalls(r))
		pv.Awaiting = w.Awaiting(r)
		pv.Timers = append([]uint64(nil), w.Timers(r)...)
		for q := range w.N() {
			if w.Detected(r, core.Rank(q)) {
				pv.Detected = append(pv.Detected, q)
			}
		}
		for _, h := range w.History(r) {
			rv := RecordView{Kind: h.Kind, Instance: h.Instance}
			if h.Value != nil {
				rv.Value = h.Value.AppendBinary(nil)
			}
			pv.History = append(pv.History, rv)
		}
	}
	for _, e := range w.InFlight() {
		pv := &v.Procs[e.To]
		pv.Inbox = append(pv.Inbox, Copy{From: int(e.From), Msg: e.Msg.AppendBinary(nil)})
	}
	return v
}
