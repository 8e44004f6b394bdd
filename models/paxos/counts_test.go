package paxos_test

import (
	"testing"

	"github.com/ftkernel/ftkernel/models/internal/modeltest"
)

// TestDocsCounts pins the exhaustive runs of docs/paxos.md ("Bounds
// reached"): distinct and generated states and depth of a complete
// breadth-first search with every property holding, termination included
// (the explicit-graph search of checker.Eventually). The cheap rows run in
// the default suite, the costly ones with FTKERNEL_LONG=1.
func TestDocsCounts(t *testing.T) {
	modeltest.PinRows(t, "paxos", []modeltest.Counts{
		{Args: "--instances 1 --crashes 0", States: 619, Transitions: 2568, Depth: 40},
		{Args: "--instances 1 --crashes 0 --loss 1", States: 3846, Transitions: 18025, Depth: 40},
		{Args: "--instances 1 --crashes 0 --dup 1", States: 7933, Transitions: 40763, Depth: 42},
		{Args: "--instances 1 --crashes 0 --compete", States: 2261, Transitions: 7977, Depth: 56},
		{Args: "--instances 1", States: 51482, Transitions: 266966, Depth: 59},
		{Args: "--instances 2 --crashes 0 --compete", States: 376545, Transitions: 3030125, Depth: 88, Long: true},
		{Args: "--instances 2 --crashes 0", States: 860467, Transitions: 7777366, Depth: 62, Long: true},
		{Args: "--instances 1 --crashes 1 --recoveries 1", States: 2033102, Transitions: 12127733, Depth: 85, Long: true},
	})
}

// TestTargetCounts pins docs/paxos.md's "The 2-proposer, 3-acceptor target
// with every fault": depth-first searches of the safety properties, the
// coordinator the one process that may crash. The costly rows (over a
// minute, the last over ten) run with FTKERNEL_LONG=1.
func TestTargetCounts(t *testing.T) {
	const dfs = " --crashable coordinator --dfs --property validity,agreement,uniform-agreement,integrity,in-order"
	modeltest.PinRows(t, "paxos", []modeltest.Counts{
		{Args: "--instances 1 --crashes 1" + dfs, States: 15222, Transitions: 65176, Depth: 59},
		{Args: "--instances 1 --crashes 1 --loss 1" + dfs, States: 72935, Transitions: 348117, Depth: 59},
		{Args: "--instances 1 --crashes 1 --recoveries 1" + dfs, States: 1940442, Transitions: 11639527, Depth: 94, Long: true},
		{Args: "--instances 1 --crashes 1 --recoveries 1 --loss 1" + dfs, States: 14282232, Transitions: 100358184, Depth: 100, Long: true},
		{Args: "--instances 2 --crashes 1" + dfs, States: 14122094, Transitions: 104179084, Depth: 89, Long: true},
		{Args: "--instances 2 --crashes 1 --loss 1" + dfs, States: 107822960, Transitions: 868760237, Depth: 89, Long: true},
	})
}
