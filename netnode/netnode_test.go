package netnode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/build"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/netnode"
)

// group is p0 and p1 running the toy protocol of Example, and a fake p2
// played by the test: its listener and its own connections to p0 and p1.
type group struct {
	nodes    [2]*netnode.Node
	dets     [2]*netnode.Perfect
	logs     [2]*lockedBuffer
	returned chan string
	diag     *lockedBuffer
	fake     net.Listener
	fakeOut  [2]net.Conn // p2 → p0, p2 → p1
	cancel   context.CancelFunc
	running  sync.WaitGroup
}

func startGroup(t *testing.T) *group {
	t.Helper()
	g := &group{returned: make(chan string, 2), diag: &lockedBuffer{}}
	var lns [3]net.Listener
	var addrs []string
	for p := range lns {
		ln, err := netnode.Listen()
		if err != nil {
			t.Fatal(err)
		}
		lns[p] = ln
		addrs = append(addrs, ln.Addr().String())
	}
	g.fake = lns[2]
	t.Cleanup(func() { g.fake.Close() })
	go func() { // the fake p2 accepts and drains what p0 and p1 send it
		for {
			c, err := g.fake.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, c)
		}
	}()
	for p := range 2 {
		rank := core.Rank(p)
		g.dets[p], g.logs[p] = netnode.NewPerfect(), &lockedBuffer{}
		nd, err := netnode.New(netnode.Config{Rank: rank, Peers: addrs, Listener: lns[p],
			Machine: &summer{me: rank, n: 3}, Decode: decode, Detector: g.dets[p], Trace: g.logs[p],
			Outputs: func(e core.Effect) {
				if e.Kind == core.EffReturn {
					g.returned <- fmt.Sprintf("%v returns %v", rank, e.Value)
				}
			},
			Logf: func(format string, args ...any) { fmt.Fprintf(g.diag, format+"\n", args...) },
		})
		if err != nil {
			t.Fatal(err)
		}
		g.nodes[p] = nd
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	g.cancel = cancel
	t.Cleanup(func() { cancel(); g.running.Wait() })
	for p := range 2 {
		c, err := net.Dial("tcp", addrs[p])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		c.Write(netnode.AppendFrame(nil, netnode.AppendHello(nil, 2, 3, 0)))
		g.fakeOut[p] = c
	}
	errs := make(chan error, 2)
	for _, nd := range g.nodes {
		go func() { errs <- nd.Connect(ctx) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, nd := range g.nodes {
		g.running.Add(1)
		go func() { defer g.running.Done(); nd.Run(ctx) }()
	}
	return g
}

// closedSoon reports whether the node closes c: a read returns EOF or a
// reset before the timeout.
func closedSoon(c net.Conn) bool {
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := io.Copy(io.Discard, c)
	return err == nil || !strings.Contains(err.Error(), "timeout")
}

// TestGarbageClosesOnlyThatConnection: bytes that do not decode close the
// connection they came on, and are reported; the node, and its other
// connections, go on: p0 and p1 still agree on the toy protocol's sum.
func TestGarbageClosesOnlyThatConnection(t *testing.T) {
	for _, c := range []struct {
		name    string
		peer    bool   // on the fake p2's connection, after its hello; else on a new connection
		garbage []byte // written to p0
		diag    string
	}{
		{"undecodable message", true, netnode.AppendFrame(nil, []byte{5, 7, 0xff, 0xff}), "malformed frame: message"},
		{"trailing bytes", true, netnode.AppendFrame(nil, append(netnode.AppendData(nil, 1, 0, msg{v: 3}), 0)), "malformed frame: message"},
		{"frame too long", true, []byte{0x7f, 0xff, 0xff, 0xff, 1, 2, 3}, "length 2147483647"},
		{"empty frame", true, []byte{0, 0, 0, 0}, "length 0"},
		{"no hello", false, netnode.AppendFrame(nil, netnode.AppendData(nil, 1, 0, msg{v: 3})), "not a hello"},
		{"hello of another group", false, netnode.AppendFrame(nil, netnode.AppendHello(nil, 1, 4, 0)), "group of 4"},
		{"second hello from p1", false, netnode.AppendFrame(nil, netnode.AppendHello(nil, 1, 3, 0)), "second connection from p1"},
		{"random bytes", false, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), "length"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := startGroup(t)
			conn := g.fakeOut[0]
			if !c.peer {
				var err error
				if conn, err = net.Dial("tcp", g.nodes0Addr(t)); err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
			}
			conn.Write(c.garbage)
			if !closedSoon(conn) {
				t.Fatalf("p0 did not close the connection")
			}
			// The fake p2 is dead to the group: the harness says so.
			g.dets[0].Report(2)
			g.dets[1].Report(2)
			g.nodes[0].Call(num(1))
			g.nodes[1].Call(num(20))
			got := []string{<-g.returned, <-g.returned}
			if got[0] > got[1] {
				got[0], got[1] = got[1], got[0]
			}
			if want := []string{"p0 returns 21", "p1 returns 21"}; got[0] != want[0] || got[1] != want[1] {
				t.Errorf("after the garbage: %v, want %v", got, want)
			}
			g.diag.mu.Lock()
			diag := g.diag.b.String()
			g.diag.mu.Unlock()
			if !strings.Contains(diag, c.diag) || !strings.Contains(diag, "closed") {
				t.Errorf("diagnostics %q do not report %q", diag, c.diag)
			}
			// p1's connection from the fake p2 stayed open: only p0's
			// was closed.
			g.fakeOut[1].SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			if _, err := g.fakeOut[1].Read(make([]byte, 1)); err == nil || !strings.Contains(err.Error(), "timeout") {
				t.Errorf("p1's connection from p2: %v, want it open", err)
			}
		})
	}
}

func (g *group) nodes0Addr(t *testing.T) string {
	t.Helper()
	// p0's address is the one the fake p2 dialled first.
	return g.fakeOut[0].RemoteAddr().String()
}

// TestLogBeforeEffects: every send a node carries out was logged first,
// with its Lamport clock, and the log decodes line by line: the header,
// then Records numbered 1, 2, …
func TestLogBeforeEffects(t *testing.T) {
	g := startGroup(t)
	g.dets[0].Report(2)
	g.nodes[1].Call(num(20))
	g.nodes[0].Call(num(1))
	<-g.returned
	<-g.returned
	g.cancel()
	g.running.Wait()
	for p, l := range g.logs {
		s := bufio.NewScanner(bytes.NewReader(l.b.Bytes()))
		if !s.Scan() {
			t.Fatalf("p%d: empty log", p)
		}
		var h struct {
			Header netnode.Header `json:"header"`
		}
		if err := json.Unmarshal(s.Bytes(), &h); err != nil || h.Header.N != 3 || int(h.Header.Rank) != p {
			t.Fatalf("p%d: header %s: %v", p, s.Bytes(), err)
		}
		seq, clock := uint64(0), uint64(0)
		for s.Scan() {
			var r netnode.Record
			if err := json.Unmarshal(s.Bytes(), &r); err != nil {
				t.Fatalf("p%d: %s: %v", p, s.Bytes(), err)
			}
			if r.Seq != seq+1 || r.Clock <= clock {
				t.Errorf("p%d: seq %d clock %d after seq %d clock %d", p, r.Seq, r.Clock, seq, clock)
			}
			seq, clock = r.Seq, r.Clock
		}
		if seq < 2 {
			t.Errorf("p%d: %d steps logged, want at least the call and the decision", p, seq)
		}
	}
}

// TestNonLoopbackRefused: New refuses a peer address that is not a
// loopback IP.
func TestNonLoopbackRefused(t *testing.T) {
	ln, err := netnode.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, addr := range []string{"10.0.0.1:80", "localhost:80", "example.com:80", "0.0.0.0:80", "nonsense"} {
		_, err := netnode.New(netnode.Config{Rank: 0, Peers: []string{ln.Addr().String(), addr}, Listener: ln, Machine: &summer{n: 2}, Decode: decode})
		if err == nil {
			t.Errorf("peer %q accepted", addr)
		}
	}
	for _, addr := range []string{"127.0.0.1:80", "[::1]:80", "127.0.0.2:9"} {
		if _, err := netnode.New(netnode.Config{Rank: 0, Peers: []string{ln.Addr().String(), addr}, Listener: ln, Machine: &summer{n: 2}, Decode: decode}); err != nil {
			t.Errorf("peer %q: %v", addr, err)
		}
	}
}

// TestImportsOnlyCoreAndStdlib keeps the package what an embedder can
// copy: the standard library and core, nothing else.
func TestImportsOnlyCoreAndStdlib(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if imp != "github.com/ftkernel/ftkernel/core" && strings.Contains(strings.Split(imp, "/")[0], ".") {
			t.Errorf("netnode imports %s", imp)
		}
	}
}
