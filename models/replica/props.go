package replica

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// Property names, as ftcheck --property takes them.
const (
	Validity      = "validity"
	Agreement     = "agreement"
	Integrity     = "integrity"
	TotalOrder    = "total-order"
	Equivalence   = "equivalence"
	BackupDrained = "backup-drained"
	QueueDrained  = "queue-drained"
	SendCost      = "send-cost"
	// PayloadAgreement is replica consistency: replicas that deliver one
	// MID deliver one payload.
	PayloadAgreement = "payload-agreement"
)

// Properties are the replica model's properties for a layout, its programs
// and their unreplicated reference. Every one but integrity and total order
// is checked only in states where every logical process keeps a live
// replica ("Or the application crashes if it does not remain any replica",
// §4.3): runs that lose a logical process are failed applications.
func Properties(l sm.Layout, progs []sm.Program, ref *Reference) []checker.Property[*env.World] {
	return []checker.Property[*env.World]{
		{Name: Validity, Kind: checker.Quiescence,
			Doc: "every live replica has run its whole program: none waits forever at a Recv (§4.3 Validity: the messages of correct senders are delivered)",
			Check: func(w *env.World) error {
				if lost(w, l) {
					return nil
				}
				for r := range w.N() {
					if n := node(w, r); !w.Crashed(core.Rank(r)) && !n.Finished() {
						return fmt.Errorf("%v (P%d^%d) never finishes: waiting=%v, %v", n.Rank(), n.Logical(), n.Index(), n.Waiting(), n)
					}
				}
				return nil
			}},
		{Name: Agreement, Kind: checker.Quiescence,
			Doc: "the live replicas of each logical process have delivered the same messages (§4.3 Agreement)",
			Check: func(w *env.World) error {
				if lost(w, l) {
					return nil
				}
				return eachGroup(w, l, true, func(p, q core.Rank, dp, dq []sm.MID) error {
					a, b := slices.Clone(dp), slices.Clone(dq)
					slices.SortFunc(a, sm.MID.Compare)
					slices.SortFunc(b, sm.MID.Compare)
					if !slices.Equal(a, b) {
						return fmt.Errorf("%v delivered %v, %v delivered %v", p, dp, q, dq)
					}
					return nil
				})
			}},
		props.Deliveries(Integrity,
			"no replica delivers a MID twice, and every delivered MID names the replica's logical process as destination (§4.3 Integrity)",
			func(w *env.World, p core.Rank, rec env.Record) error {
				m := rec.Value.(sm.Delivery).MID
				if lp := node(w, int(p)).Logical(); int(m.Dst) != lp {
					return fmt.Errorf("%v (P%d) delivered %v", p, lp, m)
				}
				if ds := deliveries(w, p); count(ds, m) > 1 {
					return fmt.Errorf("%v delivered %v twice: %v", p, m, ds)
				}
				return nil
			}),
		// The paper's statement ("if process p and q both deliver messages m
		// and m', then p delivers m before m' iff q delivers m before m'"),
		// over every pair of replicas; replicas of different logical
		// processes deliver disjoint MIDs, so only replicas of one process
		// are ever compared.
		props.TotalOrder(TotalOrder,
			"any two replicas deliver the messages they both deliver in the same order (§4.3 Total order); crashed replicas included",
			func(r env.Record) string { return string(r.Value.(sm.Delivery).MID.AppendBinary(nil)) }),
		{Name: Equivalence, Kind: checker.Invariant,
			Doc: "the outputs of the replicas of a logical process, crashed ones included, are prefixes of one output the unreplicated program can produce (§4.2: \"the output of E is the same as any output E' could produce\")",
			Check: func(w *env.World) error {
				if lost(w, l) {
					return nil
				}
				for i := range l.Procs() {
					var longest []int64
					var who core.Rank
					for _, r := range l.Replicas(i).Ranks() {
						o := outputs(w, r)
						k := min(len(o), len(longest))
						if !slices.Equal(o[:k], longest[:k]) {
							return fmt.Errorf("replicas of P%d disagree: %v output %v, %v output %v", i, who, longest, r, o)
						}
						if len(o) > len(longest) {
							longest, who = o, r
						}
					}
					if !ref.Allows(i, longest) {
						return fmt.Errorf("replica %v of P%d output %v; without replication P%d outputs one of %v", who, i, longest, i, ref.Outputs[i])
					}
				}
				return nil
			},
			// Stable: outputs only grow, and only a crash loses a process.
			Stable: true},
		{Name: BackupDrained, Kind: checker.Quiescence,
			Doc: "at the end, every live replica's backup table is empty (not in the paper: a leak detector)",
			Check: func(w *env.World) error {
				if lost(w, l) {
					return nil
				}
				for r := range w.N() {
					if n := node(w, r); !w.Crashed(core.Rank(r)) && n.BackupLen() > 0 {
						return fmt.Errorf("%v (P%d^%d) ends with backup %v", n.Rank(), n.Logical(), n.Index(), n.Backup())
					}
				}
				return nil
			}},
		{Name: QueueDrained, Kind: checker.Quiescence,
			Doc: "at the end, every live replica's receive queue is empty: every message received was delivered or discarded as a duplicate (not in the paper: a leak detector)",
			Check: func(w *env.World) error {
				if lost(w, l) {
					return nil
				}
				for r := range w.N() {
					if n := node(w, r); !w.Crashed(core.Rank(r)) && n.QueueLen() > 0 {
						return fmt.Errorf("%v (P%d^%d) ends with %d undelivered messages", n.Rank(), n.Logical(), n.Index(), n.QueueLen())
					}
				}
				return nil
			}},
		{Name: SendCost, Kind: checker.Quiescence,
			Doc: "in a failure-free run, each logical send costs exactly |replicas of dst| DATA + |replicas of src| − 1 COMMIT (§4.4)",
			Check: func(w *env.World) error {
				if w.NumCrashed() > 0 {
					return nil
				}
				var wantData, wantCommit, data, commits uint64
				for i, prog := range progs {
					for _, in := range prog {
						if in.Op == sm.OpSend {
							wantData += uint64(l.Degree(in.Peer))
							wantCommit += uint64(l.Degree(i) - 1)
						}
					}
				}
				for r := range w.N() {
					d, c := node(w, r).Sent()
					data += d
					commits += c
				}
				if data != wantData || commits != wantCommit {
					return fmt.Errorf("sent %d DATA and %d COMMIT, want %d and %d", data, commits, wantData, wantCommit)
				}
				return nil
			}},
		{Name: PayloadAgreement, Kind: checker.Invariant,
			Doc: "replicas that deliver the same MID deliver the same payload: the replicas of a logical process read one message under one MID (replica consistency; crashed replicas included)",
			Check: func(w *env.World) error {
				var seen []sm.Delivery
				var who []core.Rank
				for r := range w.N() {
					for _, rec := range w.History(core.Rank(r)) {
						if rec.Kind != core.EffDeliver {
							continue
						}
						d := rec.Value.(sm.Delivery)
						i := slices.IndexFunc(seen, func(s sm.Delivery) bool { return s.MID == d.MID })
						if i < 0 {
							seen, who = append(seen, d), append(who, core.Rank(r))
						} else if seen[i].Payload != d.Payload {
							return fmt.Errorf("%v delivered %v with payload %d, %v with payload %d", who[i], d.MID, seen[i].Payload, core.Rank(r), d.Payload)
						}
					}
				}
				return nil
			},
			// Stable: deliveries only grow.
			Stable: true},
	}
}

// node is replica r, alone or in its stack Host.
func node(w *env.World, r int) *sm.Node {
	if h, ok := w.Node(core.Rank(r)).(*Host); ok {
		return h.rep
	}
	return w.Node(core.Rank(r)).(*sm.Node)
}

// lost reports whether some logical process has lost all its replicas.
func lost(w *env.World, l sm.Layout) bool {
	for i := range l.Procs() {
		if l.Replicas(i).SubsetOf(w.CrashedSet()) {
			return true
		}
	}
	return false
}

// deliveries lists the MIDs r delivered, in order.
func deliveries(w *env.World, r core.Rank) []sm.MID {
	var out []sm.MID
	for _, rec := range w.History(r) {
		if rec.Kind == core.EffDeliver {
			out = append(out, rec.Value.(sm.Delivery).MID)
		}
	}
	return out
}

// outputs lists r's outputs, in order.
func outputs(w *env.World, r core.Rank) []int64 {
	var out []int64
	for _, rec := range w.History(r) {
		if rec.Kind == core.EffDecide {
			out = append(out, rec.Value.(sm.Output).V)
		}
	}
	return out
}

// eachGroup calls f on every pair of replicas of the same logical process
// (live ones only if liveOnly) with their delivered MIDs.
func eachGroup(w *env.World, l sm.Layout, liveOnly bool, f func(p, q core.Rank, dp, dq []sm.MID) error) error {
	for i := range l.Procs() {
		var rs []core.Rank
		for _, r := range l.Replicas(i).Ranks() {
			if !liveOnly || !w.Crashed(r) {
				rs = append(rs, r)
			}
		}
		for a := 0; a < len(rs); a++ {
			for b := a + 1; b < len(rs); b++ {
				if err := f(rs[a], rs[b], deliveries(w, rs[a]), deliveries(w, rs[b])); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// count is the number of occurrences of m in ds.
func count(ds []sm.MID, m sm.MID) int {
	k := 0
	for _, x := range ds {
		if x == m {
			k++
		}
	}
	return k
}
