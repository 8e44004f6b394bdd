package dgrp

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Limits on a Config and on what a decoder may allocate.
const (
	// MaxN is the largest number of processes.
	MaxN = 1 << 10
	// MaxZeta is the largest ζ.
	MaxZeta = 1 << 8
	// MaxRounds is the largest number of test rounds.
	MaxRounds = 1 << 24
)

// Timer ids the nodes arm (core.EffSetTimer).
const (
	// TimerTick is the test interval (§4.1.1: "Os testes são executados
	// em intervalos de testes"): every firing advances the node's test
	// round by one step (send the tests, close the round, pass the
	// barrier). Its Delay is 1; under lock-step rounds (checker/env
	// LockStepRounds) it fires once every message of the step is
	// delivered or lost.
	TimerTick = 1
	// TimerConsensus is the embedded consensus machine's timer, whatever
	// id that machine gives it (Consensus.Timer).
	TimerConsensus = 2
)

// Consensus is what the DGRP needs of a consensus machine for
// re-admission (§4.1.1: "os processos do DGRP executam um algoritmo de
// consenso"; the implementation uses Paxos). The embedder gives it:
// models/dgrp adapts statemachine/paxos through that package's public API.
// This package imports only core, so it names no consensus package; each
// node embeds the machine New builds and steps it as a runtime would.
type Consensus interface {
	// New builds rank r of a group of n processes, each a proposer, an
	// acceptor and a learner.
	New(n int, r core.Rank) (core.Machine, error)
	// Propose is the call "propose data".
	Propose(data string) core.Input
	// Decided reads a decided value: its data, false for a no-op.
	Decided(v core.Value) (string, bool)
	// Log is a learner's decided data in instance order (no-ops left out).
	Log(m core.Machine) []string
	// Timer is the one timer id the machines arm.
	Timer() uint64
	// DecodeNode reads rank r's state written by its AppendBinary;
	// DecodeMessage a message of the group.
	DecodeNode(n int, r core.Rank, b []byte) (core.Machine, error)
	DecodeMessage(n int, b []byte) (core.Message, error)
}

// Config is shared by the nodes of one DGRP and never changed.
type Config struct {
	// N is the number of processes, ranks 0 … N−1; all start recommended.
	N int
	// Zeta is ζ: the consecutive recommended tests a member must observe
	// of a non-recommended process before it asks for its re-admission
	// (§4.1.1; 5 in the experiments, §4.3).
	Zeta int
	// Rounds is the number of test rounds; a node stops testing after the
	// barrier of round Rounds.
	Rounds int
	// IgnoreWhenOut is the literal reading of AMBIGUOUS-2(a): a process
	// outside its own view of the DGRP ignores the EVENTS and syndromes
	// it receives ("a informação recebida por um processo ∉ DGRP é
	// ignorada"). Off, only information from non-members is ignored
	// (reading (b)).
	IgnoreWhenOut bool
	// Lossy: channels may lose messages (§4.1.1: "Os canais de comunicação
	// não são confiáveis"), so EVENTS are acknowledged and retransmitted
	// until acknowledged. Off, nothing is lost and no ACK is sent.
	Lossy bool
	// Consensus builds the re-admission consensus machines. Required.
	Consensus Consensus
	// Mutant selects a deliberately broken variant (tests only); see
	// Mutants.
	Mutant mutant.Name
}

// Validate checks the configuration.
func (c Config) Validate() error {
	switch {
	case c.N < 2 || c.N > MaxN:
		return fmt.Errorf("dgrp: N=%d out of range 2..%d", c.N, MaxN)
	case c.Zeta < 1 || c.Zeta > MaxZeta:
		return fmt.Errorf("dgrp: zeta=%d out of range 1..%d", c.Zeta, MaxZeta)
	case c.Rounds < 1 || c.Rounds > MaxRounds:
		return fmt.Errorf("dgrp: rounds=%d out of range 1..%d", c.Rounds, MaxRounds)
	case c.Consensus == nil:
		return fmt.Errorf("dgrp: no Consensus")
	case c.Mutant != mutant.None && !slices.Contains(Mutants, c.Mutant):
		return fmt.Errorf("dgrp: unknown mutant %q", c.Mutant)
	}
	return nil
}

// Leader is the lowest rank of view (§4.1.2: "O líder no DGRP é o
// processo com menor rank"), NoRank for an empty view.
func Leader(view core.RankSet) core.Rank {
	l := core.NoRank
	view.Each(func(r core.Rank) {
		if l == core.NoRank {
			l = r
		}
	})
	return l
}
