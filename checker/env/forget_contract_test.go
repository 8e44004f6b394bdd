package env_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
)

// keeper is the toy of the forgetting contract tests. On its call a
// process sends a keepPing to every other process and arms timer 1; each
// keepPing it receives counts in heard, each suspicion sets a bit of
// suspects, the clock's timer 2 sets woke; timer 1 returns the call and
// sets done. Forget keeps done, which keeperProps read of crashed
// processes, and resets the rest; the wrong variant drops done too.
type keeper struct {
	me       core.Rank
	heard    uint8
	suspects uint64
	woke     bool
	done     bool
	wrong    bool
}

type keepCall struct{}

func (keepCall) AppendBinary(b []byte) []byte { return append(b, 'K') }
func (keepCall) String() string               { return "Keep()" }

type keepPing struct{}

func (keepPing) AppendBinary(b []byte) []byte { return append(b, 'P') }
func (keepPing) String() string               { return "PING" }
func (keepPing) Kind() string                 { return "PING" }

func (k *keeper) Clone() core.Machine { c := *k; return &c }

func (k *keeper) AppendBinary(b []byte) []byte {
	b = append(b, k.heard)
	b = core.AppendUint(b, k.suspects)
	b = core.AppendBool(b, k.woke)
	return core.AppendBool(b, k.done)
}

func (k *keeper) String() string {
	return fmt.Sprintf("keeper %v heard=%d suspects=%b woke=%t done=%t", k.me, k.heard, k.suspects, k.woke, k.done)
}

func (k *keeper) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch {
	case ev.Kind == core.EvCall:
		for q := range core.Rank(3) {
			if q != k.me {
				out = append(out, core.Send(q, keepPing{}))
			}
		}
		return append(out, core.Effect{Kind: core.EffSetTimer, Timer: 1, Delay: 2}), nil
	case ev.Kind == core.EvReceive:
		k.heard++
	case ev.Kind == core.EvSuspect:
		k.suspects |= 1 << uint(ev.Peer)
	case ev.Kind == core.EvTimer && ev.Timer == 2:
		k.woke = true
	case ev.Kind == core.EvTimer && ev.Timer == 1 && !k.done:
		k.done = true
		return append(out, core.Return(0, nil)), nil
	default:
		return out, fmt.Errorf("keeper: unexpected %v", ev)
	}
	return out, nil
}

func (k *keeper) Forget() core.Machine {
	return &keeper{me: k.me, done: k.done && !k.wrong, wrong: k.wrong}
}

// keeperProps: done never goes back to false at the actor of a step (the
// crash step included), every process that returned is done (crashed ones
// included), and the perfect detector's completeness at quiescence.
var keeperProps = []checker.Property[*env.World]{
	{Name: "keeper-done-kept", Kind: checker.Transition,
		CheckStep: func(prev *env.World, _ checker.Action, next *env.World) error {
			p := next.LastActor()
			if p != core.NoRank && prev.Node(p).(*keeper).done && !next.Node(p).(*keeper).done {
				return fmt.Errorf("%v was done and is no longer", p)
			}
			return nil
		}},
	{Name: "keeper-returned-done", Kind: checker.Invariant,
		Check: func(w *env.World) error {
			for p := range core.Rank(w.N()) {
				if len(w.History(p)) > 0 && !w.Node(p).(*keeper).done {
					return fmt.Errorf("%v returned and is not done", p)
				}
			}
			return nil
		}},
	props.DetectorComplete("detector-complete", ""),
}

// keeperConfigs are three keepers, each calling once, under every kind of
// crash and clock the environment has: the perfect detector with two
// crashes (a process told of a crash may crash), a host whose crash takes
// its hosted rank, a Fail rank, the synchronized clock, lock-step rounds,
// bounded delay, FIFO with messages lost on crash, two schedules (p1 calls
// in the first only).
func keeperConfigs(wrong bool) (names []string, cfgs map[string]env.Config) {
	base := func() env.Config {
		return env.Config{N: 3, Crashes: 2, Detector: env.DetectorPerfect,
			NewNode:    func(p core.Rank, _ int) core.Machine { return &keeper{me: p, wrong: wrong} },
			Schedules:  [][][]core.Input{{{keepCall{}}, {keepCall{}}, {keepCall{}}}},
			Properties: keeperProps}
	}
	edits := []struct {
		name string
		edit func(c *env.Config)
	}{
		{"detector", func(c *env.Config) {}},
		{"hosts", func(c *env.Config) { c.Hosts, c.Crashes = []core.Rank{0, 0, 2}, 1 }},
		{"fail", func(c *env.Config) { c.Fail, c.Crashes, c.Detector = []core.Rank{1}, 0, env.DetectorNone }},
		{"clock", func(c *env.Config) { c.Wakeups, c.Crashes = []uint64{2}, 1 }},
		{"rounds", func(c *env.Config) { c.Timing, c.Crashes = env.LockStepRounds, 1 }},
		{"bounded", func(c *env.Config) {
			c.Timing, c.Delta, c.Crashes, c.Detector = env.BoundedDelay, 1, 1, env.DetectorNone
		}},
		{"fifo-lose", func(c *env.Config) { c.Network, c.Loss, c.Crashes = env.FIFO, env.LossOnCrash, 1 }},
		{"schedules", func(c *env.Config) {
			c.Schedules = append(c.Schedules, [][]core.Input{{keepCall{}}, nil, {keepCall{}}})
			c.Crashes = 1
		}},
	}
	cfgs = map[string]env.Config{}
	for _, e := range edits {
		c := base()
		c.Name = "keeper-" + e.name
		e.edit(&c)
		names = append(names, e.name)
		cfgs[e.name] = c
	}
	return names, cfgs
}

// keeperSample is what the tests below compare per configuration.
var keeperSample = envtest.ForgetSample{States: 3000, Seed: 1, Walks: 20, Depth: 60}

// keeperPair builds cfg without and with ForgetCrashed.
func keeperPair(t *testing.T, cfg env.Config) (plain, forget *env.Model) {
	t.Helper()
	plain, err := env.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ForgetCrashed = true
	forget, err = env.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return plain, forget
}

// TestForgetContractKeepers: on every keeper configuration the forgetting
// model reaches exactly the plain worlds with each crashed node replaced by
// its Forget and each crashed process's detections cleared (compared
// through the worlds' exported views and through Model.Forgotten), with
// the same enabled actions and verdicts (envtest.CheckForgetContract). The
// samples must hold worlds that forgetting changes, and, with the perfect
// detector and two crashes, a crashed process that had been told of a
// crash.
func TestForgetContractKeepers(t *testing.T) {
	names, cfgs := keeperConfigs(false)
	for _, name := range names {
		plain, forget := keeperPair(t, cfgs[name])
		rep, err := envtest.CheckForgetContract(plain, forget, keeperSample)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rep.Changed == 0 || rep.CrashSteps == 0 {
			t.Fatalf("%s: %d worlds, %d changed by forgetting, %d crash steps: vacuous", name, rep.Worlds, rep.Changed, rep.CrashSteps)
		}
		if c := cfgs[name]; c.Detector == env.DetectorPerfect && c.Crashes > 1 && !toldThenCrashed(t, plain) {
			t.Fatalf("%s: no world has a crashed process that was told of a crash", name)
		}
		t.Logf("%-10s worlds %5d (crashed %5d, changed %5d), steps %5d (crashes %5d), verdicts %6d", name, rep.Worlds, rep.Crashed, rep.Changed, rep.Steps, rep.CrashSteps, rep.Verdicts)
	}
}

// toldThenCrashed reports whether some world of m has a crashed process
// with a detection.
func toldThenCrashed(t *testing.T, m *env.Model) bool {
	t.Helper()
	found := errors.New("found")
	_, err := envtest.Explore(m, 100_000, func(w *env.World) error {
		for p := range core.Rank(w.N()) {
			for q := range core.Rank(w.N()) {
				if w.Crashed(p) && w.Detected(p, q) {
					return found
				}
			}
		}
		return nil
	})
	if err != nil && err != found {
		t.Fatal(err)
	}
	return err == found
}

// TestForgetContractCatchesWrongKeeper: the keeper whose Forget drops done
// makes envtest.CheckForgetContract name a property that reads it, on
// every configuration with a crash budget.
func TestForgetContractCatchesWrongKeeper(t *testing.T) {
	names, cfgs := keeperConfigs(true)
	for _, name := range names {
		if cfgs[name].Crashes == 0 {
			continue
		}
		plain, forget := keeperPair(t, cfgs[name])
		_, err := envtest.CheckForgetContract(plain, forget, keeperSample)
		if err == nil || !strings.Contains(err.Error(), "property keeper-") {
			t.Fatalf("%s: the guard says %v, want a keeper property's verdict to differ", name, err)
		}
	}
}
