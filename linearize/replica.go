package linearize

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/replica"
)

// This file checks P2P-MPI replica coordination (statemachine/replica)
// against a sequential object: each logical process owns one log of
// messages, and each of its replicas reads it in order, one Recv at a time.
// A run is linearizable iff the delivery sequences of the replicas of every
// logical process are prefixes of one sequence, that is, the protocol
// gives them the total order of §4.3.

// ReplicaRead is the input of one operation: replica Replica of logical
// process Logical reads position Pos of its process's log.
type ReplicaRead struct {
	Logical, Replica, Pos int
}

// replicaLog is the model state: the log so far (MIDs, in order), as one
// comparable string of "(c,s,d,t,k)" entries.
type replicaLog struct {
	n   int
	ids string
}

// ReplicaModel is the porcupine model of the per-logical-process log,
// partitioned by logical process. Inputs are ReplicaRead, outputs the MID
// delivered (replica.MID).
func ReplicaModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			groups := map[int][]porcupine.Operation{}
			var order []int
			for _, op := range h {
				l := op.Input.(ReplicaRead).Logical
				if _, ok := groups[l]; !ok {
					order = append(order, l)
				}
				groups[l] = append(groups[l], op)
			}
			out := make([][]porcupine.Operation, 0, len(order))
			for _, l := range order {
				out = append(out, groups[l])
			}
			return out
		},
		Init: func() interface{} { return replicaLog{} },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s, in, mid := state.(replicaLog), input.(ReplicaRead), output.(replica.MID).String()
			entries := strings.SplitAfter(s.ids, ")")
			switch {
			case in.Pos < s.n:
				return entries[in.Pos] == mid, s
			case in.Pos == s.n:
				return true, replicaLog{n: s.n + 1, ids: s.ids + mid}
			}
			return false, s
		},
		Equal: func(a, b interface{}) bool { return a.(replicaLog) == b.(replicaLog) },
		Hash: func(state interface{}) uint64 {
			h := fnv.New64a()
			h.Write([]byte(state.(replicaLog).ids))
			return h.Sum64()
		},
		DescribeOperation: func(input, output interface{}) string {
			in := input.(ReplicaRead)
			return fmt.Sprintf("P%d^%d reads log[%d] → %v", in.Logical, in.Replica, in.Pos, output)
		},
		DescribeState: func(state interface{}) string { return "log " + state.(replicaLog).ids },
	}
}

// FromReplicaWorlds turns a run of the replica environment (worlds[0] the
// initial world, worlds[i] the world after step i) into operations: the
// k-th delivery of a replica is a read of position k that is invoked at
// the step of its previous delivery (or 0) and returns at its own step, so
// reads of one replica never overlap and reads of different replicas may.
// Crashed replicas keep the deliveries they made. Errors: worlds that are
// not consecutive steps, or a node that is not a replica.
func FromReplicaWorlds(worlds []*env.World) ([]porcupine.Operation, error) {
	var ops []porcupine.Operation
	last := map[core.Rank]int64{}
	count := map[core.Rank]int{}
	for i := 1; i < len(worlds); i++ {
		w := worlds[i]
		if w == nil || worlds[i-1] == nil || w.Depth() != worlds[i-1].Depth()+1 {
			return nil, fmt.Errorf("linearize: worlds %d and %d are not consecutive steps", i-1, i)
		}
		p := w.LastActor()
		for _, e := range w.LastEffects() {
			if e.Kind != core.EffDeliver {
				continue
			}
			n, ok := w.Node(p).(*replica.Node)
			d, ok2 := e.Value.(replica.Delivery)
			if !ok || !ok2 {
				return nil, fmt.Errorf("linearize: step %d: %v is not a replica delivery", i, e)
			}
			ops = append(ops, porcupine.Operation{
				ClientId: int(p),
				Input:    ReplicaRead{Logical: n.Logical(), Replica: n.Index(), Pos: count[p]},
				Call:     last[p], Output: d.MID, Return: int64(i),
			})
			count[p]++
			last[p] = int64(i)
		}
	}
	return ops, nil
}

// CheckReplicaRun reports whether the deliveries of a run are consistent
// with one log per logical process.
func CheckReplicaRun(worlds []*env.World) (porcupine.CheckResult, error) {
	ops, err := FromReplicaWorlds(worlds)
	if err != nil {
		return porcupine.Illegal, err
	}
	res, _ := porcupine.CheckOperationsVerbose(ReplicaModel(), ops, 0)
	return res, nil
}
