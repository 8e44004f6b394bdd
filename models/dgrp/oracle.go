package dgrp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// Oracle is a smaller model of the re-admission consensus, the abstraction
// of tla/dgrp.qnt: a proposal goes to p0 (the sequencer) as SUBMIT(data);
// p0 numbers proposals in arrival order and sends DECISION(i, data) to
// every process, itself included; each process applies the decisions in
// instance order (a learner's log, as statemachine/paxos delivers it). So
// every proposal is decided once, the processes agree on one log, and each
// learns a prefix of it at its own pace: the decisions Paxos can make and
// deliver to the DGRP when no process crashes (models/dgrp has no crash; a
// slow process still takes part in the consensus). `--consensus oracle`
// checks the DGRP over it; TestOracleGuard compares it with Paxos.
type Oracle struct{}

var _ dg.Consensus = Oracle{}

// OracleNode is one process's part of Oracle.
type OracleNode struct {
	self core.Rank
	n    int        // the group's size
	seq  uint64     // p0: the next instance to assign
	log  []string   // the decisions applied, in instance order
	buf  []Decision // decisions received ahead of their turn, by instance
}

// Submit is a proposal on its way to the sequencer.
type Submit struct{ Data string }

// Decision is DECISION(i, data): instance Inst decides Data.
type Decision struct {
	Inst uint64
	Data string
}

type oracleValue string

type oraclePropose string

// Encoding tags of Oracle's messages.
const (
	tagSubmit byte = iota + 1
	tagDecision
)

func (Submit) Kind() string   { return "SUBMIT" }
func (Decision) Kind() string { return "DECISION" }
func (m Submit) AppendBinary(b []byte) []byte {
	return core.AppendString(append(b, tagSubmit), m.Data)
}
func (m Decision) AppendBinary(b []byte) []byte {
	return core.AppendString(core.AppendUint(append(b, tagDecision), m.Inst), m.Data)
}
func (m Submit) String() string   { return fmt.Sprintf("SUBMIT(%s)", m.Data) }
func (m Decision) String() string { return fmt.Sprintf("DECISION(%d, %s)", m.Inst, m.Data) }

func (v oracleValue) AppendBinary(b []byte) []byte   { return core.AppendString(b, string(v)) }
func (v oracleValue) String() string                 { return string(v) }
func (p oraclePropose) AppendBinary(b []byte) []byte { return core.AppendString(b, string(p)) }
func (p oraclePropose) String() string               { return "propose " + string(p) }

func (Oracle) New(n int, r core.Rank) (core.Machine, error) { return &OracleNode{self: r, n: n}, nil }
func (Oracle) Propose(data string) core.Input               { return oraclePropose(data) }
func (Oracle) Timer() uint64                                { return 1 }

func (Oracle) Decided(v core.Value) (string, bool) {
	s, ok := v.(oracleValue)
	return string(s), ok
}

func (Oracle) Log(m core.Machine) []string { return slices.Clone(m.(*OracleNode).log) }

// DecodeNode reads a node written by OracleNode.AppendBinary.
func (Oracle) DecodeNode(size int, r core.Rank, b []byte) (core.Machine, error) {
	d := core.NewDecoder(b)
	n := &OracleNode{self: r, n: size, seq: d.Uint()}
	for range d.Len(1 << 20) {
		n.log = append(n.log, d.String(1<<10))
	}
	for range d.Len(1 << 20) {
		n.buf = append(n.buf, Decision{Inst: d.Uint(), Data: d.String(1 << 10)})
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return n, nil
}

// DecodeMessage reads a Submit or a Decision.
func (Oracle) DecodeMessage(_ int, b []byte) (core.Message, error) {
	d := core.NewDecoder(b)
	var m core.Message
	switch t := d.Byte(); t {
	case tagSubmit:
		m = Submit{Data: d.String(1 << 10)}
	case tagDecision:
		m = Decision{Inst: d.Uint(), Data: d.String(1 << 10)}
	default:
		d.Fail("oracle tag %d", t)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return m, nil
}

// Step: Propose sends SUBMIT to p0; at p0 a SUBMIT takes the next instance
// and goes to everyone as DECISION; a DECISION is applied when its turn
// comes (with the ones it unblocks), as core.Decide.
func (n *OracleNode) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		p, ok := ev.Input.(oraclePropose)
		if !ok {
			return out, fmt.Errorf("oracle: call %v", ev.Input)
		}
		return append(out, core.Send(0, Submit{Data: string(p)})), nil
	case core.EvReceive:
		switch m := ev.Msg.(type) {
		case Submit:
			if n.self != 0 {
				return out, fmt.Errorf("oracle: %v is not the sequencer", n.self)
			}
			n.seq++
			for r := range core.Rank(n.n) {
				out = append(out, core.Send(r, Decision{Inst: n.seq - 1, Data: m.Data}))
			}
			return out, nil
		case Decision:
			if m.Inst < uint64(len(n.log)) || slices.ContainsFunc(n.buf, func(x Decision) bool { return x.Inst == m.Inst }) {
				return out, fmt.Errorf("oracle: instance %d twice", m.Inst)
			}
			k, _ := slices.BinarySearchFunc(n.buf, m.Inst, func(x Decision, i uint64) int { return int(x.Inst) - int(i) })
			n.buf = slices.Insert(n.buf, k, m)
			for len(n.buf) > 0 && n.buf[0].Inst == uint64(len(n.log)) {
				n.log = append(n.log, n.buf[0].Data)
				out = append(out, core.Decide(n.buf[0].Inst, oracleValue(n.buf[0].Data)))
				n.buf = n.buf[1:]
			}
			return out, nil
		}
	}
	return out, fmt.Errorf("oracle: event %v", ev)
}

func (n *OracleNode) Clone() core.Machine {
	c := *n
	c.log, c.buf = slices.Clone(n.log), slices.Clone(n.buf)
	return &c
}

func (n *OracleNode) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, n.seq)
	b = core.AppendUint(b, uint64(len(n.log)))
	for _, s := range n.log {
		b = core.AppendString(b, s)
	}
	b = core.AppendUint(b, uint64(len(n.buf)))
	for _, x := range n.buf {
		b = core.AppendString(core.AppendUint(b, x.Inst), x.Data)
	}
	return b
}

func (n *OracleNode) String() string {
	return fmt.Sprintf("oracle seq=%d log=[%s] ahead=%d", n.seq, strings.Join(n.log, ","), len(n.buf))
}
