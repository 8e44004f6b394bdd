package era

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// The paper's rules (§2, §3), step by step, are the scripts in testdata/,
// run by TestPaperScripts (script_test.go). The helpers below serve the
// tests written in Go.

func newNode(t *testing.T, p core.Rank, cfg Config) *Node {
	t.Helper()
	n, err := New(p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func step(t *testing.T, n *Node, ev core.Event) string {
	t.Helper()
	effs, err := n.Step(ev, nil)
	if err != nil {
		t.Fatalf("%v: %v", ev, err)
	}
	return effects(effs)
}

// effects formats effects compactly: "UP(a=0, v=0x1)→p1; decide 0=0x1".
func effects(effs []core.Effect) string {
	var s []string
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			s = append(s, fmt.Sprintf("%v→%v", e.Msg, e.To))
		case core.EffDecide:
			s = append(s, fmt.Sprintf("decide %d=%v", e.Instance, e.Value))
		case core.EffReturn:
			s = append(s, fmt.Sprintf("return %d=%v", e.Instance, e.Value))
		default:
			s = append(s, e.String())
		}
	}
	return strings.Join(s, "; ")
}

func want(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func call(a uint64, v uint64) core.Event { return core.Call(Contribute{A: a, V: Flag(v)}) }

// Impossible events are errors and leave the state unchanged; messages
// from ranks believed dead are not errors.
func TestImpossibleEventsAreErrors(t *testing.T) {
	n := newNode(t, 1, Config{N: 4})
	step(t, n, call(0, 1))
	before := n.AppendBinary(nil)
	type other struct{ core.Message }
	for _, ev := range []core.Event{
		call(0, 2),                  // twice
		core.Call(Contribute{A: 1}), // ⊥
		core.Call(Contribute{A: 1, V: NewContribution(1, core.RankSet{}, core.RankSet{})}), // wrong Op
		core.Call(nil),
		core.Receive(4, Up{0, Flag(1)}),  // rank out of range
		core.Receive(-1, Up{0, Flag(1)}), // rank out of range
		core.Receive(1, Up{0, Flag(1)}),  // from self
		core.Receive(2, Up{0, nil}),      // ⊥ in UP
		core.Receive(2, Down{0, nil}),    // ⊥ in DOWN
		core.Receive(2, &Up{0, Flag(1)}), // not an ERA message value
		core.Receive(2, other{}),
		core.Suspect(1), // self
		core.Suspect(9),
		core.Timer(1),
		{},
	} {
		out := []core.Effect{core.Return(99, Flag(0))}
		effs, err := n.Step(ev, out)
		if err == nil {
			t.Errorf("%v: no error", ev)
		}
		if len(effs) != 1 || !bytes.Equal(n.AppendBinary(nil), before) {
			t.Errorf("%v changed the state or the effects", ev)
		}
	}
	step(t, n, core.Suspect(3))
	want(t, "UP from a dead rank", step(t, n, core.Receive(3, Up{0, Flag(1)})), "")
}

// Clone shares nothing mutable with the original.
func TestCloneIndependence(t *testing.T) {
	n := newNode(t, 1, Config{N: 8})
	step(t, n, call(0, 1))
	step(t, n, core.Receive(3, ResultRequest{1}))
	before := n.AppendBinary(nil)
	c := n.Clone().(*Node)
	step(t, c, core.Receive(2, Up{0, Flag(1)}))
	step(t, c, core.Suspect(5))
	step(t, c, call(1, 1))
	step(t, c, core.Receive(7, ResultRequest{1}))
	if !bytes.Equal(n.AppendBinary(nil), before) {
		t.Fatalf("stepping the clone changed the original: %v", n)
	}
	if bytes.Equal(c.AppendBinary(nil), before) {
		t.Fatal("the clone did not change")
	}
}
