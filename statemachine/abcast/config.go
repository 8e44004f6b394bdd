package abcast

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Variant is one of Appendix A's three protocols.
type Variant uint8

const (
	// ConsensusBased: every member sends its message to every other; after K
	// received messages the coordinator runs a consensus instance on the
	// batch; batches are delivered in instance order.
	ConsensusBased Variant = iota
	// UB, unicast-broadcast: a member sends its message to the sequencer,
	// which numbers it and sends it to the others.
	UB
	// BB, broadcast-broadcast: a member sends its message to all, the
	// sequencer sends only the number.
	BB
)

// Variants lists every variant, in flag order.
var Variants = []Variant{ConsensusBased, UB, BB}

func (v Variant) String() string {
	switch v {
	case ConsensusBased:
		return "consensus"
	case UB:
		return "ub"
	case BB:
		return "bb"
	}
	return fmt.Sprintf("variant(%d)", uint8(v))
}

// ParseVariant reads "consensus", "ub" or "bb".
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants {
		if v.String() == s {
			return v, nil
		}
	}
	return 0, fmt.Errorf("variant %q: want consensus, ub or bb", s)
}

// Sequencer is the sequencer of UB and BB and the coordinator of the
// consensus variant: "o primeiro nó do núcleo estável" (Appendix A).
const Sequencer core.Rank = 0

// MaxN bounds the core size; MaxMessages the messages per member.
const (
	MaxN        = 1 << 12
	MaxMessages = 1 << 16
)

// Consensus is the consensus the consensus variant invokes, supplied by the
// embedder. Its node at member 0 proposes and learns; every member is an
// acceptor (Appendix A: "Se o líder receber resposta da maioria dos processos
// do núcleo estável poderá então propor o seu valor na segunda fase").
type Consensus interface {
	// New builds member r's consensus node in a core of n members.
	New(n int, r core.Rank) (core.Machine, error)
	// Lead is the input that makes member 0 coordinate (phase 1).
	Lead() core.Input
	// Propose is the input that proposes data.
	Propose(data string) core.Input
	// Decided reads the value of an EffDecide of the consensus node: the
	// data decided, "" for a value no member proposed (a no-op).
	Decided(v core.Value) string
	// Owns reports whether m is a message of the consensus.
	Owns(m core.Message) bool
}

// Config is the group every member shares.
type Config struct {
	// N is the number of core members, ranks 0 … N−1, 2 ≤ N ≤ MaxN.
	N int
	// Variant is the protocol.
	Variant Variant
	// K is the batch size of the consensus variant ("a quantidade de
	// mensagens recebidas que o processo deve aguardar para então invocar
	// uma instância de consenso"), ≥ 1; unused otherwise.
	K int
	// Messages is the number of messages each member broadcasts in the
	// round, 1 … MaxMessages: the coordinator proposes a batch smaller than K
	// once every member's messages are in or the member is suspected
	// (rules.go, maybePropose).
	Messages int
	// Consensus is required by the consensus variant.
	Consensus Consensus
	// Mutant selects a broken variant (mutants.go); mutant.None is the
	// protocol.
	Mutant mutant.Name
}

func (c Config) validate() error {
	switch {
	case c.N < 2 || c.N > MaxN:
		return fmt.Errorf("abcast: N=%d: want 2 … %d members", c.N, MaxN)
	case c.Messages < 1 || c.Messages > MaxMessages:
		return fmt.Errorf("abcast: messages=%d: want 1 … %d", c.Messages, MaxMessages)
	case c.Variant > BB:
		return fmt.Errorf("abcast: unknown %v", c.Variant)
	case c.Variant == ConsensusBased && c.K < 1:
		return fmt.Errorf("abcast: k=%d: want ≥ 1", c.K)
	case c.Variant == ConsensusBased && c.Consensus == nil:
		return fmt.Errorf("abcast: the consensus variant needs a Consensus")
	}
	for _, m := range Mutants {
		if m == c.Mutant {
			return nil
		}
	}
	if c.Mutant != "" {
		return fmt.Errorf("abcast: unknown mutant %q", c.Mutant)
	}
	return nil
}
