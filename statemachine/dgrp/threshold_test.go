package dgrp

import (
	"math"
	"testing"
)

// TestEstimatorJacobsonKarels: the estimator follows RFC 6298's arithmetic
// sample by sample (values computed by hand).
func TestEstimatorJacobsonKarels(t *testing.T) {
	var e Estimator
	if got := e.Threshold(2.5, 8000); got != 8000 {
		t.Fatalf("threshold before a sample %v, want the initial 8000", got)
	}
	for _, c := range []struct{ r, srtt, rttvar, rto float64 }{
		{100, 100, 50, 300},          // first sample: SRTT = R, RTTVAR = R/2
		{100, 100, 37.5, 250},        // RTTVAR ← 3/4·50 + 1/4·0
		{200, 112.5, 53.125, 325},    // RTTVAR ← 3/4·37.5 + 1/4·100; SRTT ← 7/8·100 + 1/8·200
		{100, 110.9375, 42.96875, 0}, // RTTVAR ← 3/4·53.125 + 1/4·12.5; SRTT ← 7/8·112.5 + 1/8·100
	} {
		e.Observe(c.r)
		if math.Abs(e.SRTT-c.srtt) > 1e-9 || math.Abs(e.RTTVar-c.rttvar) > 1e-9 {
			t.Fatalf("after %v: SRTT %v RTTVAR %v, want %v %v", c.r, e.SRTT, e.RTTVar, c.srtt, c.rttvar)
		}
		if c.rto != 0 && e.RTO() != c.rto {
			t.Fatalf("after %v: RTO %v, want %v", c.r, e.RTO(), c.rto)
		}
	}
	if got, want := e.Threshold(2.5, 8000), 2.5*(110.9375+4*42.96875); math.Abs(got-want) > 1e-9 {
		t.Fatalf("threshold %v, want F·RTO = %v", got, want)
	}
}

// TestEstimatorPassThenLearn: a response over the threshold fails the
// test, and the sample is taken after the verdict (a steady 50 ms process
// that answers once in 400 ms is non-recommended in that interval only).
func TestEstimatorPassThenLearn(t *testing.T) {
	var e Estimator
	for i := range 50 {
		if !e.Pass(50, 2.5, 8000) {
			t.Fatalf("steady sample %d failed (threshold %v)", i, e.Threshold(2.5, 8000))
		}
	}
	if th := e.Threshold(2.5, 8000); th >= 400 {
		t.Fatalf("threshold %v after 50 steady samples of 50, want well under 400", th)
	}
	if e.Pass(400, 2.5, 8000) {
		t.Fatal("a response 8 times the mean passed")
	}
	if !e.Pass(50, 2.5, 8000) {
		t.Fatal("the next steady sample failed: the spike raised the threshold, it must pass")
	}
}
