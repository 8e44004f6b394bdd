package netnode

import (
	"bytes"
	"encoding/json"

	"github.com/ftkernel/ftkernel/core"
)

// Record is one line of a node's log: one Step. Byte fields are canonical
// encodings (base64 in JSON); Text fields are for people only.
type Record struct {
	Seq   uint64 `json:"seq"` // 1, 2, … in step order (the header line is 0)
	Clock uint64 `json:"lc"`  // Lamport clock of the step
	Time  int64  `json:"t"`   // wall clock, Unix nanoseconds, when the step was taken
	// Tick is the tick of the step under Node.RunTicks (absent under Run).
	Tick    *uint64        `json:"tick,omitempty"`
	Event   EventRecord    `json:"ev"`
	Effects []EffectRecord `json:"eff"`
	// Err is Step's error: the machine refused the event and did not
	// change (no effects).
	Err string `json:"err,omitempty"`
}

// EventRecord is a logged core.Event.
type EventRecord struct {
	Kind  string `json:"kind"` // receive, call, suspect, timer, restart, recovered
	Peer  int32  `json:"peer"` // receive: the sender; suspect, recovered: the peer; else -1
	Msg   []byte `json:"msg,omitempty"`
	Input []byte `json:"in,omitempty"`
	Timer uint64 `json:"timer,omitempty"`
	Text  string `json:"text"`
}

// EffectRecord is a logged core.Effect.
type EffectRecord struct {
	Kind     string `json:"kind"` // send, decide, return, deliver, suspect, set-timer
	To       int32  `json:"to"`   // send: the receiver; suspect: the peer; else -1
	Msg      []byte `json:"msg,omitempty"`
	Instance uint64 `json:"a,omitempty"`
	Value    []byte `json:"v,omitempty"`
	Timer    uint64 `json:"timer,omitempty"`
	Delay    uint64 `json:"delay,omitempty"`
	// Inc, for a send to a peer, is the peer's incarnation the send went
	// to (its process's restarts, as the node knew when it logged the
	// step): the k-th message a peer's incarnation i receives from this
	// node is the k-th send logged to it with Inc i.
	Inc  uint64 `json:"inc,omitempty"`
	Text string `json:"text"`
}

// Header is the first line of a node's log, {"header": …}.
type Header struct {
	Rank core.Rank `json:"rank"`
	N    int       `json:"n"`
	// Incarnation is the process's (0, then one more at each restart).
	Incarnation uint64          `json:"incarnation,omitempty"`
	TimeUnit    int64           `json:"time_unit_ns"`
	Start       int64           `json:"start"` // Unix nanoseconds when the log was opened
	Meta        json.RawMessage `json:"meta,omitempty"`
}

var eventKinds = map[core.EventKind]string{
	core.EvReceive: "receive", core.EvCall: "call", core.EvSuspect: "suspect",
	core.EvTimer: "timer", core.EvRestart: "restart", core.EvRecovered: "recovered",
}

var effectKinds = map[core.EffectKind]string{
	core.EffSend: "send", core.EffDecide: "decide", core.EffReturn: "return",
	core.EffDeliver: "deliver", core.EffSuspect: "suspect", core.EffSetTimer: "set-timer",
}

// EncodeEvent is ev as a log record.
func EncodeEvent(ev core.Event) EventRecord {
	r := EventRecord{Kind: eventKinds[ev.Kind], Peer: int32(core.NoRank), Text: ev.String()}
	switch ev.Kind {
	case core.EvReceive:
		r.Peer = int32(ev.From)
		r.Msg = ev.Msg.AppendBinary(nil)
	case core.EvCall:
		r.Input = ev.Input.AppendBinary([]byte{})
	case core.EvSuspect, core.EvRecovered:
		r.Peer = int32(ev.Peer)
	case core.EvTimer:
		r.Timer = ev.Timer
	}
	return r
}

// EncodeEffect is e as a log record.
func EncodeEffect(e core.Effect) EffectRecord {
	r := EffectRecord{Kind: effectKinds[e.Kind], To: int32(core.NoRank), Text: e.String()}
	switch e.Kind {
	case core.EffSend:
		r.To = int32(e.To)
		r.Msg = e.Msg.AppendBinary(nil)
	case core.EffDecide, core.EffReturn, core.EffDeliver:
		r.Instance = e.Instance
		if e.Value != nil {
			r.Value = e.Value.AppendBinary([]byte{})
		}
	case core.EffSuspect:
		r.To = int32(e.Peer)
	case core.EffSetTimer:
		r.Timer, r.Delay = e.Timer, e.Delay
	}
	return r
}

// SameEffect reports whether two effect records are the same effect: equal
// kinds, ranks, numbers and encodings (the texts are not compared).
func SameEffect(a, b EffectRecord) bool {
	return a.Kind == b.Kind && a.To == b.To && bytes.Equal(a.Msg, b.Msg) && a.Instance == b.Instance &&
		bytes.Equal(a.Value, b.Value) && a.Timer == b.Timer && a.Delay == b.Delay
}
