package msglog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Logged is one message of the sender-based volatile log (msg_sent,
// §5.1.1: "uma cópia da mensagem é mantida na memória volátil de i"),
// keyed by destination and 1-based sequence number (ambiguities A, E13).
type Logged struct {
	To  core.Rank
	Seq uint64
	Val uint64
}

// Det is a determinant (ambiguity E): {seq, type, source, repetitions};
// Seq is the id the event logger gave it.
type Det struct {
	Seq  uint64
	Type OpKind // OpRecv (ANY_SOURCE) or OpIprobe
	Src  core.Rank
	Reps uint64
}

func (d Det) encode() string {
	t := "recv"
	if d.Type == OpIprobe {
		t = "iprobe"
	}
	return fmt.Sprintf("%s|%d|%d", t, d.Src, d.Reps)
}

// ParseDet reads a determinant's bytes as the event logger keeps them
// ("recv|2|0": type, source, repetitions).
func ParseDet(s string) (Det, error) {
	f := strings.Split(s, "|")
	if len(f) != 3 || (f[0] != "recv" && f[0] != "iprobe") {
		return Det{}, fmt.Errorf("msglog: determinant %q: want type|source|repetitions", s)
	}
	src, err1 := strconv.ParseInt(f[1], 10, 32)
	reps, err2 := strconv.ParseUint(f[2], 10, 64)
	if err1 != nil || err2 != nil || src < 0 {
		return Det{}, fmt.Errorf("msglog: determinant %q: bad source or repetitions", s)
	}
	d := Det{Type: OpRecv, Src: core.Rank(src), Reps: reps}
	if f[0] == "iprobe" {
		d.Type = OpIprobe
	}
	return d, nil
}

// appState is what a checkpoint holds (line 15: "ck ← state ∪ msg_sent[]
// ∪ last_id ∪ v_sent[] ∪ v_recv[]").
type appState struct {
	PC         int
	Acc        uint64
	Deliveries uint64
	ProbeSrc   core.Rank
	SeqSent    []uint64
	SeqRecv    []uint64
	Log        []Logged
	DetID      uint64 // last_id
	// Covered is, in a checkpoint, the number of determinants generated
	// (acknowledged or not) for the events the checkpoint holds: the
	// ones a recovery from it no longer needs.
	Covered uint64
}

func (s appState) clone() appState {
	s.SeqSent, s.SeqRecv, s.Log = slices.Clone(s.SeqSent), slices.Clone(s.SeqRecv), slices.Clone(s.Log)
	return s
}

func (s appState) appendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(s.PC))
	b = core.AppendUint(core.AppendUint(b, s.Acc), s.Deliveries)
	b = core.AppendInt(b, int64(s.ProbeSrc))
	for j := range s.SeqSent {
		b = core.AppendUint(core.AppendUint(b, s.SeqSent[j]), s.SeqRecv[j])
	}
	b = core.AppendUint(b, uint64(len(s.Log)))
	for _, l := range s.Log {
		b = core.AppendUint(core.AppendUint(core.AppendUint(b, uint64(l.To)), l.Seq), l.Val)
	}
	return core.AppendUint(core.AppendUint(b, s.DetID), s.Covered)
}

// inMsg is a message that arrived and is not delivered yet (the MPI
// library's unexpected-message queue), in arrival order.
type inMsg struct {
	From core.Rank
	Seq  uint64
	Val  uint64
}

// logCall is an event-logger call waiting for the logger's client.
type logCall struct {
	Op  OpKind // OpRecv/OpIprobe: save that determinant; OpCheckpoint: remove-up-to; OpOutput: retrieve-since
	Det Det
	ID  uint64
}

// held is a non-deterministic event that waits for its determinant's
// acknowledgement before it completes (synchronous mode).
type held struct {
	Msg  inMsg
	Det  Det
	Done bool // the acknowledgement came
}

// Process is one application process with its message-logging layer (a
// core.Machine and a core.Recoverable).
type Process struct {
	cfg *Config
	me  core.Rank
	// ck is stable storage: the last checkpoint (initially the initial
	// state, the recovery line of a process that never checkpointed).
	ck appState
	// st is the live state; RecvStable the receive counters as of the
	// last checkpoint (line 17, v_recv_stable).
	st         appState
	RecvStable []uint64
	started    bool
	inc        uint64
	inbox      []inMsg
	probeReps  uint64
	pollArmed  bool
	calls      []logCall
	inCall     *logCall
	pendingDet int   // determinants saved and not acknowledged
	unacked    []int // delayed-ack mode: program indices of deliveries whose record waits for the ack
	unackedEv  []Event
	hold       *held
	ckDue      bool
	// recovery
	recovering bool
	detsRead   bool
	dets       []Det
	peerRecv   []uint64
	counters   []bool
	// peerInc[j]: the highest incarnation of j whose RESEND_FROM this
	// process answered.
	peerInc []uint64
	// answered[j]: j's COUNTERS for this incarnation came.
	answered []bool
	// down[j]: j crashed and has not asked for its messages yet
	// (RESEND_FROM): sends to j are logged, not transmitted.
	down []bool
	el   core.Machine
}

var (
	_ core.Machine     = (*Process)(nil)
	_ core.Recoverable = (*Process)(nil)
)

// New returns application process r of cfg in its initial state.
func New(r core.Rank, cfg *Config) (*Process, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := cfg.Program.N()
	if !r.Valid(n) {
		return nil, fmt.Errorf("msglog: rank %d out of range 0 … %d", r, n-1)
	}
	el, err := cfg.Log.Client(r)
	if err != nil {
		return nil, err
	}
	p := &Process{cfg: cfg, me: r, el: el}
	p.st = appState{ProbeSrc: core.NoRank, SeqSent: make([]uint64, n), SeqRecv: make([]uint64, n)}
	p.ck = p.st.clone()
	p.RecvStable = make([]uint64, n)
	p.peerRecv = make([]uint64, n)
	p.counters = make([]bool, n)
	p.down = make([]bool, n)
	p.peerInc = make([]uint64, n)
	p.answered = make([]bool, n)
	return p, nil
}

// Accessors for properties and reports.

// Rank is the process's rank; Incarnation its restarts so far.
func (p *Process) Rank() core.Rank            { return p.me }
func (p *Process) Incarnation() uint64        { return p.inc }
func (p *Process) Done() bool                 { return p.st.PC >= len(p.cfg.Program.Procs[p.me]) }
func (p *Process) PendingDets() int           { return p.pendingDet }
func (p *Process) Recovering() bool           { return p.recovering }
func (p *Process) SeqSent(j core.Rank) uint64 { return p.st.SeqSent[j] }
func (p *Process) SeqRecv(j core.Rank) uint64 { return p.st.SeqRecv[j] }
func (p *Process) DetID() uint64              { return p.st.DetID }

// PC is the index of the program operation the process runs next.
func (p *Process) PC() int { return p.st.PC }

// Arrived is how many of j's messages the process has: delivered, or
// arrived and not yet delivered (what its COUNTERS and RESEND_FROM report).
func (p *Process) Arrived(j core.Rank) uint64 { return p.arrived(j) }

// Down reports whether the process holds j crashed and not yet asking for
// its messages (sends to j are logged, not transmitted).
func (p *Process) Down(j core.Rank) bool { return p.down[j] }

// PeerRecv is j's receive count as j's RESEND_FROM or COUNTERS told it,
// and whether one came (a restarted process suppresses its sends up to
// it).
func (p *Process) PeerRecv(j core.Rank) (uint64, bool) { return p.peerRecv[j], p.counters[j] }

// CheckpointPC is the program counter the last checkpoint holds.
func (p *Process) CheckpointPC() int { return p.ck.PC }

// CheckpointRecv is the receive counter for j in the last checkpoint: what
// the process rolls back to.
func (p *Process) CheckpointRecv(j core.Rank) uint64 { return p.ck.SeqRecv[j] }

// CheckpointCovers is the number of determinants generated for the events
// the last checkpoint holds.
func (p *Process) CheckpointCovers() uint64 { return p.ck.Covered }

// CheckpointDetID is last_id in the last checkpoint.
func (p *Process) CheckpointDetID() uint64 { return p.ck.DetID }

// Logged reports whether the copy of message seq to j is in the log.
func (p *Process) Logged(j core.Rank, seq uint64) bool {
	for _, l := range p.st.Log {
		if l.To == j && l.Seq == seq {
			return true
		}
	}
	return false
}

// LogSize is the number of messages in the sender-based log.
func (p *Process) LogSize() int { return len(p.st.Log) }

// Logger is the event logger's client machine embedded in the process.
func (p *Process) Logger() core.Machine { return p.el }

// Clone returns a deep copy.
func (p *Process) Clone() core.Machine {
	c := *p
	c.ck, c.st = p.ck.clone(), p.st.clone()
	c.RecvStable = slices.Clone(p.RecvStable)
	c.inbox = slices.Clone(p.inbox)
	c.calls = slices.Clone(p.calls)
	if p.inCall != nil {
		x := *p.inCall
		c.inCall = &x
	}
	c.unacked, c.unackedEv = slices.Clone(p.unacked), slices.Clone(p.unackedEv)
	if p.hold != nil {
		h := *p.hold
		c.hold = &h
	}
	c.dets = slices.Clone(p.dets)
	c.peerRecv, c.counters, c.down = slices.Clone(p.peerRecv), slices.Clone(p.counters), slices.Clone(p.down)
	c.peerInc, c.answered = slices.Clone(p.peerInc), slices.Clone(p.answered)
	c.el = p.el.Clone()
	return &c
}

// AppendBinary appends the canonical encoding of the state.
func (p *Process) AppendBinary(b []byte) []byte {
	b = p.ck.appendBinary(b)
	b = p.st.appendBinary(b)
	for j := range p.RecvStable {
		b = core.AppendUint(b, p.RecvStable[j])
		b = core.AppendUint(core.AppendUint(b, p.peerRecv[j]), p.peerInc[j])
		b = core.AppendBool(core.AppendBool(core.AppendBool(b, p.counters[j]), p.down[j]), p.answered[j])
	}
	b = core.AppendBool(b, p.started)
	b = core.AppendUint(b, p.inc)
	b = core.AppendUint(b, uint64(len(p.inbox)))
	for _, m := range p.inbox {
		b = core.AppendUint(core.AppendUint(core.AppendUint(b, uint64(m.From)), m.Seq), m.Val)
	}
	b = core.AppendUint(b, p.probeReps)
	b = core.AppendBool(b, p.pollArmed)
	b = core.AppendUint(b, uint64(len(p.calls)))
	for _, c := range p.calls {
		b = appendCall(b, c)
	}
	b = core.AppendBool(b, p.inCall != nil)
	if p.inCall != nil {
		b = appendCall(b, *p.inCall)
	}
	b = core.AppendUint(b, uint64(p.pendingDet))
	b = core.AppendUint(b, uint64(len(p.unacked)))
	for k, i := range p.unacked {
		b = p.unackedEv[k].AppendBinary(core.AppendUint(b, uint64(i)))
	}
	b = core.AppendBool(b, p.hold != nil)
	if p.hold != nil {
		h := p.hold
		b = core.AppendUint(core.AppendUint(core.AppendUint(b, uint64(h.Msg.From)), h.Msg.Seq), h.Msg.Val)
		b = appendDet(b, h.Det)
		b = core.AppendBool(b, h.Done)
	}
	b = core.AppendBool(core.AppendBool(core.AppendBool(b, p.ckDue), p.recovering), p.detsRead)
	b = core.AppendUint(b, uint64(len(p.dets)))
	for _, d := range p.dets {
		b = appendDet(b, d)
	}
	return p.el.AppendBinary(b)
}

func appendDet(b []byte, d Det) []byte {
	b = core.AppendUint(append(b, byte(d.Type)), d.Seq)
	return core.AppendUint(core.AppendUint(b, uint64(d.Src)), d.Reps)
}

func appendCall(b []byte, c logCall) []byte {
	return core.AppendUint(appendDet(append(b, byte(c.Op)), c.Det), c.ID)
}

// String summarises the state.
func (p *Process) String() string {
	return fmt.Sprintf("p%d inc=%d pc=%d acc=%d sent=%s recv=%s stable=%s log=%d det_id=%d ck(pc=%d det_id=%d) pending=%d recovering=%v dets=%d inbox=%d",
		p.me, p.inc, p.st.PC, p.st.Acc, counts(p.st.SeqSent), counts(p.st.SeqRecv), counts(p.RecvStable), len(p.st.Log), p.st.DetID,
		p.ck.PC, p.ck.DetID, p.pendingDet, p.recovering, len(p.dets), len(p.inbox))
}

// Recover is the process as it restarts after a crash (core.Recoverable;
// lines 42–48): the last checkpoint restored (state, msg_sent, last_id,
// v_sent, v_recv), v_recv_stable the checkpoint's v_recv, and the event
// logger's client as it recovers. Everything else is volatile: messages
// that arrived and were not delivered, the calls to the logger in
// progress, the polling loop.
func (p *Process) Recover() core.Machine {
	n := p.cfg.Program.N()
	r := &Process{cfg: p.cfg, me: p.me, inc: p.inc + 1, started: true}
	r.ck = p.ck.clone()
	r.st = p.ck.clone()
	r.RecvStable = slices.Clone(p.ck.SeqRecv)
	r.peerRecv, r.counters, r.down = make([]uint64, n), make([]bool, n), make([]bool, n)
	r.answered = make([]bool, n)
	r.peerInc = slices.Clone(p.peerInc) // stable: a restarted process still knows which requests it answered
	r.el = p.el.(core.Recoverable).Recover()
	return r
}

// counts formats per-peer counters as "[0,3,1]".
func counts(xs []uint64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatUint(x, 10)
	}
	return "[" + strings.Join(s, ",") + "]"
}
