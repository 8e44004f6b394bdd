package era

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// MaxN is the largest number of processes a Config may have. It bounds what
// a decoder may allocate for a rank set.
const MaxN = 1 << 16

// Config is shared by all the nodes of one communicator.
type Config struct {
	// N is the number of processes, ranks 0 … N-1.
	N int
	// Topology is the flat tree ERA works on (zero value: Binary), or with
	// NodeSize > 0 the X level of an X/Y tree: the tree over the node
	// representatives (§3, "Topologies"; see Tree).
	Topology Topology
	// Intra is the Y level of an X/Y tree, the tree within each node; it
	// must stay zero (Binary) for a flat tree.
	Intra Topology
	// NodeSize is the number of consecutive ranks per node of an X/Y tree;
	// 0 means a flat tree.
	NodeSize int
	// Op is the combine operation F (nil: And).
	Op Op
	// GC turns on the garbage collection of §3: once Agreement(a) has
	// returned, everything but Result^a is dropped.
	GC bool
	// Rebalance turns on the Tree Rebalancing of §3: agreement a ≥ 1 runs
	// on the tree rebuilt over the processes that agreement a-1 agreed are
	// alive (see rebalance.go). It needs Op = ULFM, and each process must
	// decide a-1 before it calls Agreement(v, a).
	Rebalance bool
	// Mutant selects a deliberately broken variant (tests only); see
	// Mutants.
	Mutant mutant.Name
}

// withDefaults fills the zero fields and validates the rest.
func (c Config) withDefaults() (Config, error) {
	if c.N < 1 || c.N > MaxN {
		return c, fmt.Errorf("era: N=%d out of range 1..%d", c.N, MaxN)
	}
	if err := c.Tree().validate(); err != nil {
		return c, err
	}
	if c.Op == nil {
		c.Op = And
	}
	if err := c.checkRebalance(); err != nil {
		return c, err
	}
	if c.Mutant != mutant.None && !slices.Contains(Mutants, c.Mutant) && !slices.Contains(ForgetMutants, c.Mutant) {
		return c, fmt.Errorf("era: unknown mutant %q", c.Mutant)
	}
	return c, nil
}

// Tree is the initial tree: Topology, Intra and NodeSize.
func (c Config) Tree() Tree { return Tree{X: c.Topology, Y: c.Intra, NodeSize: c.NodeSize} }

// WithTree returns c with its tree fields set from t (as ParseTree gives
// it).
func (c Config) WithTree(t Tree) Config {
	c.Topology, c.Intra, c.NodeSize = t.X, t.Y, t.NodeSize
	return c
}

// New returns process p of a communicator configured by cfg, in its initial
// state (ERA Part 1: every variable at its default).
func New(p core.Rank, cfg Config) (*Node, error) {
	n, err := newBare(p, cfg)
	if err != nil {
		return nil, err
	}
	n.refreshTree()
	return n, nil
}

// newBare is New without the tree (parent, kids): for DecodeNode, which
// computes it once the dead set is read.
func newBare(p core.Rank, cfg Config) (*Node, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if !p.Valid(cfg.N) {
		return nil, fmt.Errorf("era: rank %v out of range for N=%d", p, cfg.N)
	}
	return &Node{p: p, cfg: cfg}, nil
}
