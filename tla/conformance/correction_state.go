package conformance

// Conformance of the Corrected Tree broadcast with checked correction:
// tla/correction.qnt (module correction) against statemachine/correction
// in the environment of models/correction.NewModel (checker/env). The
// files correction_*.go mirror the ERA ones: this one is the abstraction
// both sides are compared on, correction_replay.go replays Quint traces
// on the Go machines, correction_export.go turns Go traces into ITF and
// Quint run tests. One Go step is exactly one spec step: there is no
// spontaneous rule to settle.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/correction"
)

// CorrMsg is a message in flight, as in correction.qnt: Kind is "TREE" or
// "CORRECTION", Dir the direction a correction message was sent in
// ("left", "right"; "" for TREE), V the value it carries.
type CorrMsg struct {
	Kind, Dir string
	Src, Dst  int
	V         int
}

// String formats m as a Quint record literal.
func (m CorrMsg) String() string {
	return fmt.Sprintf(`{ kind: %q, dir: %q, src: %d, dst: %d, v: %d }`, m.Kind, m.Dir, m.Src, m.Dst, m.V)
}

// CorrNode is one process: its correction.Node state, the values it
// delivered, and the timers the environment holds armed for it.
type CorrNode struct {
	Color       string // correction.Via: "uncolored" | "root" | "tree" | "correction"
	Participant bool   // takes part in correction (the spec derives it from Color)
	Started     bool   // correction started
	Turn        string // "left" | "right": next direction when both are open
	ReachL      int    // farthest distance sent to on the left (Go nextL-1)
	ReachR      int
	HeardL      int // nearest distance a correction message came from (0: none)
	HeardR      int
	Sent        int
	Delivered   []int // values delivered, in order; nil when none
	StartArmed  bool  // timer correction.TimerStart armed
	SlotArmed   bool  // timer correction.TimerSendSlot armed
}

// CorrState is the abstraction both sides are compared on.
type CorrState struct {
	Crashed []int
	Clock   bool // the synchronized start happened
	Nodes   []CorrNode
	Msgs    map[CorrMsg]int // in flight (to live processes), with multiplicity
}

// CorrMsgOf abstracts a correction.Msg sent from src to dst.
func CorrMsgOf(src, dst core.Rank, m core.Message) CorrMsg {
	x, ok := m.(*correction.Msg)
	if !ok {
		panic(fmt.Sprintf("conformance: %v (%T) is not a correction message", m, m))
	}
	out := CorrMsg{Kind: x.Kind(), Src: int(src), Dst: int(dst), V: int(x.Value())}
	if !x.IsTree() {
		out.Dir = x.Dir().String()
	}
	return out
}

// Flags of correction.Node's canonical encoding (machine.go: fStarted is
// bit 2). Only read through nodeDetail, which checks the decoding against
// the Node's exported accessors.
const nodeFlagStarted = 1 << 2

// nodeDetail reads what correction.Node does not export (turn, started)
// from its canonical encoding (Node.AppendBinary: tag, rank, via, flags,
// turn, then nextL, nextR, limL, limR, recvL, recvR, sent as uvarints,
// then the value if colored), and checks every other field it decodes
// against the accessors, so that a change of the encoding fails loudly.
func nodeDetail(n *correction.Node) (turn string, started bool, err error) {
	d := core.NewDecoder(n.AppendBinary(nil))
	d.Byte() // tag
	rank := d.Uint()
	via, flags, t := d.Byte(), d.Byte(), d.Byte()
	var c [7]uint64
	for i := range c {
		c[i] = d.Uint()
	}
	if n.Colored() {
		d.Uint()
	}
	if err := d.Finish(); err != nil {
		return "", false, fmt.Errorf("conformance: decoding %v: %w", n, err)
	}
	l, r := n.Reach()
	hl, hr := n.Heard()
	want := [...]uint64{uint64(n.Rank()), uint64(n.Via()), uint64(l + 1), uint64(r + 1), uint64(hl), uint64(hr), uint64(n.Sent())}
	got := [...]uint64{rank, uint64(via), c[0], c[1], c[4], c[5], c[6]}
	if want != got || (flags&1 != 0) != n.Participant() {
		return "", false, fmt.Errorf("conformance: the encoding of correction.Node changed (decoded %v, accessors %v): update nodeDetail", got, want)
	}
	return correction.Dir(t).String(), flags&nodeFlagStarted != 0, nil
}

// FromCorrectionWorld abstracts a world of models/correction.NewModel.
func FromCorrectionWorld(w *env.World) (CorrState, error) {
	s := CorrState{Crashed: ranks(w.CrashedSet()), Clock: w.Clocks() > 0, Msgs: map[CorrMsg]int{}}
	for p := 0; p < w.N(); p++ {
		n, ok := w.Node(core.Rank(p)).(*correction.Node)
		if !ok {
			return s, fmt.Errorf("conformance: p%d is a %T, not a correction.Node", p, w.Node(core.Rank(p)))
		}
		turn, started, err := nodeDetail(n)
		if err != nil {
			return s, err
		}
		l, r := n.Reach()
		hl, hr := n.Heard()
		cn := CorrNode{Color: n.Via().String(), Participant: n.Participant(), Started: started, Turn: turn,
			ReachL: l, ReachR: r, HeardL: hl, HeardR: hr, Sent: n.Sent()}
		for _, h := range w.History(core.Rank(p)) {
			if h.Kind == core.EffDeliver {
				v, ok := h.Value.(correction.Value)
				if !ok {
					return s, fmt.Errorf("conformance: p%d delivered %v (%T)", p, h.Value, h.Value)
				}
				cn.Delivered = append(cn.Delivered, int(v))
			}
		}
		for _, id := range w.Timers(core.Rank(p)) {
			switch id {
			case correction.TimerStart:
				cn.StartArmed = true
			case correction.TimerSendSlot:
				cn.SlotArmed = true
			default:
				return s, fmt.Errorf("conformance: p%d has timer %d armed", p, id)
			}
		}
		s.Nodes = append(s.Nodes, cn)
	}
	for _, e := range w.InFlight() {
		s.Msgs[CorrMsgOf(e.From, e.To, e.Msg)]++
	}
	return s, nil
}

// fromCorrectionSpec abstracts a decoded ITF state of correction.qnt.
func fromCorrectionSpec(st map[string]any) (s CorrState, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("conformance: unexpected spec state shape: %v", r)
		}
	}()
	s = CorrState{Crashed: asInts(st["crashed"]), Clock: st["clock"].(bool), Msgs: map[CorrMsg]int{}}
	nodes, armed := intKeyed(st["node"]), intKeyed(st["armed"])
	for p := 0; p < len(nodes); p++ {
		r := nodes[p].(map[string]any)
		cn := CorrNode{
			Color: r["color"].(string), Started: r["started"].(bool), Turn: r["turn"].(string),
			ReachL: asInt(r["reachL"]), ReachR: asInt(r["reachR"]),
			HeardL: asInt(r["heardL"]), HeardR: asInt(r["heardR"]), Sent: asInt(r["sent"]),
		}
		cn.Participant = cn.Color == correction.ViaRoot.String() || cn.Color == correction.ViaTree.String()
		for _, v := range r["delivered"].([]any) {
			cn.Delivered = append(cn.Delivered, asInt(v))
		}
		for _, t := range armed[p].([]any) {
			switch t.(string) {
			case "start":
				cn.StartArmed = true
			case "slot":
				cn.SlotArmed = true
			default:
				panic(fmt.Sprintf("unknown timer %v", t))
			}
		}
		s.Nodes = append(s.Nodes, cn)
	}
	for _, kv := range asMap(st["msgs"]) {
		s.Msgs[asCorrMsg(kv[0])] += asInt(kv[1])
	}
	return s, nil
}

func asCorrMsg(v any) CorrMsg {
	r := v.(map[string]any)
	return CorrMsg{Kind: r["kind"].(string), Dir: r["dir"].(string), Src: asInt(r["src"]), Dst: asInt(r["dst"]), V: asInt(r["v"])}
}

// ------------------------------------------------------ compact images

// CorrSnapshot is correction.qnt's snapshot of s: per process color code
// (0 uncolored, 1 root, 2 tree, 3 correction), started, turn (1 left,
// 2 right), reachL, reachR, heardL, heardR, sent, number of deliveries,
// value held (BOT if none), start armed, slot armed; then clock and the
// bitmask of crashed.
func CorrSnapshot(s CorrState) []int {
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	color := map[string]int{"uncolored": 0, "root": 1, "tree": 2, "correction": 3}
	turn := map[string]int{"left": 1, "right": 2}
	var out []int
	for _, n := range s.Nodes {
		v := BOT
		if len(n.Delivered) > 0 {
			v = n.Delivered[0]
		}
		out = append(out, color[n.Color], b2i(n.Started), turn[n.Turn], n.ReachL, n.ReachR, n.HeardL, n.HeardR,
			n.Sent, len(n.Delivered), v, b2i(n.StartArmed), b2i(n.SlotArmed))
	}
	crashed := 0
	for _, r := range s.Crashed {
		crashed |= 1 << r
	}
	return append(out, b2i(s.Clock), crashed)
}

// CorrMsgCode is correction.qnt's msgCode.
func CorrMsgCode(m CorrMsg) int {
	k := 0
	if m.Kind == correction.KindCorrection {
		k = 1
	}
	d := map[string]int{"": 0, "left": 1, "right": 2}[m.Dir]
	return ((((k*3+d)*64+m.Src)*64+m.Dst)*256 + m.V + 1)
}

// CorrFlight is the flight part of correction.qnt's image: every message
// in flight as msgCode * 16 + its number of copies, ascending.
func CorrFlight(s CorrState) []int {
	var out []int
	for m, k := range s.Msgs {
		out = append(out, CorrMsgCode(m)*16+k)
	}
	slices.Sort(out)
	return out
}

func sortedCorrMsgs(ms map[CorrMsg]int) []CorrMsg {
	out := make([]CorrMsg, 0, len(ms))
	for m := range ms {
		out = append(out, m)
	}
	slices.SortFunc(out, func(x, y CorrMsg) int {
		for _, d := range []int{x.Dst - y.Dst, x.Src - y.Src, strings.Compare(x.Kind, y.Kind), strings.Compare(x.Dir, y.Dir), x.V - y.V} {
			if d != 0 {
				return d
			}
		}
		return 0
	})
	return out
}
