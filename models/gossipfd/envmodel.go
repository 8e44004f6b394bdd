package gossipfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// EnvParams is the detector in the message-passing environment under
// bounded delay (checker/env, Timing BoundedDelay): a global clock in
// ticks, every message delivered within [t+1, t+Delta], timers firing at
// their deadlines, every order of the steps of a tick explored, and up to
// Crashes crashes at any step. Node.MaxRounds bounds the run (required:
// heartbeats grow with every round).
type EnvParams struct {
	Node    fd.Config
	Crashes int
	Delta   int
	// DetectBound is the completeness bound B in gossip rounds: a host
	// that crashed after its round g is declared by every live host before
	// that host's round g + B + 1 (the round model's bound, CheckConfig).
	// Runs are Node.MaxRounds rounds long, so only crashes after a round
	// g < MaxRounds − B are checked; with MaxRounds ≤ B completeness is
	// vacuous (the property's Doc says so).
	DetectBound int
	// Isolation, if positive, restricts completeness to the crashes whose
	// last heartbeat spreads with no other host crashed: every other
	// crashed host ran at least Isolation rounds more (rounds; see
	// CheckConfig.Isolation). Zero: every crash.
	Isolation int
	// Liveness adds completeness-eventually (EnvEventualCompleteness), a
	// checker.Eventually property: the search then keeps the whole state
	// graph (no symmetry, no parallelism) and reports the worst detection
	// latency in ticks (checker.Result.Bounds).
	Liveness bool
	// ForgetCrashed: a crashed host's node is replaced by its Forget
	// (round, suspected and declared sets kept; env.Config.ForgetCrashed,
	// fd Node.Forget).
	ForgetCrashed bool
}

// NewEnvModel builds the environment model. Its properties are accuracy
// (no live host declared failed) and no-false-suspicion (no live host
// suspected, ping phase included), both props.StrongAccuracy, and
// completeness, the bounded response of EnvCompleteness, then the
// environment's timing rules (env.TimingProperties). Errors: an
// unbounded run (MaxRounds 0), an invalid Node config, a ping timeout of at
// most 2Δ ticks, a completeness bound below 1 round.
func NewEnvModel(p EnvParams) (*env.Model, error) {
	if p.Node.MaxRounds == 0 {
		return nil, fmt.Errorf("gossipfd: the environment check needs a bounded run (Node.MaxRounds > 0)")
	}
	if err := p.Node.Validate(); err != nil {
		return nil, err
	}
	if p.Node.Ping && p.Node.PingTimeout <= 2*uint64(p.Delta) {
		return nil, fmt.Errorf("gossipfd: ping timeout %d ticks ≤ 2Δ = %d: a live host's PONG could come too late", p.Node.PingTimeout, 2*p.Delta)
	}
	if p.DetectBound < 1 {
		return nil, fmt.Errorf("gossipfd: completeness bound %d rounds, want ≥ 1", p.DetectBound)
	}
	cfg := p.Node
	starts := make([][]core.Input, cfg.N)
	for h := range starts {
		starts[h] = []core.Input{fd.Start{}}
	}
	declared := func(w *env.World, a, b core.Rank) bool { return w.Node(a).(*fd.Node).Declared().Has(b) }
	suspects := func(w *env.World, a, b core.Rank) bool { return w.Node(a).(*fd.Node).Suspects(b) }
	accuracy := props.StrongAccuracy("accuracy", "no live host is declared failed (§5.3: no false detection)", declared)
	// Stable (checker.Property): declared only grows (declare is the one
	// rule that touches it, merge keeps a declared host declared, every
	// mutant included) and only a Crash changes the crashed set, so a
	// violation survives every other action (TestAccuracyStable).
	// no-false-suspicion is not Stable: merge and recvPong withdraw a
	// pending suspicion (TestNotStable), and neither is
	// completeness: a declaration that comes after the observer passed its
	// bound round ends the violation (TestNotStable).
	accuracy.Stable = true
	properties := []checker.Property[*env.World]{
		accuracy,
		props.StrongAccuracy("no-false-suspicion", "no live host is suspected, ping phase included (§5.2's FD failure)", suspects),
		EnvCompleteness(p.DetectBound, cfg.MaxRounds, p.Isolation),
	}
	if p.Liveness {
		properties = append(properties, EnvEventualCompleteness(p.DetectBound, cfg.MaxRounds))
	}
	properties = append(properties, env.TimingProperties()...)
	return env.New(env.Config{
		Name:      fmt.Sprintf("gossipfd variant=%v cleanup=%d ping=%v t-gossip=%d max-rounds=%d detect-bound=%d", cfg.Variant, cfg.Cleanup, cfg.Ping, cfg.TGossip, cfg.MaxRounds, p.DetectBound),
		N:         cfg.N,
		Crashes:   p.Crashes,
		Detector:  env.DetectorNone,
		Timing:    env.BoundedDelay,
		Delta:     p.Delta,
		Schedules: [][][]core.Input{starts},
		NewNode: func(h core.Rank, _ int) core.Machine {
			n, _ := fd.New(h, &cfg)
			return n
		},
		Properties: properties,
		Params:     map[string]string{"variant": cfg.Variant.String()},
		MaySend:    maySend,
		// The message decoder alone (Decodes needs Node too): ftcheck run
		// reads messages off the wire with it.
		Codec: env.Codec{Message: func(b []byte) (core.Message, error) { return fd.DecodeMessage(b, cfg.N) }},

		ForgetCrashed: p.ForgetCrashed,
	})
}

// EnvCompleteness is completeness as a bounded response over env worlds
// (§5.2 c: "a fault is detected in a guaranteed delay"), an Invariant: for
// every crashed host x, whose machine stopped after its gossip round g_x
// (fd.Node.Round of its last state), every live host h whose round
// exceeds g_x + bound has declared x. Bound is in rounds of T_gossip, as
// the round model's --detect-bound: there, a host crashed before round c
// (after round g_x = c − 1) must be declared by the end of round
// c + bound − 1 = g_x + bound, that is before round g_x + bound + 1 begins.
// The world's clock is not encoded (env.World.Now), so the bound is read
// from the hosts' own round counters, which stay within one round of each
// other (common T_gossip, common start). With maxRounds ≤ bound no live
// host ever passes g_x + bound and the property cannot fail; its Doc says
// so. With isolation w > 0 only the crashes of hosts x such that every
// other crashed host's last round is g_x + w or later are checked (a host
// still alive when h passes g_x + bound crashes after round g_x + bound −
// 1 ≥ g_x + w when bound > w).
func EnvCompleteness(bound int, maxRounds uint64, isolation int) checker.Property[*env.World] {
	doc := fmt.Sprintf("a host that crashed after its round g is declared by every live host before that host's round g+%d (§5.2 c: \"a fault is detected in a guaranteed delay\")", bound+1)
	if maxRounds <= uint64(bound) {
		doc += fmt.Sprintf("; vacuous here: runs of %d rounds ≤ the bound %d", maxRounds, bound)
	}
	return checker.Property[*env.World]{Name: "completeness", Kind: checker.Invariant, Doc: doc,
		Check: func(w *env.World) error {
			for x := range core.Rank(w.N()) {
				if !w.Crashed(x) {
					continue
				}
				gx := w.Node(x).(*fd.Node).Round()
				if !envIsolated(w, x, gx, isolation) {
					continue
				}
				for h := range core.Rank(w.N()) {
					if w.Crashed(h) {
						continue
					}
					n := w.Node(h).(*fd.Node)
					if n.Round() > gx+uint64(bound) && !n.Declared().Has(x) {
						return fmt.Errorf("%v crashed after its round %d and live %v, in round %d, has not declared it", x, gx, h, n.Round())
					}
				}
			}
			return nil
		}}
}

// envIsolated reports whether every crashed host other than x ran rounds
// up to g_x + w or later (always, for w ≤ 0).
func envIsolated(w *env.World, x core.Rank, gx uint64, iso int) bool {
	if iso <= 0 {
		return true
	}
	for y := range core.Rank(w.N()) {
		if y != x && w.Crashed(y) && w.Node(y).(*fd.Node).Round() < gx+uint64(iso) {
			return false
		}
	}
	return true
}

// EnvEventualCompleteness is strong completeness over lassos
// (props.StrongCompleteness, checker.Eventually): every live host
// eventually declares every crashed host x, for the hosts that crashed
// early enough to be detected within the bounded run (after a round
// g_x < maxRounds − bound, those EnvCompleteness checks). Runs are finite
// (maxRounds), so a violation is a quiescent world; when it holds, the
// checker reports the worst time from such a crash to its last
// declaration (checker.Result.Bounds, in ticks), the detection latency
// that EnvCompleteness bounds in rounds.
func EnvEventualCompleteness(bound int, maxRounds uint64) checker.Property[*env.World] {
	declared := func(w *env.World, a, b core.Rank) bool { return w.Node(a).(*fd.Node).Declared().Has(b) }
	early := func(w *env.World, _, x core.Rank) bool {
		return w.Node(x).(*fd.Node).Round()+uint64(bound) < maxRounds
	}
	return props.StrongCompleteness("completeness-eventually",
		fmt.Sprintf("every host that crashed after a round g < max-rounds − %d is eventually declared by every live host (strong completeness; the bound reported is the worst detection latency in ticks)", bound),
		declared, early)
}
