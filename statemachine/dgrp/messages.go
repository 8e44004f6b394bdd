package dgrp

import (
	"fmt"
	"math"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Event is one entry of an EVENTS message: process K tested
// non-recommended, its event counter now C (odd).
type Event struct {
	K core.Rank
	C uint32
}

// Events is EVENTS(list), the end-of-round broadcast (§4.1.2: "Um
// testador aguarda até que todos os seus testes sejam executados em uma
// rodada para então informar aos demais, por meio de uma única mensagem
// de difusão confiável, os processos que testou como não-recomendados"),
// for test round R. It is sent even with an empty list: it also marks the
// tester's end of round R for the barrier. Syndrome is the sender's event
// counters, merged by maximum (the syndrome exchange, §4.1.1: "O processo
// i pode obter a síndrome a partir de outros processos").
type Events struct {
	R        uint32
	List     []Event
	Syndrome []uint32
}

// Ack acknowledges EVENTS of round R: the reliable broadcast over lossy
// channels retransmits EVENTS to whoever has not acknowledged it.
type Ack struct{ R uint32 }

// Readmit is READMIT_REQ(k): a member that observed ζ consecutive
// recommended tests of K asks the leader for its re-admission; C is K's
// event counter (odd) in the requester's view.
type Readmit struct {
	K core.Rank
	C uint32
}

// Decide is DECIDE(k) sent by the leader without consensus: only the
// mutant MutantReadmitWithoutConsensus sends it.
type Decide struct {
	K core.Rank
	C uint32
}

// Wrap carries a message of the embedded consensus machine.
type Wrap struct{ M core.Message }

func (Events) Kind() string  { return "EVENTS" }
func (Ack) Kind() string     { return "ACK" }
func (Readmit) Kind() string { return "READMIT_REQ" }
func (Decide) Kind() string  { return "DECIDE" }
func (w Wrap) Kind() string  { return w.M.Kind() }

// Message tags of the canonical encoding.
const (
	tagEvents byte = iota + 1
	tagAck
	tagReadmit
	tagDecide
	tagWrap
)

func (m Events) AppendBinary(b []byte) []byte {
	b = core.AppendUint(append(b, tagEvents), uint64(m.R))
	b = core.AppendUint(b, uint64(len(m.List)))
	for _, e := range m.List {
		b = core.AppendUint(core.AppendUint(b, uint64(e.K)), uint64(e.C))
	}
	return appendCounters(b, m.Syndrome)
}
func (m Ack) AppendBinary(b []byte) []byte { return core.AppendUint(append(b, tagAck), uint64(m.R)) }
func (m Readmit) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendUint(append(b, tagReadmit), uint64(m.K)), uint64(m.C))
}
func (m Decide) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendUint(append(b, tagDecide), uint64(m.K)), uint64(m.C))
}
func (w Wrap) AppendBinary(b []byte) []byte { return w.M.AppendBinary(append(b, tagWrap)) }

func (m Events) String() string {
	parts := make([]string, len(m.List))
	for i, e := range m.List {
		parts[i] = fmt.Sprintf("%v:%d", e.K, e.C)
	}
	return fmt.Sprintf("EVENTS(r=%d, [%s], syndrome=%s)", m.R, strings.Join(parts, ","), counters(m.Syndrome))
}
func (m Ack) String() string     { return fmt.Sprintf("ACK(r=%d)", m.R) }
func (m Readmit) String() string { return fmt.Sprintf("READMIT_REQ(%v@%d)", m.K, m.C) }
func (m Decide) String() string  { return fmt.Sprintf("DECIDE(%v@%d)", m.K, m.C) }
func (w Wrap) String() string    { return w.M.String() }

// counters formats event counters as "[0,1,0]".
func counters(cs []uint32) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprint(c)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func appendCounters(b []byte, cs []uint32) []byte {
	b = core.AppendUint(b, uint64(len(cs)))
	for _, c := range cs {
		b = core.AppendUint(b, uint64(c))
	}
	return b
}

func decodeCounters(d *core.Decoder, n int) []uint32 {
	k := d.Len(n)
	if k != n && k != 0 && d.Err() == nil {
		d.Fail("%d counters, want %d", k, n)
	}
	out := make([]uint32, k)
	for i := range out {
		out[i] = u32(d)
	}
	return out
}

// Slow is one injected test outcome: in test round Round, this tester's
// test of Peer answers after the recommendation threshold (or wrongly),
// so Peer fails it (§4.1.1: "Um processo testado que passa no teste é
// considerado recomendado"; spec §3.4: pass ⇔ correct answer and response
// time ≤ threshold). Which tests are slow is the environment's choice.
type Slow struct {
	Round uint32
	Peer  core.Rank
}

// Start is the one call that starts a node: its test outcomes for the run
// (the tests it measures over the threshold; every other test of a
// process that answers passes).
type Start struct{ Slow []Slow }

func (s Start) AppendBinary(b []byte) []byte {
	b = core.AppendUint(append(b, 1), uint64(len(s.Slow)))
	for _, x := range s.Slow {
		b = core.AppendUint(core.AppendUint(b, uint64(x.Round)), uint64(x.Peer))
	}
	return b
}

func (s Start) String() string {
	parts := make([]string, len(s.Slow))
	for i, x := range s.Slow {
		parts[i] = fmt.Sprintf("r%d:%v", x.Round, x.Peer)
	}
	return "start(slow=[" + strings.Join(parts, ",") + "])"
}

// u32 reads a uvarint that must fit a uint32 (a round or a counter): a
// larger one is malformed, since it would not re-encode to the same bytes.
func u32(d *core.Decoder) uint32 {
	x := d.Uint()
	if x > math.MaxUint32 {
		d.Fail("%d does not fit 32 bits", x)
		return 0
	}
	return uint32(x)
}
