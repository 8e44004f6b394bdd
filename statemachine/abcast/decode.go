package abcast

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
)

// ConsensusCodec decodes the consensus's node states and messages. A
// Consensus that implements it lets DecodeNode and DecodeMessage read the
// consensus variant's states and messages.
type ConsensusCodec interface {
	// DecodeNode reads member r's consensus node in a core of n.
	DecodeNode(b []byte, n int, r core.Rank) (core.Machine, error)
	// DecodeMessage reads a consensus message in a core of n.
	DecodeMessage(b []byte, n int) (core.Message, error)
}

// decodeIDOrNone reads an ID, or noID (an unknown number's slot).
func decodeIDOrNone(d *core.Decoder, n int) ID {
	o := d.Int()
	s := d.Uint()
	switch {
	case o == int64(core.NoRank) && s == 0:
		return noID
	case o < 0 || o >= int64(n) || s >= MaxMessages:
		d.Fail("message m%d.%d out of range (N=%d)", o, s, n)
	}
	return ID{Origin: core.Rank(o), Seq: uint32(s)}
}

// DecodeNode reads member p's state written by AppendBinary, in the core
// cfg describes. The consensus variant's Consensus must be a
// ConsensusCodec. Errors wrap the decoder's (core.ErrMalformed).
func DecodeNode(b []byte, p core.Rank, cfg Config) (*Node, error) {
	n, err := New(p, cfg)
	if err != nil {
		return nil, err
	}
	N := cfg.N
	d := core.NewDecoder(b)
	ids := func() []ID {
		k := d.Len(N * MaxMessages)
		var out []ID
		for range k {
			out = append(out, decodeIDOrNone(d, N))
		}
		return out
	}
	n.have = decodeIDSet(d, N)
	n.delivered = decodeIDSet(d, N)
	n.suspected = core.DecodeRankSet(d, N)
	n.order = ids()
	n.next, n.counter = d.Uint(), d.Uint()
	n.numbered = decodeIDSet(d, N)
	n.reused, n.led = d.Bool(), d.Bool()
	n.queue = ids()
	n.arrival = ids()
	k := d.Len(N * MaxMessages)
	for range k {
		inst := d.Uint()
		n.held = append(n.held, Decision{Inst: inst, Batch: ids()})
	}
	n.early = int(d.Int())
	if n.cons == nil {
		return n, d.Finish()
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	cc, ok := cfg.Consensus.(ConsensusCodec)
	if !ok {
		return nil, fmt.Errorf("abcast: the Consensus %T cannot decode", cfg.Consensus)
	}
	rest := b[len(b)-d.Remaining():]
	if n.cons, err = cc.DecodeNode(rest, N, p); err != nil {
		return nil, err
	}
	return n, nil
}

// DecodeAny reads a message of this package or, in the consensus variant,
// of its consensus (a ConsensusCodec).
func DecodeAny(b []byte, cfg Config) (core.Message, error) {
	if IsMessage(b) {
		return DecodeMessage(b, cfg.N)
	}
	cc, ok := cfg.Consensus.(ConsensusCodec)
	if cfg.Variant != ConsensusBased || !ok {
		return nil, fmt.Errorf("abcast: not an abcast message (tag %v)", b[:min(len(b), 1)])
	}
	return cc.DecodeMessage(b, cfg.N)
}

// DecodeValue reads a delivered value (an ID).
func DecodeValue(b []byte, n int) (core.Value, error) {
	d := core.NewDecoder(b)
	id := decodeID(d, n)
	return id, d.Finish()
}
