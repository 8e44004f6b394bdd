// Package replica is the checked model of P2P-MPI's replica coordination
// (statemachine/replica; Genaud and Rattanapoka, §4): the replicas of every logical process
// in the asynchronous environment of checker/env, with crashes reported by
// a perfect failure detector, and the properties of §4.3 (validity,
// agreement, integrity, total order) over the deliveries of the replicas of
// each logical process, §4.2's equivalence with the unreplicated program,
// and two of our own: backup drained and the exact message cost of §4.4.
package replica

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// Params are the parameters of a replica model.
type Params struct {
	Program        string // a name of ProgramNames
	Procs          int    // logical processes P
	Degree         int    // replication degree r
	Rounds         int    // ping-pong exchanges (others ignore it); 0 means 1
	ReplicateRank0 bool   // replicate P_0 too (§4's default: no)
	// Degrees, when non-nil, gives each logical process its own number of
	// replicas (Degree and ReplicateRank0 are then ignored).
	Degrees []int
	Crashes int // crash budget F (replicas)
	Network env.Network
	Mutant  mutant.Name
	// CrashProb, for random walks, is the probability that a step is a
	// crash while the budget allows.
	CrashProb float64
	// Programs, when non-nil, replaces Program (tests, fuzzing).
	Programs []sm.Program
	// ForgetCrashed: a crashed replica's node (host) is replaced by its
	// Forget (env.Config.ForgetCrashed; sm Node.Forget, Host.Forget).
	ForgetCrashed bool
}

// Model is a built replica model: the environment and what its properties
// were computed from.
type Model struct {
	*env.Model
	Config sm.Config
	Ref    *Reference
}

// NewModel builds the model of p. Errors: an unknown program or mutant, a
// bad layout, or a reference run over 1<<20 states.
func NewModel(p Params) (*Model, error) {
	if p.Rounds == 0 {
		p.Rounds = 1
	}
	progs := p.Programs
	if progs == nil {
		var err error
		if progs, err = programs(p.Program, p.Procs, p.Rounds); err != nil {
			return nil, err
		}
	}
	layout, err := sm.NewLayout(len(progs), p.Degree, p.ReplicateRank0)
	if p.Degrees != nil {
		if len(p.Degrees) != len(progs) {
			return nil, fmt.Errorf("replica: %d degrees for %d logical processes", len(p.Degrees), len(progs))
		}
		layout, err = sm.NewLayoutDegrees(p.Degrees)
	}
	if err != nil {
		return nil, err
	}
	if p.Crashes < 0 || p.Crashes >= layout.N() {
		return nil, fmt.Errorf("replica: crashes %d, want 0 ≤ crashes < %d replicas", p.Crashes, layout.N())
	}
	cfg := sm.Config{Layout: layout, Programs: progs, Mutant: p.Mutant}
	nodes, err := sm.NewAll(cfg)
	if err != nil {
		return nil, err
	}
	ref, err := RunReference(progs, 1<<20)
	if err != nil {
		return nil, err
	}
	// A replica of an empty program is never started: its Start would be
	// a step that changes nothing but multiplies the interleavings.
	start := make([][]core.Input, layout.N())
	for r := range start {
		if i, _, _ := layout.Of(core.Rank(r)); len(progs[i]) > 0 {
			start[r] = []core.Input{sm.Start{}}
		}
	}
	name := fmt.Sprintf("replica program=%s procs=%d degree=%d layout=%v network=%v", p.Program, len(progs), p.Degree, layout, p.Network)
	if p.Mutant != mutant.None {
		name += " mutant=" + string(p.Mutant)
	}
	m, err := env.New(env.Config{
		Name: name, N: layout.N(), Crashes: p.Crashes, Network: p.Network,
		NewNode:   func(r core.Rank, _ int) core.Machine { return nodes[r] },
		Schedules: [][][]core.Input{start}, CrashProb: p.CrashProb,
		Properties: Properties(layout, progs, ref),
		MaySend:    maySend(layout, progs, p.Crashes),

		ForgetCrashed: p.ForgetCrashed,
		Codec:         codec(cfg),
	})
	if err != nil {
		return nil, err
	}
	return &Model{Model: m, Config: cfg, Ref: ref}, nil
}

// codec is the replica's decoders (nodes of cfg, DATA and COMMIT, delivered
// and output values) as env.Codec hooks, so that BFS keeps the model's
// frontier as encodings (checker.Codec) and --spill can write it out.
func codec(cfg sm.Config) env.Codec {
	procs := cfg.Layout.Procs()
	return env.Codec{
		Node: func(b []byte, r core.Rank, _ int) (core.Machine, error) {
			n, err := sm.DecodeNode(b, r, cfg)
			if err != nil {
				return nil, err
			}
			return n, nil
		},
		Message: func(b []byte) (core.Message, error) { return sm.DecodeMessage(b, procs) },
		Value:   func(b []byte) (core.Value, error) { return DecodeValue(b, procs) },
	}
}
