package replica

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// nodeCmp compares replica states field by field (the config and hooks are
// shared, not state).
var nodeCmp = []cmp.Option{
	cmp.Exporter(func(reflect.Type) bool { return true }),
	cmpopts.IgnoreFields(Node{}, "cfg", "h"),
	cmp.Comparer(func(a, b core.RankSet) bool { return a.Equal(b) }),
	cmpopts.EquateEmpty(),
}

// randomRun drives every replica of cfg with random events (starts, pumps,
// deliveries, at most crashes crashes and their notifications) and calls
// visit on every replica state reached.
func randomRun(t *testing.T, cfg Config, seed uint64, crashes int, visit func(*Node)) {
	t.Helper()
	c := newCluster(t, cfg)
	rng := rand.New(rand.NewPCG(seed, 7))
	var pendingNotes []core.Rank
	for step := 0; step < 400; step++ {
		r := core.Rank(rng.IntN(len(c.nodes)))
		switch k := rng.IntN(10); {
		case k == 0 && !c.crashed.Has(r) && !c.node(r).started:
			c.start(r)
		case k == 1 && !c.crashed.Has(r) && c.node(r).armed:
			c.step(r, core.Timer(PumpTimer))
		case k == 2 && crashes > 0 && !c.crashed.Has(r):
			crashes--
			c.crash(r)
			pendingNotes = append(pendingNotes, r)
		case k == 3 && len(pendingNotes) > 0:
			q := pendingNotes[0]
			pendingNotes = pendingNotes[1:]
			c.notify(q)
		case len(c.flight) > 0:
			i := rng.IntN(len(c.flight))
			e := c.flight[i]
			c.flight = append(c.flight[:i:i], c.flight[i+1:]...)
			c.step(e.to, core.Receive(e.from, e.msg))
		}
		for _, n := range c.nodes {
			visit(n)
		}
	}
}

func shippedConfigs(t *testing.T) []Config {
	var out []Config
	for _, name := range ProgramNames {
		progs, err := Programs(name, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, rep0 := range []bool{false, true} {
			l, err := NewLayout(3, 3, rep0)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, Config{Layout: l, Programs: progs})
		}
	}
	return out
}

// TestEncodingRoundTrip: DecodeNode inverts AppendBinary on every replica
// state of random runs of every shipped program, and Clone is deep.
func TestEncodingRoundTrip(t *testing.T) {
	states := 0
	for i, cfg := range shippedConfigs(t) {
		randomRun(t, cfg, uint64(i), 2, func(n *Node) {
			states++
			b := n.AppendBinary(nil)
			got, err := DecodeNode(b, n.self, cfg)
			if err != nil {
				t.Fatalf("decode %v: %v", n, err)
			}
			if d := cmp.Diff(n, got, nodeCmp...); d != "" {
				t.Fatalf("round trip of %v (-want +got):\n%s", n, d)
			}
			c := n.Clone().(*Node)
			c.Step(core.Suspect(core.Rank((int(n.self)+1)%cfg.Layout.N())), nil)
			c.Step(core.Call(Start{}), nil)
			if !bytes.Equal(n.AppendBinary(nil), b) {
				t.Fatalf("stepping a clone changed the original %v", n)
			}
		})
	}
	if states < 1000 {
		t.Fatalf("only %d states visited", states)
	}
}

// TestEncodingDistinct: changing any one field of a state changes its
// encoding.
func TestEncodingDistinct(t *testing.T) {
	cfg := shippedConfigs(t)[0]
	base, err := New(1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	mid := MID{0, 1, 0, 0, 3}
	edits := map[string]func(n *Node){
		"started":    func(n *Node) { n.started = true },
		"pc":         func(n *Node) { n.pc = 1 },
		"acc":        func(n *Node) { n.acc = -1 },
		"tick":       func(n *Node) { n.tick = 1 },
		"dead":       func(n *Node) { n.dead.Add(0) },
		"backup":     func(n *Node) { n.backup = []entry{{mid, 0}} },
		"payload":    func(n *Node) { n.backup = []entry{{mid, 1}} },
		"log":        func(n *Node) { n.log = midSet{mid} },
		"history":    func(n *Node) { n.history = midSet{mid} },
		"queue":      func(n *Node) { n.queue = []entry{{mid, 0}} },
		"outbox":     func(n *Node) { n.outbox = []pending{{To: 0, Msg: Commit{mid}}} },
		"outbox-to":  func(n *Node) { n.outbox = []pending{{To: 2, Msg: Commit{mid}}} },
		"armed":      func(n *Node) { n.armed = true },
		"delivered":  func(n *Node) { n.delivered = 1 },
		"outputs":    func(n *Node) { n.outputs = 1 },
		"sentData":   func(n *Node) { n.sentData = 1 },
		"sentCommit": func(n *Node) { n.sentCommit = 1 },
	}
	seen := map[string]string{string(base.AppendBinary(nil)): "base"}
	for name, edit := range edits {
		n := base.Clone().(*Node)
		edit(n)
		b := string(n.AppendBinary(nil))
		if prev, dup := seen[b]; dup {
			t.Fatalf("%s and %s encode equally", name, prev)
		}
		seen[b] = name
	}
	// Queue order is state (arrival order), the backup's is not.
	a, b := base.Clone().(*Node), base.Clone().(*Node)
	a.queue = []entry{{mid, 0}, {MID{0, 1, 0, 0, 4}, 0}}
	b.queue = []entry{{MID{0, 1, 0, 0, 4}, 0}, {mid, 0}}
	if bytes.Equal(a.AppendBinary(nil), b.AppendBinary(nil)) {
		t.Fatal("queue order not encoded")
	}
}

// TestDecodeGarbage: random bytes and every truncation of real states give
// errors wrapping core.ErrMalformed, never a panic.
func TestDecodeGarbage(t *testing.T) {
	cfg := shippedConfigs(t)[3]
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		b := make([]byte, rng.IntN(40))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if _, err := DecodeNode(b, 0, cfg); err != nil && !errors.Is(err, core.ErrMalformed) {
			t.Fatalf("DecodeNode(%x): %v", b, err)
		}
		if _, err := DecodeMessage(b, 3); err != nil && !errors.Is(err, core.ErrMalformed) {
			t.Fatalf("DecodeMessage(%x): %v", b, err)
		}
	}
	checked := 0
	randomRun(t, cfg, 9, 1, func(n *Node) {
		if checked > 200 {
			return
		}
		checked++
		b := n.AppendBinary(nil)
		for k := 0; k < len(b); k++ {
			if _, err := DecodeNode(b[:k], n.self, cfg); !errors.Is(err, core.ErrMalformed) {
				t.Fatalf("truncation %d of %v: err %v", k, n, err)
			}
		}
		if _, err := DecodeNode(append(b, 0), n.self, cfg); !errors.Is(err, core.ErrMalformed) {
			t.Fatalf("trailing byte accepted: %v", err)
		}
	})
}

// TestMessageRoundTrip: DecodeMessage inverts AppendBinary.
func TestMessageRoundTrip(t *testing.T) {
	for _, m := range []core.Message{Data{MID{0, 2, 1, 9, 5}, -40}, Commit{MID{3, 0, 2, 0, 0}}, Data{MID{0, 0, 2, maxTag, 1 << 40}, 1 << 50}} {
		got, err := DecodeMessage(m.AppendBinary(nil), 3)
		if err != nil || got != m {
			t.Fatalf("round trip of %v: %v, %v", m, got, err)
		}
	}
	if _, err := DecodeMessage(Data{MID{0, 3, 1, 0, 0}, 0}.AppendBinary(nil), 3); !errors.Is(err, core.ErrMalformed) {
		t.Fatalf("source rank 3 of 3 accepted: %v", err)
	}
}

// TestImpossibleEvents: events a replica can never get are errors that
// leave the state unchanged.
func TestImpossibleEvents(t *testing.T) {
	cfg := shippedConfigs(t)[1] // ping-pong, P0 replicated: P0 = p0..p2, P1 = p3..p5
	n, err := New(3, cfg)
	if err != nil {
		t.Fatal(err)
	}
	before := n.AppendBinary(nil)
	bad := map[string]core.Event{
		"timer not armed":       core.Timer(PumpTimer),
		"unknown timer":         core.Timer(7),
		"self suspected":        core.Suspect(3),
		"rank outside":          core.Suspect(99),
		"data not for P1":       core.Receive(0, Data{MID{0, 0, 2, 0, 0}, 1}),
		"data with wrong src":   core.Receive(0, Data{MID{0, 2, 1, 0, 0}, 1}),
		"commit of other group": core.Receive(0, Commit{MID{0, 0, 1, 0, 0}}),
		"from self":             core.Receive(3, Commit{MID{0, 1, 0, 0, 0}}),
		"from outside":          core.Receive(-1, Commit{MID{0, 1, 0, 0, 0}}),
		"unknown kind":          {Kind: 99},
	}
	for name, ev := range bad {
		if _, err := n.Step(ev, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if !bytes.Equal(n.AppendBinary(nil), before) {
			t.Fatalf("%s changed the state", name)
		}
	}
	if _, err := n.Step(core.Call(Start{}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Step(core.Call(Start{}), nil); err == nil {
		t.Error("started twice")
	}
}

// TestLayout: Rank and Of are inverse, and rank 0 is unreplicated by
// default.
func TestLayout(t *testing.T) {
	l, err := NewLayout(3, 2, false)
	if err != nil {
		t.Fatal(err)
	}
	if l.N() != 5 || l.Degree(0) != 1 || l.String() != "P0={p0} P1={p1,p2} P2={p3,p4}" {
		t.Fatalf("layout %v, N %d", l, l.N())
	}
	for r := core.Rank(0); r < 5; r++ {
		i, k, ok := l.Of(r)
		if !ok || l.Rank(i, k) != r {
			t.Fatalf("Of(%v) = %d, %d, %v", r, i, k, ok)
		}
	}
	if _, _, ok := l.Of(5); ok {
		t.Fatal("rank 5 in a 5-replica layout")
	}
	for _, bad := range [][]int{{}, {0}, {65}} {
		if _, err := NewLayoutDegrees(bad); err == nil {
			t.Fatalf("degrees %v accepted", bad)
		}
	}
	if _, err := Programs("nope", 3, 1); err == nil {
		t.Fatal("unknown program accepted")
	}
	if _, err := New(0, Config{Layout: l, Programs: make([]Program, 3), Mutant: "nope"}); err == nil {
		t.Fatal("unknown mutant accepted")
	}
	if _, err := New(0, Config{Layout: l, Programs: []Program{{{Op: OpSend, Peer: 0}}, {}, {}}}); err == nil {
		t.Fatal("send to self accepted")
	}
}
