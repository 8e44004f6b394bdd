package replica

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// Host is one host of the P2P-MPI stack (Genaud and Rattanapoka, §3–§5): the replica
// P_i^k of the MPI process it runs (statemachine/replica) and its gossip
// failure-detector module (statemachine/gossipfd), composed as one
// core.Machine. The composition is ours, not the paper's: the paper's
// replicas learn failures from the detector ("the notification of the local
// MPI process", §3.2 step 11), and this is that wire.
//
// # Mapping
//
// Host h is environment rank h, replica rank h of the replica layout and
// host h of the detector: one replica per host, so the detector's n is the
// total number of replicas and gossip runs over every host.
//
// # Routing
//
//   - Messages: each part's messages travel wrapped in a Wire whose first
//     byte names the layer (LayerFD, LayerApp), so the two parts' encodings
//     (both start with small tags) can never coincide; a received Wire goes
//     to the part its layer names.
//   - Timers: the detector's timer id t is host timer 2t, the replica's is
//     2t+1 (even ids detector, odd ids replica), so the id spaces are
//     disjoint whatever ids the parts use.
//   - Calls: fd.Start starts the detector, sm.Start the replica.
//   - Declarations: every EffSuspect(x) the detector emits (a declaration,
//     after the ping phase if any) is passed on as an effect (observed) and
//     stepped into the replica, in the same step, as core.Suspect(x).
//   - The environment's own detector must be off (env.DetectorNone): an
//     EvSuspect is an error.
//
// Effects come out in the order the parts produce them, the detector's
// first, then those of the replica steps it caused.
type Host struct {
	rep *sm.Node
	det *fd.Node
}

var _ core.Machine = (*Host)(nil)

// Layer names the part a Wire message belongs to (its first byte).
type Layer uint8

// Layers.
const (
	LayerFD  Layer = 1 // the gossip detector's GOSSIP, PING, PONG
	LayerApp Layer = 2 // the replica's DATA, COMMIT
)

// Wire is a message between hosts: the layer and the part's message.
type Wire struct {
	Layer Layer
	Msg   core.Message
}

// Kind is the inner message's kind ("GOSSIP", "DATA", …).
func (w Wire) Kind() string { return w.Msg.Kind() }

// AppendBinary appends the layer byte, then the inner message's encoding.
func (w Wire) AppendBinary(b []byte) []byte { return w.Msg.AppendBinary(append(b, byte(w.Layer))) }

// String is the inner message's.
func (w Wire) String() string { return fmt.Sprint(w.Msg) }

// DecodeWire reads a Wire written by AppendBinary for a stack of procs
// logical processes on n hosts. An unknown layer or a malformed inner
// message gives an error wrapping core.ErrMalformed.
func DecodeWire(b []byte, procs, n int) (core.Message, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: empty stack message", core.ErrMalformed)
	}
	var m core.Message
	var err error
	switch Layer(b[0]) {
	case LayerFD:
		m, err = fd.DecodeMessage(b[1:], n)
	case LayerApp:
		m, err = sm.DecodeMessage(b[1:], procs)
	default:
		return nil, fmt.Errorf("%w: unknown stack layer %d", core.ErrMalformed, b[0])
	}
	if err != nil {
		return nil, err
	}
	return Wire{Layer: Layer(b[0]), Msg: m}, nil
}

// NewHost composes a replica and a detector module of the same rank.
// Errors: a nil part or ranks that differ.
func NewHost(rep *sm.Node, det *fd.Node) (*Host, error) {
	if rep == nil || det == nil {
		return nil, fmt.Errorf("replica: host needs both a replica and a detector module")
	}
	if rep.Rank() != det.Self() {
		return nil, fmt.Errorf("replica: host of replica %v and detector module %v", rep.Rank(), det.Self())
	}
	return &Host{rep: rep, det: det}, nil
}

// Replica is the host's replica (read-only: do not step it).
func (h *Host) Replica() *sm.Node { return h.rep }

// Detector is the host's detector module (read-only: do not step it).
func (h *Host) Detector() *fd.Node { return h.det }

// Step routes ev to its part (see Host) and translates the effects. An
// error from a part leaves the host unchanged: the parts step on copies,
// kept only when every step succeeds.
func (h *Host) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	self := h.rep.Rank()
	switch ev.Kind {
	case core.EvCall:
		switch ev.Input.(type) {
		case fd.Start:
			return h.stepDetector(ev, out)
		case sm.Start:
			return h.stepReplica(ev, out)
		}
		return out, fmt.Errorf("host %v: unknown call %v", self, ev.Input)
	case core.EvReceive:
		w, ok := ev.Msg.(Wire)
		if !ok {
			return out, fmt.Errorf("host %v: message %v is not a stack message", self, ev.Msg)
		}
		inner := core.Receive(ev.From, w.Msg)
		switch w.Layer {
		case LayerFD:
			return h.stepDetector(inner, out)
		case LayerApp:
			return h.stepReplica(inner, out)
		}
		return out, fmt.Errorf("host %v: message of unknown layer %d", self, w.Layer)
	case core.EvTimer:
		if ev.Timer%2 == 0 {
			return h.stepDetector(core.Timer(ev.Timer/2), out)
		}
		return h.stepReplica(core.Timer(ev.Timer/2), out)
	case core.EvSuspect:
		return out, fmt.Errorf("host %v: EvSuspect: the stack learns failures from its gossip detector (run it with env.DetectorNone)", self)
	}
	return out, fmt.Errorf("host %v: unknown event kind %d", self, ev.Kind)
}

// stepDetector steps the detector with ev, then the replica with every
// declaration it made.
func (h *Host) stepDetector(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	det := h.det.Clone().(*fd.Node)
	effs, err := det.Step(ev, nil)
	if err != nil {
		return out, err
	}
	rep := h.rep
	var declared []core.Rank
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			e.Msg = Wire{Layer: LayerFD, Msg: e.Msg}
		case core.EffSetTimer:
			e.Timer *= 2
		case core.EffSuspect:
			declared = append(declared, e.Peer)
		}
		out = append(out, e)
	}
	if len(declared) > 0 {
		rep = rep.Clone().(*sm.Node)
		for _, x := range declared {
			if out, err = stepPart(rep, core.Suspect(x), out); err != nil {
				return out, err
			}
		}
	}
	h.det, h.rep = det, rep
	return out, nil
}

// stepReplica steps the replica with ev.
func (h *Host) stepReplica(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	rep := h.rep.Clone().(*sm.Node)
	out, err := stepPart(rep, ev, out)
	if err != nil {
		return out, err
	}
	h.rep = rep
	return out, nil
}

// stepPart steps the replica rep and translates its effects (wrapped
// messages, odd timer ids).
func stepPart(rep *sm.Node, ev core.Event, out []core.Effect) ([]core.Effect, error) {
	effs, err := rep.Step(ev, nil)
	if err != nil {
		return out, err
	}
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			e.Msg = Wire{Layer: LayerApp, Msg: e.Msg}
		case core.EffSetTimer:
			e.Timer = 2*e.Timer + 1
		}
		out = append(out, e)
	}
	return out, nil
}

// Clone is a deep copy (each part's Clone).
func (h *Host) Clone() core.Machine {
	return &Host{rep: h.rep.Clone().(*sm.Node), det: h.det.Clone().(*fd.Node)}
}

// AppendBinary appends the replica's encoding and then the detector's,
// each length-prefixed (core.AppendBytes), so the boundary is explicit.
func (h *Host) AppendBinary(b []byte) []byte {
	b = core.AppendBytes(b, h.rep.AppendBinary(nil))
	return core.AppendBytes(b, h.det.AppendBinary(nil))
}

// String is the two parts', e.g. "[p1=P1^0 pc=3 … | p1 g=2 hb=[…] …]".
func (h *Host) String() string { return fmt.Sprintf("[%v | %v]", h.rep, h.det) }

// DecodeHost reads host self written by AppendBinary, given the replica
// and detector configurations. Malformed bytes in either part, trailing
// bytes or a non-canonical encoding give an error wrapping
// core.ErrMalformed; a bad configuration or rank gives the parts' errors.
func DecodeHost(b []byte, self core.Rank, rc sm.Config, dc *fd.Config) (*Host, error) {
	d := core.NewDecoder(b)
	rb := d.Bytes(len(b))
	db := d.Bytes(len(b))
	if err := d.Finish(); err != nil {
		return nil, err
	}
	rep, err := sm.DecodeNode(rb, self, rc)
	if err != nil {
		return nil, err
	}
	det, err := fd.DecodeNode(db, self, dc)
	if err != nil {
		return nil, err
	}
	h := &Host{rep: rep, det: det}
	if !bytes.Equal(h.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical host encoding", core.ErrMalformed)
	}
	return h, nil
}
