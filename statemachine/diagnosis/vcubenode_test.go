package diagnosis

import (
	"errors"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// lockStep runs one round of VCubeNodes as the round model does: every live node's Start or
// round timer, then every TEST, then every REPLY. So each reply carries the tested node's state
// of the round's start. It returns the round's tests in tester order.
func lockStep(t *testing.T, nodes []*VCubeNode, crashed []bool, first bool) []Test {
	t.Helper()
	type env struct {
		from core.Rank
		eff  core.Effect
	}
	var sends []env
	var tests []Test
	for i, v := range nodes {
		if crashed[i] {
			continue
		}
		ev := core.Timer(roundTimer)
		if first {
			ev = core.Call(StartVCube{})
		}
		effs, err := v.Step(ev, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range effs {
			if e.Kind == core.EffSend {
				sends = append(sends, env{core.Rank(i), e})
				tests = append(tests, Test{core.Rank(i), e.To})
			}
		}
	}
	var replies []env
	for _, s := range sends {
		if crashed[s.eff.To] {
			continue
		}
		effs, err := nodes[s.eff.To].Step(core.Receive(s.from, s.eff.Msg), nil)
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, env{s.eff.To, effs[0]})
	}
	for _, r := range replies {
		if _, err := nodes[r.eff.To].Step(core.Receive(r.from, r.eff.Msg), nil); err != nil {
			t.Fatal(err)
		}
	}
	return tests
}

// TestNodeLockStepIsRoundModel: the network machine, its messages delivered in lock step, makes
// the round model's tests and reaches its timestamps at the end of every round (each round's
// deadline applied at the next round's start), for every fault set of n = 8 from the start,
// over three cycles.
func TestNodeLockStepIsRoundModel(t *testing.T) {
	const n = 8
	cfg := &VCubeNodeConfig{N: n, Delta: 1}
	for mask := range 1<<n - 1 { // every fault set leaving a node fault-free
		var faulty []core.Rank
		crashed := make([]bool, n)
		for r := range n {
			if mask>>r&1 == 1 {
				faulty = append(faulty, core.Rank(r))
				crashed[r] = true
			}
		}
		sys, err := NewVCube(n, faulty, "")
		if err != nil {
			t.Fatal(err)
		}
		nodes := make([]*VCubeNode, n)
		for i := range nodes {
			if nodes[i], err = NewVCubeNode(cfg, core.Rank(i)); err != nil {
				t.Fatal(err)
			}
		}
		for round := range 3 * 3 {
			if round > 0 {
				for i, v := range nodes { // the deadline of the previous round, alone
					if !crashed[i] {
						v.endRound()
					}
				}
				for i := range n {
					if !crashed[i] && !slices.Equal(nodes[i].ts, sys.TS[i]) {
						t.Fatalf("faulty %v, after round %d: p%d's timestamps %v, the round model's %v", faulty, round, i, nodes[i].ts, sys.TS[i])
					}
				}
			}
			want := sys.Round().Tests
			for i, v := range nodes { // the next round, without its deadline: as Round runs it
				if !crashed[i] && round > 0 {
					v.pending = core.RankSet{}
				}
			}
			got := lockStep(t, nodes, crashed, round == 0)
			if !slices.Equal(got, want) {
				t.Fatalf("faulty %v, round %d: tests %v, the round model's %v", faulty, round+1, got, want)
			}
		}
	}
}

// TestNodeMessagesRoundTrip: TEST and REPLY decode to themselves; malformed bytes give an
// error wrapping core.ErrMalformed.
func TestNodeMessagesRoundTrip(t *testing.T) {
	for _, m := range []core.Message{TestRequest{S: 3}, TestReply{S: 1, TS: []uint32{0, 1, 2, 1<<32 - 1}}} {
		got, err := DecodeVCubeMessage(m.AppendBinary(nil), 4)
		if err != nil || got.String() != m.String() {
			t.Errorf("%v: decoded %v, %v", m, got, err)
		}
	}
	for _, b := range [][]byte{
		nil,
		{9},                       // unknown tag
		{tagTest, 0},              // s = 0
		{tagTest, 1, 0},           // trailing byte
		{tagReply, 1, 3, 0, 0, 0}, // 3 entries, want 4
		{tagReply, 1, 4, 0, 0, 0}, // cut short
		{tagTest, 0x81, 0},        // overlong varint for s = 1
	} {
		if _, err := DecodeVCubeMessage(b, 4); !errors.Is(err, core.ErrMalformed) {
			t.Errorf("% x: error %v", b, err)
		}
	}
}

// TestNodeRefuses: impossible events leave the node unchanged with an error.
func TestNodeRefuses(t *testing.T) {
	v, err := NewVCubeNode(&VCubeNodeConfig{N: 4, Delta: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	before := string(v.AppendBinary(nil))
	for _, ev := range []core.Event{
		core.Timer(roundTimer), // before Start
		core.Suspect(1),
		core.Receive(1, TestReply{S: 1, TS: []uint32{0}}),
	} {
		if _, err := v.Step(ev, nil); err == nil || string(v.AppendBinary(nil)) != before {
			t.Errorf("%v: err %v, state changed %v", ev, err, string(v.AppendBinary(nil)) != before)
		}
	}
	if _, err := v.Step(core.Call(StartVCube{}), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Step(core.Call(StartVCube{}), nil); err == nil {
		t.Error("a second Start was taken")
	}
	for _, bad := range []VCubeNodeConfig{{N: 6, Delta: 1}, {N: 128, Delta: 1}, {N: 4}, {N: 4, Delta: 1, Mutant: "copy-from-faulty"}} {
		if _, err := NewVCubeNode(&bad, 0); err == nil {
			t.Errorf("%+v: built", bad)
		}
	}
}
