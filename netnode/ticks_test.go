package netnode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/netnode"
)

// pinger: on its call it sends the other rank msg{v: 1} and arms timer 7
// for 3 ticks; a message received is answered once (v+1); the timer
// returns.
type pinger struct {
	me       core.Rank
	answered bool
}

func (p *pinger) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		out = append(out, core.Send(1-p.me, msg{v: 1}), core.Effect{Kind: core.EffSetTimer, Timer: 7, Delay: 3})
	case core.EvReceive:
		if m := ev.Msg.(msg); !p.answered {
			p.answered = true
			out = append(out, core.Send(ev.From, msg{v: m.v + 1}))
		}
	case core.EvTimer:
		out = append(out, core.Return(0, num(ev.Timer)))
	}
	return out, nil
}
func (p *pinger) Clone() core.Machine          { c := *p; return &c }
func (p *pinger) AppendBinary(b []byte) []byte { return b }
func (p *pinger) String() string               { return "pinger" }

// TestRunTicks: under RunTicks a call made before tick 0 is stepped in
// tick 0, a message is stepped in a tick after its send's, a timer armed
// in tick t for 3 fires in tick t+3, and every record carries its tick.
// The assertions read the logged ticks only, never the clock.
func TestRunTicks(t *testing.T) {
	var lns [2]net.Listener
	var addrs []string
	for p := range lns {
		ln, err := netnode.Listen()
		if err != nil {
			t.Fatal(err)
		}
		lns[p] = ln
		addrs = append(addrs, ln.Addr().String())
	}
	var logs [2]bytes.Buffer
	var nodes [2]*netnode.Node
	returned := make(chan core.Rank, 2)
	for p := range 2 {
		rank := core.Rank(p)
		nd, err := netnode.New(netnode.Config{Rank: rank, Peers: addrs, Listener: lns[p], Machine: &pinger{me: rank},
			Decode: decode, TimeUnit: 5 * time.Millisecond, Trace: bufio.NewWriter(&logs[p]),
			Outputs: func(core.Effect) { returned <- rank }})
		if err != nil {
			t.Fatal(err)
		}
		nodes[p] = nd
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errs := make(chan error, 2)
	for _, nd := range nodes {
		go func() { errs <- nd.Connect(ctx) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	epoch := time.Now().Add(20 * time.Millisecond)
	rctx, stop := context.WithCancel(ctx)
	for _, nd := range nodes {
		nd.Call(num(0)) // before tick 0: waits for it
		go func() { errs <- nd.RunTicks(rctx, epoch) }()
	}
	for range 2 {
		select {
		case <-returned:
		case <-ctx.Done():
			t.Fatal("no timer fired within 30 s")
		}
	}
	stop()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for p := range 2 {
		sent := map[uint64]uint64{} // value → tick sent, at the other node
		for _, r := range records(t, &logs[1-p]) {
			for _, e := range r.Effects {
				if e.Kind == "send" {
					sent[uint64(len(e.Msg))+uint64(e.Msg[len(e.Msg)-1])] = *r.Tick
				}
			}
		}
		var callTick uint64
		for _, r := range records(t, &logs[p]) {
			switch r.Event.Kind {
			case "call":
				callTick = *r.Tick
				if callTick != 0 {
					t.Errorf("p%d: call in tick %d, want 0", p, callTick)
				}
			case "receive":
				key := uint64(len(r.Event.Msg)) + uint64(r.Event.Msg[len(r.Event.Msg)-1])
				if s, ok := sent[key]; !ok || *r.Tick <= s {
					t.Errorf("p%d: %s in tick %d, sent in tick %d (logged: %v)", p, r.Event.Text, *r.Tick, s, ok)
				}
			case "timer":
				if *r.Tick != callTick+3 {
					t.Errorf("p%d: timer in tick %d, armed in tick %d for 3", p, *r.Tick, callTick)
				}
			}
		}
	}
}

// records reads a log's records, each with its tick.
func records(t *testing.T, b *bytes.Buffer) []netnode.Record {
	t.Helper()
	var out []netnode.Record
	for i, line := range bytes.Split(bytes.TrimSpace(b.Bytes()), []byte{'\n'})[1:] {
		var r netnode.Record
		if err := json.Unmarshal(line, &r); err != nil || r.Tick == nil {
			t.Fatalf("record %d: %v, tick %v: %s", i+1, err, r.Tick, line)
		}
		out = append(out, r)
	}
	return out
}
