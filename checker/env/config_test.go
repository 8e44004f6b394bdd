package env

import (
	"errors"
	"math"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

func TestNewRejectsBadConfig(t *testing.T) {
	ok := floodConfig(3)
	for _, tc := range []struct {
		name string
		edit func(c *Config)
	}{
		{"N zero", func(c *Config) { c.N = 0 }},
		{"negative crashes", func(c *Config) { c.Crashes = -1 }},
		{"crashes over N", func(c *Config) { c.Crashes = 4 }},
		{"unknown network", func(c *Config) { c.Network = 7 }},
		{"unknown loss", func(c *Config) { c.Loss = 2 }},
		{"unknown faults", func(c *Config) { c.Faults = 1 }},
		{"unknown detector", func(c *Config) { c.Detector = 2 }},
		{"unknown timing", func(c *Config) { c.Timing = 2 }},
		{"no NewNode", func(c *Config) { c.NewNode = nil }},
		{"nil node", func(c *Config) { c.NewNode = func(core.Rank, int) core.Machine { return nil } }},
		{"schedule too short", func(c *Config) { c.Schedules = [][][]core.Input{one(1, 2)} }},
		{"nil input", func(c *Config) { c.Schedules = [][][]core.Input{{{nil}, nil, nil}} }},
		{"fail out of range", func(c *Config) { c.Fail = []core.Rank{3} }},
		{"fail negative", func(c *Config) { c.Fail = []core.Rank{-1} }},
		{"fail twice", func(c *Config) { c.Fail = []core.Rank{1, 1} }},
		{"crash prob", func(c *Config) { c.CrashProb = 1.5 }},
		{"crash prob NaN", func(c *Config) { c.CrashProb = math.NaN() }},
		{"unnamed property", func(c *Config) {
			c.Properties = []checker.Property[*World]{{Kind: checker.Invariant, Check: func(*World) error { return nil }}}
		}},
		{"invariant without Check", func(c *Config) {
			c.Properties = []checker.Property[*World]{{Name: "x", Kind: checker.Invariant}}
		}},
		{"transition without CheckStep", func(c *Config) {
			c.Properties = []checker.Property[*World]{{Name: "x", Kind: checker.Transition}}
		}},
	} {
		cfg := ok
		tc.edit(&cfg)
		_, err := New(cfg)
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%s: New error = %v, want ErrConfig", tc.name, err)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	if _, err := New(ok); err != nil {
		t.Fatal(err)
	}
}

func TestNameAndInit(t *testing.T) {
	cfg := floodConfig(3)
	cfg.Network, cfg.Loss, cfg.Blocking, cfg.Fail = FIFO, LossOnCrash, true, []core.Rank{0, 2}
	cfg.Schedules = append(cfg.Schedules, one(5, 5, 5))
	m := mustNew(t, cfg)
	if got, want := m.Name(), "flood n=3 crashes=1 fifo lose-on-crash blocking fail=0,2"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
	init := m.Init()
	if len(init) != 2 || init[0].Schedule() != 0 || init[1].Schedule() != 1 {
		t.Fatalf("Init = %v", init)
	}
	if enc(m, init[0]) == enc(m, init[1]) {
		t.Error("different schedules encode equally")
	}
	if got := init[1].PendingCalls(2); len(got) != 1 || got[0] != (in{V: 5}) {
		t.Errorf("PendingCalls = %v", got)
	}
	noCalls := mustNew(t, Config{N: 2, NewNode: newFlood})
	if s := noCalls.Init(); len(s) != 1 || !noCalls.Quiescent(s[0]) || noCalls.Name() != "env n=2 crashes=0" {
		t.Errorf("model without schedules: %v %q", s, noCalls.Name())
	}
}
