package dgrp

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// BenchmarkCheckDefault is `ftcheck check dgrp` with its defaults.
func BenchmarkCheckDefault(b *testing.B) {
	for b.Loop() {
		m, err := NewModel(DefaultCheck)
		if err != nil {
			b.Fatal(err)
		}
		if res := checker.BFS[*env.World](m, checker.Options{Workers: 1}); !res.Complete {
			b.Fatal("incomplete")
		}
	}
}

// BenchmarkCampaign is 1,000 rounds of the 18-process campaign.
func BenchmarkCampaign(b *testing.B) {
	c := DefaultCampaign
	c.Rounds = 1000
	for b.Loop() {
		if _, err := Campaign(c); err != nil {
			b.Fatal(err)
		}
	}
}
