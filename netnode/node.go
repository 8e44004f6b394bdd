package netnode

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/ftkernel/ftkernel/core"
)

// Config is what a Node needs. Rank, Peers, Listener, Machine and Decode
// are required.
type Config struct {
	// Rank is this process, 0 … len(Peers)-1.
	Rank core.Rank
	// Peers[q] is the loopback address ("127.0.0.1:port") rank q listens
	// on; Peers[Rank] is this node's own (not dialled).
	Peers []string
	// Listener accepts the peers' connections; Listen makes one on
	// 127.0.0.1. The node closes it when Run returns.
	Listener net.Listener
	// Machine is the protocol node, stepped only by the Node from now on.
	Machine core.Machine
	// Decode reads a message's canonical encoding (the protocol's
	// decoder, which rejects malformed bytes with an error).
	Decode func([]byte) (core.Message, error)
	// TimeUnit is the real duration of one protocol time unit, the unit
	// of EffSetTimer's Delay (default 1 ms).
	TimeUnit time.Duration
	// Detector reports failed peers (nil: none).
	Detector Detector
	// Trace receives the log: a header line, then one Record per Step
	// (nil: no log). After each line the node calls Flush if Trace has
	// one (a *bufio.Writer), before the step's effects are carried out.
	Trace io.Writer
	// Meta is written in the header line (Header.Meta), e.g. the model
	// and its parameters.
	Meta json.RawMessage
	// Outputs receives every EffDecide, EffReturn, EffDeliver and
	// EffSuspect effect, in order, on the stepping goroutine, after the
	// step's log line (nil: dropped). It must not block for long; it may
	// call Node.Call.
	Outputs func(core.Effect)
	// AfterStep, when set, is called on the stepping goroutine after each
	// step's effects were carried out: the one place where the embedder
	// may read the machine's state (e.g. "has it finished its program?")
	// without racing with Step.
	AfterStep func()
	// Logf reports what went wrong with a connection (nil: log.Printf).
	Logf func(format string, args ...any)
	// MaxFrame bounds a frame's length (default DefaultMaxFrame).
	MaxFrame int

	// Crash-recovery (stable.go, restart.go).

	// StateDir, when set, is the node's stable storage: after each step,
	// before its log line and effects, the step's event is journaled and
	// the machine's Recover() state committed there (see Restore). The
	// machine must be a core.Recoverable.
	StateDir string
	// Incarnation is this process's: 0 at the first start, k after k
	// restarts (Restore's). It is sent in the hello. When above 0, Run
	// steps core.Restart() before any other event, and the node's
	// StateDir must be the one Restore read.
	Incarnation uint64
	// Clock is the Lamport clock to start from (Restore's).
	Clock uint64
	// Restored is the number of journal lines Restore replayed (the
	// journal goes on after them).
	Restored uint64
	// Incarnations[q] is peer q's incarnation as the node starts (nil:
	// all 0); Rejoin updates it. A send's log record names it (Inc).
	Incarnations []uint64
	// Stepped, when set, is called on the stepping goroutine after each
	// step's effects with the step's event, before AfterStep.
	Stepped func(core.Event)
}

// Detector is a failure detector: Run calls suspect(q) when it finds peer q
// dead, until ctx is done. Node calls Run once, on its own goroutine, from
// Node.Run.
type Detector interface {
	Run(ctx context.Context, suspect func(core.Rank))
}

// Perfect is the perfect failure detector of a test harness: the harness,
// which killed a process and saw it die, reports it with Report.
type Perfect struct {
	ch chan core.Rank
}

// NewPerfect returns a Perfect detector.
func NewPerfect() *Perfect { return &Perfect{ch: make(chan core.Rank, 64)} }

// Report tells the node that q is dead. It blocks only when 64 reports
// are waiting for a node that is not running.
func (d *Perfect) Report(q core.Rank) { d.ch <- q }

// Run passes every report to suspect until ctx is done.
func (d *Perfect) Run(ctx context.Context, suspect func(core.Rank)) {
	for {
		select {
		case <-ctx.Done():
			return
		case q := <-d.ch:
			suspect(q)
		}
	}
}

// Listen opens a TCP listener on 127.0.0.1 with a port the system picks.
func Listen() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// Loopback reports whether addr ("host:port") names a loopback IP address
// (127.0.0.0/8 or ::1); host names, even "localhost", are refused.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// Node runs one machine on the network.
type Node struct {
	cfg  Config
	n    int
	logf func(string, ...any)

	mu      sync.Mutex
	inbox   []item
	wake    chan struct{}
	in      map[core.Rank]*reader // accepted, hello received
	conns   map[net.Conn]bool     // every open accepted connection
	helloed chan struct{}         // closed once every peer said hello
	hellos  int                   // peers whose hello came (up to expect)
	expect  int                   // peers to hear from before Connect returns
	out     []*outbox             // per peer (nil for Rank)
	inc     []uint64              // per peer: its incarnation, as known
	closed  bool
	wg      sync.WaitGroup
	stable  *stableStore

	// Owned by the stepping goroutine.
	clock, seq uint64
	suspected  core.RankSet
	timers     map[uint64]uint64 // id → generation armed
	gen        uint64
	effs       []core.Effect
	// Under RunTicks: ticked, the current tick (started once tick 0
	// began), each armed timer's due tick, and the events that wait for a
	// later tick.
	ticked, started bool
	tick            uint64
	due             map[uint64]uint64
	held            []item
}

// item is one event waiting to be stepped.
type item struct {
	ev    core.Event
	clock uint64 // receive: the sender's clock
	tick  uint64 // receive: the sender's tick; marker: the tick that begins
	gen   uint64 // timer: the generation armed
	// marker: tick `tick` begins (RunTicks).
	marker bool
}

// New checks cfg and returns a node; Connect, then Run, start it.
func New(cfg Config) (*Node, error) {
	n := len(cfg.Peers)
	switch {
	case n == 0 || !cfg.Rank.Valid(n):
		return nil, fmt.Errorf("netnode: rank %v of %d peers", cfg.Rank, n)
	case cfg.Listener == nil || cfg.Machine == nil || cfg.Decode == nil:
		return nil, errors.New("netnode: Listener, Machine and Decode are required")
	case !Loopback(cfg.Listener.Addr().String()):
		return nil, fmt.Errorf("netnode: listener %s is not on a loopback address", cfg.Listener.Addr())
	}
	for q, a := range cfg.Peers {
		if core.Rank(q) != cfg.Rank && a != "" && !Loopback(a) {
			return nil, fmt.Errorf("netnode: peer %d at %q is not a loopback IP address", q, a)
		}
	}
	if cfg.TimeUnit <= 0 {
		cfg.TimeUnit = time.Millisecond
	}
	if cfg.MaxFrame <= 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	nd := &Node{cfg: cfg, n: n, logf: cfg.Logf, wake: make(chan struct{}, 1),
		in: map[core.Rank]*reader{}, conns: map[net.Conn]bool{}, helloed: make(chan struct{}),
		out: make([]*outbox, n), inc: make([]uint64, n), timers: map[uint64]uint64{}, clock: cfg.Clock}
	if nd.logf == nil {
		nd.logf = log.Printf
	}
	if cfg.Incarnations != nil {
		if len(cfg.Incarnations) != n {
			return nil, fmt.Errorf("netnode: %d incarnations for %d peers", len(cfg.Incarnations), n)
		}
		copy(nd.inc, cfg.Incarnations)
	}
	for q, a := range cfg.Peers {
		if core.Rank(q) != cfg.Rank && a != "" {
			nd.expect++
		}
	}
	if nd.expect == 0 {
		close(nd.helloed)
	}
	if cfg.StateDir != "" {
		if _, ok := cfg.Machine.(core.Recoverable); !ok {
			return nil, fmt.Errorf("netnode: StateDir: %T is not a core.Recoverable", cfg.Machine)
		}
		var err error
		if cfg.Incarnation == 0 {
			nd.stable, err = openStable(cfg.StateDir)
		} else {
			nd.stable, err = reopenStable(cfg.StateDir, cfg.Restored)
		}
		if err != nil {
			return nil, err
		}
	}
	return nd, nil
}

// Connect accepts the peers' connections and dials every peer, until each
// direction of each pair is connected or ctx is done. A peer whose address
// is "" (a dead process) is neither dialled nor waited for. Messages that arrive
// before Run are kept for it. It starts the accept loop, which goes on
// (closing connections that fail their hello) until Run returns.
func (nd *Node) Connect(ctx context.Context) error {
	nd.wg.Add(1)
	go nd.accept()
	if err := nd.writeHeader(); err != nil {
		return err
	}
	for q := range nd.n {
		if core.Rank(q) == nd.cfg.Rank || nd.cfg.Peers[q] == "" {
			continue
		}
		var d net.Dialer
		var c net.Conn
		var err error
		for {
			c, err = d.DialContext(ctx, "tcp", nd.cfg.Peers[q])
			if err == nil || ctx.Err() != nil {
				break
			}
			select { // the peer may not listen yet
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
		}
		if err != nil {
			return fmt.Errorf("netnode: dial p%d: %w", q, err)
		}
		ob := &outbox{conn: c, wake: make(chan struct{}, 1)}
		ob.queue = AppendFrame(nil, AppendHello(nil, nd.cfg.Rank, nd.n, nd.cfg.Incarnation))
		nd.mu.Lock()
		nd.out[q] = ob
		nd.mu.Unlock()
		nd.wg.Add(1)
		go ob.run(&nd.wg)
		ob.signal()
	}
	select {
	case <-nd.helloed:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("netnode: p%d: waiting for the peers' connections: %w", nd.cfg.Rank, ctx.Err())
	}
}

// Call makes the local call in: the machine steps core.Call(in). It never
// blocks; the call is stepped after the events already waiting.
func (nd *Node) Call(in core.Input) { nd.push(item{ev: core.Call(in)}) }

func (nd *Node) push(it item) {
	nd.mu.Lock()
	nd.inbox = append(nd.inbox, it)
	nd.mu.Unlock()
	select {
	case nd.wake <- struct{}{}:
	default:
	}
}

// Run steps the machine until ctx is done, then closes every connection and
// the listener and returns nil; or it returns the error of writing the log
// (no effect of that step is carried out). Call Connect first. Timers fire
// Delay × TimeUnit after they were armed.
func (nd *Node) Run(ctx context.Context) error { return nd.run(ctx) }

// RunTicks is Run in ticks, the bounded-delay reading of time of the
// checker's environment (checker/env BoundedDelay): tick k is the real
// interval [epoch + k·TimeUnit, epoch + (k+1)·TimeUnit), the same at every
// node of the group (they share the machine's clock), and every Record
// carries the tick of its step.
//
//   - Nothing is stepped before tick 0 begins: calls, messages and
//     suspicions that come earlier wait for it.
//   - A timer armed in tick t with Delay d is due in tick t + max(d, 1)
//     (a Delay of 0 is the next tick, as in checker/env). When a tick
//     begins, its due timers fire first, in id order; then the events that
//     waited are stepped, in the order they came.
//   - A message is stepped only in a tick after the one its sender sent it
//     in (the frame carries the sender's tick): one that arrives earlier
//     waits. A message from one peer never overtakes an earlier one.
//
// A node that falls behind the wall clock steps the ticks it missed in
// order. Whether every message was stepped within the model's delay bound
// is for a validator to check against the logged ticks.
func (nd *Node) RunTicks(ctx context.Context, epoch time.Time) error {
	nd.ticked = true
	nd.due = map[uint64]uint64{}
	nd.wg.Add(1)
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer nd.wg.Done()
		t := time.NewTimer(time.Until(epoch))
		defer t.Stop()
		for k := uint64(0); ; k++ {
			select {
			case <-tctx.Done():
				return
			case <-t.C:
			}
			nd.push(item{marker: true, tick: k})
			t.Reset(time.Until(epoch.Add(time.Duration(k+1) * nd.cfg.TimeUnit)))
		}
	}()
	return nd.run(ctx)
}

// Tick is the tick a node run by RunTicks had reached when RunTicks
// returned (the tick in which it stopped); call it only after.
func (nd *Node) Tick() uint64 { return nd.tick }

func (nd *Node) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer nd.shutdown()
	defer cancel()
	if nd.cfg.Incarnation > 0 && !nd.ticked {
		// core: a restarted node steps Restart before anything else.
		if err := nd.step(item{ev: core.Restart()}); err != nil {
			return err
		}
	}
	if d := nd.cfg.Detector; d != nil {
		nd.wg.Add(1)
		go func() {
			defer nd.wg.Done()
			d.Run(ctx, func(q core.Rank) { nd.push(item{ev: core.Suspect(q)}) })
		}()
	}
	for {
		nd.mu.Lock()
		batch := nd.inbox
		nd.inbox = nil
		nd.mu.Unlock()
		for _, it := range batch {
			if ctx.Err() != nil {
				return nil
			}
			if err := nd.dispatch(it); err != nil {
				return err
			}
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-nd.wake:
		}
	}
}

// dispatch steps it now, or under RunTicks holds it for a later tick; a
// tick marker fires the tick's due timers and steps what waited for it.
func (nd *Node) dispatch(it item) error {
	if !nd.ticked {
		return nd.step(it)
	}
	if !it.marker {
		if !nd.ready(it) {
			nd.held = append(nd.held, it)
			return nil
		}
		return nd.step(it)
	}
	nd.tick, nd.started = it.tick, true
	var ids []uint64
	for id, d := range nd.due {
		if d <= nd.tick {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := nd.step(item{ev: core.Timer(id), gen: nd.timers[id]}); err != nil {
			return err
		}
	}
	held := nd.held
	nd.held = nil
	for _, h := range held {
		if !nd.ready(h) {
			nd.held = append(nd.held, h)
			continue
		}
		if err := nd.step(h); err != nil {
			return err
		}
	}
	return nil
}

// ready reports whether it may be stepped in the current tick: tick 0 has
// begun, a message was sent in an earlier tick, and no earlier message of
// its sender still waits.
func (nd *Node) ready(it item) bool {
	if !nd.started {
		return false
	}
	if it.ev.Kind != core.EvReceive {
		return true
	}
	if it.tick >= nd.tick {
		return false
	}
	return !slices.ContainsFunc(nd.held, func(h item) bool { return h.ev.Kind == core.EvReceive && h.ev.From == it.ev.From })
}

// step steps one event: machine, log line, then effects.
func (nd *Node) step(it item) error {
	ev := it.ev
	switch ev.Kind {
	case core.EvTimer:
		if g, ok := nd.timers[ev.Timer]; !ok || g != it.gen {
			return nil // re-armed since, or already fired
		}
		delete(nd.timers, ev.Timer)
		delete(nd.due, ev.Timer)
	case core.EvSuspect:
		if !ev.Peer.Valid(nd.n) || nd.suspected.Has(ev.Peer) {
			return nil
		}
		nd.suspected.Add(ev.Peer)
		nd.closeOut(ev.Peer)
	case core.EvRecovered:
		// Only a peer reported dead is reported back (core); Rejoin
		// already connected to its new incarnation.
		if !ev.Peer.Valid(nd.n) || !nd.suspected.Has(ev.Peer) {
			return nil
		}
		nd.suspected.Remove(ev.Peer)
	}
	if ev.Kind == core.EvReceive {
		nd.clock = max(nd.clock, it.clock)
	}
	nd.clock++
	nd.seq++
	effs, err := nd.cfg.Machine.Step(ev, nd.effs[:0])
	rec := Record{Seq: nd.seq, Clock: nd.clock, Time: time.Now().UnixNano(), Event: EncodeEvent(ev), Effects: []EffectRecord{}}
	if nd.ticked {
		tick := nd.tick
		rec.Tick = &tick
	}
	if err != nil {
		rec.Err = err.Error()
		effs = effs[:0]
	}
	// Each send's connection, and the incarnation it reaches, taken
	// together: a Rejoin in between cannot make the log name one
	// incarnation and the bytes go to another.
	dest := make([]*outbox, len(effs))
	nd.mu.Lock()
	for i, e := range effs {
		r := EncodeEffect(e)
		if e.Kind == core.EffSend && e.To.Valid(nd.n) && e.To != nd.cfg.Rank {
			dest[i], r.Inc = nd.out[e.To], nd.inc[e.To]
		}
		rec.Effects = append(rec.Effects, r)
	}
	nd.mu.Unlock()
	commit := nd.stable != nil && err == nil
	if commit {
		if err := nd.stable.prepare(ev, nd.cfg.Incarnation, nd.clock, nd.cfg.Machine.(core.Recoverable)); err != nil {
			return err
		}
	}
	if err := nd.writeLine(rec); err != nil {
		return err
	}
	for i, e := range effs {
		switch e.Kind {
		case core.EffSend:
			nd.send(e.To, e.Msg, dest[i])
		case core.EffSetTimer:
			nd.gen++
			g, id := nd.gen, e.Timer
			nd.timers[id] = g
			if nd.ticked {
				nd.due[id] = nd.tick + max(e.Delay, 1)
				continue
			}
			time.AfterFunc(time.Duration(e.Delay)*nd.cfg.TimeUnit, func() { nd.push(item{ev: core.Timer(id), gen: g}) })
		default:
			if nd.cfg.Outputs != nil {
				nd.cfg.Outputs(e)
			}
		}
	}
	if commit { // after the sends were queued: stable.go says why
		if err := nd.stable.publish(); err != nil {
			return err
		}
	}
	nd.effs = effs[:0]
	if nd.cfg.Stepped != nil {
		nd.cfg.Stepped(ev)
	}
	if nd.cfg.AfterStep != nil {
		nd.cfg.AfterStep()
	}
	return nil
}

// send sends m to peer to over ob, the peer's connection when the step
// was logged (nil: none, the message is lost).
func (nd *Node) send(to core.Rank, m core.Message, ob *outbox) {
	if to == nd.cfg.Rank {
		nd.push(item{ev: core.Receive(to, m), clock: nd.clock, tick: nd.tick})
		return
	}
	if !to.Valid(nd.n) {
		nd.logf("netnode: p%d: send to %v: no such rank", nd.cfg.Rank, to)
		return
	}
	if ob != nil {
		ob.add(AppendFrame(nil, AppendData(nil, nd.clock, nd.tick, m)))
	}
}

func (nd *Node) writeHeader() error {
	if nd.cfg.Trace == nil {
		return nil
	}
	h := Header{Rank: nd.cfg.Rank, N: nd.n, Incarnation: nd.cfg.Incarnation, TimeUnit: int64(nd.cfg.TimeUnit), Start: time.Now().UnixNano(), Meta: nd.cfg.Meta}
	b, err := json.Marshal(struct {
		Header Header `json:"header"`
	}{h})
	if err != nil {
		return err
	}
	return nd.write(b)
}

func (nd *Node) writeLine(r Record) error {
	if nd.cfg.Trace == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return nd.write(b)
}

// write writes one line and flushes it to the operating system.
func (nd *Node) write(b []byte) error {
	if _, err := nd.cfg.Trace.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("netnode: log: %w", err)
	}
	if f, ok := nd.cfg.Trace.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return fmt.Errorf("netnode: log: %w", err)
		}
	}
	return nil
}

// accept takes connections until the listener closes.
func (nd *Node) accept() {
	defer nd.wg.Done()
	for {
		c, err := nd.cfg.Listener.Accept()
		if err != nil {
			return
		}
		nd.mu.Lock()
		if nd.closed {
			nd.mu.Unlock()
			c.Close()
			return
		}
		nd.conns[c] = true
		nd.wg.Add(1)
		nd.mu.Unlock()
		go nd.read(c)
	}
}

// read reads a hello, then messages, from c; it closes c on the first
// malformed frame.
func (nd *Node) read(c net.Conn) {
	defer nd.wg.Done()
	defer func() {
		nd.mu.Lock()
		delete(nd.conns, c)
		nd.mu.Unlock()
		c.Close()
	}()
	var from core.Rank = core.NoRank
	var me *reader
	var prev <-chan struct{}
	err := readPeer(bufio.NewReader(c), nd.cfg.MaxFrame, nd.cfg.Decode,
		func(b []byte) error {
			var err error
			from, me, prev, err = nd.hello(b, c)
			return err
		},
		func(clock, tick uint64, m core.Message) {
			if prev != nil {
				// A restarted peer's messages come after every
				// message of its previous incarnation (FIFO).
				<-prev
				prev = nil
			}
			nd.push(item{ev: core.Receive(from, m), clock: clock, tick: tick})
		})
	if me != nil {
		close(me.done)
	}
	if !errors.Is(err, io.EOF) && !nd.isClosed() {
		nd.logf("netnode: p%d: connection from %v (%s) closed: %v", nd.cfg.Rank, from, c.RemoteAddr(), err)
	}
}

// readPeer reads one connection: a hello frame, given to hello, then
// message frames, each given to deliver, until the first error: io.EOF at
// a frame boundary, an I/O error, or a malformed frame (ErrFrame).
func readPeer(r *bufio.Reader, maxFrame int, decode func([]byte) (core.Message, error), hello func([]byte) error, deliver func(clock, tick uint64, m core.Message)) error {
	b, err := ReadFrame(r, maxFrame)
	if err != nil {
		return err
	}
	if err := hello(b); err != nil {
		return err
	}
	for {
		b, err := ReadFrame(r, maxFrame)
		if err != nil {
			return err
		}
		clock, tick, m, err := DecodeData(b, decode)
		if err != nil {
			return err
		}
		deliver(clock, tick, m)
	}
}

// reader is an accepted connection after its hello.
type reader struct {
	inc  uint64        // the peer's incarnation, from the hello
	done chan struct{} // closed when its reading ends
}

// hello reads the first frame and registers the connection as the peer's.
// A second connection from a peer is refused, unless it comes from a
// later incarnation (a restarted process): it then replaces the first,
// and prev, the first's done channel, is returned: nothing of the new
// connection is delivered before the old one is read to its end.
func (nd *Node) hello(b []byte, c net.Conn) (from core.Rank, me *reader, prev <-chan struct{}, err error) {
	from, inc, err := DecodeHello(b, nd.n)
	if err != nil {
		return core.NoRank, nil, nil, err
	}
	nd.mu.Lock()
	defer nd.mu.Unlock()
	if from == nd.cfg.Rank {
		return core.NoRank, nil, nil, fmt.Errorf("%w: hello from this node's own rank", ErrFrame)
	}
	old, dup := nd.in[from]
	if dup && inc <= old.inc {
		return core.NoRank, nil, nil, fmt.Errorf("%w: a second connection from p%d (incarnation %d, have %d)", ErrFrame, from, inc, old.inc)
	}
	me = &reader{inc: inc, done: make(chan struct{})}
	nd.in[from] = me
	if dup {
		return from, me, old.done, nil
	}
	if nd.hellos++; nd.hellos == nd.expect {
		close(nd.helloed)
	}
	return from, me, nil, nil
}

func (nd *Node) isClosed() bool {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.closed
}

func (nd *Node) closeOut(q core.Rank) {
	nd.mu.Lock()
	ob := nd.out[q]
	nd.out[q] = nil
	nd.mu.Unlock()
	if ob != nil {
		ob.close()
	}
}

// shutdown closes the listener and every connection and waits for the
// node's goroutines.
func (nd *Node) shutdown() {
	nd.mu.Lock()
	nd.closed = true
	for c := range nd.conns {
		c.Close()
	}
	outs := nd.out
	nd.out = make([]*outbox, nd.n)
	nd.mu.Unlock()
	nd.cfg.Listener.Close()
	for _, ob := range outs {
		if ob != nil {
			ob.close()
		}
	}
	nd.wg.Wait()
	nd.stable.close()
}

// outbox is the writing side of one connection: frames queued by the
// stepping goroutine, written by the outbox's own goroutine, so that a
// slow peer never blocks a Step. A frame added while nothing is queued or
// being written is written at once by add, for at most directWrite: a
// process killed right after a step's log line has then most likely sent
// the step's messages (the rest of a frame the socket did not take is
// queued).
type outbox struct {
	conn net.Conn
	// dial, when conn is nil, connects (Rejoin): run calls it first.
	dial    func() (net.Conn, error)
	mu      sync.Mutex
	queue   []byte
	done    bool
	writing bool // a write on conn is under way (add's or run's)
	wake    chan struct{}
}

// directWrite bounds add's own write of a frame. A deadline also fails a
// write that starts after it (a goroutine descheduled on a loaded
// machine): 20 ms leaves room for that. A peer that does not read costs a
// step this once: the rest is queued, and later frames go to the queue
// until it is written.
const directWrite = 20 * time.Millisecond

func (o *outbox) add(frame []byte) {
	o.mu.Lock()
	if o.done || o.writing || len(o.queue) > 0 || o.conn == nil {
		if !o.done {
			o.queue = append(o.queue, frame...)
		}
		o.mu.Unlock()
		o.signal()
		return
	}
	o.writing = true
	c := o.conn
	o.mu.Unlock()
	c.SetWriteDeadline(time.Now().Add(directWrite))
	n, err := c.Write(frame)
	c.SetWriteDeadline(time.Time{})
	o.mu.Lock()
	o.writing = false
	if n < len(frame) && !o.done {
		o.queue = append(slices.Clip(frame[n:]), o.queue...)
	}
	o.mu.Unlock()
	var ne net.Error
	if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
		o.close() // the peer is gone, as in run
		return
	}
	o.signal()
}

func (o *outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// close drops what is queued and closes the connection, which also ends
// a write blocked on a peer that stopped reading.
func (o *outbox) close() {
	o.mu.Lock()
	o.done = true
	o.queue = nil
	c := o.conn
	o.mu.Unlock()
	if c != nil {
		c.Close()
	}
	o.signal()
}

func (o *outbox) run(wg *sync.WaitGroup) {
	defer wg.Done()
	if o.conn == nil {
		c, err := o.dial()
		o.mu.Lock()
		done := o.done
		o.conn = c
		o.mu.Unlock()
		if err != nil || done {
			// Unreachable, or closed meanwhile: what is queued is
			// lost, as messages to a crashed process are.
			if c != nil {
				c.Close()
			}
			o.close()
			return
		}
	}
	defer o.conn.Close()
	for range o.wake {
		o.mu.Lock()
		if o.writing { // add writes; it signals when done
			o.mu.Unlock()
			continue
		}
		b, done := o.queue, o.done
		o.queue = nil
		o.writing = len(b) > 0
		o.mu.Unlock()
		if len(b) > 0 {
			_, err := o.conn.Write(b)
			o.mu.Lock()
			o.writing = false
			o.mu.Unlock()
			if err != nil {
				// The peer is gone (or the node is closing): later
				// messages to it are lost, as messages to a crashed
				// process are. The detector, not the socket, says
				// whether it died.
				o.close()
				return
			}
		}
		if done {
			return
		}
	}
}
