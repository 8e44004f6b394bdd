package gossipfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// AppendBinary appends the canonical encoding of the state: Started, g,
// then the N heartbeats, the N lastInc rounds, the suspected set and the
// declared set. The host and the Config are not encoded: DecodeNode takes
// them.
func (n *Node) AppendBinary(b []byte) []byte {
	b = core.AppendBool(b, n.started)
	b = core.AppendUint(b, n.g)
	for _, h := range n.hb {
		b = core.AppendUint(b, h)
	}
	for _, l := range n.lastInc {
		b = core.AppendUint(b, l)
	}
	b = n.suspected.AppendBinary(b)
	return n.declared.AppendBinary(b)
}

// DecodeNode reads the state of host self written by AppendBinary. Bytes
// that are malformed, non-canonical (an overlong varint) or impossible (a
// node that has not started but has rounds or news, its own entry other
// than g, a lastInc after g, itself suspected or declared, a host both
// suspected and declared, a suspicion without the ping phase) give an error
// wrapping core.ErrMalformed; a bad cfg or self gives New's error.
func DecodeNode(b []byte, self core.Rank, cfg *Config) (*Node, error) {
	n, err := New(self, cfg)
	if err != nil {
		return nil, err
	}
	N := cfg.N
	d := core.NewDecoder(b)
	n.started = d.Bool()
	n.g = d.Uint()
	for i := 0; i < N && d.Err() == nil; i++ {
		n.hb[i] = d.Uint()
	}
	for i := 0; i < N && d.Err() == nil; i++ {
		n.lastInc[i] = d.Uint()
	}
	n.suspected = core.DecodeRankSet(d, N)
	n.declared = core.DecodeRankSet(d, N)
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if err := n.consistent(); err != nil {
		return nil, fmt.Errorf("%w: %v", core.ErrMalformed, err)
	}
	if !canonical(b, n) {
		return nil, fmt.Errorf("%w: non-canonical encoding (overlong varint)", core.ErrMalformed)
	}
	return n, nil
}

// consistent reports the first way the state could not have been reached.
func (n *Node) consistent() error {
	if !n.started {
		if n.g != 0 || !n.suspected.Empty() || !n.declared.Empty() {
			return fmt.Errorf("%v not started but at round %d with suspicions", n.self, n.g)
		}
	}
	if n.hb[n.self] != n.g || n.lastInc[n.self] != n.g {
		return fmt.Errorf("%v's own entry hb=%d lastInc=%d at round %d", n.self, n.hb[n.self], n.lastInc[n.self], n.g)
	}
	for x, l := range n.lastInc {
		if l > n.g {
			return fmt.Errorf("lastInc[%d] = %d after round %d", x, l, n.g)
		}
	}
	switch {
	case n.suspected.Has(n.self) || n.declared.Has(n.self):
		return fmt.Errorf("%v suspects itself", n.self)
	case !n.suspected.Intersect(n.declared).Empty():
		return fmt.Errorf("hosts %v both suspected and declared", n.suspected.Intersect(n.declared))
	case !n.cfg.Ping && !n.suspected.Empty():
		return fmt.Errorf("suspicions %v without the ping phase", n.suspected)
	}
	return nil
}
