package replica

import (
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// Forget is the state the stack model keeps of a crashed host (the
// environment's Forgetter, checker/env Config.ForgetCrashed): the
// replica's Forget (its identity) and the gossip module's Forget (round,
// suspicions, declarations: no-false-declaration reads every host's
// declared set, crashed hosts' included).
func (h *Host) Forget() core.Machine {
	return &Host{rep: h.rep.Forget().(*sm.Node), det: h.det.Forget().(*fd.Node)}
}
