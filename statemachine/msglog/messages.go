package msglog

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Message tags: above any tag of the event logger's messages, so that a
// decoder tells the two apart by the first byte.
const (
	tagApp byte = 0xF0 + iota
	tagGC
	tagResendFrom
	tagCounters
)

// App is an application message: the sender's 1-based sequence number
// for this destination (ambiguity A: seq_sent[j] after the increment) and
// the payload.
//
// For is 0 for a send; a re-send carries the incarnation whose
// RESEND_FROM it answers, so that a restarted process drops the re-sends
// meant for an incarnation of its own that crashed in turn.
type App struct {
	Seq uint64
	Val uint64
	For uint64
}

// GC is garbage_collection's message (lines 20–22): the sender's stable
// receive counter for the destination (v_recv_stable_i[j]): the
// destination may delete its logged messages to the sender with seq ≤
// Stable (line 27).
type GC struct{ Stable uint64 }

// ResendFrom is the recovering process's request (lines 50–52): it has
// received Recv messages from the destination as of its checkpoint; the
// destination re-sends the ones after. Inc is the requester's incarnation
// (1 after its first restart): a request of an incarnation that crashed
// in turn, still in flight, is stale.
type ResendFrom struct{ Recv, Inc uint64 }

// Counters is COUNTERS (lines 36–41): the survivor has received Recv
// messages from the recovering process and sent it Sent.
type Counters struct{ Recv, Sent, For uint64 }

func (App) Kind() string        { return "APP" }
func (GC) Kind() string         { return "GC" }
func (ResendFrom) Kind() string { return "RESEND_FROM" }
func (Counters) Kind() string   { return "COUNTERS" }

func (m App) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendUint(core.AppendUint(append(b, tagApp), m.Seq), m.Val), m.For)
}
func (m GC) AppendBinary(b []byte) []byte { return core.AppendUint(append(b, tagGC), m.Stable) }
func (m ResendFrom) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendUint(append(b, tagResendFrom), m.Recv), m.Inc)
}
func (m Counters) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendUint(core.AppendUint(append(b, tagCounters), m.Recv), m.Sent), m.For)
}

func (m App) String() string { return fmt.Sprintf("APP(seq=%d, v=%d)", m.Seq, m.Val) }
func (m GC) String() string  { return fmt.Sprintf("GC(stable=%d)", m.Stable) }
func (m ResendFrom) String() string {
	return fmt.Sprintf("RESEND_FROM(recv=%d, inc=%d)", m.Recv, m.Inc)
}
func (m Counters) String() string { return fmt.Sprintf("COUNTERS(recv=%d, sent=%d)", m.Recv, m.Sent) }

// IsProtocolMessage reports whether b's first byte is one of this
// package's message tags (otherwise it is the event logger's).
func IsProtocolMessage(b []byte) bool { return len(b) > 0 && b[0] >= tagApp && b[0] <= tagCounters }

// DecodeMessage reads a message written by AppendBinary; only the
// canonical encoding is accepted (no redundant varint bytes). Errors wrap
// core.ErrMalformed; it never panics.
func DecodeMessage(b []byte) (core.Message, error) {
	d := core.NewDecoder(b)
	var m core.Message
	switch t := d.Byte(); t {
	case tagApp:
		m = App{Seq: d.Uint(), Val: d.Uint(), For: d.Uint()}
	case tagGC:
		m = GC{Stable: d.Uint()}
	case tagResendFrom:
		m = ResendFrom{Recv: d.Uint(), Inc: d.Uint()}
	case tagCounters:
		m = Counters{Recv: d.Uint(), Sent: d.Uint(), For: d.Uint()}
	default:
		d.Fail("message tag %d", t)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(m.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: %x is not the canonical encoding of %v", core.ErrMalformed, b, m)
	}
	return m, nil
}

// EventKind is what an application event recorded in the history is.
type EventKind uint8

// The kinds start at 16 so that a history value's first byte tells an
// Event from the event logger's results (whose operations are 1 … 4): the
// model's value decoder reads both (IsEvent).
const (
	EvSend   EventKind = iota + 16 // a send (transmitted, suppressed or held)
	EvRecv                         // a delivery
	EvProbe                        // a successful Iprobe
	EvOutput                       // an output
)

// Event is an application event, delivered to the history
// (core.Deliver) with the index of its program operation as instance: a
// re-execution after a recovery delivers the same instance again, and
// recovery is faithful when it delivers the same Event.
type Event struct {
	Kind EventKind
	Peer core.Rank // send: destination; recv, probe: source
	Seq  uint64    // send, recv: the message's sequence number
	Val  uint64    // send, recv: payload; probe: repetitions; output: the state
	// Dets is, for a send, the number of determinants the process had
	// generated when it sent (saved or not): what the send may depend on.
	Dets uint64
}

// Same reports whether e and o are the same application event (Dets,
// which counts determinants across incarnations differently, aside).
func (e Event) Same(o Event) bool {
	return e.Kind == o.Kind && e.Peer == o.Peer && e.Seq == o.Seq && e.Val == o.Val
}

func (e Event) AppendBinary(b []byte) []byte {
	b = core.AppendInt(append(b, byte(e.Kind)), int64(e.Peer))
	return core.AppendUint(core.AppendUint(core.AppendUint(b, e.Seq), e.Val), e.Dets)
}

func (e Event) String() string {
	switch e.Kind {
	case EvSend:
		return fmt.Sprintf("send(to=%v, seq=%d, v=%d, dets=%d)", e.Peer, e.Seq, e.Val, e.Dets)
	case EvRecv:
		return fmt.Sprintf("recv(from=%v, seq=%d, v=%d)", e.Peer, e.Seq, e.Val)
	case EvProbe:
		return fmt.Sprintf("probe(from=%v, reps=%d)", e.Peer, e.Val)
	case EvOutput:
		return fmt.Sprintf("output(%d)", e.Val)
	}
	return fmt.Sprintf("event%d", e.Kind)
}

// Start is the call that starts a process's program.
type Start struct{}

func (Start) AppendBinary(b []byte) []byte { return append(b, 's') }
func (Start) String() string               { return "start" }
