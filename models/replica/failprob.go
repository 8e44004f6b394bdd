package replica

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Weibull is Eq. 1 of §4.5, the probability that a host fails in [0, t]:
// 1 − exp(−(tλ)^δ), with failure rate λ > 0 (per second when t is in
// seconds) and shape δ > 0 (δ = 1: exponential).
func Weibull(t, lambda, shape float64) float64 {
	return -math.Expm1(-math.Pow(t*lambda, shape))
}

// PApp is §4.5's failure probability of a p-process application without
// replication, each host failing with probability f: 1 − (1 − f)^p.
func PApp(p int, f float64) float64 { return -math.Expm1(float64(p) * math.Log1p(-f)) }

// PAppR is Eq. 2 of §4.5: the failure probability of a p-process
// application with replication degree r, which fails iff some process
// loses all r replicas: 1 − (1 − f^r)^p.
func PAppR(p, r int, f float64) float64 {
	return -math.Expm1(float64(p) * math.Log1p(-math.Pow(f, float64(r))))
}

// PAppRRank0 is Eq. 2 corrected for an unreplicated rank 0 (§4: "the
// process running on the submitter host … is not replicated"), which the
// paper's formula ignores: 1 − (1 − f)(1 − f^r)^(p−1).
func PAppRRank0(p, r int, f float64) float64 {
	return 1 - (1-f)*(1-PAppR(p-1, r, f))
}

// FailureParams are the inputs of `ftcheck simulate replica
// --failure-probability`: p processes, degree r, Weibull rate λ (per time
// unit of T) and shape δ, run duration T, and a seeded Monte Carlo of
// Trials runs (0: none).
type FailureParams struct {
	P, R       int
	Lambda, T  float64
	Shape      float64
	Rank0Unrep bool // rank 0 is not replicated (§4's default)
	Trials     int
	Seed       uint64
}

// FailureReport is the answer: f (Eq. 1), p_app (Eq. 2, or the rank-0
// variant), and with Trials the Monte Carlo estimate, its failures, and
// its 95 % Wilson interval.
type FailureReport struct {
	F          float64    `json:"f"`
	PApp       float64    `json:"p_app"`
	PAppMC     *float64   `json:"p_app_mc,omitempty"`
	Failures   int        `json:"failures,omitempty"`
	Trials     int        `json:"trials,omitempty"`
	CI95       [2]float64 `json:"ci95,omitempty"`
	InCI       *bool      `json:"p_app_in_ci95,omitempty"`
	Rank0Unrep bool       `json:"rank0_unreplicated"`
}

// FailureProbability computes Eq. 1 and 2 and, with Trials > 0, checks Eq.
// 2 by simulating host failures: each of the p·r replicas (one for rank 0
// when Rank0Unrep) fails independently with probability f; a run fails iff
// some process has every replica failed.
func FailureProbability(fp FailureParams) (*FailureReport, error) {
	if fp.P < 1 || fp.R < 1 || !(fp.Lambda > 0) || !(fp.T >= 0) || !(fp.Shape > 0) || fp.Trials < 0 {
		return nil, errors.New("replica: failure probability needs p ≥ 1, r ≥ 1, λ > 0, t ≥ 0, shape > 0, trials ≥ 0")
	}
	if math.IsInf(fp.Lambda, 0) || math.IsInf(fp.T, 0) || math.IsInf(fp.Shape, 0) {
		return nil, fmt.Errorf("replica: infinite parameter")
	}
	f := Weibull(fp.T, fp.Lambda, fp.Shape)
	rep := &FailureReport{F: f, PApp: PAppR(fp.P, fp.R, f), Rank0Unrep: fp.Rank0Unrep}
	if fp.Rank0Unrep {
		rep.PApp = PAppRRank0(fp.P, fp.R, f)
	}
	if fp.Trials == 0 {
		return rep, nil
	}
	rng := rand.New(rand.NewPCG(fp.Seed, 0x7265706c696361))
	fails := 0
	for range fp.Trials {
		for i := 0; i < fp.P; i++ {
			r := fp.R
			if i == 0 && fp.Rank0Unrep {
				r = 1
			}
			all := true
			for k := 0; k < r && all; k++ {
				all = rng.Float64() < f
			}
			if all {
				fails++
				break
			}
		}
	}
	est := float64(fails) / float64(fp.Trials)
	lo, hi := wilson(fails, fp.Trials, 1.959963984540054)
	in := rep.PApp >= lo && rep.PApp <= hi
	rep.PAppMC, rep.Failures, rep.Trials, rep.CI95, rep.InCI = &est, fails, fp.Trials, [2]float64{lo, hi}, &in
	return rep, nil
}

// wilson is the Wilson score interval of k successes in n trials at z.
func wilson(k, n int, z float64) (lo, hi float64) {
	p, nf := float64(k)/float64(n), float64(n)
	d := 1 + z*z/nf
	c := (p + z*z/(2*nf)) / d
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / d
	return math.Max(0, c-h), math.Min(1, c+h)
}

// Duration is the run-time model used for Fig. 10 (the paper's model is in
// its reference [25], not in the text): perfect parallelism of the
// sequential time over p processes, times a replication overhead linear in
// r, t(r) = (Tseq/p)·(1 + α(r − 1)). α = 1 makes the overhead factor r,
// the upper bound §4.4 measures ("a bit less than r·t_1").
func Duration(tseq float64, p, r int, alpha float64) float64 {
	return tseq / float64(p) * (1 + alpha*float64(r-1))
}

// Fig10 is P_appr(p, r) with t = Duration(tseq, p, r, alpha), for r = 1 …
// rmax (index r−1), and the r of its minimum.
func Fig10(p, rmax int, lambda, shape, tseq, alpha float64) (curve []float64, best int) {
	for r := 1; r <= rmax; r++ {
		v := PAppR(p, r, Weibull(Duration(tseq, p, r, alpha), lambda, shape))
		curve = append(curve, v)
		if best == 0 || v < curve[best-1] {
			best = r
		}
	}
	return curve, best
}
