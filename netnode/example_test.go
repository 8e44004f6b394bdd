package netnode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/netnode"
)

// num is the toy protocol's input, payload and value.
type num uint64

func (v num) AppendBinary(b []byte) []byte { return core.AppendUint(b, uint64(v)) }
func (v num) String() string               { return fmt.Sprint(uint64(v)) }

// msg is VALUE(v), a contribution sent to p0, or DECIDE(v), p0's sum.
type msg struct {
	decide bool
	v      num
}

func (m msg) Kind() string {
	if m.decide {
		return "DECIDE"
	}
	return "VALUE"
}
func (m msg) AppendBinary(b []byte) []byte { return m.v.AppendBinary(core.AppendBool(b, m.decide)) }
func (m msg) String() string               { return fmt.Sprintf("%s(%v)", m.Kind(), m.v) }

// decode is the protocol's decoder: it refuses malformed bytes.
func decode(b []byte) (core.Message, error) {
	d := core.NewDecoder(b)
	m := msg{decide: d.Bool(), v: num(d.Uint())}
	return m, d.Finish()
}

// summer is a toy protocol: each process calls Propose(v) and sends v to
// p0; p0 sums the values of every process it does not suspect and sends
// the sum to all, who return it.
type summer struct {
	me, n   core.Rank
	heard   core.RankSet // p0: contributed or suspected
	sum     num
	decided bool
}

func (s *summer) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		v, ok := ev.Input.(num)
		if !ok {
			return out, fmt.Errorf("summer: bad call %v", ev.Input)
		}
		out = append(out, core.Send(0, msg{v: v}))
	case core.EvReceive:
		m, ok := ev.Msg.(msg)
		if !ok {
			return out, fmt.Errorf("summer: foreign message %v", ev.Msg)
		}
		if m.decide {
			return append(out, core.Return(0, m.v)), nil
		}
		if s.me == 0 && !s.heard.Has(ev.From) {
			s.heard.Add(ev.From)
			s.sum += m.v
		}
	case core.EvSuspect:
		s.heard.Add(ev.Peer)
	default:
		return out, fmt.Errorf("summer: unexpected %v", ev)
	}
	if s.me == 0 && !s.decided && s.heard.Len() == int(s.n) {
		s.decided = true
		for q := core.Rank(0); q < s.n; q++ {
			out = append(out, core.Send(q, msg{decide: true, v: s.sum})) // p0 included
		}
	}
	return out, nil
}
func (s *summer) Clone() core.Machine          { c := *s; c.heard = s.heard.Clone(); return &c }
func (s *summer) AppendBinary(b []byte) []byte { return s.sum.AppendBinary(b) }
func (s *summer) String() string               { return fmt.Sprintf("summer %v sum=%v", s.me, s.sum) }

// lockedBuffer is a log that the test reads while nodes write it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Example runs three nodes of a toy protocol on loopback, as three
// processes of a group would (here goroutines of one process): each opens
// a listener, learns every peer's address, connects, and runs. p2 stops
// before the protocol starts; the harness, which knows, tells p0 through
// its Perfect detector, and p0 decides without p2. The returns arrive
// through Outputs; p1's log has one line per Step, written before the
// step's effects are carried out.
func Example() {
	const n = 3
	var lns []string
	nodes := make([]*netnode.Node, n)
	detectors := make([]*netnode.Perfect, n)
	logs := make([]*lockedBuffer, n)
	returned := make(chan string, n)
	ls := make([]net.Listener, n)
	for p := range n {
		ln, err := netnode.Listen() // 127.0.0.1, a port the system picks
		if err != nil {
			fmt.Println(err)
			return
		}
		ls[p] = ln
		lns = append(lns, ln.Addr().String())
	}
	for p := range n {
		detectors[p], logs[p] = netnode.NewPerfect(), &lockedBuffer{}
		rank := core.Rank(p)
		nd, err := netnode.New(netnode.Config{
			Rank: rank, Peers: lns, Listener: ls[p],
			Machine:  &summer{me: rank, n: n},
			Decode:   decode,
			TimeUnit: time.Millisecond,
			Detector: detectors[p],
			Trace:    logs[p],
			Meta:     json.RawMessage(`{"protocol":"summer"}`),
			Outputs: func(e core.Effect) {
				if e.Kind == core.EffReturn {
					returned <- fmt.Sprintf("%v returns %v", rank, e.Value)
				}
			},
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		nodes[p] = nd
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var connecting sync.WaitGroup
	for _, nd := range nodes {
		connecting.Add(1)
		go func() { defer connecting.Done(); nd.Connect(ctx) }()
	}
	connecting.Wait()
	stopped, stop := context.WithCancel(ctx)
	stop()
	nodes[2].Run(stopped) // p2 stops: to its peers, a crashed process
	detectors[0].Report(2)
	var running sync.WaitGroup
	for _, nd := range nodes[:2] {
		running.Add(1)
		go func() { defer running.Done(); nd.Run(ctx) }()
	}
	nodes[0].Call(num(1))
	nodes[1].Call(num(20))
	got := []string{<-returned, <-returned}
	if got[0] > got[1] {
		got[0], got[1] = got[1], got[0]
	}
	fmt.Println(got[0])
	fmt.Println(got[1])
	cancel()
	running.Wait()

	lines := bufio.NewScanner(bytes.NewReader(logs[1].b.Bytes()))
	lines.Scan() // the header
	for lines.Scan() {
		var r netnode.Record
		json.Unmarshal(lines.Bytes(), &r)
		fmt.Printf("p1 step %d: %s", r.Seq, r.Event.Text)
		for _, e := range r.Effects {
			fmt.Printf(" → %s", e.Text)
		}
		fmt.Println()
	}
	// Output:
	// p0 returns 21
	// p1 returns 21
	// p1 step 1: call 20 → send VALUE(20) to p0
	// p1 step 2: recv DECIDE(21) from p0 → return a=0 v=21
}
