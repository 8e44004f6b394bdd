package replica

import (
	"fmt"
	"slices"
	"strings"
)

// Any is ANY_SOURCE as a Recv source and ANY_TAG as a Recv tag.
const Any = -1

// maxTag bounds tags, so that decoders can reject garbage.
const maxTag = 1 << 20

// OpCode is one instruction kind of a program.
type OpCode uint8

const (
	// OpSend: Send(Peer, Tag) with the accumulator as payload.
	OpSend OpCode = iota + 1
	// OpRecv: Recv(Peer, Tag) (Peer or Tag may be Any); the received
	// payload is combined into the accumulator with Fn.
	OpRecv
	// OpCompute: local computation, acc ← Fn(acc, K).
	OpCompute
	// OpOutput: Output(acc).
	OpOutput
)

// Fn combines the accumulator with an operand.
type Fn uint8

const (
	// FnSet: acc ← x.
	FnSet Fn = iota + 1
	// FnAdd: acc ← acc + x.
	FnAdd
	// FnSub: acc ← acc − x.
	FnSub
	// FnMul: acc ← acc · x.
	FnMul
)

// Apply returns f(acc, x).
func (f Fn) Apply(acc, x int64) int64 {
	switch f {
	case FnSet:
		return x
	case FnAdd:
		return acc + x
	case FnSub:
		return acc - x
	case FnMul:
		return acc * x
	}
	return acc
}

func (f Fn) String() string {
	switch f {
	case FnSet:
		return "set"
	case FnAdd:
		return "add"
	case FnSub:
		return "sub"
	case FnMul:
		return "mul"
	}
	return fmt.Sprintf("fn(%d)", uint8(f))
}

// Instr is one instruction of a logical process's program. Every replica
// of the process executes the same instructions and, the payloads being
// functions of what it received, computes the same values (footnote 5).
type Instr struct {
	Op   OpCode
	Peer int // OpSend: destination rank; OpRecv: source rank or Any
	Tag  int // OpSend, OpRecv (Any allowed for OpRecv)
	Fn   Fn  // OpRecv, OpCompute
	K    int64
}

// String is the instruction in MPI terms, such as "Recv(ANY_SOURCE, 0) add".
func (in Instr) String() string {
	name := func(x int, any string) string {
		if x == Any {
			return any
		}
		return fmt.Sprint(x)
	}
	switch in.Op {
	case OpSend:
		return fmt.Sprintf("Send(%d, %d)", in.Peer, in.Tag)
	case OpRecv:
		return fmt.Sprintf("Recv(%s, %s) %v", name(in.Peer, "ANY_SOURCE"), name(in.Tag, "ANY_TAG"), in.Fn)
	case OpCompute:
		return fmt.Sprintf("%v %d", in.Fn, in.K)
	case OpOutput:
		return "Output"
	}
	return fmt.Sprintf("op(%d)", uint8(in.Op))
}

// Program is the code of one logical process.
type Program []Instr

// Wildcard reports whether the program has an ANY_SOURCE or ANY_TAG
// receive.
func (p Program) Wildcard() bool {
	return slices.ContainsFunc(p, func(in Instr) bool {
		return in.Op == OpRecv && (in.Peer == Any || in.Tag == Any)
	})
}

// validate checks the program of logical process self among procs.
func (p Program) validate(self, procs int) error {
	for pc, in := range p {
		bad := func(why string) error {
			return fmt.Errorf("replica: program of P%d, instruction %d (%v): %s", self, pc, in, why)
		}
		switch in.Op {
		case OpSend:
			if in.Peer < 0 || in.Peer >= procs || in.Peer == self {
				return bad("destination out of range or self")
			}
			if in.Tag < 0 || in.Tag > maxTag {
				return bad("tag out of range")
			}
		case OpRecv:
			if in.Peer != Any && (in.Peer < 0 || in.Peer >= procs || in.Peer == self) {
				return bad("source out of range or self")
			}
			if in.Tag != Any && (in.Tag < 0 || in.Tag > maxTag) {
				return bad("tag out of range")
			}
			if in.Fn < FnSet || in.Fn > FnMul {
				return bad("unknown combine function")
			}
		case OpCompute:
			if in.Fn < FnSet || in.Fn > FnMul {
				return bad("unknown function")
			}
		case OpOutput:
		default:
			return bad("unknown op")
		}
	}
	return nil
}

// ProgramNames lists the shipped programs, for Programs.
var ProgramNames = []string{"ping-pong", "ring", "gather-sum", "gather-sum-any-source", "gather-diff-any-source", "master-worker", "mid-example", "any-tag-diff"}

// Programs returns the shipped program name for procs logical processes
// (one Program per process; processes a program does not use get an empty
// one). rounds is the number of exchanges for ping-pong (≥ 1; others
// ignore it).
//
//   - ping-pong (§4.4's benchmark): P_0 and P_1 exchange a counter rounds
//     times, P_1 adding 1 each time; both output the last value. Needs
//     procs ≥ 2.
//   - ring: P_0 sends 1 to P_1, each P_i adds i+1 and passes it on, P_0
//     receives the total from P_{procs-1}; everyone outputs. procs ≥ 2.
//   - gather-sum: every P_i (i < H = procs-1) sends 10^i·(i+1) to P_H,
//     which receives from P_0 … P_{H-1} by explicit source, summing, and
//     outputs the sum. procs ≥ 2.
//   - gather-sum-any-source: the same with ANY_SOURCE receives (§4.3's
//     example; the sum argument).
//   - gather-diff-any-source: P_H computes x1 − x2 − … over ANY_SOURCE
//     receives (§4.3's example with an order-sensitive computation).
//   - master-worker: P_0 sends task i+1 to each worker P_i (tag 1), which
//     computes 10·(i+1) + i and returns it (tag 2); P_0 sums the answers,
//     receiving by explicit source, and outputs. procs ≥ 2.
//   - mid-example (§4.2's MID example): P_0 sends 1 then 2 to P_2 with tag
//     9; P_2 receives both from P_0 and outputs first − second. procs ≥ 3.
//   - any-tag-diff (MPI non-overtaking with ANY_TAG): P_0 sends 1 with tag
//     5, then 2 with tag 1, to P_H, which receives twice with
//     Recv(0, ANY_TAG) and outputs first − second: −1 under MPI, whose
//     receive takes the earliest message of the source whatever its tag.
//     procs ≥ 2.
func Programs(name string, procs, rounds int) ([]Program, error) {
	need := 2
	if name == "mid-example" {
		need = 3
	}
	if procs < need {
		return nil, fmt.Errorf("replica: program %q needs at least %d logical processes, got %d", name, need, procs)
	}
	if rounds < 1 {
		return nil, fmt.Errorf("replica: rounds %d, want ≥ 1", rounds)
	}
	ps := make([]Program, procs)
	H := procs - 1
	gather := func(src int, fn func(k int) Fn) {
		for i := 0; i < H; i++ {
			ps[i] = Program{{Op: OpCompute, Fn: FnSet, K: pow10(i) * int64(i+1)}, {Op: OpSend, Peer: H, Tag: 0}}
		}
		for k := 0; k < H; k++ {
			from := src
			if src != Any {
				from = k
			}
			ps[H] = append(ps[H], Instr{Op: OpRecv, Peer: from, Tag: 0, Fn: fn(k)})
		}
		ps[H] = append(ps[H], Instr{Op: OpOutput})
	}
	switch name {
	case "ping-pong":
		ps[0] = Program{{Op: OpCompute, Fn: FnSet, K: 1}}
		for r := 0; r < rounds; r++ {
			ps[0] = append(ps[0], Instr{Op: OpSend, Peer: 1, Tag: 0}, Instr{Op: OpRecv, Peer: 1, Tag: 0, Fn: FnSet})
			ps[1] = append(ps[1], Instr{Op: OpRecv, Peer: 0, Tag: 0, Fn: FnSet}, Instr{Op: OpCompute, Fn: FnAdd, K: 1}, Instr{Op: OpSend, Peer: 0, Tag: 0})
		}
		ps[0] = append(ps[0], Instr{Op: OpOutput})
		ps[1] = append(ps[1], Instr{Op: OpOutput})
	case "ring":
		ps[0] = Program{{Op: OpCompute, Fn: FnSet, K: 1}, {Op: OpSend, Peer: 1, Tag: 0}, {Op: OpRecv, Peer: H, Tag: 0, Fn: FnSet}, {Op: OpOutput}}
		for i := 1; i <= H; i++ {
			ps[i] = Program{{Op: OpRecv, Peer: i - 1, Tag: 0, Fn: FnSet}, {Op: OpCompute, Fn: FnAdd, K: int64(i + 1)}, {Op: OpSend, Peer: (i + 1) % procs, Tag: 0}, {Op: OpOutput}}
		}
	case "gather-sum":
		gather(0, func(int) Fn { return FnAdd })
	case "gather-sum-any-source":
		gather(Any, func(int) Fn { return FnAdd })
	case "gather-diff-any-source":
		gather(Any, func(k int) Fn {
			if k == 0 {
				return FnSet
			}
			return FnSub
		})
	case "master-worker":
		for i := 1; i <= H; i++ {
			ps[0] = append(ps[0], Instr{Op: OpCompute, Fn: FnSet, K: int64(i + 1)}, Instr{Op: OpSend, Peer: i, Tag: 1})
			ps[i] = Program{{Op: OpRecv, Peer: 0, Tag: 1, Fn: FnSet}, {Op: OpCompute, Fn: FnMul, K: 10}, {Op: OpCompute, Fn: FnAdd, K: int64(i)}, {Op: OpSend, Peer: 0, Tag: 2}}
		}
		ps[0] = append(ps[0], Instr{Op: OpCompute, Fn: FnSet, K: 0})
		for i := 1; i <= H; i++ {
			ps[0] = append(ps[0], Instr{Op: OpRecv, Peer: i, Tag: 2, Fn: FnAdd})
		}
		ps[0] = append(ps[0], Instr{Op: OpOutput})
	case "mid-example":
		ps[0] = Program{{Op: OpCompute, Fn: FnSet, K: 1}, {Op: OpSend, Peer: 2, Tag: 9}, {Op: OpCompute, Fn: FnSet, K: 2}, {Op: OpSend, Peer: 2, Tag: 9}}
		ps[2] = Program{{Op: OpRecv, Peer: 0, Tag: 9, Fn: FnSet}, {Op: OpRecv, Peer: 0, Tag: 9, Fn: FnSub}, {Op: OpOutput}}
	case "any-tag-diff":
		ps[0] = Program{{Op: OpCompute, Fn: FnSet, K: 1}, {Op: OpSend, Peer: H, Tag: 5}, {Op: OpCompute, Fn: FnSet, K: 2}, {Op: OpSend, Peer: H, Tag: 1}}
		ps[H] = Program{{Op: OpRecv, Peer: 0, Tag: Any, Fn: FnSet}, {Op: OpRecv, Peer: 0, Tag: Any, Fn: FnSub}, {Op: OpOutput}}
	default:
		return nil, fmt.Errorf("replica: unknown program %q (want one of %s)", name, strings.Join(ProgramNames, ", "))
	}
	return ps, nil
}

func pow10(i int) int64 {
	x := int64(1)
	for ; i > 0; i-- {
		x *= 10
	}
	return x
}
