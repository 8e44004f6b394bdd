package dgrp

// Estimator is the adaptive recommendation threshold of a tester for one
// tested process (§4.1.3: the threshold follows "o algoritmo utilizado
// pelo protocolo TCP para calcular o timeout", "com a adição de um fator a
// fim de aumentar a tolerância no atraso"). The thesis names the algorithm
// (Jacobson, 1988) but gives no formula; this is the standard one
// (Jacobson/Karels, RFC 6298): SRTT ← (1−α)·SRTT + α·R, RTTVAR ← (1−β)·RTTVAR
// + β·|SRTT − R|, RTO = SRTT + 4·RTTVAR, α = 1/8, β = 1/4, the first sample
// setting SRTT = R and RTTVAR = R/2. Times are in any one unit (the
// campaign uses milliseconds). The zero value has seen no sample.
type Estimator struct {
	SRTT, RTTVar float64
	Samples      int
}

// Observe feeds one response time r ≥ 0.
func (e *Estimator) Observe(r float64) {
	if e.Samples == 0 {
		e.SRTT, e.RTTVar = r, r/2
	} else {
		d := e.SRTT - r
		if d < 0 {
			d = -d
		}
		e.RTTVar = 0.75*e.RTTVar + 0.25*d
		e.SRTT = 0.875*e.SRTT + 0.125*r
	}
	e.Samples++
}

// RTO is the retransmission timeout SRTT + 4·RTTVAR (0 before a sample).
func (e Estimator) RTO() float64 { return e.SRTT + 4*e.RTTVar }

// Threshold is the recommendation threshold F·RTO (F = 2.5 in the main
// experiment, §4.3), or initial before the first sample (8 s in the
// first experiment).
func (e Estimator) Threshold(f, initial float64) float64 {
	if e.Samples == 0 {
		return initial
	}
	return f * e.RTO()
}

// Pass is the test's verdict on a response time r: recommended when r is
// at most the threshold (spec §3.4); the estimator then takes the sample,
// as a TCP sender does after the answer arrives.
func (e *Estimator) Pass(r, f, initial float64) bool {
	ok := r <= e.Threshold(f, initial)
	e.Observe(r)
	return ok
}
