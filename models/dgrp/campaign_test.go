package dgrp

import "testing"

// TestCampaignShape: a short campaign (18 processes, ζ = 5, 2,000 rounds)
// changes the group, re-admits by consensus, and ends with the loaded
// process among the most counted; the same seed gives the same run.
func TestCampaignShape(t *testing.T) {
	c := DefaultCampaign
	c.Rounds, c.Seed = 2000, 1
	a, err := Campaign(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("slow tests %d, changes %d, requests %d, readmissions %d, counters %v", a.SlowTests, a.Changes, a.Requests, a.Readmissions, a.Counters)
	if a.Changes == 0 || a.Readmissions == 0 || a.Requests < a.Readmissions {
		t.Fatalf("changes %d, readmissions %d, requests %d", a.Changes, a.Readmissions, a.Requests)
	}
	for r, s := range a.GroupSize {
		if s < 1 || s > c.N {
			t.Fatalf("round %d: group size %d", r+1, s)
		}
	}
	b, err := Campaign(c)
	if err != nil {
		t.Fatal(err)
	}
	if b.Changes != a.Changes || b.Readmissions != a.Readmissions || b.SlowTests != a.SlowTests {
		t.Fatal("the same seed gave another run")
	}
}
