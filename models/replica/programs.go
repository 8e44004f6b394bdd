package replica

import (
	"fmt"

	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// AnySourceReply is a program of the checked model beyond sm.Programs
// (procs ≥ 3): P_0 sends 1 and P_1 sends 20 to P_2, which receives twice
// with ANY_SOURCE computing x1 − x2 and sends the result back to P_1; P_1
// outputs it. §4.3's ANY_SOURCE example with the receiver's result sent
// on: the replicas of P_2 may compute −19 and 19 and send them under one
// MID, and after P_2's master fails mid-send the replicas of P_1 deliver
// that MID with different payloads (payload-agreement).
const AnySourceReply = "any-source-reply"

// ProgramNames are the programs --program takes: sm.ProgramNames and
// AnySourceReply.
var ProgramNames = append(append([]string(nil), sm.ProgramNames...), AnySourceReply)

// programs returns program name for procs logical processes
// (sm.Programs, or one of this package's).
func programs(name string, procs, rounds int) ([]sm.Program, error) {
	if name != AnySourceReply {
		return sm.Programs(name, procs, rounds)
	}
	if procs < 3 {
		return nil, fmt.Errorf("replica: program %q needs at least 3 logical processes, got %d", name, procs)
	}
	ps := make([]sm.Program, procs)
	ps[0] = sm.Program{{Op: sm.OpCompute, Fn: sm.FnSet, K: 1}, {Op: sm.OpSend, Peer: 2, Tag: 0}}
	ps[1] = sm.Program{{Op: sm.OpCompute, Fn: sm.FnSet, K: 20}, {Op: sm.OpSend, Peer: 2, Tag: 0}, {Op: sm.OpRecv, Peer: 2, Tag: 0, Fn: sm.FnSet}, {Op: sm.OpOutput}}
	ps[2] = sm.Program{{Op: sm.OpRecv, Peer: sm.Any, Tag: 0, Fn: sm.FnSet}, {Op: sm.OpRecv, Peer: sm.Any, Tag: 0, Fn: sm.FnSub}, {Op: sm.OpSend, Peer: 1, Tag: 0}}
	return ps, nil
}
