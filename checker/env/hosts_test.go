package env

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// watcher is the toy of the placement tests: it records the peers it is
// told are dead, and nothing else (no calls, messages or timers).
type watcher struct{ dead core.RankSet }

func (w *watcher) Clone() core.Machine          { c := *w; c.dead = w.dead.Clone(); return &c }
func (w *watcher) AppendBinary(b []byte) []byte { return w.dead.AppendBinary(b) }
func (w *watcher) String() string               { return "dead=" + w.dead.String() }
func (w *watcher) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	if ev.Kind != core.EvSuspect {
		return out, fmt.Errorf("unexpected %v", ev)
	}
	w.dead.Add(ev.Peer)
	return out, nil
}

// hostsConfig: three ranks, p0 hosting p1, p2 on its own.
func hostsConfig(det Detector, crashes int) Config {
	return Config{Name: "hosts", N: 3, Crashes: crashes, Detector: det,
		Hosts:   []core.Rank{0, 0, 2},
		NewNode: func(core.Rank, int) core.Machine { return &watcher{} },
		Codec: Codec{
			Node: func(b []byte, _ core.Rank, n int) (core.Machine, error) {
				d := core.NewDecoder(b)
				w := &watcher{dead: core.DecodeRankSet(d, n)}
				return w, d.Finish()
			},
			Message: func([]byte) (core.Message, error) { return nil, errors.New("no messages") },
		},
	}
}

// TestHostsHandCounted counts the worlds of three ranks, p0 hosting p1 and
// p2 alone, by hand. DetectorLocal, budget 1: p0's crash takes p1 along and
// nobody hears of it (1 world), p1's crash is reported to p0 only (before
// and after: 2), p2's crash to no one (1); with the initial world, 5.
// Perfect detector, budget 1: each crash leaves two live ranks with two
// detections or one live rank with two (p0's crash kills p1: p2 learns of
// both), 4 worlds each: 1 + 3·4 = 13.
// DetectorLocal, budget 2 (the worlds as crashed set, budget spent and
// whether p0 knows p1 died): {}0; {0,1}1 and then {0,1,2}2; {1}1 unknown,
// {1}1 known, then {0,1}2 unknown, {0,1}2 known, {1,2}2 unknown, {1,2}2
// known; {2}1, whose successors {0,1,2}2 and {1,2}2 unknown are met
// above: 10 worlds. {0,1}1 and {0,1}2 differ only by the budget spent: p1
// crashed alone before its host, or with it.
func TestHostsHandCounted(t *testing.T) {
	for _, tc := range []struct {
		det     Detector
		crashes int
		want    int
	}{{DetectorLocal, 1, 5}, {DetectorPerfect, 1, 13}, {DetectorLocal, 2, 10}} {
		m := mustNew(t, hostsConfig(tc.det, tc.crashes))
		got := explore(t, m, 100, func(s *World, as []checker.Action) {
			for _, a := range as {
				if a.Kind == Detect && tc.det == DetectorLocal && (a.P != 0 || a.Q != 1) {
					t.Errorf("%v in %v: the local detector reports p1 to p0 only", a, s)
				}
			}
		})
		if got != tc.want {
			t.Errorf("%v detector, budget %d: %d worlds, want %d (hand count)", tc.det, tc.crashes, got, tc.want)
		}
	}
}

// TestHostsGroupCrash: a host's crash takes its hosted ranks in one step
// and one crash of the budget; a hosted rank's crash is reported to its
// host only, and its host may still crash afterwards.
func TestHostsGroupCrash(t *testing.T) {
	m := mustNew(t, hostsConfig(DetectorLocal, 2))
	s0 := m.Init()[0]
	s := run(t, m, s0, act(Crash, 0, 0, 0))
	if !s.Crashed(1) || s.NumCrashed() != 2 || s.Spent() != 1 {
		t.Fatalf("after p0's crash: crashed %v, spent %d; want {p0,p1}, 1", s.CrashedSet(), s.Spent())
	}
	if as := m.Actions(s, nil); len(as) != 1 || as[0] != act(Crash, 2, 0, 0) {
		t.Errorf("after p0's crash, actions %v; want only p2's crash (nobody hears of p0)", as)
	}
	s = run(t, m, s0, act(Crash, 1, 0, 0))
	if !has(m.Actions(s, nil), act(Detect, 0, 1, 0)) || m.Quiescent(s) {
		t.Fatalf("after p1's crash: Detect(p0, p1) must be pending")
	}
	if _, err := m.Apply(s, act(Detect, 2, 1, 0)); !errors.Is(err, ErrNotEnabled) {
		t.Errorf("Detect(p2, p1): err %v, want ErrNotEnabled (p2 does not host p1)", err)
	}
	known := run(t, m, s, act(Detect, 0, 1, 0))
	if !known.Node(0).(*watcher).dead.Has(1) || !m.Quiescent(run(t, m, known, act(Crash, 2, 0, 0))) {
		t.Errorf("p0 must learn of p1, and the world be quiescent once the budget is spent")
	}
	both := run(t, m, s, act(Crash, 0, 0, 0))
	if both.Spent() != 2 || m.Encode(nil, both) == nil || enc(m, both) == enc(m, run(t, m, s0, act(Crash, 0, 0, 0))) {
		t.Errorf("p1 then p0 (2 crashes spent) must differ from p0 with p1 (1 spent)")
	}
}

// TestHostsConfig: DetectorLocal needs Hosts; Hosts must be a valid
// one-level placement, without Fail; a hosted survivor dies only with its
// host.
func TestHostsConfig(t *testing.T) {
	bad := map[string]func(c *Config){
		"local without hosts":  func(c *Config) { c.Hosts = nil },
		"short":                func(c *Config) { c.Hosts = []core.Rank{0, 0} },
		"out of range":         func(c *Config) { c.Hosts = []core.Rank{0, 3, 2} },
		"two levels":           func(c *Config) { c.Hosts = []core.Rank{0, 0, 1} },
		"with fail":            func(c *Config) { c.Fail = []core.Rank{2} },
		"unknown detector (4)": func(c *Config) { c.Detector = 4 },
	}
	for name, f := range bad {
		c := hostsConfig(DetectorLocal, 1)
		f(&c)
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want ErrConfig", name, err)
		}
	}
	c := hostsConfig(DetectorLocal, 1)
	c.Survivors = []core.Rank{1}
	m := mustNew(t, c)
	s0 := m.Init()[0]
	if has(m.Actions(s0, nil), act(Crash, 1, 0, 0)) {
		t.Errorf("survivor p1 may crash alone")
	}
	if s := run(t, m, s0, act(Crash, 0, 0, 0)); !s.Crashed(1) {
		t.Errorf("survivor p1 must die with its host p0")
	}
	if d, err := ParseDetector("local"); err != nil || d != DetectorLocal || d.String() != "local" {
		t.Errorf("ParseDetector(local) = %v, %v", d, err)
	}
}

// TestHostsDecodeAndSample: every world decodes to one that encodes
// equally (the budget spent included), and random walks take only
// enabled actions and end exactly at quiescent worlds.
func TestHostsDecodeAndSample(t *testing.T) {
	for _, det := range []Detector{DetectorLocal, DetectorPerfect} {
		c := hostsConfig(det, 2)
		c.CrashProb = 0.3
		m := mustNew(t, c)
		explore(t, m, 100, func(s *World, _ []checker.Action) {
			d, err := m.Decode(m.Encode(nil, s))
			if err != nil {
				t.Fatalf("%v: %v", s, err)
			}
			if enc(m, d) != enc(m, s) || m.Fingerprint(d) != m.Fingerprint(s) || m.Quiescent(d) != m.Quiescent(s) {
				t.Errorf("%v: decoded world differs", s)
			}
		})
		r := rand.New(rand.NewPCG(1, 2))
		for range 200 {
			s := m.Init()[0]
			for {
				a, ok := m.Sample(s, r, nil)
				if !ok {
					if !m.Quiescent(s) {
						t.Fatalf("walk ended in non-quiescent %v", s)
					}
					break
				}
				if !has(m.Actions(s, nil), a) && a.Kind != Crash {
					t.Fatalf("sampled %v, not enabled in %v", a, s)
				}
				s = run(t, m, s, a)
			}
		}
	}
	m := mustNew(t, hostsConfig(DetectorLocal, 1))
	s := run(t, m, m.Init()[0], act(Crash, 0, 0, 0))
	b := m.Encode(nil, s)
	if _, err := m.Decode(b[:len(b)-1]); err == nil {
		t.Errorf("a truncated encoding decoded")
	}
}
