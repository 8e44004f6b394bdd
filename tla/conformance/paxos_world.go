package conformance

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/paxos"
)

// PxInstance is an instance module of tla/paxos.qnt and the Go group with
// the same parameters.
type PxInstance struct {
	Module                          string
	N                               int
	Proposers, Acceptors, Learners  []int
	Data                            []int // each proposer p may propose command 10p + d
	Crashes, Recoveries, Losses     int
	Dups, Leads, FalseSusp, Timeout int
}

// PxInstances are the instance modules of paxos.qnt (and of
// paxos_mutants.qnt, which uses paxos3's parameters).
var PxInstances = []PxInstance{
	{Module: "paxos3", N: 3, Proposers: []int{0, 1}, Acceptors: []int{0, 1, 2}, Learners: []int{0, 1, 2},
		Data: []int{1}, Crashes: 1, Recoveries: 1, Losses: 1, Dups: 1, Leads: 1, FalseSusp: 1, Timeout: 4},
	{Module: "paxos3x2", N: 3, Proposers: []int{0, 1}, Acceptors: []int{0, 1, 2}, Learners: []int{0, 1, 2},
		Data: []int{1, 2}, Crashes: 2, Recoveries: 2, Losses: 1, Dups: 1, Leads: 2, FalseSusp: 2, Timeout: 6},
	{Module: "fig21", N: 7, Proposers: []int{0, 1}, Acceptors: []int{2, 3, 4}, Learners: []int{5, 6},
		Data: []int{1}, Losses: 1, Leads: 2, Timeout: 2},
}

func pxInstance(module string) (PxInstance, error) {
	for _, in := range PxInstances {
		if in.Module == module {
			return in, nil
		}
	}
	return PxInstance{}, fmt.Errorf("no paxos instance %q", module)
}

func pxRanks(xs []int) []core.Rank {
	out := make([]core.Rank, len(xs))
	for i, x := range xs {
		out[i] = core.Rank(x)
	}
	return out
}

// Config is the statemachine/paxos configuration of the instance.
func (in PxInstance) Config(mut mutant.Name) paxos.Config {
	return paxos.Config{N: in.N, Proposers: pxRanks(in.Proposers), Acceptors: pxRanks(in.Acceptors),
		Learners: pxRanks(in.Learners), Mutant: mut}
}

// The spec's commands are ints: NOOP = -1, 10·origin + d the command
// {origin, strconv.Itoa(d)}.

func pxCmdOf(v core.Value) int {
	c := v.(paxos.Command)
	if c.IsNoop() {
		return -1
	}
	d, err := strconv.Atoi(c.Data)
	if err != nil || d < 0 || d > 9 {
		panic(fmt.Sprintf("command %v is not a spec command", c))
	}
	return 10*int(c.Origin) + d
}

func pxCmd(c int) paxos.Command {
	if c < 0 {
		return paxos.Noop
	}
	return paxos.Command{Origin: core.Rank(c / 10), Data: strconv.Itoa(c % 10)}
}

// PxVote is a vote (i, b, v).
type PxVote struct{ I, B, V int }

// PxMsg is a message as the spec has it (paxos.qnt's Msg): I is the
// instance, from, promised or next as Kind says; Votes ("i:b:v" joined by
// spaces) and Vals (values joined by spaces) keep it comparable.
type PxMsg struct {
	Kind     string
	Src, Dst int
	B, I, V  int
	Votes    string
	Vals     string
}

// String formats the message as paxos.qnt's fields, e.g.
// "ACCEPT p0→p2 b=1 i=0 v=1 votes=[] vals=[]".
func (x PxMsg) String() string {
	return fmt.Sprintf("%s p%d→p%d b=%d i=%d v=%d votes=[%s] vals=[%s]", x.Kind, x.Src, x.Dst, x.B, x.I, x.V, x.Votes, x.Vals)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, " ")
}

func splitInts(s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		n, err := strconv.Atoi(f)
		if err != nil {
			panic(err)
		}
		out = append(out, n)
	}
	return out
}

func pxVotesString(vs []PxVote) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprintf("%d:%d:%d", v.I, v.B, v.V)
	}
	return strings.Join(s, " ")
}

func pxVotesOf(s string) []PxVote {
	var out []PxVote
	for _, f := range strings.Fields(s) {
		var v PxVote
		if _, err := fmt.Sscanf(f, "%d:%d:%d", &v.I, &v.B, &v.V); err != nil {
			panic(err)
		}
		out = append(out, v)
	}
	return out
}

func pxGoVotes(vs []paxos.Vote) []PxVote {
	var out []PxVote // nil when empty, as the spec side
	for _, v := range vs {
		out = append(out, PxVote{I: int(v.Inst), B: int(v.B), V: pxCmdOf(v.V)})
	}
	return out
}

// PxMsgOf is the spec's image of the Go message m from src to dst.
func PxMsgOf(src, dst core.Rank, m core.Message) PxMsg {
	x := PxMsg{Kind: m.Kind(), Src: int(src), Dst: int(dst)}
	switch m := m.(type) {
	case paxos.Request:
		x.V = pxCmdOf(m.Cmd)
	case paxos.Prepare:
		x.B, x.I = int(m.B), int(m.From)
	case paxos.Promise:
		x.B, x.I, x.Votes = int(m.B), int(m.From), pxVotesString(pxGoVotes(m.Votes))
	case paxos.Accept:
		x.B, x.I, x.V = int(m.B), int(m.Inst), pxCmdOf(m.V)
	case paxos.Accepted:
		x.B, x.I, x.V = int(m.B), int(m.Inst), pxCmdOf(m.V)
	case paxos.Nack:
		x.B, x.I = int(m.B), int(m.Promised)
	case paxos.Decided:
		vals := make([]int, len(m.Values))
		for i, v := range m.Values {
			vals[i] = pxCmdOf(v)
		}
		x.I, x.Vals = int(m.From), joinInts(vals)
	case paxos.Learned:
		x.I = int(m.Next)
	default:
		panic(fmt.Sprintf("not a paxos message: %v", m))
	}
	return x
}

// Go is the Go message the spec's message stands for.
func (x PxMsg) Go() core.Message {
	switch x.Kind {
	case "REQUEST":
		return paxos.Request{Cmd: pxCmd(x.V)}
	case "PREPARE":
		return paxos.Prepare{B: paxos.Ballot(x.B), From: uint64(x.I)}
	case "PROMISE":
		var vs []paxos.Vote
		for _, v := range pxVotesOf(x.Votes) {
			vs = append(vs, paxos.Vote{Inst: uint64(v.I), B: paxos.Ballot(v.B), V: pxCmd(v.V)})
		}
		return paxos.Promise{B: paxos.Ballot(x.B), From: uint64(x.I), Votes: vs}
	case "ACCEPT":
		return paxos.Accept{B: paxos.Ballot(x.B), Inst: uint64(x.I), V: pxCmd(x.V)}
	case "ACCEPTED":
		return paxos.Accepted{B: paxos.Ballot(x.B), Inst: uint64(x.I), V: pxCmd(x.V)}
	case "NACK":
		return paxos.Nack{B: paxos.Ballot(x.B), Promised: paxos.Ballot(x.I)}
	case "DECIDED":
		var vals []paxos.Command
		for _, v := range splitInts(x.Vals) {
			vals = append(vals, pxCmd(v))
		}
		return paxos.Decided{From: uint64(x.I), Values: vals}
	case "LEARNED":
		return paxos.Learned{Next: uint64(x.I)}
	}
	panic("unknown kind " + x.Kind)
}

// PxBudget counts the faults and events a run used (paxos.qnt's used).
type PxBudget struct{ Crashes, Recoveries, Losses, Dups, Leads, FalseSusp, Timeouts int }

// PxNode is what the Go node exposes (paxos.Node's Promised, Votes, Log,
// Pending, Leader, Coordinating, Preparing, TimerArmed) and its Decide
// and Return effects, as (instance, value) pairs.
type PxNode struct {
	Promised  int
	Votes     []PxVote
	Log       []int
	Pending   []int
	Leader    int
	CoordB    int // 0: not coordinating
	Preparing bool
	Armed     bool
	Decisions [][2]int
	Returns   [][2]int
}

// PxState is the state compared in both directions.
type PxState struct {
	Nodes    []PxNode
	Crashed  []int
	Proposed []int
	Used     PxBudget
	Flight   map[PxMsg]int // in flight to live processes, with multiplicity
}

// PxAction is one step: a spec action and its operands.
type PxAction struct {
	Act     string // Propose, Lead, Deliver, Timeout, Suspect, Recovered, Crash, Restart, Lose, Duplicate
	P, Q, D int
	M       PxMsg
}

func (a PxAction) String() string {
	switch a.Act {
	case "Propose":
		return fmt.Sprintf("Propose(p%d, %d)", a.P, a.D)
	case "Suspect", "Recovered":
		return fmt.Sprintf("%s(p%d, p%d)", a.Act, a.P, a.Q)
	case "Deliver", "Lose", "Duplicate":
		return fmt.Sprintf("%s(%v)", a.Act, a.M)
	}
	return fmt.Sprintf("%s(p%d)", a.Act, a.P)
}

// PxWorld runs the Go nodes of an instance in the model of paxos.qnt: a
// multiset network, crash (messages to the process lost until it
// restarts), restart through core.Recoverable, loss and duplication, a
// detector whose reports are this world's, and the budgets.
type PxWorld struct {
	In      PxInstance
	Nodes   []*paxos.Node
	crashed []bool
	susp    []map[int]bool // the detector's reports to each process
	bag     map[PxMsg]int
	prop    map[int]bool
	dec     [][][2]int
	ret     [][][2]int
	used    PxBudget
}

// NewPxWorld is the initial world of the instance, with Go mutant mut.
func NewPxWorld(in PxInstance, mut mutant.Name) (*PxWorld, error) {
	ns, err := paxos.NewAll(in.Config(mut))
	if err != nil {
		return nil, err
	}
	w := &PxWorld{In: in, Nodes: ns, crashed: make([]bool, in.N), susp: make([]map[int]bool, in.N),
		bag: map[PxMsg]int{}, prop: map[int]bool{}, dec: make([][][2]int, in.N), ret: make([][][2]int, in.N)}
	for p := range w.susp {
		w.susp[p] = map[int]bool{}
	}
	return w, nil
}

// step applies ev to p and carries out its effects.
func (w *PxWorld) step(p int, ev core.Event) error {
	effs, err := w.Nodes[p].Step(ev, nil)
	if err != nil {
		return err
	}
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			if !w.crashed[e.To] {
				w.bag[PxMsgOf(core.Rank(p), e.To, e.Msg)]++
			}
		case core.EffDecide:
			w.dec[p] = append(w.dec[p], [2]int{int(e.Instance), pxCmdOf(e.Value)})
		case core.EffReturn:
			w.ret[p] = append(w.ret[p], [2]int{int(e.Instance), pxCmdOf(e.Value)})
		}
	}
	return nil
}

func (w *PxWorld) isProposer(p int) bool { return slices.Contains(w.In.Proposers, p) }

// Enabled lists the enabled actions, in a fixed order.
func (w *PxWorld) Enabled() []PxAction {
	var out []PxAction
	for p := range w.In.N {
		if w.crashed[p] {
			if w.used.Recoveries < w.In.Recoveries {
				out = append(out, PxAction{Act: "Restart", P: p})
			}
			continue
		}
		if w.isProposer(p) {
			for _, d := range w.In.Data {
				if !w.prop[10*p+d] {
					out = append(out, PxAction{Act: "Propose", P: p, D: d})
				}
			}
			if w.used.Leads < w.In.Leads {
				out = append(out, PxAction{Act: "Lead", P: p})
			}
		}
		if w.Nodes[p].TimerArmed() && w.used.Timeouts < w.In.Timeout {
			out = append(out, PxAction{Act: "Timeout", P: p})
		}
		if w.used.Crashes < w.In.Crashes {
			out = append(out, PxAction{Act: "Crash", P: p})
		}
		for q := range w.In.N {
			switch {
			case q == p:
			case w.susp[p][q]:
				if !w.crashed[q] {
					out = append(out, PxAction{Act: "Recovered", P: p, Q: q})
				}
			case w.crashed[q] || w.used.FalseSusp < w.In.FalseSusp:
				out = append(out, PxAction{Act: "Suspect", P: p, Q: q})
			}
		}
	}
	for _, m := range w.sortedFlight() {
		out = append(out, PxAction{Act: "Deliver", M: m})
		if w.used.Losses < w.In.Losses {
			out = append(out, PxAction{Act: "Lose", M: m})
		}
		if w.used.Dups < w.In.Dups {
			out = append(out, PxAction{Act: "Duplicate", M: m})
		}
	}
	return out
}

func (w *PxWorld) sortedFlight() []PxMsg {
	ms := make([]PxMsg, 0, len(w.bag))
	for m := range w.bag {
		ms = append(ms, m)
	}
	slices.SortFunc(ms, func(a, b PxMsg) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return ms
}

// Apply takes action a, which must be enabled (as in paxos.qnt).
func (w *PxWorld) Apply(a PxAction) error {
	if !slices.Contains(w.Enabled(), a) {
		return fmt.Errorf("%v is not enabled on the Go side", a)
	}
	p := a.P
	switch a.Act {
	case "Propose":
		w.prop[10*p+a.D] = true
		return w.step(p, core.Call(paxos.Propose{Data: strconv.Itoa(a.D)}))
	case "Lead":
		w.used.Leads++
		return w.step(p, core.Call(paxos.Lead{}))
	case "Timeout":
		w.used.Timeouts++
		return w.step(p, core.Timer(paxos.TimerRetransmit))
	case "Suspect":
		if !w.crashed[a.Q] {
			w.used.FalseSusp++
		}
		w.susp[p][a.Q] = true
		return w.step(p, core.Suspect(core.Rank(a.Q)))
	case "Recovered":
		delete(w.susp[p], a.Q)
		return w.step(p, core.Recovered(core.Rank(a.Q)))
	case "Crash":
		w.used.Crashes++
		w.crashed[p] = true
		for m := range w.bag {
			if m.Dst == p {
				delete(w.bag, m)
			}
		}
		return nil
	case "Restart":
		w.used.Recoveries++
		w.crashed[p] = false
		w.susp[p] = map[int]bool{}
		w.Nodes[p] = w.Nodes[p].Recover().(*paxos.Node)
		return w.step(p, core.Restart())
	case "Deliver":
		w.take(a.M)
		return w.step(a.M.Dst, core.Receive(core.Rank(a.M.Src), a.M.Go()))
	case "Lose":
		w.used.Losses++
		w.take(a.M)
		return nil
	case "Duplicate":
		w.used.Dups++
		w.bag[a.M]++
		return nil
	}
	return fmt.Errorf("unknown action %q", a.Act)
}

func (w *PxWorld) take(m PxMsg) {
	if w.bag[m]--; w.bag[m] == 0 {
		delete(w.bag, m)
	}
}

// State is the world's image in the spec's terms.
func (w *PxWorld) State() PxState {
	s := PxState{Used: w.used, Flight: map[PxMsg]int{}}
	for p, n := range w.Nodes {
		x := PxNode{Promised: int(n.Promised()), Votes: pxGoVotes(n.Votes()), Leader: int(n.Leader()),
			Preparing: n.Preparing(), Armed: n.TimerArmed(),
			Decisions: slices.Clone(w.dec[p]), Returns: slices.Clone(w.ret[p])}
		for _, v := range n.Log() {
			x.Log = append(x.Log, pxCmdOf(v))
		}
		for _, v := range n.Pending() {
			x.Pending = append(x.Pending, pxCmdOf(v))
		}
		if b, ok := n.Coordinating(); ok {
			x.CoordB = int(b)
		}
		s.Nodes = append(s.Nodes, x)
		if w.crashed[p] {
			s.Crashed = append(s.Crashed, p)
		}
	}
	for c := range w.prop {
		s.Proposed = append(s.Proposed, c)
	}
	slices.Sort(s.Proposed)
	for m, k := range w.bag {
		s.Flight[m] = k
	}
	return s
}

// PxWalk is a random walk of the Go nodes: its actions and the state
// after each.
type PxWalk struct {
	In      PxInstance
	Init    PxState
	Actions []PxAction
	States  []PxState
}

// RandomPxWalk steps the Go nodes of in (mutant mut) from seed, at most
// maxSteps steps: a delivery (uniformly among the messages in flight)
// with probability 3/4 when one is enabled, else any enabled action
// (uniformly), so that walks reach decisions.
func RandomPxWalk(in PxInstance, mut mutant.Name, seed uint64, maxSteps int) (*PxWalk, error) {
	w, err := NewPxWorld(in, mut)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x9a605))
	g := &PxWalk{In: in, Init: w.State()}
	for range maxSteps {
		en := w.Enabled()
		if len(en) == 0 {
			break
		}
		var dl []PxAction
		for _, a := range en {
			if a.Act == "Deliver" {
				dl = append(dl, a)
			}
		}
		if len(dl) > 0 && r.IntN(4) < 3 {
			en = dl
		}
		a := en[r.IntN(len(en))]
		if err := w.Apply(a); err != nil {
			return nil, fmt.Errorf("step %d %v: %w", len(g.Actions)+1, a, err)
		}
		g.Actions = append(g.Actions, a)
		g.States = append(g.States, w.State())
	}
	return g, nil
}
