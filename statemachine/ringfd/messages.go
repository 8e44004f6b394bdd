package ringfd

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// Message tags: the first byte of a message's encoding.
const (
	tagHB        = 1
	tagHBRequest = 2
	tagFault     = 3
)

// HB is a heartbeat m_Seq, sent every δ by a daemon to its observer (§4.5
// ¶2: "a daemon emits heartbeats m_1, m_2, ... at time τ_1, τ_2, ... to its
// observer o"). Seq counts from 1 and is monotone per emitter.
type HB struct {
	Seq uint64
}

// HBRequest asks its receiver to emit heartbeats to the sender: the mending
// request of §4.5 ¶3 ("sends a request to d-1 to initiate heartbeat
// emission").
type HBRequest struct{}

// Fault is the paper's msg of Algorithm 1: a set of failed daemon and
// process ranks, sent daemon → daemon over the BMG and daemon → hosted
// process over the star. Receivers may keep IDs: it must not be changed
// once the message is sent (the machines never change a set in place).
type Fault struct {
	IDs core.RankSet
}

// Kind is "HB".
func (HB) Kind() string { return "HB" }

// Kind is "HBREQUEST".
func (HBRequest) Kind() string { return "HBREQUEST" }

// Kind is "FAULT".
func (Fault) Kind() string { return "FAULT" }

// AppendBinary appends tag 1, then Seq.
func (m HB) AppendBinary(b []byte) []byte { return core.AppendUint(append(b, tagHB), m.Seq) }

// AppendBinary appends tag 2.
func (HBRequest) AppendBinary(b []byte) []byte { return append(b, tagHBRequest) }

// AppendBinary appends tag 3, then the set of ranks.
func (m Fault) AppendBinary(b []byte) []byte { return m.IDs.AppendBinary(append(b, tagFault)) }

// String formats the message, e.g. "HB(seq=3)".
func (m HB) String() string { return fmt.Sprintf("HB(seq=%d)", m.Seq) }

// String is "HBREQUEST".
func (HBRequest) String() string { return "HBREQUEST" }

// String formats the message, e.g. "FAULT{p3,p11}".
func (m Fault) String() string { return "FAULT" + m.IDs.String() }

// DecodeMessage reads a message written by AppendBinary for a job of ranks
// ranks (Config.Ranks). Malformed or non-canonical bytes, a rank out of
// range and an empty Fault give an error wrapping core.ErrMalformed.
func DecodeMessage(b []byte, ranks int) (core.Message, error) {
	d := core.NewDecoder(b)
	var m core.Message
	switch tag := d.Byte(); tag {
	case tagHB:
		seq := d.Uint()
		if seq == 0 {
			d.Fail("heartbeat sequence number 0")
		}
		m = HB{Seq: seq}
	case tagHBRequest:
		m = HBRequest{}
	case tagFault:
		ids := core.DecodeRankSet(d, ranks)
		if d.Err() == nil && ids.Empty() {
			d.Fail("empty FAULT")
		}
		m = Fault{IDs: ids}
	default:
		d.Fail("unknown message tag %d", tag)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(m.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical message encoding", core.ErrMalformed)
	}
	return m, nil
}

// Start is the call that starts a daemon at time 0 (a core.Input): it arms
// the heartbeat and observation timers.
type Start struct{}

// AppendBinary appends nothing: Start has no field.
func (Start) AppendBinary(b []byte) []byte { return b }

// String is "Start".
func (Start) String() string { return "Start" }
