package netnode_test

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/netnode"
)

// logged waits until p's log holds a line with every one of subs, and
// returns the log.
func (g *group) logged(t *testing.T, p int, subs ...string) string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		g.logs[p].mu.Lock()
		log := g.logs[p].b.String()
		g.logs[p].mu.Unlock()
		for _, line := range strings.Split(log, "\n") {
			found := true
			for _, s := range subs {
				found = found && strings.Contains(line, s)
			}
			if found {
				return log
			}
		}
	}
	t.Fatalf("p%d logged no line with %q", p, subs)
	return ""
}

// TestRestartedPeer: a connection from a later incarnation of p2 is
// accepted beside the dead one's, and what it carries is stepped only
// after everything the dead one carried (FIFO across the restart); a
// connection from the same incarnation is still refused (see
// TestGarbageClosesOnlyThatConnection). Rejoin then connects p0 to p2's
// new incarnation, says p0's incarnation in the hello, steps Recovered,
// and p0's sends go to the new connection, their log records naming
// incarnation 1.
func TestRestartedPeer(t *testing.T) {
	g := startGroup(t)
	fresh, err := net.Dial("tcp", g.nodes0Addr(t))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	fresh.Write(netnode.AppendFrame(netnode.AppendFrame(nil, netnode.AppendHello(nil, 2, 3, 1)), netnode.AppendData(nil, 9, 0, msg{v: 7})))
	time.Sleep(50 * time.Millisecond) // the new incarnation's message waits meanwhile
	g.fakeOut[0].Write(netnode.AppendFrame(nil, netnode.AppendData(nil, 1, 0, msg{v: 5})))
	g.fakeOut[0].Close() // the dead incarnation's connection ends
	log := g.logged(t, 0, "recv VALUE(7) from p2")
	if i, j := strings.Index(log, "recv VALUE(5) from p2"), strings.Index(log, "recv VALUE(7) from p2"); i < 0 || i > j {
		t.Fatalf("p0 stepped the new incarnation's VALUE(7) before the dead one's VALUE(5):\n%s", log)
	}

	g.dets[0].Report(2)
	g.logged(t, 0, `"kind":"suspect"`, `"peer":2`)
	ln, err := netnode.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := g.nodes[0].Rejoin(2, ln.Addr().String(), 0); err == nil {
		t.Error("Rejoin to incarnation 0, the one p0 knows, accepted")
	}
	if err := g.nodes[0].Rejoin(2, ln.Addr().String(), 1); err != nil {
		t.Fatal(err)
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	b, err := netnode.ReadFrame(r, netnode.DefaultMaxFrame)
	if err != nil {
		t.Fatal(err)
	}
	if from, inc, err := netnode.DecodeHello(b, 3); err != nil || from != 0 || inc != 0 {
		t.Fatalf("hello from p%v incarnation %d (%v), want p0, 0", from, inc, err)
	}
	g.logged(t, 0, `"kind":"recovered"`, `"peer":2`)
	g.nodes[0].Call(num(1))
	g.nodes[1].Call(num(20))
	b, err = netnode.ReadFrame(r, netnode.DefaultMaxFrame)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, m, err := netnode.DecodeData(b, decode); err != nil || m != (msg{decide: true, v: 26}) {
		t.Fatalf("p2's new incarnation got %v (%v), want DECIDE(26)", m, err)
	}
	g.logged(t, 0, `"text":"send DECIDE(26) to p2"`, `"inc":1`)
}
