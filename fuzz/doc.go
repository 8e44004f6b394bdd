// Package fuzz holds the coverage-guided fuzz targets and the rapid
// state-machine test of the ERA environment: independent evidence, next to
// the model checker's exhaustive search and the linearize package's
// porcupine check, that the protocol and its decoders behave. It has no
// API; see README.md for how to run a campaign.
package fuzz
