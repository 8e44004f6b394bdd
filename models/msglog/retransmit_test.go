package msglog

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// TestRetransmitStillFires: a longer retransmission timeout (--retransmit)
// shrinks the Classic logger's search without taking retransmissions out
// of it. Over fig51 without a crash, at the default timeout and at the
// 9 ticks of the complete run with a restart (docs/msglog.md), some
// timer firings re-send (a Paxos node has one timer for all its pending
// requests, so a request sent just before it fires is re-sent early).
// The counts are those docs/msglog.md quotes (go test -v prints them).
func TestRetransmitStillFires(t *testing.T) {
	for _, c := range []struct {
		rt                     int
		states, fires, resends int
	}{
		{0, 119577, 3350, 3306},
		{9, 2524, 18, 13},
	} {
		m, err := NewModel(Params{Program: "fig51", Procs: 3, Logger: el.Classic, F: 1, Retransmit: c.rt})
		if err != nil {
			t.Fatal(err)
		}
		fires, resends := 0, 0
		n := modeltest.EachTransition(t, m, 1<<20, func(_ *env.World, a checker.Action, next *env.World) {
			if a.Kind != env.Fire {
				return
			}
			fires++
			for _, e := range next.LastEffects() {
				if e.Kind == core.EffSend {
					resends++
					return
				}
			}
		})
		t.Logf("--retransmit %d: %d states, %d timer firings, %d of them re-send", c.rt, n, fires, resends)
		if n != c.states || fires != c.fires || resends != c.resends {
			t.Errorf("--retransmit %d: %d states, %d firings, %d re-sending; want %d, %d, %d", c.rt, n, fires, resends, c.states, c.fires, c.resends)
		}
	}
}
