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
