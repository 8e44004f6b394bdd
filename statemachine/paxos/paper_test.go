package paxos

import (
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// Tests named after the statements of §2.1.2 and Paxos Made Simple (PMS).
// The step-by-step scenarios are in testdata/ (TestScripts).

func mustNew(t *testing.T, p core.Rank, cfg Config) *Node {
	t.Helper()
	n, err := New(p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustStep(t *testing.T, n *Node, ev core.Event) []core.Effect {
	t.Helper()
	effs, err := n.Step(ev, nil)
	if err != nil {
		t.Fatalf("%v: %v", ev, err)
	}
	return effs
}

func sent(effs []core.Effect) []core.Message {
	var ms []core.Message
	for _, e := range effs {
		if e.Kind == core.EffSend {
			ms = append(ms, e.Msg)
		}
	}
	return ms
}

// §2.1.2: the acceptor answers a prepare "prometendo que rejeitará
// qualquer requisição futura com números de rodada menores": after
// promising 4, it rejects prepare 1 and accept 3 with NACK(·, 4).
func TestAcceptorRejectsLowerRoundsAfterPromise(t *testing.T) {
	cfg := Classic(4) // ballots: round·4 + k + 1
	a := mustNew(t, 0, cfg)
	mustStep(t, a, core.Receive(3, Prepare{B: 4}))
	for _, c := range []struct {
		from core.Rank
		m    core.Message
		b    Ballot
	}{{0, Prepare{B: 1}, 1}, {2, Accept{B: 3, V: Noop}, 3}} {
		got := sent(mustStep(t, a, core.Receive(c.from, c.m)))
		if want := (Nack{B: c.b, Promised: 4}).String(); len(got) != 1 || got[0].String() != want {
			t.Errorf("%v after promising 4: %v, want %s", c.m, got, want)
		}
	}
	if len(a.Votes()) != 0 {
		t.Errorf("voted: %v", a.Votes())
	}
}

// §2.1.2: "Se o acceptor já aceitou um valor para instância atual …, ele
// irá retornar esse valor ao proposer juntamente com o número de rodada
// recebido quando o valor foi aceito" — for every instance of the batch.
func TestPromiseReportsAcceptedValueAndRound(t *testing.T) {
	a := mustNew(t, 0, Classic(3))
	v := Command{Origin: 0, Data: "v"}
	mustStep(t, a, core.Receive(0, Accept{B: 1, Inst: 0, V: v}))
	mustStep(t, a, core.Receive(1, Accept{B: 2, Inst: 2, V: Noop}))
	got := sent(mustStep(t, a, core.Receive(2, Prepare{B: 3, From: 1})))
	want := Promise{B: 3, From: 1, Votes: []Vote{{Inst: 2, B: 2, V: Noop}}}.String()
	if len(got) != 1 || got[0].String() != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

// §2.1.2: "se qualquer um dos acceptors retornou um valor na primeira
// fase, o proposer escolhe o valor com o maior número de rodada", and PMS's
// no-op for the gaps: the new coordinator proposes the ballot-2 value in
// instance 0, the no-op in instance 1 (no vote in the quorum), the
// reported value in instance 2, then the queued command.
func TestNewCoordinatorProposesHighestRoundValue(t *testing.T) {
	cfg := Classic(3)
	p := mustNew(t, 2, cfg)
	old, newer, other := Command{0, "old"}, Command{1, "newer"}, Command{0, "other"}
	mustStep(t, p, core.Suspect(0))
	mustStep(t, p, core.Suspect(1)) // p2 takes over with ballot 3
	mustStep(t, p, core.Receive(0, Request{Cmd: Command{0, "queued"}}))
	mustStep(t, p, core.Receive(0, Promise{B: 3, Votes: []Vote{{0, 1, old}, {2, 1, other}}}))
	effs := mustStep(t, p, core.Receive(1, Promise{B: 3, Votes: []Vote{{0, 2, newer}}}))
	var got []string
	for _, m := range sent(effs) {
		if a, ok := m.(Accept); ok && len(got) <= int(a.Inst) {
			got = append(got, a.V.String())
		}
	}
	want := []string{newer.String(), "noop", other.String(), `p0:"queued"`}
	if len(got) != len(want) {
		t.Fatalf("accepts for %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("instance %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// §2.1.2: "para tolerar f falhas ele requer 2f + 1 acceptors — isto é,
// … um quórum de f + 1 acceptors": a learner decides on f+1 votes of one
// ballot, not on f.
func TestLearnerDecidesOnQuorumOfFPlusOne(t *testing.T) {
	for f := 1; f <= 3; f++ {
		cfg := Classic(2*f + 1)
		l := mustNew(t, 0, cfg)
		v := Command{Origin: 0, Data: "v"}
		for a := 1; a <= f+1; a++ {
			effs := mustStep(t, l, core.Receive(core.Rank(a), Accepted{B: 1, V: v}))
			decided := len(l.Log()) == 1
			if decided != (a == f+1) {
				t.Fatalf("f=%d: after %d votes decided=%v (%v)", f, a, decided, effs)
			}
		}
	}
}

// §2.1.2: "Um coordenador pode otimizar o desempenho executando a primeira
// fase … antes de receber qualquer valor … um valor pode ser escolhido em
// três passos de comunicação": after Lead, a request is answered by
// ACCEPTs at once, and the quorum's ACCEPTEDs decide at the learners.
func TestPreExecutedPhase1ChoosesInThreeSteps(t *testing.T) {
	cfg := Config{N: 5, Proposers: []core.Rank{0, 4}, Acceptors: []core.Rank{0, 1, 2}, Learners: []core.Rank{3}}
	w := newWorld(t, cfg, 0)
	w.step(0, core.Call(Lead{}))
	for len(w.flight) > 0 {
		e := w.flight[0]
		w.flight = w.flight[1:]
		w.step(e.to, core.Receive(e.from, e.m))
	}
	v := Command{Origin: 4, Data: "x"}
	w.proposed[v] = true
	w.step(4, core.Call(Propose{Data: "x"})) // step 1: REQUEST
	depth := []int{1}                        // communication steps to each message in flight
	steps := 0
	for len(w.flight) > 0 && len(w.nodes[3].Log()) == 0 {
		e, d := w.flight[0], depth[0]
		w.flight, depth = w.flight[1:], depth[1:]
		w.step(e.to, core.Receive(e.from, e.m))
		for len(depth) < len(w.flight) {
			depth = append(depth, d+1)
		}
		steps = d
	}
	if got := w.nodes[3].Log(); len(got) != 1 || got[0] != v {
		t.Fatalf("learner log %v", got)
	}
	if steps != 3 {
		t.Errorf("decided after %d communication steps, want 3", steps)
	}
	if w.err != nil {
		t.Fatal(w.err)
	}
}

// §2.1.2: "Se o coordenador falha, outro processo assume a sua função":
// told that p0 crashed, p1 (next in Config.Proposers) runs phase 1 with a
// ballot of its own; p2 sends its pending request to p1.
func TestCoordinatorFailureNextProposerTakesOver(t *testing.T) {
	cfg := Classic(3)
	p1, p2 := mustNew(t, 1, cfg), mustNew(t, 2, cfg)
	mustStep(t, p2, core.Call(Propose{Data: "x"}))
	effs := mustStep(t, p1, core.Suspect(0))
	if b, ok := p1.Coordinating(); !ok || cfg.Owner(b) != 1 || len(sent(effs)) != 3 {
		t.Fatalf("p1 after p0's crash: %v (%v)", p1, effs)
	}
	got := sent(mustStep(t, p2, core.Suspect(0)))
	if len(got) != 1 || got[0].String() != (Request{Cmd: Command{2, "x"}}).String() {
		t.Errorf("p2 after p0's crash sent %v", got)
	}
}

// PMS: "an acceptor must remember this information even if it fails and
// then restarts": Recover keeps the promise, the votes, the ballot tried
// and the log, and nothing else.
func TestRecoverKeepsStableStorageOnly(t *testing.T) {
	w := newWorld(t, Classic(3), 3)
	w.run(3, 100)
	for _, n := range w.nodes {
		r := n.Recover().(*Node)
		if r.Promised() != n.Promised() || len(r.Votes()) != len(n.Votes()) || len(r.Log()) != len(n.Log()) || r.tried != n.tried {
			t.Errorf("%v lost stable storage: %v", n, r)
		}
		if r.coord != nil || len(r.pending) > 0 || !r.suspected.Empty() || r.armed || len(r.tallies) > 0 {
			t.Errorf("%v kept volatile state: %v", n, r)
		}
	}
	cfg := Classic(3)
	cfg.Mutant = MutantForgetPromiseOnRestart
	a := mustNew(t, 0, cfg)
	mustStep(t, a, core.Receive(1, Prepare{B: 2}))
	if r := a.Recover().(*Node); r.Promised() != 0 {
		t.Errorf("forget-promise-on-restart kept the promise")
	}
}
