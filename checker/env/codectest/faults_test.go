package codectest

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// acceptor is a crash-recovery toy with a codec: its call sends its value
// to every process; it keeps on stable storage the highest value it has
// received (promised) and forgets, on restart, how many messages it
// received (seen) and the peers reported dead (down). Its restart sends
// its promise to everyone again.
type acceptor struct {
	me, n    int
	promised int64
	seen     uint8
	down     core.RankSet
}

type val int64

func (v val) AppendBinary(b []byte) []byte { return core.AppendInt(b, int64(v)) }
func (v val) String() string               { return fmt.Sprint(int64(v)) }
func (v val) Kind() string                 { return "VAL" }

func (a *acceptor) Clone() core.Machine { c := *a; c.down = a.down.Clone(); return &c }
func (a *acceptor) Recover() core.Machine {
	return &acceptor{me: a.me, n: a.n, promised: a.promised}
}

func (a *acceptor) all(v int64, out []core.Effect) []core.Effect {
	for q := range a.n {
		out = append(out, core.Send(core.Rank(q), val(v)))
	}
	return out
}

func (a *acceptor) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		return a.all(int64(ev.Input.(val)), out), nil
	case core.EvReceive:
		a.seen++
		a.promised = max(a.promised, int64(ev.Msg.(val)))
	case core.EvSuspect:
		a.down.Add(ev.Peer)
	case core.EvRecovered:
		a.down.Remove(ev.Peer)
	case core.EvRestart:
		if a.promised > 0 {
			return a.all(a.promised, out), nil
		}
	default:
		return out, fmt.Errorf("unexpected %v", ev)
	}
	return out, nil
}

func (a *acceptor) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(a.me))
	b = core.AppendInt(b, a.promised)
	b = append(b, a.seen)
	return a.down.AppendBinary(b)
}

func (a *acceptor) String() string {
	return fmt.Sprintf("p%d promised=%d seen=%d down=%v", a.me, a.promised, a.seen, a.down)
}

var acceptorCodec = env.Codec{
	Node: func(b []byte, p core.Rank, n int) (core.Machine, error) {
		d := core.NewDecoder(b)
		a := &acceptor{me: int(d.Rank(n)), n: n, promised: d.Int(), seen: d.Byte()}
		a.down = core.DecodeRankSet(d, n)
		return a, d.Finish()
	},
	Message: func(b []byte) (core.Message, error) {
		d := core.NewDecoder(b)
		v := val(d.Int())
		return v, d.Finish()
	},
}

// faultModels are the acceptor toy under crash-recovery with a budgeted
// loss and duplication, unordered and FIFO, with and without a detector.
func faultModels(t *testing.T) map[string]*env.Model {
	out := map[string]*env.Model{}
	for _, net := range []env.Network{env.Unordered, env.FIFO} {
		for _, det := range []env.Detector{env.DetectorPerfect, env.DetectorNone} {
			cfg := env.Config{Name: "acceptor", N: 3, Crashes: 2, Faults: env.CrashRecovery, Recoveries: 2,
				Loss: env.LossAny, Losses: 2, Duplicates: 1, Network: net, Detector: det, Codec: acceptorCodec,
				NewNode:   func(p core.Rank, n int) core.Machine { return &acceptor{me: int(p), n: n} },
				Schedules: [][][]core.Input{{{val(1)}, {val(2)}, nil}}}
			m, err := env.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("acceptor-%v-%v", net, det)] = m
		}
	}
	return out
}
