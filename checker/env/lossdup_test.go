package env

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// pipe is the loss and duplication toy: p0's call sends the values of seq
// to p1, in order, and p1 records what it receives, in order.
type pipe struct {
	me   core.Rank
	seq  []int64 // constant, not encoded
	sent bool
	got  []int64
}

func newPipe(seq ...int64) func(p core.Rank, n int) core.Machine {
	return func(p core.Rank, n int) core.Machine { return &pipe{me: p, seq: seq} }
}

func (t *pipe) Clone() core.Machine {
	c := *t
	c.got = slices.Clone(t.got)
	return &c
}

func (t *pipe) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		t.sent = true
		for _, v := range t.seq {
			out = append(out, core.Send(1, msg{V: v}))
		}
	case core.EvReceive:
		t.got = append(t.got, ev.Msg.(msg).V)
	default:
		return out, fmt.Errorf("unexpected event %v", ev)
	}
	return out, nil
}

func (t *pipe) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(t.me))
	b = core.AppendBool(b, t.sent)
	b = core.AppendUint(b, uint64(len(t.got)))
	for _, v := range t.got {
		b = core.AppendInt(b, v)
	}
	return b
}

func (t *pipe) String() string { return fmt.Sprintf("%v sent=%v got=%v", t.me, t.sent, t.got) }

func pipeCodec(seq ...int64) Codec {
	return Codec{Message: decodeMsg, Node: func(b []byte, p core.Rank, n int) (core.Machine, error) {
		d := core.NewDecoder(b)
		t := &pipe{me: d.Rank(n), seq: seq, sent: d.Bool()}
		for range d.Len(d.Remaining()) {
			t.got = append(t.got, d.Int())
		}
		if err := d.Finish(); err != nil {
			return nil, err
		}
		return t, nil
	}}
}

// pipeConfig is the pipe toy sending seq under net, with loss budget l
// (LossAny; 0: LossNone) and duplication budget dup.
func pipeConfig(net Network, l, dup int, seq ...int64) Config {
	c := Config{Name: "pipe", N: 2, Network: net, Losses: l, Duplicates: dup, NewNode: newPipe(seq...),
		Schedules: [][][]core.Input{{{in{}}, nil}}, Codec: pipeCodec(seq...)}
	if l > 0 {
		c.Loss = LossAny
	}
	return c
}

// brutePipe counts the worlds of pipeConfig by its own search over (sent,
// channel, received, lost, duplicated), the channel a sequence (FIFO) or a
// sorted multiset (Unordered), from the semantics of lossdup.go: any
// message may be lost, or duplicated next to itself.
func brutePipe(net Network, l, dup int, seq ...int64) int {
	type state struct {
		sent        bool
		ch, got     []int64
		lost, duped int
	}
	key := func(s state) string { return fmt.Sprint(s) }
	norm := func(ch []int64) []int64 {
		if net == Unordered {
			slices.Sort(ch)
		}
		return ch
	}
	seen := map[string]bool{}
	var queue []state
	add := func(s state) {
		s.ch = norm(s.ch)
		if !seen[key(s)] {
			seen[key(s)] = true
			queue = append(queue, s)
		}
	}
	add(state{})
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if !s.sent {
			add(state{sent: true, ch: slices.Clone(seq)})
		}
		for i, v := range s.ch {
			if i == 0 || net == Unordered {
				add(state{true, slices.Delete(slices.Clone(s.ch), i, i+1), append(slices.Clone(s.got), v), s.lost, s.duped})
			}
			if s.lost < l {
				add(state{true, slices.Delete(slices.Clone(s.ch), i, i+1), slices.Clone(s.got), s.lost + 1, s.duped})
			}
			if s.duped < dup {
				add(state{true, slices.Insert(slices.Clone(s.ch), i, v), slices.Clone(s.got), s.lost, s.duped + 1})
			}
		}
	}
	return len(seen)
}

// TestLossDupCounts: the pipe toy's worlds, counted by hand for one
// message with a loss and a duplicate (the start; sent; then delivered,
// lost, or duplicated, and from two copies each way to end with one
// delivered and one lost, or two delivered: 1 + 8 = 9), and by the
// brute-force enumerator brutePipe on larger ones; the budgets are never
// exceeded and are reached.
func TestLossDupCounts(t *testing.T) {
	for _, c := range []struct {
		net    Network
		l, dup int
		seq    []int64
		want   int
	}{
		{Unordered, 1, 1, []int64{1}, 9},
		{FIFO, 1, 1, []int64{1}, 9},
		{Unordered, 0, 0, []int64{1}, 3},
		{Unordered, 2, 0, []int64{1, 2, 3}, -1},
		{FIFO, 2, 0, []int64{1, 2, 3}, -1},
		{Unordered, 0, 2, []int64{1, 2, 3}, -1},
		{FIFO, 0, 2, []int64{1, 2, 3}, -1},
		{FIFO, 2, 2, []int64{1, 2, 1}, -1},
		{Unordered, 2, 2, []int64{1, 2, 1}, -1},
		{FIFO, 1, 3, []int64{1, 2}, -1},
	} {
		name := fmt.Sprintf("%v loss=%d dup=%d %v", c.net, c.l, c.dup, c.seq)
		m := mustNew(t, pipeConfig(c.net, c.l, c.dup, c.seq...))
		maxL, maxD := 0, 0
		got := explore(t, m, 1e6, func(s *World, as []checker.Action) {
			maxL, maxD = max(maxL, s.Lost()), max(maxD, s.Duplicated())
			for _, a := range as {
				if a.Kind == Lose && s.Lost() >= c.l || a.Kind == Duplicate && s.Duplicated() >= c.dup {
					t.Fatalf("%s: %s enabled with its budget spent", name, m.Describe(s, a))
				}
			}
			if (len(as) == 0) != m.Quiescent(s) {
				t.Fatalf("%s: %v quiescent %v with actions %v", name, s, m.Quiescent(s), as)
			}
		})
		want := c.want
		if want < 0 {
			want = brutePipe(c.net, c.l, c.dup, c.seq...)
		}
		if got != want || maxL != c.l || maxD != c.dup {
			t.Errorf("%s: %d worlds, at most %d lost and %d duplicated; want %d worlds", name, got, maxL, maxD, want)
		}
		t.Logf("%s: %d worlds", name, got)
	}
}

// copies lists what is in flight to p1, in InFlight order.
func copies(w *World) []int64 {
	var out []int64
	for _, e := range w.InFlight() {
		out = append(out, e.Msg.(msg).V)
	}
	return out
}

// TestLossDupFIFO: under FIFO a duplicate is put right behind its
// original, any entry of a queue may be lost (not only its head), the
// neighbours an entry leaves are merged (so that the world decodes: the
// encoding stays canonical), and the budgets are spent one at a time.
func TestLossDupFIFO(t *testing.T) {
	m := mustNew(t, pipeConfig(FIFO, 2, 1, 1, 2, 1))
	s := run(t, m, m.Init()[0], act(Call, 0, 0, 0))
	d := run(t, m, s, act(Duplicate, 1, 0, 1))
	if got := copies(d); !slices.Equal(got, []int64{1, 2, 2, 1}) || d.Duplicated() != 1 || d.LastActor() != core.NoRank {
		t.Fatalf("duplicate of the second of 1 2 1: %v (%d duplicated)", got, d.Duplicated())
	}
	if _, err := m.Apply(d, act(Duplicate, 1, 0, 0)); !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("a second duplicate with a budget of 1: %v", err)
	}
	l := run(t, m, s, act(Lose, 1, 0, 1))
	if got := copies(l); !slices.Equal(got, []int64{1, 1}) || l.Lost() != 1 {
		t.Fatalf("loss of the second of 1 2 1: %v (%d lost)", got, l.Lost())
	}
	if as := m.Actions(l, nil); !slices.Equal(as, []checker.Action{act(Deliver, 1, 0, 0), act(Lose, 1, 0, 0), act(Duplicate, 1, 0, 0)}) {
		t.Fatalf("after the loss, 1 1 is one entry of two copies: actions %v", as)
	}
	if _, err := m.Decode(m.Encode(nil, l)); err != nil {
		t.Fatalf("the world after the loss does not decode: %v", err)
	}
	l2 := run(t, m, l, act(Lose, 1, 0, 0))
	if _, err := m.Apply(l2, act(Lose, 1, 0, 0)); !errors.Is(err, ErrNotEnabled) || l2.Lost() != 2 {
		t.Fatalf("a third loss with a budget of 2: %v (%d lost)", err, l2.Lost())
	}
	if d := m.Describe(s, act(Duplicate, 1, 0, 1)); d != "the network duplicates VAL(a=0, v=2) from p0 to p1" {
		t.Errorf("Describe: %q", d)
	}
}

// TestLossDupConfig: a loss budget needs LossAny and LossAny a budget;
// budgets are not negative; DropAbsorbed is refused with either.
func TestLossDupConfig(t *testing.T) {
	for name, c := range map[string]Config{
		"any without budget": pipeConfig(Unordered, 0, 0, 1),
		"budget on crash":    pipeConfig(Unordered, 1, 0, 1),
		"negative dup":       pipeConfig(Unordered, 0, -1, 1),
		"drop with loss":     pipeConfig(Unordered, 1, 0, 1),
		"drop with dup":      pipeConfig(Unordered, 0, 1, 1),
	} {
		switch name {
		case "any without budget":
			c.Loss = LossAny
		case "budget on crash":
			c.Loss = LossOnCrash
		case "drop with loss", "drop with dup":
			c.DropAbsorbed = true
		}
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	if l, err := ParseLoss("any"); err != nil || l != LossAny || l.String() != "any" {
		t.Errorf("ParseLoss: %v %v", l, err)
	}
	if m := mustNew(t, pipeConfig(FIFO, 2, 3, 1)); m.Name() != "pipe n=2 crashes=0 fifo loss=2 dup=3" {
		t.Errorf("Name %q", m.Name())
	}
}

// diskCodec decodes the disk toy.
func diskCodec(rearm bool) Codec {
	return Codec{Message: decodeMsg, Node: func(b []byte, p core.Rank, n int) (core.Machine, error) {
		d := core.NewDecoder(b)
		t := &disk{me: d.Rank(n), n: n, rearm: rearm, d: d.Int(), boots: d.Byte(), ups: d.Byte(), got: d.Byte()}
		t.down = core.DecodeRankSet(d, n)
		if err := d.Finish(); err != nil {
			return nil, err
		}
		return t, nil
	}}
}

// faultCodecConfigs are the toys of the fault budgets with codecs, for the
// round-trip tests of decode_test.go.
func faultCodecConfigs() map[string]Config {
	disk := diskConfig(3, 2, 1, true, DetectorPerfect)
	disk.Codec = diskCodec(false)
	diskLoss := diskConfig(3, 2, 2, true, DetectorNone)
	diskLoss.Loss, diskLoss.Losses, diskLoss.Duplicates, diskLoss.Codec = LossAny, 1, 1, diskCodec(true)
	diskLoss.NewNode = newDisk(true)
	diskDelay := disk
	diskDelay.Timing, diskDelay.Delta, diskDelay.Network = BoundedDelay, 2, FIFO
	return map[string]Config{
		"disk-recover":          disk,
		"disk-recover-loss-dup": diskLoss,
		"disk-recover-bounded":  diskDelay,
		"pipe-fifo-loss-dup":    pipeConfig(FIFO, 2, 2, 1, 2, 1),
		"pipe-loss-dup":         pipeConfig(Unordered, 2, 2, 1, 2, 1),
	}
}
