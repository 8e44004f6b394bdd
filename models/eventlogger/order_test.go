package eventlogger

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// deliverWhere delivers the first message in flight that match accepts,
// and reports whether there was one.
func (r *runner) deliverWhere(t *testing.T, match func(fm flightMsg) bool) bool {
	t.Helper()
	for i, fm := range r.flight {
		if !match(fm) {
			continue
		}
		r.flight = append(r.flight[:i:i], r.flight[i+1:]...)
		if err := r.step(fm.to, core.Receive(fm.from, fm.m)); err != nil {
			t.Fatal(err)
		}
		return true
	}
	return false
}

func isAccept(fm flightMsg, seq uint32, to core.Rank) bool {
	w, ok := fm.m.(el.Wrap)
	return ok && w.Seq == seq && w.Kind() == "ACCEPT" && fm.to == to
}

// TestParallelOrdersPerProcessOnly is the documented non-property of
// Parallel Paxos (§5.1.3; §5.5's future work: "estudar como o Paxos
// Paralelo pode manter a ordem total apesar das diferentes sequências de
// consenso"): two processes save at once; logger node p2 accepts p0's
// determinant first, node p3 p1's first, both saves return, and each
// determinant is instance 0 of its own sequence: no sequence, and no
// node, orders them. The same schedule under Classic Paxos puts both in
// one sequence, in the same order at every replica.
func TestParallelOrdersPerProcessOnly(t *testing.T) {
	cfg := el.Config{Kind: el.Parallel, Procs: 2, F: 1, Consensus: Paxos{}}
	r, err := newRunner(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 2 {
		if err := r.step(cfg.Coordinator(s), core.Call(el.Start{})); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.quiesce(nil); err != nil {
		t.Fatal(err)
	}
	for p := range core.Rank(2) {
		if err := r.step(p, core.Call(el.Save{Det: "d" + string(rune('0'+p))})); err != nil {
			t.Fatal(err)
		}
	}
	var order = map[core.Rank][]uint32{}
	for _, d := range []struct {
		seq uint32
		to  core.Rank
	}{{0, 2}, {1, 2}, {1, 3}, {0, 3}} {
		if !r.deliverWhere(t, func(fm flightMsg) bool { return isAccept(fm, d.seq, d.to) }) {
			t.Fatalf("no ACCEPT of s%d to p%d in flight", d.seq, d.to)
		}
		order[d.to] = append(order[d.to], d.seq)
	}
	returned := 0
	if err := r.quiesce(func(q core.Rank, e core.Effect) {
		if res, ok := e.Value.(el.Result); ok && res.Op == el.OpSave && res.ID == 1 {
			returned++
		}
	}); err != nil {
		t.Fatal(err)
	}
	if returned != 2 {
		t.Fatalf("%d saves returned, want 2", returned)
	}
	if order[2][0] == order[3][0] {
		t.Fatalf("accept orders %v: the schedule did not cross", order)
	}
	for p := range core.Rank(2) {
		log := Paxos{}.Log(r.nodes[p].Seq(int(p)))
		if len(log) != 1 {
			t.Fatalf("p%d's sequence decided %d instances, want its one determinant", p, len(log))
		}
		if got := r.nodes[p].Entries(p); len(got) != 1 || got[0].ID != 1 {
			t.Fatalf("p%d's log %v", p, got)
		}
	}
	t.Logf("Parallel: node p2 accepted sequences in order %v, node p3 in order %v; each determinant is instance 0 of its own sequence", order[2], order[3])

	// Classic: one sequence, the same order at every replica.
	ccfg := el.Config{Kind: el.Classic, Procs: 2, F: 1, Consensus: Paxos{}}
	c, err := newRunner(ccfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.step(ccfg.Coordinator(0), core.Call(el.Start{})); err != nil {
		t.Fatal(err)
	}
	if err := c.quiesce(nil); err != nil {
		t.Fatal(err)
	}
	for p := range core.Rank(2) {
		if err := c.step(p, core.Call(el.Save{Det: "d" + string(rune('0'+p))})); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.quiesce(nil); err != nil {
		t.Fatal(err)
	}
	var first []el.Decision
	for k := range 3 {
		log := Paxos{}.Log(c.nodes[2+k].Seq(0))
		if len(log) != 2 {
			t.Fatalf("replica R%d decided %d instances, want 2", k, len(log))
		}
		if k == 0 {
			first = log
		} else if log[0] != first[0] || log[1] != first[1] {
			t.Fatalf("replicas disagree on the order")
		}
	}
}
