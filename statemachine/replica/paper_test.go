package replica

import (
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// layoutOf builds a layout with the given degrees or fails the test.
func layoutOf(t *testing.T, degrees ...int) Layout {
	t.Helper()
	l, err := NewLayoutDegrees(degrees)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// midsSent lists the MIDs of the DATA messages in flight, in order.
func midsSent(c *cluster) []MID {
	var out []MID
	for _, e := range c.flight {
		if d, ok := e.msg.(Data); ok && !slices.Contains(out, d.MID) {
			out = append(out, d.MID)
		}
	}
	return out
}

// TestMIDExample is §4.2's example: "two consecutive messages sent in the
// world communicator (numbered 0), from process of rank 0 to rank 2 with
// tag 9, will have the identifiers (0,0,2,9,0) and (0,0,2,9,1)". With a
// Recv between them (spec E3) the per-channel clock still gives tick 1 and
// the literal per-replica clock (MutantReplicaClock) gives tick 2.
func TestMIDExample(t *testing.T) {
	progs := []Program{
		{{Op: OpSend, Peer: 2, Tag: 9}, {Op: OpSend, Peer: 2, Tag: 9}},
		{},
		{{Op: OpRecv, Peer: 0, Tag: 9, Fn: FnSet}, {Op: OpRecv, Peer: 0, Tag: 9, Fn: FnSet}},
	}
	c := newCluster(t, Config{Layout: layoutOf(t, 1, 1, 1), Programs: progs})
	c.start(0)
	c.pump(0)
	want := []MID{{0, 0, 2, 9, 0}, {0, 0, 2, 9, 1}}
	if got := midsSent(c); !slices.Equal(got, want) {
		t.Fatalf("MIDs %v, want %v", got, want)
	}

	progs[0] = Program{{Op: OpSend, Peer: 2, Tag: 9}, {Op: OpRecv, Peer: 1, Tag: 3, Fn: FnSet}, {Op: OpSend, Peer: 2, Tag: 9}}
	progs[1] = Program{{Op: OpSend, Peer: 0, Tag: 3}}
	for m, tick := range map[string]uint64{"": 1, string(MutantReplicaClock): 2} {
		c = newCluster(t, Config{Layout: layoutOf(t, 1, 1, 1), Programs: progs, Mutant: mutantName(m)})
		c.start(0)
		c.start(1)
		c.deliver(1, 0)
		c.pump(0)
		want = []MID{{0, 0, 2, 9, 0}, {0, 0, 2, 9, tick}}
		if got := midsSent(c); !slices.Equal(got, want) {
			t.Fatalf("mutant %q: MIDs with a Recv between %v, want %v", m, got, want)
		}
	}
}

// e4 is spec E4: P_1 = {A, B} sends v to P_2 = {C, D} (P_0 unused, one
// replica). Ranks: P0 = p0, A = p1, B = p2, C = p3, D = p4.
func e4(t *testing.T, m string) *cluster {
	progs := []Program{{}, {{Op: OpCompute, Fn: FnSet, K: 7}, {Op: OpSend, Peer: 2, Tag: 9}}, {{Op: OpRecv, Peer: 1, Tag: 9, Fn: FnSet}, {Op: OpOutput}}}
	return newCluster(t, Config{Layout: layoutOf(t, 1, 2, 2), Programs: progs, Mutant: mutantName(m)})
}

const (
	rA, rB, rC, rD core.Rank = 1, 2, 3, 4
)

var m9 = MID{0, 1, 2, 9, 0}

// TestSendingAgreementMasterAhead is Fig. 8 / E4(a): the master sends DATA
// to every replica of the destination, then COMMIT to its replica, which
// later finds the MID in its log and skips the send.
func TestSendingAgreementMasterAhead(t *testing.T) {
	c := e4(t, "")
	c.start(rA)
	c.pump(rA)
	if c.sent["DATA"] != 2 || c.sent["COMMIT"] != 1 {
		t.Fatalf("sent %v, want 2 DATA + 1 COMMIT", c.sent)
	}
	c.deliver(rA, rB)
	c.start(rB)
	if !c.node(rB).log.has(m9, MID.Compare) || len(c.node(rB).backup) != 0 || c.node(rB).armed {
		t.Fatalf("B after commit then send: %v", c.node(rB))
	}
	c.start(rC)
	c.start(rD)
	c.drain()
	for _, r := range []core.Rank{rC, rD} {
		if got := c.deliv[r]; len(got) != 1 || got[0] != (Delivery{m9, 7}) || !slices.Equal(c.outs[r], []int64{7}) {
			t.Fatalf("%v delivered %v, output %v", r, got, c.outs[r])
		}
	}
	if c.sent["DATA"]+c.sent["COMMIT"] != 3 {
		t.Fatalf("sent %v, want 3 = |dst| + |src| - 1", c.sent)
	}
}

// TestSendingAgreementReplicaAhead is E4(b): the replica reaches the send
// first and backs the message up; the commit removes it.
func TestSendingAgreementReplicaAhead(t *testing.T) {
	c := e4(t, "")
	c.start(rB)
	if len(c.node(rB).backup) != 1 || c.sent["DATA"] != 0 {
		t.Fatalf("B ahead: %v, sent %v", c.node(rB), c.sent)
	}
	c.start(rA)
	c.drain()
	if len(c.node(rB).backup) != 0 || !c.node(rB).log.has(m9, MID.Compare) {
		t.Fatalf("B after commit: %v", c.node(rB))
	}
}

// TestRecoveryMasterCrashMidSend is E5(a) and §4.2 Recovery: A sends DATA
// to C and crashes before D and before the commit; B, ahead, is elected
// and re-sends its backup; C discards the duplicate, D delivers once.
func TestRecoveryMasterCrashMidSend(t *testing.T) {
	c := e4(t, "")
	c.start(rB)
	c.start(rC)
	c.start(rD)
	c.start(rA) // emits DATA to C, the first outbox message
	c.crash(rA)
	c.deliver(rA, rC)
	c.notify(rA)
	if c.node(rB).master(1) != rB || len(c.node(rB).backup) != 0 {
		t.Fatalf("B not master or backup not re-sent: %v", c.node(rB))
	}
	c.drain()
	for _, r := range []core.Rank{rC, rD} {
		if got := c.deliv[r]; len(got) != 1 || got[0].MID != m9 {
			t.Fatalf("%v delivered %v, want %v once", r, got, m9)
		}
	}
	if c.sent["DATA"] != 3 || c.sent["COMMIT"] != 0 {
		t.Fatalf("sent %v, want 3 DATA (1 by A, 2 by B) and no COMMIT (B has no peer left)", c.sent)
	}
	// Without the re-send (the mutant) D never delivers.
	c = e4(t, string(MutantNoBackupResend))
	c.start(rB)
	c.start(rC)
	c.start(rD)
	c.start(rA)
	c.crash(rA)
	c.deliver(rA, rC)
	c.notify(rA)
	c.drain()
	if len(c.deliv[rD]) != 0 {
		t.Fatalf("mutant: D delivered %v", c.deliv[rD])
	}
}

// TestRecoveryNewMasterBehind is E5(b) and (c): B reaches the send after
// it became master; with the literal master rule it sends even what A had
// committed, and the receivers discard the duplicates.
func TestRecoveryNewMasterBehind(t *testing.T) {
	c := e4(t, "")
	c.start(rC)
	c.start(rD)
	c.start(rA)
	c.pump(rA)
	c.crash(rA)
	c.drain() // C, D deliver; B logs the commit
	c.notify(rA)
	c.start(rB)
	c.drain()
	if c.sent["DATA"] != 4 {
		t.Fatalf("sent %v, want 4 DATA (E5c literal: 2 extra)", c.sent)
	}
	for _, r := range []core.Rank{rC, rD} {
		if len(c.deliv[r]) != 1 || len(c.node(r).history) != 1 {
			t.Fatalf("%v delivered %v", r, c.deliv[r])
		}
	}
}

// TestNonMasterFailure is E6: D crashes before the send; A sends DATA to C
// only, plus the commit to B.
func TestNonMasterFailure(t *testing.T) {
	c := e4(t, "")
	c.crash(rD)
	c.notify(rD)
	c.start(rC)
	c.start(rB)
	c.start(rA)
	c.drain()
	if c.sent["DATA"] != 1 || c.sent["COMMIT"] != 1 || len(c.deliv[rC]) != 1 {
		t.Fatalf("sent %v, C delivered %v", c.sent, c.deliv[rC])
	}
}

// TestAnySourceDivergence is §4.3's example (spec E7): P_0 with two
// replicas receives twice from ANY_SOURCE; m_1 reaches P_0^0 first and m_2
// reaches P_0^1 first, so the replicas deliver in different orders and,
// computing x1 − x2, output different values; with the sum they agree.
func TestAnySourceDivergence(t *testing.T) {
	for _, fn := range []Fn{FnSub, FnAdd} {
		progs := []Program{
			{{Op: OpRecv, Peer: Any, Tag: 0, Fn: FnSet}, {Op: OpRecv, Peer: Any, Tag: 0, Fn: fn}, {Op: OpOutput}},
			{{Op: OpCompute, Fn: FnSet, K: 1}, {Op: OpSend, Peer: 0, Tag: 0}},
			{{Op: OpCompute, Fn: FnSet, K: 2}, {Op: OpSend, Peer: 0, Tag: 0}},
		}
		c := newCluster(t, Config{Layout: layoutOf(t, 2, 1, 1), Programs: progs})
		for r := core.Rank(0); r < 4; r++ {
			c.start(r)
		}
		c.pump(2)
		c.pump(3)
		c.deliver(2, 0) // m_1 to P_0^0
		c.deliver(3, 1) // m_2 to P_0^1
		c.deliver(3, 0)
		c.deliver(2, 1)
		o0, o1 := c.outs[0], c.outs[1]
		if fn == FnSub && (o0[0] != -1 || o1[0] != 1) {
			t.Fatalf("x1−x2: outputs %v and %v, want −1 and 1", o0, o1)
		}
		if fn == FnAdd && (o0[0] != 3 || o1[0] != 3) {
			t.Fatalf("x1+x2: outputs %v and %v, want 3 and 3", o0, o1)
		}
		if c.deliv[0][0].MID == c.deliv[1][0].MID {
			t.Fatal("the replicas delivered in the same order")
		}
	}
}

// TestNoLogRecommitLeaksBackup: with three replicas, the old master's
// commit reaches B but not E (both ahead of it, so both backed the message
// up); B, the new master, has nothing left to re-send,
// so E keeps the entry in its backup unless B re-commits its log.
func TestNoLogRecommitLeaksBackup(t *testing.T) {
	for _, m := range []string{"", string(MutantNoLogRecommit)} {
		progs := []Program{{}, {{Op: OpSend, Peer: 2, Tag: 0}}, {{Op: OpRecv, Peer: 1, Tag: 0, Fn: FnSet}}}
		c := newCluster(t, Config{Layout: layoutOf(t, 1, 3, 1), Programs: progs, Mutant: mutantName(m)})
		a, b, e, dst := core.Rank(1), core.Rank(2), core.Rank(3), core.Rank(4)
		c.start(e) // E and B ahead: backup
		c.start(b)
		c.start(dst)
		c.start(a)
		c.pump(a) // DATA to dst, COMMIT to B, COMMIT to E
		c.flight = slices.DeleteFunc(c.flight, func(x envelope) bool { return x.to == e })
		c.crash(a)
		c.drain()
		c.notify(a)
		c.drain()
		leak := len(c.node(e).backup)
		if (m == "") != (leak == 0) {
			t.Fatalf("mutant %q: E's backup has %d entries", m, leak)
		}
	}
}

// TestFailoverOvertaking is the checker's counterexample to the literal
// per-replica clock (see sendStep): P_0 = {p0, p1} sends t0 then t1 to
// P_2 = {p3, p4}; p0 sends t0 to both and commits it, then crashes; p1,
// ahead, re-sends t1 on its own connection, which reaches p3 before p0's
// t0. The literal rule delivers t1 first (2 − 1 = 1 instead of −1); the
// per-channel sequence waits for t0.
func TestFailoverOvertaking(t *testing.T) {
	progs, err := Programs("mid-example", 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for m, want := range map[string]int64{"": -1, string(MutantReplicaClock): 1} {
		c := newCluster(t, Config{Layout: layoutOf(t, 2, 1, 2), Programs: progs, Mutant: mutantName(m)})
		c.start(0) // DATA t0 → p3
		c.start(1) // backup t0, t1
		c.start(3)
		c.step(0, core.Timer(PumpTimer)) // DATA t0 → p4
		c.step(0, core.Timer(PumpTimer)) // COMMIT t0 → p1
		c.deliver(0, 1)
		c.crash(0)
		c.step(1, core.Suspect(0)) // re-sends t1 → p3 first
		c.deliver(1, 3)
		c.deliver(0, 3)
		if got := c.outs[3]; len(got) != 1 || got[0] != want {
			t.Fatalf("mutant %q: p3 output %v, want %d", m, got, want)
		}
	}
}
