package ringfd

import (
	"bytes"
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// AppendBinary appends the canonical encoding of the daemon's state:
// started, pred + 1 and obs + 1 (0 for ⊥), the next heartbeat number, the
// highest heartbeat number from pred, the freshness index and Reported_d.
// The rank and Config are not encoded: DecodeNode takes them.
func (n *Daemon) AppendBinary(b []byte) []byte {
	b = core.AppendBool(b, n.started)
	b = core.AppendUint(b, uint64(n.pred+1))
	b = core.AppendUint(b, uint64(n.obs+1))
	b = core.AppendUint(b, n.hbSeq)
	b = core.AppendUint(b, n.lastSeq)
	b = core.AppendUint(b, n.fresh)
	return n.reported.AppendBinary(b)
}

// DecodeNode reads the state of rank r written by AppendBinary: a *Daemon
// for r < N, a *Process otherwise. Malformed or non-canonical bytes and
// impossible states (pred or obs not a daemon or the daemon itself, heartbeat
// number 0, a freshness index under TimerReset or before Start, a rank out of
// range in Reported) give an error wrapping core.ErrMalformed; a bad cfg or r
// gives New's error.
func DecodeNode(b []byte, r core.Rank, cfg Config) (core.Machine, error) {
	m, err := New(r, cfg)
	if err != nil {
		return nil, err
	}
	d := core.NewDecoder(b)
	switch n := m.(type) {
	case *Daemon:
		c := n.cfg
		n.started = d.Bool()
		n.pred = decodePeer(d, c.N, n.d)
		n.obs = decodePeer(d, c.N, n.d)
		n.hbSeq = d.Uint()
		n.lastSeq = d.Uint()
		n.fresh = d.Uint()
		n.reported = core.DecodeRankSet(d, c.Ranks())
		switch {
		case d.Err() != nil:
		case n.hbSeq == 0:
			d.Fail("heartbeat number 0")
		case c.SeqWindow != 0 && (n.hbSeq > c.SeqWindow || n.lastSeq > c.SeqWindow):
			d.Fail("heartbeat numbers %d, %d outside the window 1..%d", n.hbSeq, n.lastSeq, c.SeqWindow)
		case n.fresh != 0 && (c.Trust != Freshness || !n.started):
			d.Fail("freshness index %d under %v (started=%v)", n.fresh, c.Trust, n.started)
		case n.pred == core.NoRank && n.lastSeq != 0:
			d.Fail("heartbeat number %d from no predecessor", n.lastSeq)
		}
	case *Process:
		n.reported = core.DecodeRankSet(d, n.cfg.Ranks())
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if !bytes.Equal(m.AppendBinary(nil), b) {
		return nil, fmt.Errorf("%w: non-canonical node encoding", core.ErrMalformed)
	}
	return m, nil
}

// decodePeer reads pred + 1 or obs + 1: ⊥ or a daemon other than self.
func decodePeer(d *core.Decoder, n int, self core.Rank) core.Rank {
	x := d.Uint()
	if d.Err() != nil {
		return core.NoRank
	}
	if x > uint64(n) || x == uint64(self)+1 {
		d.Fail("peer %d: not ⊥ or a daemon other than %v", int64(x)-1, self)
		return core.NoRank
	}
	return core.Rank(x) - 1
}
