package era

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// Tests named after the rules of §2, in the paper's order.

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

// Procedure Agreement: Status ← gathering, Contributed ∪ {p}, Current ← F.
func TestAgreementProcedureEntersGathering(t *testing.T) {
	n := newNode(t, 1, Config{N: 4}) // binary: 1's children are 2 and 3
	want(t, "effects", step(t, n, call(0, 0b101)), "")
	want(t, "status", n.Status(0).String(), "gathering")
	want(t, "contributed", n.Contributed(0).String(), "{p1}")
	want(t, "current", fmt.Sprint(n.Current(0)), "0x5")
}

// ERA Part 2, Rule Recv(UP(a, v)) while gathering: combine, add the child.
func TestPart2UpWhileGatheringCombines(t *testing.T) {
	n := newNode(t, 1, Config{N: 4})
	step(t, n, call(0, 0b111))
	want(t, "effects", step(t, n, core.Receive(2, Up{0, Flag(0b110)})), "")
	want(t, "current", fmt.Sprint(n.Current(0)), "0x6")
	want(t, "contributed", n.Contributed(0).String(), "{p1,p2}")
}

// ERA Part 2, Rule Recv(UP(a, v)) before Agreement is called: combine too.
func TestPart2UpWhileNotContributedCombines(t *testing.T) {
	n := newNode(t, 1, Config{N: 4})
	want(t, "effects", step(t, n, core.Receive(3, Up{0, Flag(0b110)})), "")
	want(t, "status", n.Status(0).String(), "notcontributed")
	want(t, "contributed", n.Contributed(0).String(), "{p3}")
	want(t, "effects", step(t, n, core.Receive(2, Up{0, Flag(0b011)})), "")
	want(t, "call", step(t, n, call(0, 0b111)), "UP(a=0, v=0x2)→p0")
	want(t, "status", n.Status(0).String(), "broadcasting")
}

// ERA Part 2, Rule Recv(UP(a, v)) when decided: re-send DOWN.
func TestPart2UpAfterDecisionResendsDown(t *testing.T) {
	n := newNode(t, 0, Config{N: 2})
	step(t, n, call(0, 1))
	want(t, "decision", step(t, n, core.Receive(1, Up{0, Flag(3)})), "decide 0=0x1; DOWN(a=0, v=0x1)→p1; return 0=0x1")
	want(t, "again", step(t, n, core.Receive(1, Up{0, Flag(3)})), "DOWN(a=0, v=0x1)→p1")
}

// ERA Part 2, Rule Recv(UP) while broadcasting, undecided, from a process
// that is not a child in S_p (its parent died, p does not know yet): the
// sender is remembered and answered by Decision (resolved ambiguity).
func TestPart2UpFromNonChildIsAnsweredByDecision(t *testing.T) {
	n := newNode(t, 1, Config{N: 8})
	step(t, n, call(0, 1))
	step(t, n, core.Receive(2, Up{0, Flag(1)}))
	want(t, "DC", step(t, n, core.Receive(3, Up{0, Flag(1)})), "UP(a=0, v=0x1)→p0")
	want(t, "UP from grandchild", step(t, n, core.Receive(5, Up{0, Flag(1)})), "")
	want(t, "requested", n.RequestedResult(0).String(), "{p5}")
	want(t, "DOWN", step(t, n, core.Receive(0, Down{0, Flag(1)})),
		"decide 0=0x1; DOWN(a=0, v=0x1)→p2; DOWN(a=0, v=0x1)→p3; DOWN(a=0, v=0x1)→p5; return 0=0x1")
	want(t, "requested after Decision", n.RequestedResult(0).String(), "{}")
}

// ERA Part 2, Rule Recv(DOWN(a, v)) from the parent: Decision, which
// forwards DOWN to the children.
func TestPart2DownFromParentDecidesAndForwards(t *testing.T) {
	n := newNode(t, 1, Config{N: 4})
	step(t, n, call(0, 1))
	step(t, n, core.Receive(2, Up{0, Flag(1)}))
	step(t, n, core.Receive(3, Up{0, Flag(1)}))
	want(t, "DOWN", step(t, n, core.Receive(0, Down{0, Flag(9)})),
		"decide 0=0x9; DOWN(a=0, v=0x9)→p2; DOWN(a=0, v=0x9)→p3; return 0=0x9")
	want(t, "second DOWN", step(t, n, core.Receive(0, Down{0, Flag(7)})), "")
	want(t, "result", fmt.Sprint(n.Result(0)), "0x9")
}

// ERA Part 2, Rule Recv(DOWN(a, v)) from a process that is not the parent:
// ignored.
func TestPart2DownFromNonParentIgnored(t *testing.T) {
	n := newNode(t, 2, Config{N: 4})
	step(t, n, call(0, 1))
	want(t, "DOWN from p0", step(t, n, core.Receive(0, Down{0, Flag(1)})), "")
	want(t, "DOWN from p3", step(t, n, core.Receive(3, Down{0, Flag(1)})), "")
	if n.Result(0) != nil {
		t.Fatal("decided on a DOWN from a non-parent")
	}
	m := newNode(t, 2, Config{N: 4, Mutant: MutantDownFromAnyone})
	step(t, m, call(0, 1))
	want(t, "mutant", step(t, m, core.Receive(0, Down{0, Flag(1)})), "decide 0=0x1; return 0=0x1")
}

// Procedure Agreement after a DOWN already decided a: the call returns at
// once (resolved ambiguity).
func TestAgreementAfterDownReturnsAtOnce(t *testing.T) {
	n := newNode(t, 2, Config{N: 4})
	want(t, "DOWN", step(t, n, core.Receive(1, Down{0, Flag(4)})), "decide 0=0x4")
	want(t, "call", step(t, n, call(0, 1)), "return 0=0x4; UP(a=0, v=0x1)→p1")
	want(t, "result", fmt.Sprint(n.Result(0)), "0x4")
}

// ERA Part 2, Rule Recv(RESULTREQUEST(a)) from q: every r < q is marked
// dead (not p itself), then DOWN if decided, UP if broadcasting, else q is
// remembered and answered by Decision.
func TestPart2ResultRequestAnswers(t *testing.T) {
	// Undecided, gathering: remembered.
	n := newNode(t, 2, Config{N: 8}) // children 4 and 5
	step(t, n, call(0, 1))
	want(t, "gathering", step(t, n, core.Receive(3, ResultRequest{0})), "")
	want(t, "dead", n.Dead().String(), "{p0,p1}")
	want(t, "requested", n.RequestedResult(0).String(), "{p3}")
	// A leaf whose parent is marked dead: UP to its new parent (Part 4),
	// then the answer to RESULTREQUEST (the same process here).
	n = newNode(t, 5, Config{N: 8})
	step(t, n, call(0, 1))
	want(t, "leaf", step(t, n, core.Receive(3, ResultRequest{0})), "UP(a=0, v=0x1)→p3; UP(a=0, v=0x1)→p3")
	// Broadcasting: re-send the contribution UP.
	n = newNode(t, 5, Config{N: 8})
	want(t, "leaf DC", step(t, n, call(0, 1)), "UP(a=0, v=0x1)→p2")
	want(t, "broadcasting", step(t, n, core.Receive(1, ResultRequest{0})), "UP(a=0, v=0x1)→p1")
	want(t, "dead", n.Dead().String(), "{p0}")
	// Decided: DOWN.
	step(t, n, core.Receive(2, Down{0, Flag(1)}))
	want(t, "decided", step(t, n, core.Receive(3, ResultRequest{0})), "DOWN(a=0, v=0x1)→p3")
	want(t, "dead", n.Dead().String(), "{p0,p1,p2}")
	// p is never marked dead in its own view.
	n = newNode(t, 1, Config{N: 8})
	step(t, n, core.Receive(3, ResultRequest{0}))
	want(t, "self", n.Dead().String(), "{p0,p2}")
	// Procedure Decision answers RequestedResult.
	n = newNode(t, 5, Config{N: 8})
	step(t, n, core.Receive(3, ResultRequest{0}))
	want(t, "requested", n.RequestedResult(0).String(), "{p3}")
	want(t, "call", step(t, n, call(0, 1)), "UP(a=0, v=0x1)→p3")
	want(t, "Decision", step(t, n, core.Receive(3, Down{0, Flag(1)})),
		"decide 0=0x1; DOWN(a=0, v=0x1)→p3; return 0=0x1")
	m := newNode(t, 5, Config{N: 8, Mutant: MutantDecisionIgnoresRequests})
	step(t, m, core.Receive(3, ResultRequest{0}))
	step(t, m, call(0, 1))
	want(t, "mutant", step(t, m, core.Receive(3, Down{0, Flag(1)})), "decide 0=0x1; return 0=0x1")
}

// ERA Part 2, Rule Recv(RESULTREQUEST) marks elders dead as discoveries:
// a process whose parent is marked re-sends its contribution to its new
// parent (resolved ambiguity, ERA Part 4).
func TestPart2ResultRequestMarkingRunsPart4(t *testing.T) {
	n := newNode(t, 4, Config{N: 8}) // parent 2
	want(t, "leaf", step(t, n, call(0, 1)), "UP(a=0, v=0x1)→p2")
	step(t, n, core.Receive(1, ResultRequest{1}))
	want(t, "RESULTREQUEST from p3", step(t, n, core.Receive(3, ResultRequest{1})), "UP(a=0, v=0x1)→p3")
	want(t, "parent", n.Parent().String(), "p3")
}

// ERA Part 3: a leaf that contributed sends UP and broadcasts; a root waits
// for all its children, then decides.
func TestPart3SpontaneousRule(t *testing.T) {
	leaf := newNode(t, 3, Config{N: 4})
	want(t, "leaf", step(t, leaf, call(0, 1)), "UP(a=0, v=0x1)→p1")
	want(t, "status", leaf.Status(0).String(), "broadcasting")
	root := newNode(t, 0, Config{N: 8, Topology: Star})
	step(t, root, call(0, 0xff))
	for q := core.Rank(1); q < 7; q++ {
		want(t, "waiting", step(t, root, core.Receive(q, Up{0, Flag(0xff &^ (1 << q))})), "")
	}
	got := step(t, root, core.Receive(7, Up{0, Flag(0xff)}))
	if !strings.HasPrefix(got, "decide 0=0x81; DOWN(a=0, v=0x81)→p1;") || !strings.HasSuffix(got, "return 0=0x81") {
		t.Fatalf("root decision: %s", got)
	}
	want(t, "status", root.Status(0).String(), "broadcasting")
}

// ERA Part 3 under MutantEarlyRootDecision: the root decides alone.
func TestPart3EarlyRootDecisionMutant(t *testing.T) {
	root := newNode(t, 0, Config{N: 4, Mutant: MutantEarlyRootDecision})
	want(t, "root", step(t, root, call(0, 1)), "decide 0=0x1; DOWN(a=0, v=0x1)→p1; return 0=0x1")
}

// ERA Part 4, first rule: the parent of a broadcasting process dies and
// the process becomes root: gathering again with Contributed = {p}, and
// RESULTREQUEST to its new children.
func TestPart4ParentDeathNewRootRequestsResults(t *testing.T) {
	n := newNode(t, 1, Config{N: 8})
	step(t, n, call(0, 1))
	step(t, n, core.Receive(2, Up{0, Flag(1)}))
	want(t, "DC", step(t, n, core.Receive(3, Up{0, Flag(1)})), "UP(a=0, v=0x1)→p0")
	want(t, "p0 dead", step(t, n, core.Suspect(0)), "RESULTREQUEST(a=0)→p2; RESULTREQUEST(a=0)→p3")
	want(t, "status", n.Status(0).String(), "gathering")
	want(t, "contributed", n.Contributed(0).String(), "{p1}")
	// A child that decided answers DOWN, and the new root adopts it.
	want(t, "DOWN from child", step(t, n, core.Receive(2, Down{0, Flag(1)})),
		"decide 0=0x1; DOWN(a=0, v=0x1)→p2; DOWN(a=0, v=0x1)→p3; return 0=0x1")
	// Under the literal guard (mutant) it would be ignored.
	m := newNode(t, 1, Config{N: 8, Mutant: MutantRootIgnoresDown})
	step(t, m, call(0, 1))
	step(t, m, core.Suspect(0))
	want(t, "mutant", step(t, m, core.Receive(2, Down{0, Flag(1)})), "")
}

// ERA Part 4, first rule, non-root branch: UP to the new parent.
func TestPart4ParentDeathSendsUpToNewParent(t *testing.T) {
	n := newNode(t, 5, Config{N: 8}) // parent 2, grandparent 1
	want(t, "leaf", step(t, n, call(0, 1)), "UP(a=0, v=0x1)→p2")
	want(t, "p2 dead", step(t, n, core.Suspect(2)), "UP(a=0, v=0x1)→p1")
	want(t, "p3 dead (not parent)", step(t, n, core.Suspect(3)), "")
	want(t, "p2 again", step(t, n, core.Suspect(2)), "")
	m := newNode(t, 5, Config{N: 8, Mutant: MutantNoUpToNewParent})
	step(t, m, call(0, 1))
	want(t, "mutant", step(t, m, core.Suspect(2)), "")
}

// ERA Part 4, second rule: a root in gathering that discovers a child q
// dead sends RESULTREQUEST to Children(S'_p, q), computed with the view
// before q is marked dead; DC then waits for them.
func TestPart4RootChildDeathRequestsGrandchildren(t *testing.T) {
	n := newNode(t, 1, Config{N: 8})
	step(t, n, core.Suspect(0)) // p1 is root; children 2, 3
	step(t, n, call(0, 1))
	want(t, "p2 dead", step(t, n, core.Suspect(2)), "RESULTREQUEST(a=0)→p4; RESULTREQUEST(a=0)→p5")
	want(t, "children", n.Children().String(), "{p3,p4,p5}")
	step(t, n, core.Receive(3, Up{0, Flag(1)}))
	step(t, n, core.Receive(4, Up{0, Flag(1)}))
	want(t, "DC", step(t, n, core.Receive(5, Up{0, Flag(1)})),
		"decide 0=0x1; DOWN(a=0, v=0x1)→p3; DOWN(a=0, v=0x1)→p4; DOWN(a=0, v=0x1)→p5; return 0=0x1")
	m := newNode(t, 1, Config{N: 8, Mutant: MutantNoGrandchildren})
	step(t, m, core.Suspect(0))
	step(t, m, call(0, 1))
	want(t, "mutant", step(t, m, core.Suspect(2)), "")
}

// ERA Part 4 for a child of a non-root: the grandchildren are adopted and
// DC waits for them, without RESULTREQUEST.
func TestPart4ChildDeathAtNonRootAdoptsGrandchildren(t *testing.T) {
	n := newNode(t, 1, Config{N: 8})
	step(t, n, call(0, 1))
	step(t, n, core.Receive(3, Up{0, Flag(1)}))
	want(t, "p2 dead", step(t, n, core.Suspect(2)), "")
	step(t, n, core.Receive(4, Up{0, Flag(1)}))
	want(t, "DC", step(t, n, core.Receive(5, Up{0, Flag(1)})), "UP(a=0, v=0x1)→p0")
}

// §3 garbage collection: after return only Result is kept, and UP is still
// answered with it.
func TestGarbageCollectionKeepsResult(t *testing.T) {
	n := newNode(t, 0, Config{N: 2, GC: true})
	step(t, n, call(0, 3))
	step(t, n, core.Receive(1, Up{0, Flag(1)}))
	want(t, "status", n.Status(0).String(), "notcontributed")
	want(t, "contributed", n.Contributed(0).String(), "{}")
	if n.Current(0) != nil || n.Result(0) != Flag(1) || !n.Returned(0) {
		t.Fatalf("after GC: %v", n)
	}
	want(t, "UP", step(t, n, core.Receive(1, Up{0, Flag(1)})), "DOWN(a=0, v=0x1)→p1")
	want(t, "RESULTREQUEST", step(t, n, core.Receive(1, ResultRequest{0})), "DOWN(a=0, v=0x1)→p1")
}

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
