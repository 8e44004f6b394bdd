package main

import (
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	hqm "github.com/ftkernel/ftkernel/models/hyperquicksort"
	"github.com/ftkernel/ftkernel/registry"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

func init() { runScenarios["hyperquicksort"] = hyperquicksortScenario }

// hyperquicksortScenario is `ftcheck run hyperquicksort`: Hyperquicksort
// over the DGRP (§4.2.2) across real processes, the network model of
// models/hyperquicksort (NetModel: the Node of statemachine/hyperquicksort,
// the shared store replicated by STORE messages). Every sorting round is
// begun by a call the parent makes (gated) at every live process once all
// of them passed the previous barrier; a --kill is made at the first
// barrier reached at or after its time (or before the first round, at
// 0s), and the next round is called only once every survivor stepped the
// perfect detector's report of it. So every live process begins each round
// with the same non-recommended set: the processes killed so far. A kill
// due after the last barrier but one is not made (the sort is over).
var hyperquicksortScenario = runScenario{
	doc: "Hyperquicksort over the DGRP (§4.2.2): log2 n sorting rounds, each called by ftcheck at every live process once all passed " +
		"the previous barrier (--interval after it), a barrier being a process's part of the round done and every other player's STORE " +
		"(the shared store, replicated) received; a --kill is made at the first barrier at or after its time (at 0s: before the first round), " +
		"and the next round is called once every survivor stepped its report (perfect detector): the killed processes are the " +
		"non-recommended set of every later round, at every process; a process's output k is its copy of the store after round k " +
		"(the lists by virtual rank), compared among the live processes; the last one, concatenated, must be sorted and a " +
		"permutation of the input (the last of check's --inputs vectors); --seed is not used",
	crashFlag: "non-recommended-max",
	output:    core.EffReturn,
	finish:    finishReturns,
	label:     "round ",
	net:       hqm.NetRunner,
	gated:     true,
	compare:   hyperquicksortCompare,
	replay:    hyperquicksortReplay,
}

// hyperquicksortReplay replays validate's merged steps on the model
// `ftcheck check hyperquicksort` explores (models/hyperquicksort
// ReplayOnChecked).
func hyperquicksortReplay(params map[string]string, steps []checker.Step) (string, error) {
	p, err := hqm.RunParams(params)
	if err != nil {
		return "", err
	}
	n, err := hqm.ReplayOnChecked(p, steps)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("replayed on the model of ftcheck check hyperquicksort (%d steps: choices of the non-recommended sets, starts, deliveries, barriers): "+
		"every step is enabled there, its properties hold, and it ends with the same lists by virtual rank", n), nil
}

// hyperquicksortCompare checks the store every live process returned at
// the last barrier: the lists by virtual rank, concatenated, are sorted
// and a permutation of the input.
func hyperquicksortCompare(h *runHeader, rep *runReport) (string, []string) {
	r, err := hqm.NetRunner(h.Params)
	if err != nil {
		return "", []string{err.Error()}
	}
	em, _ := registry.EnvModel(r)
	n := h.N
	nd, ok := em.Config().NewNode(0, n).(*hq.Node)
	if !ok {
		return "", []string{"hyperquicksort: the model's node is not a Hyperquicksort node"}
	}
	last := uint64(nd.Rounds() - 1)
	var input []int32
	for v := range core.Rank(n) {
		input = append(input, nd.Store()[v]...)
	}
	slices.Sort(input)
	for _, p := range rep.Processes {
		if p.Killed {
			continue
		}
		i := slices.IndexFunc(p.Returns, func(rt returned) bool { return rt.Instance == last })
		if i < 0 {
			continue // reported by run as not finished
		}
		b, err := hex.DecodeString(p.Returns[i].enc)
		var lists hq.Lists
		if err == nil {
			lists, err = hq.DecodeLists(b, n)
		}
		if err != nil {
			return "", []string{fmt.Sprintf("p%d: its last output does not decode: %v", p.Rank, err)}
		}
		all := slices.Concat(lists...)
		var problems []string
		if !slices.IsSorted(all) {
			problems = append(problems, fmt.Sprintf("the lists by virtual rank are not sorted: %v", lists))
		}
		got := slices.Sorted(slices.Values(all))
		if !slices.Equal(got, input) {
			problems = append(problems, fmt.Sprintf("the lists by virtual rank hold %s, not the input %s", hq.FormatValues(got), hq.FormatValues(input)))
		}
		note := fmt.Sprintf("the lists by virtual rank after round %d (p%d's copy of the store), concatenated: %s: %d values, sorted %v, a permutation of the input %v",
			last, p.Rank, hq.FormatValues(all), len(all), slices.IsSorted(all), slices.Equal(got, input))
		return note, problems
	}
	return "", nil
}

// barrierGate is the parent's side of a gated scenario (hyperquicksort):
// it calls each round at every live process once all of them returned the
// previous one, --interval later, making first the kills whose time has
// come and waiting until every survivor stepped their reports.
type barrierGate struct {
	h        *runHeader
	rounds   int
	released int
	due      []bool
	at       time.Time // when the current barrier was seen complete (zero: not yet)
	armed    bool      // a wake-up is set for the end of the pause
	wake     chan struct{}
}

// newBarrierGate is the gate of a run of h: as many barriers as each
// process has calls.
func newBarrierGate(h *runHeader) (*barrierGate, error) {
	p, err := registry.Lookup(h.Model)
	if err != nil {
		return nil, err
	}
	r, err := p.BuildParams(h.Params)
	if err == nil {
		r, err = runnerFor(runScenarios[h.Model], r)
	}
	if err != nil {
		return nil, err
	}
	em, ok := registry.EnvModel(r)
	if !ok {
		return nil, fmt.Errorf("run %s: not a network model", h.Model)
	}
	return &barrierGate{h: h, rounds: len(em.Init()[0].Calls(0)), due: make([]bool, len(h.Kills)), wake: make(chan struct{}, 1)}, nil
}

// wakeup is the channel on which the gate wakes the run's loop (nil, never
// ready, without a gate).
func (g *barrierGate) wakeup() <-chan struct{} {
	if g == nil {
		return nil
	}
	return g.wake
}

// sleep wakes the run's loop after d.
func (g *barrierGate) sleep(d time.Duration) {
	time.AfterFunc(d, func() {
		select {
		case g.wake <- struct{}{}:
		default:
		}
	})
}

// step advances the gate: kill(i) makes kill i, call(r) calls the next
// round at live rank r; live(r) and returned(r) read the run's state,
// told(q, r) whether live rank r stepped q's report, and pending is the
// number of kills whose exit is not yet seen.
func (g *barrierGate) step(now time.Time, interval time.Duration, live func(r int) bool, returned func(r int) int, told func(q, r int) bool, pending int,
	kill func(i int), call func(r int)) {
	if g.released == g.rounds || pending > 0 {
		return
	}
	for r := range g.h.N {
		if live(r) && returned(r) < g.released {
			return
		}
	}
	made := false
	for i, k := range g.h.Kills {
		if !k.Done && (g.due[i] || k.At == 0) {
			kill(i)
			made = true
		}
	}
	if made {
		return
	}
	for _, k := range g.h.Kills {
		for r := range g.h.N {
			if k.Done && live(r) && !told(int(k.Rank), r) {
				return
			}
		}
	}
	if g.released > 0 {
		if g.at.IsZero() {
			g.at = now
		}
		if wait := g.at.Add(interval).Sub(now); wait > 0 {
			if !g.armed {
				g.armed = true
				g.sleep(wait)
			}
			return
		}
	}
	for r := range g.h.N {
		if live(r) {
			call(r)
		}
	}
	g.released++
	g.at, g.armed = time.Time{}, false
}
