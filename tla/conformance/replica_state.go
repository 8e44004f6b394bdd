package conformance

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/replica"
)

// RepMID is a replica.MID without the communicator (always 0 in Go, left
// out of tla/replica.qnt).
type RepMID struct{ Src, Dst, Tag, Time int }

func (m RepMID) compare(o RepMID) int {
	return cmp.Or(cmp.Compare(m.Src, o.Src), cmp.Compare(m.Dst, o.Dst), cmp.Compare(m.Tag, o.Tag), cmp.Compare(m.Time, o.Time))
}

// RepEntry is a backup, queue or delivery entry: a MID and its payload.
type RepEntry struct {
	MID     RepMID
	Payload int
}

// RepMsg is a DATA or COMMIT from replica Src to replica Dst (environment
// ranks); a COMMIT's Payload is 0.
type RepMsg struct {
	Kind     string // "DATA" or "COMMIT"
	Src, Dst int
	MID      RepMID
	Payload  int
}

// RepChan is one per-channel count of a replica: messages sent to (Peer,
// Tag) or delivered from it.
type RepChan struct{ Peer, Tag, N int }

// RepNode is one replica's state as replica.qnt's Node: every field of
// the Go node's canonical encoding, plus the deliveries and outputs (their
// values, which Go keeps in the environment's effect history; the node
// encodes their counts, which are checked against them).
type RepNode struct {
	Started              bool
	PC, Acc, Tick        int
	SendSeq, RecvSeq     []RepChan // by (Peer, Tag)
	Dead                 []int
	Backup               []RepEntry // by MID
	Log, History         []RepMID   // by MID
	Queue                []RepEntry // arrival order
	Outbox               []RepMsg   // sending order
	Armed                bool
	Delivered            []RepEntry
	Outputs              []int
	SentData, SentCommit int
}

// RepState is the state of replica.qnt: every replica, the crashed set,
// the messages in flight with their multiplicity.
type RepState struct {
	Nodes   []RepNode
	Crashed []int
	Flight  map[RepMsg]int
}

func repMIDOf(m replica.MID) RepMID {
	return RepMID{int(m.Src), int(m.Dst), int(m.Tag), int(m.Tick)}
}

// RepMsgOf abstracts a Go message from src to dst (a replica.Data or
// replica.Commit; anything else gives Kind "?").
func RepMsgOf(src, dst core.Rank, m core.Message) RepMsg {
	switch x := m.(type) {
	case replica.Data:
		return RepMsg{"DATA", int(src), int(dst), repMIDOf(x.MID), int(x.Payload)}
	case replica.Commit:
		return RepMsg{"COMMIT", int(src), int(dst), repMIDOf(x.MID), 0}
	}
	return RepMsg{Kind: "?", Src: int(src), Dst: int(dst)}
}

// FromReplicaWorld abstracts a world of models/replica: each node's state is
// read from its canonical encoding (replica.Node.AppendBinary, in the
// order documented there), and its deliveries and outputs from the
// environment's history. Errors: an encoding that does not read back, or
// counts that disagree with the history.
func FromReplicaWorld(w *env.World, layout replica.Layout) (RepState, error) {
	s := RepState{Flight: map[RepMsg]int{}}
	N, procs := layout.N(), layout.Procs()
	for r := range N {
		node, ok := w.Node(core.Rank(r)).(*replica.Node)
		if !ok {
			return s, fmt.Errorf("p%d is not a replica.Node", r)
		}
		n, delivered, outputs, err := decodeRepNode(node.AppendBinary(nil), N, procs)
		if err != nil {
			return s, fmt.Errorf("p%d: %w", r, err)
		}
		for _, rec := range w.History(core.Rank(r)) {
			switch v := rec.Value.(type) {
			case replica.Delivery:
				n.Delivered = append(n.Delivered, RepEntry{repMIDOf(v.MID), int(v.Payload)})
			case replica.Output:
				n.Outputs = append(n.Outputs, int(v.V))
			}
		}
		if len(n.Delivered) != delivered || len(n.Outputs) != outputs {
			return s, fmt.Errorf("p%d: %d deliveries and %d outputs in the history, the node counts %d and %d",
				r, len(n.Delivered), len(n.Outputs), delivered, outputs)
		}
		s.Nodes = append(s.Nodes, n)
	}
	s.Crashed = ranks(w.CrashedSet())
	for _, e := range w.InFlight() {
		s.Flight[RepMsgOf(e.From, e.To, e.Msg)]++
	}
	return s, nil
}

// decodeRepNode reads replica.Node.AppendBinary's encoding; it returns the
// node and its delivery and output counts.
func decodeRepNode(b []byte, N, procs int) (n RepNode, delivered, outputs int, err error) {
	d := core.NewDecoder(b)
	num := func() int { return int(d.Uint()) }
	mid := func() RepMID {
		if c := d.Uint(); c != 0 {
			d.Fail("communicator %d, not 0", c)
		}
		return RepMID{num(), num(), num(), num()}
	}
	chans := func() []RepChan {
		var out []RepChan
		for range d.Len(d.Remaining()) {
			out = append(out, RepChan{num(), num(), num()})
		}
		return out
	}
	entries := func() []RepEntry {
		var out []RepEntry
		for range d.Len(d.Remaining()) {
			m := mid()
			out = append(out, RepEntry{m, int(d.Int())})
		}
		return out
	}
	mids := func() []RepMID {
		var out []RepMID
		for range d.Len(d.Remaining()) {
			out = append(out, mid())
		}
		return out
	}
	self := int(d.Rank(N)) // the sender of the outbox's messages
	n.Started = d.Bool()
	n.PC = num()
	n.Acc = int(d.Int())
	n.Tick = num()
	n.SendSeq, n.RecvSeq = chans(), chans()
	n.Dead = ranks(core.DecodeRankSet(d, N))
	n.Backup = entries()
	n.Log, n.History = mids(), mids()
	n.Queue = entries()
	for range d.Len(d.Remaining()) {
		to := num()
		var m RepMsg
		switch tag := d.Byte(); tag {
		case 1:
			m = RepMsg{Kind: "DATA", Dst: to, MID: mid()}
			m.Payload = int(d.Int())
		case 2:
			m = RepMsg{Kind: "COMMIT", Dst: to, MID: mid()}
		default:
			d.Fail("message tag %d", tag)
		}
		m.Src = self
		n.Outbox = append(n.Outbox, m)
	}
	n.Armed = d.Bool()
	delivered, outputs = num(), num()
	n.SentData, n.SentCommit = num(), num()
	if err := d.Finish(); err != nil {
		return n, 0, 0, err
	}
	return n, delivered, outputs, nil
}

// fromReplicaSpec reads a state of an ITF trace of replica.qnt.
func fromReplicaSpec(st map[string]any) (s RepState, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("spec state of an unexpected shape: %v", r)
		}
	}()
	nodes := intKeyed(st["node"])
	for r := range len(nodes) {
		s.Nodes = append(s.Nodes, repNodeSpec(nodes[r].(map[string]any)))
	}
	s.Crashed = asInts(st["crashed"])
	s.Flight = map[RepMsg]int{}
	for _, kv := range asMap(st["msgs"]) {
		s.Flight[repMsgSpec(kv[0])] = asInt(kv[1])
	}
	return s, nil
}

func repMIDSpec(v any) RepMID {
	r := v.(map[string]any)
	return RepMID{asInt(r["src"]), asInt(r["dst"]), asInt(r["tag"]), asInt(r["time"])}
}

func repMsgSpec(v any) RepMsg {
	r := v.(map[string]any)
	return RepMsg{r["kind"].(string), asInt(r["src"]), asInt(r["dst"]), repMIDSpec(r["mid"]), asInt(r["payload"])}
}

func repEntrySpec(v any) RepEntry {
	r := v.(map[string]any)
	return RepEntry{repMIDSpec(r["mid"]), asInt(r["payload"])}
}

func repNodeSpec(r map[string]any) RepNode {
	chans := func(v any) []RepChan {
		var out []RepChan
		for _, kv := range asMap(v) {
			k := kv[0].([]any)
			out = append(out, RepChan{asInt(k[0]), asInt(k[1]), asInt(kv[1])})
		}
		slices.SortFunc(out, func(a, b RepChan) int { return cmp.Or(cmp.Compare(a.Peer, b.Peer), cmp.Compare(a.Tag, b.Tag)) })
		return out
	}
	mids := func(v any) []RepMID {
		var out []RepMID
		for _, e := range v.([]any) {
			out = append(out, repMIDSpec(e))
		}
		slices.SortFunc(out, RepMID.compare)
		return out
	}
	list := func(v any) []RepEntry {
		var out []RepEntry
		for _, e := range v.([]any) {
			out = append(out, repEntrySpec(e))
		}
		return out
	}
	n := RepNode{
		Started: r["started"].(bool), PC: asInt(r["pc"]), Acc: asInt(r["acc"]), Tick: asInt(r["tick"]),
		SendSeq: chans(r["sendSeq"]), RecvSeq: chans(r["recvSeq"]), Dead: asInts(r["dead"]),
		Log: mids(r["log"]), History: mids(r["history"]), Queue: list(r["queue"]),
		Armed: r["armed"].(bool), Delivered: list(r["delivered"]),
		SentData: asInt(r["sentData"]), SentCommit: asInt(r["sentCommit"]),
	}
	for _, kv := range asMap(r["backup"]) {
		n.Backup = append(n.Backup, RepEntry{repMIDSpec(kv[0]), asInt(kv[1])})
	}
	slices.SortFunc(n.Backup, func(a, b RepEntry) int { return a.MID.compare(b.MID) })
	for _, m := range r["outbox"].([]any) {
		n.Outbox = append(n.Outbox, repMsgSpec(m))
	}
	for _, v := range r["outputs"].([]any) {
		n.Outputs = append(n.Outputs, asInt(v))
	}
	return n
}
