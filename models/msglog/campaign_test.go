package msglog

import (
	"testing"

	"github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// TestCampaignCountsDeliveries: without a crash, a campaign delivers each
// program's receives once per run, whichever the logger (a step that
// takes a Paxos decision may deliver several queued messages at once).
func TestCampaignCountsDeliveries(t *testing.T) {
	for _, k := range []eventlogger.Kind{eventlogger.Centralized, eventlogger.Classic, eventlogger.Parallel} {
		p := Params{Program: "ring", Procs: 4, Logger: k, F: 1}
		recvs := 0
		for _, ops := range p.program().Procs {
			for _, o := range ops {
				if o.Kind == ml.OpRecv {
					recvs++
				}
			}
		}
		const walks = 5
		cr, err := Campaign(p, walks, 0, false, 3)
		if err != nil {
			t.Fatal(err)
		}
		if cr.Violation != "" || cr.Finished != walks || cr.Delivered != walks*recvs {
			t.Errorf("%v: %d runs finished, %d deliveries, violation %q; want %d, %d×%d", k, cr.Finished, cr.Delivered, cr.Violation, walks, walks, recvs)
		}
	}
}
