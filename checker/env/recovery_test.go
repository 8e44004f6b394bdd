package env

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// disk is the crash-recovery toy. Its call (in) writes V to stable storage
// and sends it to the next process of the ring; it counts, in volatile
// memory, the messages it received, the peers reported dead and not back,
// and the restarts reported to it. Its Recover keeps the stable part (the
// value written, the restarts) and drops the rest; Restart counts the
// restart and fails if anything volatile survived (or rearm: arms timer
// 7, whose firing changes nothing). Recovered fails for a peer not
// reported dead.
type disk struct {
	me    core.Rank
	n     int
	rearm bool
	lax   bool  // Restart does not check that the volatile state is gone
	d     int64 // stable: the value written
	boots uint8 // stable: the restarts
	down  core.RankSet
	ups   uint8
	got   uint8
}

func newDisk(rearm bool) func(p core.Rank, n int) core.Machine {
	return func(p core.Rank, n int) core.Machine { return &disk{me: p, n: n, rearm: rearm} }
}

func (t *disk) Clone() core.Machine {
	c := *t
	c.down = t.down.Clone()
	return &c
}

func (t *disk) Recover() core.Machine {
	return &disk{me: t.me, n: t.n, rearm: t.rearm, lax: t.lax, d: t.d, boots: t.boots}
}

func (t *disk) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		x := ev.Input.(in)
		t.d = x.V
		return append(out, core.Send(core.Rank((int(t.me)+1)%t.n), msg{V: x.V})), nil
	case core.EvReceive:
		t.got++
	case core.EvSuspect:
		t.down.Add(ev.Peer)
	case core.EvRecovered:
		if !t.down.Has(ev.Peer) {
			return out, fmt.Errorf("%v reported back, never reported dead", ev.Peer)
		}
		t.down.Remove(ev.Peer)
		t.ups++
	case core.EvRestart:
		if !t.lax && (!t.down.Empty() || t.ups != 0 || t.got != 0) {
			return out, errors.New("volatile state survived the crash")
		}
		t.boots++
		if t.rearm {
			out = append(out, core.Effect{Kind: core.EffSetTimer, Timer: 7})
		}
	case core.EvTimer:
	default:
		return out, fmt.Errorf("unexpected event %v", ev)
	}
	return out, nil
}

func (t *disk) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(t.me))
	b = core.AppendInt(b, t.d)
	b = append(b, t.boots, t.ups, t.got)
	return t.down.AppendBinary(b)
}

func (t *disk) String() string {
	return fmt.Sprintf("%v d=%d boots=%d down=%v ups=%d got=%d", t.me, t.d, t.boots, t.down, t.ups, t.got)
}

// diskConfig is the disk toy at n processes, crashes and recoveries, every
// process calling with value 10+p when calls is set.
func diskConfig(n, crashes, recoveries int, calls bool, det Detector) Config {
	c := Config{Name: "disk", N: n, Crashes: crashes, Faults: CrashRecovery, Recoveries: recoveries, Detector: det, NewNode: newDisk(false)}
	if calls {
		vals := make([]int64, n)
		for p := range vals {
			vals[p] = int64(10 + p)
		}
		c.Schedules = [][][]core.Input{one(vals...)}
	}
	return c
}

// diskAbs is the disk toy's world as the brute-force enumerator below
// keeps it, written from the semantics of recovery.go, not from its code.
type diskAbs struct {
	crashed, made []bool
	d             []int64
	boots, ups    []int
	got, inflight []int
	down          []uint64 // bit q: p believes q dead (the detector told it; env.World.Detected)
	spent         int
}

func (a diskAbs) key() string { return fmt.Sprint(a) }

func (a diskAbs) clone() diskAbs {
	return diskAbs{slices.Clone(a.crashed), slices.Clone(a.made), slices.Clone(a.d), slices.Clone(a.boots), slices.Clone(a.ups),
		slices.Clone(a.got), slices.Clone(a.inflight), slices.Clone(a.down), a.spent}
}

// bruteDisk counts the worlds of diskConfig by its own search.
func bruteDisk(n, crashes, recoveries int, calls bool, det Detector) int {
	init := diskAbs{make([]bool, n), make([]bool, n), make([]int64, n), make([]int, n), make([]int, n), make([]int, n), make([]int, n), make([]uint64, n), 0}
	seen := map[string]bool{init.key(): true}
	queue := []diskAbs{init}
	add := func(a diskAbs) {
		if !seen[a.key()] {
			seen[a.key()] = true
			queue = append(queue, a)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		recovered := 0
		for _, b := range s.boots {
			recovered += b
		}
		for p := range n {
			if !s.crashed[p] {
				if calls && !s.made[p] {
					a := s.clone()
					a.made[p], a.d[p] = true, int64(10+p)
					if to := (p + 1) % n; !a.crashed[to] {
						a.inflight[to]++
					}
					add(a)
				}
				if s.inflight[p] > 0 {
					a := s.clone()
					a.inflight[p]--
					a.got[p]++
					add(a)
				}
				if s.spent < crashes {
					a := s.clone()
					a.crashed[p], a.inflight[p] = true, 0
					a.spent++
					add(a)
				}
				for q := range n {
					bit := uint64(1) << q
					if det == DetectorPerfect && s.crashed[q] && s.down[p]&bit == 0 {
						a := s.clone()
						a.down[p] |= bit
						add(a)
					}
					if !s.crashed[q] && s.down[p]&bit != 0 {
						a := s.clone()
						a.down[p] &^= bit
						a.ups[p]++
						add(a)
					}
				}
				continue
			}
			told := true
			for r := range n {
				if det == DetectorPerfect && !s.crashed[r] && s.down[r]&(1<<p) == 0 {
					told = false
				}
			}
			if recovered < recoveries && told {
				a := s.clone()
				a.crashed[p] = false
				a.boots[p]++
				a.down[p], a.ups[p], a.got[p] = 0, 0, 0
				add(a)
			}
		}
	}
	return len(seen)
}

// TestRecoverCounts: the disk toy's worlds, counted by hand for two
// processes without calls (perfect detector: the start, then per process
// its crash, the survivor told, its restart, the survivor told of it: 1 +
// 2×4 = 9; no detector: 1 + 2×2 = 5; no recovery: 1 + 2×2 and 1 + 2×1),
// and by the brute-force enumerator bruteDisk on larger ones.
func TestRecoverCounts(t *testing.T) {
	for _, c := range []struct {
		n, f, r int
		calls   bool
		det     Detector
		want    int
	}{
		{2, 1, 1, false, DetectorPerfect, 9},
		{2, 1, 1, false, DetectorNone, 5},
		{2, 1, 0, false, DetectorPerfect, 5},
		{2, 1, 0, false, DetectorNone, 3},
		{2, 2, 1, true, DetectorPerfect, -1},
		{2, 2, 2, true, DetectorPerfect, -1},
		{2, 2, 2, true, DetectorNone, -1},
		{3, 2, 1, true, DetectorPerfect, -1},
		{3, 3, 2, false, DetectorPerfect, -1},
	} {
		name := fmt.Sprintf("n=%d f=%d r=%d calls=%v %v", c.n, c.f, c.r, c.calls, c.det)
		m := mustNew(t, diskConfig(c.n, c.f, c.r, c.calls, c.det))
		maxRec := 0
		got := explore(t, m, 1e6, func(s *World, as []checker.Action) {
			maxRec = max(maxRec, s.Recoveries())
			q := true
			for _, a := range as {
				q = q && m.Ignorable(a)
			}
			if q != m.Quiescent(s) {
				t.Fatalf("%s: %v quiescent %v, but its actions %v", name, s, m.Quiescent(s), as)
			}
		})
		want := c.want
		if want < 0 {
			want = bruteDisk(c.n, c.f, c.r, c.calls, c.det)
		}
		if got != want {
			t.Errorf("%s: %d worlds, want %d", name, got, want)
		}
		if maxRec != min(c.r, c.f) {
			t.Errorf("%s: %d restarts at most, want %d", name, maxRec, min(c.r, c.f))
		}
		t.Logf("%s: %d worlds", name, got)
	}
}

// TestRecoverRestartsStable: a restarted process has exactly its stable
// state (the value written and its restarts; nothing received, no peer
// believed dead), an empty inbox, no detection, its next incarnation; a
// message sent to it while it was down is lost and one it sent before its
// crash is still delivered; the survivor, told of its crash, is told of
// its restart (EvRecovered), which the restart needed; the recovery
// budget is spent.
func TestRecoverRestartsStable(t *testing.T) {
	m := mustNew(t, diskConfig(2, 2, 1, true, DetectorPerfect))
	s := run(t, m, m.Init()[0],
		act(Call, 1, 0, 0),    // p1 writes 11, sends it to p0
		act(Call, 0, 0, 0),    // p0 writes 10, sends it to p1
		act(Deliver, 1, 0, 0), // p1 got 1 (volatile)
		act(Crash, 1, 0, 0))
	if has(m.Actions(s, nil), act(Recover, 1, 0, 0)) {
		t.Fatal("Recover(p1) enabled before p0 was told p1 crashed")
	}
	if _, err := m.Apply(s, act(Recover, 1, 0, 0)); !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("Recover before the detection: %v, want ErrNotEnabled", err)
	}
	s = run(t, m, s, act(Detect, 0, 1, 0), act(Recover, 1, 0, 0))
	node := s.Node(1).(*disk)
	if node.d != 11 || node.boots != 1 || node.got != 0 || !node.down.Empty() || node.ups != 0 {
		t.Fatalf("p1 restarted as %v, want d=11 boots=1 and nothing volatile", node)
	}
	if s.Crashed(1) || s.Incarnation(1) != 1 || s.Incarnation(0) != 0 || s.Recoveries() != 1 || s.Spent() != 1 || len(s.Timers(1)) != 0 {
		t.Fatalf("after the restart: crashed %v, incarnations %d %d, recoveries %d, spent %d", s.Crashed(1), s.Incarnation(0), s.Incarnation(1), s.Recoveries(), s.Spent())
	}
	if len(s.InFlight()) != 1 || s.InFlight()[0].To != 0 {
		t.Fatalf("in flight after the restart: %v, want p1's message to p0 only", s.InFlight())
	}
	if s.LastActor() != 1 || s.LastEffects() != nil {
		t.Fatalf("restart step: actor %v effects %v", s.LastActor(), s.LastEffects())
	}
	as := m.Actions(s, nil)
	if !has(as, act(DetectRecover, 0, 1, 0)) || !s.Detected(0, 1) {
		t.Fatalf("p0 not about to be told of p1's restart: %v", as)
	}
	s = run(t, m, s, act(DetectRecover, 0, 1, 0))
	if n0 := s.Node(0).(*disk); n0.ups != 1 || n0.down.Has(1) || s.Detected(0, 1) {
		t.Fatalf("p0 after the report: %v, detected %v", n0, s.Detected(0, 1))
	}
	s = run(t, m, s, act(Deliver, 0, 1, 0), act(Crash, 0, 0, 0), act(Detect, 1, 0, 0))
	if has(m.Actions(s, nil), act(Recover, 0, 0, 0)) {
		t.Fatal("Recover(p0) enabled with the recovery budget spent")
	}
	if !m.Quiescent(s) || s.Spent() != 2 {
		t.Fatalf("%v: quiescent %v, spent %d", s, m.Quiescent(s), s.Spent())
	}
	if d := m.Describe(s, act(Recover, 0, 0, 0)); !strings.Contains(d, "recovery budget 1 spent") {
		t.Fatalf("Describe: %s", d)
	}
}

// TestRecoverTimers: the restart step's effects are carried out (rearm:
// timer 7 is armed, then fires), and a crash disarms it.
func TestRecoverTimers(t *testing.T) {
	c := diskConfig(2, 1, 1, false, DetectorNone)
	c.NewNode = newDisk(true)
	m := mustNew(t, c)
	s := run(t, m, m.Init()[0], act(Crash, 0, 0, 0), act(Recover, 0, 0, 0))
	if !slices.Equal(s.Timers(0), []uint64{7}) || m.Quiescent(s) {
		t.Fatalf("after the restart: timers %v, quiescent %v", s.Timers(0), m.Quiescent(s))
	}
	s = run(t, m, s, act(Fire, 0, 0, 7))
	if !m.Quiescent(s) {
		t.Fatal("not quiescent once the timer fired")
	}
}

// TestRecoverConfig: CrashRecovery refuses nodes that are no
// core.Recoverable, Fail, Hosts, ForgetCrashed and DropAbsorbed; a
// recovery budget needs CrashRecovery.
func TestRecoverConfig(t *testing.T) {
	base := diskConfig(2, 1, 1, false, DetectorPerfect)
	for name, mod := range map[string]func(c *Config){
		"not recoverable": func(c *Config) { c.NewNode = newFlood },
		"fail":            func(c *Config) { c.Fail = []core.Rank{0} },
		"hosts":           func(c *Config) { c.Hosts = []core.Rank{0, 0} },
		"forget":          func(c *Config) { c.ForgetCrashed = true },
		"drop":            func(c *Config) { c.DropAbsorbed = true },
		"crash-stop":      func(c *Config) { c.Faults = CrashStop },
		"negative":        func(c *Config) { c.Recoveries = -1 },
		"unknown faults":  func(c *Config) { c.Faults = 7 },
	} {
		c := base
		mod(&c)
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	if f, err := ParseFaults("crash-recovery"); err != nil || f != CrashRecovery || f.String() != "crash-recovery" {
		t.Errorf("ParseFaults: %v %v", f, err)
	}
	if m := mustNew(t, base); m.Name() != "disk n=2 crashes=1 recoveries=1" {
		t.Errorf("Name %q", m.Name())
	}
}
