package msglog

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// AnySource is MPI_ANY_SOURCE: a receive or probe that matches a message
// from any process.
const AnySource core.Rank = -2

// Probed, as the source of a receive, is the source of the last
// successful Iprobe (the MPI idiom "Iprobe(ANY_SOURCE, &status);
// Recv(status.MPI_SOURCE)"): a deterministic receive once the probe's
// determinant fixes its source.
const Probed core.Rank = -3

// OpKind is what one program operation does.
type OpKind uint8

const (
	OpSend       OpKind = iota + 1 // MPI_Send(Peer): the payload is a function of the state
	OpRecv                         // MPI_Recv(Peer), Peer a rank, AnySource or Probed
	OpIprobe                       // MPI_Iprobe(Peer) in a polling loop, at most Max unsuccessful polls before it blocks
	OpCheckpoint                   // chkp() (§5.2): an uncoordinated checkpoint
	OpOutput                       // the application outputs its state
)

// Op is one operation of a process's program.
type Op struct {
	Kind OpKind
	Peer core.Rank
	Max  uint8 // OpIprobe: polls that may fail before the loop blocks
}

// Program is the application: one list of operations per process, run in
// order. Its state is one accumulator per process, which every delivery
// and probe folds in (so a delivery in another order, or a probe with
// another repetition count, changes every later send and output).
type Program struct {
	Name  string
	Procs [][]Op
}

// N is the number of application processes.
func (p Program) N() int { return len(p.Procs) }

// Validate checks that every peer names another process and that the
// program is not empty.
func (p Program) Validate() error {
	if len(p.Procs) < 2 || len(p.Procs) > MaxProcs {
		return fmt.Errorf("msglog: program %q has %d processes, want 2 … %d", p.Name, len(p.Procs), MaxProcs)
	}
	for r, ops := range p.Procs {
		if len(ops) > MaxOps {
			return fmt.Errorf("msglog: program %q: p%d has %d operations, over %d", p.Name, r, len(ops), MaxOps)
		}
		for k, o := range ops {
			bad := func(why string) error {
				return fmt.Errorf("msglog: program %q: p%d op %d (%v): %s", p.Name, r, k, o, why)
			}
			switch o.Kind {
			case OpSend:
				if !o.Peer.Valid(len(p.Procs)) || int(o.Peer) == r {
					return bad("destination is not another process")
				}
			case OpRecv, OpIprobe:
				if o.Peer != AnySource && (o.Kind == OpIprobe || o.Peer != Probed) && (!o.Peer.Valid(len(p.Procs)) || int(o.Peer) == r) {
					return bad("source is not another process or ANY_SOURCE")
				}
			case OpCheckpoint, OpOutput:
			default:
				return bad("unknown operation")
			}
		}
	}
	return nil
}

func (o Op) String() string {
	peer := o.Peer.String()
	switch o.Peer {
	case AnySource:
		peer = "ANY"
	case Probed:
		peer = "probed"
	}
	switch o.Kind {
	case OpSend:
		return "send(" + peer + ")"
	case OpRecv:
		return "recv(" + peer + ")"
	case OpIprobe:
		return fmt.Sprintf("iprobe(%s,max=%d)", peer, o.Max)
	case OpCheckpoint:
		return "checkpoint"
	case OpOutput:
		return "output"
	}
	return fmt.Sprintf("op%d", o.Kind)
}

// String lists the program, one process per line.
func (p Program) String() string {
	var b strings.Builder
	for r, ops := range p.Procs {
		fmt.Fprintf(&b, "p%d:", r)
		for _, o := range ops {
			b.WriteString(" " + o.String())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func send(to int) Op       { return Op{Kind: OpSend, Peer: core.Rank(to)} }
func recv(from int) Op     { return Op{Kind: OpRecv, Peer: core.Rank(from)} }
func recvAny() Op          { return Op{Kind: OpRecv, Peer: AnySource} }
func checkpoint() Op       { return Op{Kind: OpCheckpoint} }
func output() Op           { return Op{Kind: OpOutput} }
func iprobeAny(max int) Op { return Op{Kind: OpIprobe, Peer: AnySource, Max: uint8(max)} }

// allreduce is MPI_Allreduce among n processes as process r runs it over
// point-to-point messages: a send to every other process, then a receive
// from each, in rank order. Table 5.2 replays it at a recovering process
// as MPI_Reduce with itself as root: its receives come again from the
// senders' logs (RESEND_FROM), and its own sends, already received, are
// suppressed, which is what this layout gives without a rule of its own.
func allreduce(r, n int) []Op {
	var ops []Op
	for j := range n {
		if j != r {
			ops = append(ops, send(j))
		}
	}
	for j := range n {
		if j != r {
			ops = append(ops, recv(j))
		}
	}
	return ops
}

// Fig51 is the scenario of Fig. 2.2 and Fig. 5.1 (§2.1.3, §5.1.2) on three
// processes: P1 checkpoints (Ck_{1,0}), sends m1 to P0, receives with
// ANY_SOURCE m2 and m4 from P2 and m3 from P0 (three determinants), then
// sends m5 to P0. P0 receives m1, sends m3, receives m5. P2 sends m2 and
// m4. With the crash of P1 after its third delivery, only P1 rolls back
// and replays m2, m4, m3 from P2, P2 and P0; m1 and m5 are regenerated
// and not re-sent (P0 received them). The program has no collective; the
// figure's order of arrivals at P1 is one of its schedules (the checker
// explores all; simulate's default schedule is the figure's).
func Fig51() Program {
	return Program{Name: "fig51", Procs: [][]Op{
		{recv(1), send(1), recv(1), output()},
		{checkpoint(), send(0), recvAny(), recvAny(), recvAny(), send(0), output()},
		{send(1), send(1), output()},
	}}
}

// MasterWorker is the master/worker shape of the Gusfield cut-tree
// program (§5.3.4): the master (rank 0) sends one task to each of the n-1
// workers, receives their results with ANY_SOURCE (its only
// non-deterministic events), sends each worker a second task, gathers
// again, and outputs. The workers receive from the master explicitly
// (deterministic), so only the master logs determinants.
func MasterWorker(n int) Program {
	p := Program{Name: "masterworker", Procs: make([][]Op, n)}
	for round := 0; round < 2; round++ {
		for w := 1; w < n; w++ {
			p.Procs[0] = append(p.Procs[0], send(w))
		}
		for w := 1; w < n; w++ {
			p.Procs[0] = append(p.Procs[0], recvAny())
		}
		for w := 1; w < n; w++ {
			p.Procs[w] = append(p.Procs[w], recv(0), send(0))
		}
	}
	p.Procs[0] = append(p.Procs[0], output())
	for w := 1; w < n; w++ {
		p.Procs[w] = append(p.Procs[w], output())
	}
	return p
}

// Ring passes a token twice around n processes (deterministic receives
// from the left neighbour), each process checkpointing after its first
// pass, then ends with an Allreduce of the accumulators (the collective).
func Ring(n int) Program {
	p := Program{Name: "ring", Procs: make([][]Op, n)}
	for r := range n {
		left, right := (r+n-1)%n, (r+1)%n
		var ops []Op
		for pass := 0; pass < 2; pass++ {
			if r == 0 {
				ops = append(ops, send(right), recv(left))
			} else {
				ops = append(ops, recv(left), send(right))
			}
			if pass == 0 {
				ops = append(ops, checkpoint())
			}
		}
		ops = append(ops, allreduce(r, n)...)
		p.Procs[r] = append(ops, output())
	}
	return p
}

// ProbeLoop is the Iprobe polling loop of Table 5.2: process 0 polls with
// MPI_Iprobe(ANY_SOURCE) at most two unsuccessful times before it blocks,
// then receives the probed message, for each of the other processes'
// messages; the others send one message each. The determinant holds the
// source and the repetitions (unsuccessful polls), and the accumulator
// folds the repetitions in (the work the loop did while polling).
func ProbeLoop(n int) Program {
	p := Program{Name: "probe", Procs: make([][]Op, n)}
	for w := 1; w < n; w++ {
		p.Procs[0] = append(p.Procs[0], iprobeAny(2), Op{Kind: OpRecv, Peer: Probed})
		p.Procs[w] = []Op{send(0), output()}
	}
	p.Procs[0] = append(p.Procs[0], send(1), output())
	p.Procs[1] = []Op{send(0), recv(0), output()}
	return p
}

// GatherAny is a gather by ANY_SOURCE: process 0 receives one message
// from each of the others with ANY_SOURCE, checkpointing after the first,
// then outputs; the others send one message each. With delayed
// acknowledgements it is the smallest scenario of ambiguity C: a
// checkpoint taken while the first determinant is in flight, then a
// second determinant saved before the checkpoint's el_remove.
func GatherAny(n int) Program {
	p := Program{Name: "gather", Procs: make([][]Op, n)}
	for w := 1; w < n; w++ {
		p.Procs[0] = append(p.Procs[0], recvAny())
		if w == 1 {
			p.Procs[0] = append(p.Procs[0], checkpoint())
		}
		p.Procs[w] = []Op{send(0), output()}
	}
	p.Procs[0] = append(p.Procs[0], output())
	return p
}

// Programs are the shipped programs by name, for n processes (fig51 needs
// 3).
var Programs = map[string]func(n int) (Program, error){
	"fig51": func(n int) (Program, error) {
		if n != 3 {
			return Program{}, fmt.Errorf("msglog: program fig51 has 3 processes, not %d", n)
		}
		return Fig51(), nil
	},
	"masterworker": sized(MasterWorker),
	"ring":         sized(Ring),
	"probe":        sized(ProbeLoop),
	"gather":       sized(GatherAny),
}

func sized(f func(int) Program) func(int) (Program, error) {
	return func(n int) (Program, error) {
		if n < 2 || n > MaxProcs {
			return Program{}, fmt.Errorf("msglog: %d processes, want 2 … %d", n, MaxProcs)
		}
		return f(n), nil
	}
}

// ProgramNames lists the shipped programs.
func ProgramNames() []string { return []string{"fig51", "masterworker", "ring", "probe", "gather"} }
