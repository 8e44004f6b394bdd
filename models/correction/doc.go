// Package correction is the Corrected Tree broadcast (Küttler et al.,
// "Corrected Trees for Reliable Group Communication", PPoPP'19) bound to
// its environments: the flags and model builder of `ftcheck check
// correction` (model.go), its properties composed from props (props.go),
// its mutants, and the paper reproductions on the LogP simulator
// (checker/logp): the Monte-Carlo campaigns (logp_campaign.go, dist.go),
// Table 1 with the paper's figures beside ours, Figure 1b and §4.3
// (table1.go), `ftcheck simulate correction` (simulate.go) and the
// Figure 5 style timeline (timeline.go). The protocol itself is
// statemachine/correction (imported as corrsm); the LogP lemma tests
// (Lemma 2, Corollary 1, Lemma 3, §3.1, §4.1) are logp_*_test.go.
package correction
