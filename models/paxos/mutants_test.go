package paxos_test

import (
	"errors"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	_ "github.com/ftkernel/ftkernel/models/paxos"
)

// TestMutantAcceptLowerBallot: with Fig. 2.1's two competing proposers
// (both call Lead), an acceptor that accepts p0's ballot 1 after promising
// p1's ballot 2 lets both values be chosen in instance 0: breadth-first
// search finds the shortest run, 32 steps, two live learners disagreeing.
func TestMutantAcceptLowerBallot(t *testing.T) {
	r := build(t, "--instances 2 --crashes 0 --compete --mutant accept-lower-ballot")
	modeltest.MustCatch(t, r, "agreement", 32)
}

// TestMutantIgnorePromisedValue: p0 coordinates, one message is lost, p0
// crashes and p1 takes over; ignoring the votes its phase 1 reported, p1
// places its own command in an instance where p0's was chosen. Depth-first
// search (the breadth-first frontier does not fit in memory at these
// bounds) finds a run of 62 steps.
func TestMutantIgnorePromisedValue(t *testing.T) {
	mustCatchDFS(t, "--instances 2 --crashes 1 --recoveries 1 --crashable coordinator --loss 1 --mutant ignore-promised-value", "agreement", 62)
}

// TestMutantForgetPromiseOnRestart: acceptors crash and restart (p0 and
// p1 never crash) while Fig. 2.1's proposers compete; a restarted acceptor
// that forgot its promise votes for a superseded ballot and an instance
// gets two values. The walks find it as a lasso of 142 steps whose cycle
// retransmits a REQUEST that the coordinator answers with a value the
// requester's log has not got in that instance: termination. The same
// 30000 walks of the correct code hold (docs/paxos.md).
func TestMutantForgetPromiseOnRestart(t *testing.T) {
	rep := modeltest.Simulate(t, "paxos", "--proposers", "2", "--acceptors", "3", "--instances", "3", "--crashes", "3",
		"--recoveries", "3", "--loss", "2", "--dup", "0", "--crash-prob", "0.1", "--crashable", "2-4", "--compete",
		"--walks", "30000", "--mutant", "forget-promise-on-restart")
	if len(rep.Violations) == 0 {
		t.Fatalf("survived: %s", rep.Text)
	}
	if v := rep.Violations[0]; v.Property != "termination" || v.Steps != 142 {
		t.Fatalf("caught by %s after %d steps, want termination after 142", v.Property, v.Steps)
	}
}

// TestMutantForgetPromiseAgreement: the same mutant caught by a safety
// property. p0 and p1 compete (Fig. 2.1); only the acceptor p2 crashes and
// restarts, and one message may be lost. p2 promises p1's ballot 2,
// restarts promising nothing and votes for p0's ballot 1 with p3, whose
// PREPARE of ballot 2 was lost; ballot 2 is chosen by p2 and p4, whose
// promises carried no vote: the live learners p0 and p1 decide different
// values in instance 0 (statemachine/paxos testdata
// mutant_forget_promise_compete.txt, message by message). Random walks
// find it in 45 steps; the correct code holds on the same walks. Under
// Δ = 1 without a loss it cannot happen (a PREPARE sent at tick 0 reaches
// p3 before any ACCEPT, sent at tick 2 at the earliest): docs/paxos.md
// gives the complete depth-first search.
func TestMutantForgetPromiseAgreement(t *testing.T) {
	args := []string{"--proposers", "2", "--acceptors", "3", "--instances", "2", "--compete",
		"--crashes", "1", "--recoveries", "1", "--crashable", "2", "--loss", "1", "--dup", "0", "--crash-prob", "0.2",
		"--walks", "3000"}
	if rep := modeltest.Simulate(t, "paxos", args...); len(rep.Violations) > 0 {
		t.Fatalf("the correct code fails the walks: %s", rep.Text)
	}
	rep := modeltest.Simulate(t, "paxos", append(args, "--mutant", "forget-promise-on-restart")...)
	if len(rep.Violations) == 0 {
		t.Fatalf("survived: %s", rep.Text)
	}
	if v := rep.Violations[0]; v.Property != "agreement" || v.Steps != 45 {
		t.Fatalf("caught by %s after %d steps, want agreement after 45", v.Property, v.Steps)
	}
}

// TestMutantsRandomWalks: the walks of `ftcheck simulate paxos` at 2
// proposers, 3 acceptors, 3 commands, 2 crashes, 2 restarts and 3 losses
// catch learn-on-minority (agreement, 63 steps), and ignore-promised-value
// and accept-lower-ballot at the end of a walk (the live learners' logs
// differ: termination).
func TestMutantsRandomWalks(t *testing.T) {
	for _, c := range []struct {
		mutant, property string
		steps            int
	}{
		{"learn-on-minority", "agreement", 63},
		{"ignore-promised-value", "termination", 86},
		{"accept-lower-ballot", "termination", 97},
	} {
		t.Run(c.mutant, func(t *testing.T) {
			rep := modeltest.Simulate(t, "paxos", "--proposers", "2", "--acceptors", "3", "--instances", "3", "--crashes", "2",
				"--recoveries", "2", "--loss", "3", "--dup", "0", "--crash-prob", "0.05", "--walks", "3000", "--mutant", c.mutant)
			if len(rep.Violations) == 0 {
				t.Fatalf("survived: %s", rep.Text)
			}
			if v := rep.Violations[0]; v.Property != c.property || v.Steps != c.steps {
				t.Fatalf("caught by %s after %d steps, want %s after %d", v.Property, v.Steps, c.property, c.steps)
			}
		})
	}
}

// TestMutantRelabelRequest: p1's command c1 reaches p0 in a REQUEST and
// p0 places it as p0:"c1", which no process proposed; breadth-first
// search over validity alone finds the shortest run, 26 steps, with no
// fault.
func TestMutantRelabelRequest(t *testing.T) {
	catchOnly(t, "--instances 2 --crashes 0 --mutant relabel-request", "validity", false, 26)
}

// TestMutantDecideBeforeChosen: the coordinator p0 delivers c0 in
// instance 0 as it places it, then crashes before the acceptors vote; p1
// takes over and fills instance 0 with the no-op. Uniform agreement
// catches it (breadth-first, 18 steps with one acceptor; depth-first, 34
// steps with three), and agreement, over live processes, cannot: at the
// one-acceptor bound the search over agreement alone completes with no
// violation, since the only process that decided otherwise is down.
func TestMutantDecideBeforeChosen(t *testing.T) {
	args := "--acceptors 1 --instances 2 --crashes 1 --crashable coordinator --mutant decide-before-chosen"
	catchOnly(t, args, "uniform-agreement", false, 18)
	catchOnly(t, "--instances 2 --crashes 1 --crashable coordinator --mutant decide-before-chosen", "uniform-agreement", true, 34)
	res := build(t, args).BFS(checker.Options{Properties: []string{"agreement"}})
	if res.Err != nil || !res.Complete || len(res.Violations) > 0 {
		t.Fatalf("agreement alone: err=%v complete=%v violations=%d, want a complete run that holds", res.Err, res.Complete, len(res.Violations))
	}
	if res.States != 3341 {
		t.Errorf("agreement alone: %d distinct states, docs: 3341", res.States)
	}
}

// TestMutantForgetLogOnRestart: the learner p1 decides c0, crashes and
// restarts with an empty log; its LEARNED(0) brings DECIDED from the
// coordinator and it delivers instance 0 again. Breadth-first search over
// integrity alone, 37 steps.
func TestMutantForgetLogOnRestart(t *testing.T) {
	catchOnly(t, "--instances 1 --crashes 1 --recoveries 1 --crashable 1 --mutant forget-log-on-restart", "integrity", false, 37)
}

// TestMutantDeliverOutOfOrder: two acceptors' votes for instance 1 reach
// the learner p0 before any for instance 0, and it delivers instance 1
// first. Breadth-first search over in-order alone, 24 steps, no fault.
func TestMutantDeliverOutOfOrder(t *testing.T) {
	catchOnly(t, "--instances 2 --crashes 0 --mutant deliver-out-of-order", "in-order", false, 24)
}

// catchOnly runs a search of args that checks property alone (ftcheck's
// --property), breadth-first or, with dfs, depth-first: it must find a
// violation of property in steps steps that replays.
func catchOnly(t *testing.T, args, property string, dfs bool, steps int) {
	t.Helper()
	r := build(t, args)
	opt := checker.Options{Properties: []string{property}, MaxStates: 2_000_000}
	if dfs {
		opt.Mode = checker.DepthFirst
	}
	res := r.BFS(opt)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Violations) == 0 {
		t.Fatalf("%s: mutant survived %d states (complete=%v)", args, res.States, res.Complete)
	}
	tr := res.Violations[0]
	if tr.Violation.Property != property || len(tr.Steps) != steps {
		t.Fatalf("%s: caught by %s in %d steps, want %s in %d:\n%s", args, tr.Violation.Property, len(tr.Steps), property, steps, tr)
	}
	var ve *checker.ViolationError
	if err := r.Replay(tr); !errors.As(err, &ve) || ve.Violation.Property != property {
		t.Fatalf("%s: replay: %v", args, err)
	}
}

// mustCatchDFS runs a depth-first search of args over the safety
// properties: it must find a violation of property in steps steps that
// replays.
func mustCatchDFS(t *testing.T, args, property string, steps int) {
	t.Helper()
	r := build(t, args)
	res := r.BFS(checker.Options{Mode: checker.DepthFirst, Properties: safety, MaxStates: 5_000_000})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Violations) == 0 {
		t.Fatalf("mutant survived %d states (complete=%v)", res.States, res.Complete)
	}
	tr := res.Violations[0]
	if tr.Violation.Property != property || len(tr.Steps) != steps {
		t.Fatalf("caught by %s in %d steps, want %s in %d:\n%s", tr.Violation.Property, len(tr.Steps), property, steps, tr)
	}
	var ve *checker.ViolationError
	if err := r.Replay(tr); !errors.As(err, &ve) || ve.Violation.Property != property {
		t.Fatalf("replay: %v", err)
	}
}
