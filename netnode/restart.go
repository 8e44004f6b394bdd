package netnode

import (
	"fmt"
	"net"
	"time"

	"github.com/ftkernel/ftkernel/core"
)

// Restarts (crash-recovery).
//
// A killed process is restarted from its state directory: Restore
// rebuilds its machine, and New with Config.Incarnation k > 0 starts the
// new incarnation, which sends k in its hellos, dials every live peer
// (Config.Peers, "" for a dead one), waits for their connections
// (Connect), and steps core.Restart() before anything else (Run).
//
// Each survivor is told by the embedder (its failure detector) with
// Rejoin: it dials the new incarnation's address at once, so that every
// send it logs from then on goes to the new incarnation, and it steps
// core.Recovered(q). The survivor accepts the new incarnation's
// connection in place of the dead one's (a hello with a later
// incarnation), and steps nothing of it before every message of the dead
// one was read: a channel stays FIFO across the restart, as in the
// model's environment. Messages sent to the dead process are lost.

// Rejoin tells the node that peer q restarted as incarnation inc (above
// the one it knew), listening at addr: the node connects to it, sends
// to q from now on go to it (their log records name inc), and the
// machine steps core.Recovered(q) after the events already waiting (it
// is skipped when q was not reported dead: core's contract). Call it
// after the node stepped q's suspicion. An address that is not loopback,
// a rank out of range or an incarnation not above the known one is an
// error.
func (nd *Node) Rejoin(q core.Rank, addr string, inc uint64) error {
	switch {
	case !q.Valid(nd.n) || q == nd.cfg.Rank:
		return fmt.Errorf("netnode: rejoin: rank %v", q)
	case !Loopback(addr):
		return fmt.Errorf("netnode: rejoin: p%d at %q is not a loopback IP address", q, addr)
	}
	ob := &outbox{wake: make(chan struct{}, 1), dial: func() (net.Conn, error) {
		d := net.Dialer{Timeout: 10 * time.Second}
		return d.Dial("tcp", addr)
	}}
	ob.queue = AppendFrame(nil, AppendHello(nil, nd.cfg.Rank, nd.n, nd.cfg.Incarnation))
	nd.mu.Lock()
	if nd.closed {
		nd.mu.Unlock()
		return fmt.Errorf("netnode: rejoin: the node is shut down")
	}
	if inc <= nd.inc[q] {
		nd.mu.Unlock()
		return fmt.Errorf("netnode: rejoin: p%d incarnation %d, already at %d", q, inc, nd.inc[q])
	}
	old := nd.out[q]
	nd.out[q], nd.inc[q] = ob, inc
	nd.wg.Add(1)
	nd.mu.Unlock()
	if old != nil {
		old.close()
	}
	go ob.run(&nd.wg)
	ob.signal()
	nd.push(item{ev: core.Recovered(q)})
	return nil
}
