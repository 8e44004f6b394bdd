package conformance

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/internal/mutant"
)

// listInts reads an ITF list of ints in order.
func listInts(v any) []int {
	var out []int
	for _, e := range v.([]any) {
		out = append(out, asInt(e))
	}
	return out
}

func pairsSpec(v any) [][2]int {
	var out [][2]int
	for _, e := range v.([]any) {
		t := e.([]any)
		out = append(out, [2]int{asInt(t[0]), asInt(t[1])})
	}
	return out
}

// pxMsgSpec reads a paxos.qnt Msg record.
func pxMsgSpec(v any) PxMsg {
	r := v.(map[string]any)
	var votes []PxVote
	for _, e := range r["votes"].([]any) {
		x := e.(map[string]any)
		votes = append(votes, PxVote{I: asInt(x["i"]), B: asInt(x["b"]), V: asInt(x["v"])})
	}
	return PxMsg{Kind: r["kind"].(string), Src: asInt(r["src"]), Dst: asInt(r["dst"]),
		B: asInt(r["b"]), I: asInt(r["i"]), V: asInt(r["v"]),
		Votes: pxVotesString(votes), Vals: joinInts(listInts(r["vals"]))}
}

// fromPxSpec reads the compared part of a paxos.qnt state.
func fromPxSpec(st map[string]any) (s PxState, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("paxos.qnt state of an unexpected shape: %v", r)
		}
	}()
	nodes := intKeyed(st["node"])
	dec, ret := intKeyed(st["decisions"]), intKeyed(st["returns"])
	for p := range len(nodes) {
		r := nodes[p].(map[string]any)
		x := PxNode{Promised: asInt(r["promised"]), Log: listInts(r["log"]), Pending: listInts(r["pending"]),
			Leader: asInt(r["leader"]), Armed: r["armed"].(bool),
			Decisions: pairsSpec(dec[p]), Returns: pairsSpec(ret[p])}
		acc := intKeyed(r["accepted"])
		for i, v := range acc {
			vr := v.(map[string]any)
			x.Votes = append(x.Votes, PxVote{I: i, B: asInt(vr["b"]), V: asInt(vr["v"])})
		}
		slices.SortFunc(x.Votes, func(a, b PxVote) int { return a.I - b.I })
		c := r["coord"].(map[string]any)
		if c["on"].(bool) {
			x.CoordB, x.Preparing = asInt(c["b"]), c["preparing"].(bool)
		}
		s.Nodes = append(s.Nodes, x)
	}
	s.Crashed = asInts(st["crashed"])
	s.Proposed = asInts(st["proposed"])
	u := st["used"].(map[string]any)
	s.Used = PxBudget{Crashes: asInt(u["crashes"]), Recoveries: asInt(u["recoveries"]), Losses: asInt(u["losses"]),
		Dups: asInt(u["dups"]), Leads: asInt(u["leads"]), FalseSusp: asInt(u["falseSusp"]), Timeouts: asInt(u["timeouts"])}
	s.Flight = map[PxMsg]int{}
	for _, kv := range asMap(st["msgs"]) {
		s.Flight[pxMsgSpec(kv[0])] = asInt(kv[1])
	}
	return s, nil
}

// pxSpecAction is the action that led to spec state s.
func pxSpecAction(s map[string]any) (a PxAction, err error) {
	defer recoverPicks(&err)
	get := somePicks(s)
	a.Act, _ = s["mbt::actionTaken"].(string)
	switch a.Act {
	case "Propose":
		a.P, a.D = asInt(get("p")), asInt(get("d"))
	case "Lead", "Timeout", "Crash", "Restart":
		a.P = asInt(get("p"))
	case "Suspect", "Recovered":
		a.P, a.Q = asInt(get("p")), asInt(get("q"))
	case "Deliver", "Lose", "Duplicate":
		a.M = pxMsgSpec(get("m"))
	default:
		return a, fmt.Errorf("unknown spec action %q", a.Act)
	}
	return a, nil
}

// ReplayPaxosITF replays the ITF trace at path, written by `quint run
// --mbt` on module in.Module of paxos.qnt, on the Go nodes of the instance
// (Go mutant mut when set: a check that the comparison notices a wrong
// rule). Every spec step is one PxWorld action, i.e. one Go event
// (Deliver: core.Receive of the spec's message; Restart: Recover then
// core.Restart); after every step the spec's state is compared with the
// Go world's (PxState, cmp.Diff). The first difference is a *Divergence.
func ReplayPaxosITF(path string, in PxInstance, mut mutant.Name) (Stats, error) {
	st, tr, err := readReplay(path)
	if err != nil {
		return st, err
	}
	w, err := NewPxWorld(in, mut)
	if err != nil {
		return st, err
	}
	div := func(i int, diff string) error {
		s := tr.States[i]
		return &Divergence{File: path, Step: i, Action: fmt.Sprint(s["mbt::actionTaken"]),
			Picks: formatPicks(s, []string{"p", "q", "d", "m"}, pxMsgSpec), Diff: diff}
	}
	compare := func(i int) error {
		return compareSpecState(&st, i, tr.States[i], fromPxSpec, nil, w.State(), nil, div)
	}
	if err := compare(0); err != nil {
		return st, err
	}
	for i := 1; i < len(tr.States); i++ {
		a, err := pxSpecAction(tr.States[i])
		if err != nil {
			return st, div(i, err.Error())
		}
		if err := w.Apply(a); err != nil {
			return st, div(i, err.Error())
		}
		st.GoSteps++
		if err := compare(i); err != nil {
			return st, err
		}
	}
	return st, nil
}
