// Package abcast is atomic broadcast among the members of the stable core,
// as Appendix A of de Camargo's thesis (UFPR, 2017) compares it: a
// consensus-based protocol and the two fixed-sequencer protocols UB
// (unicast-broadcast) and BB (broadcast-broadcast), written as a
// core.Machine. The core (the Dynamic Core of Stable Processes, the DGRP's
// earlier name) is given: members are ranks 0 … N−1 and the first member,
// rank 0, is the sequencer (UB, BB) or the consensus coordinator.
//
// # Using it
//
//	core.Call(Broadcast{Seq})  at a member: broadcast its Seq-th message
//	core.Receive(q, m)         a message of this package, or of the consensus (Consensus variant)
//	core.Suspect(q)            the failure detector reports member q dead
//
//	core.EffSend               send the message
//	core.EffDeliver(a, id)     deliver message id (a = id.Key()), in the total order
//
// A message is named by its ID: its origin and the origin's sequence
// number. Delivery order is the atomic broadcast's total order: the
// sequencer's numbers (UB, BB), or the consensus instances' order and,
// within one instance's batch, (origin, seq) order (Consensus).
//
// The consensus variant composes a consensus machine supplied by the
// embedder through Consensus (models/abcast supplies statemachine/paxos
// through its public API): this package imports only core.
//
// # Faults
//
// Members other than the sequencer or coordinator may crash (the
// appendix's members "permanecem estáveis durante a execução da difusão
// atômica"; a crash of another
// member is the fault the properties must survive). Channels are reliable
// ("as mensagens enviadas sofrem atraso, porém não são perdidas"). The sequencer and the coordinator
// are fixed, as in the appendix: nothing takes over when they crash (see
// rules.go, "Sequencer crash").
//
// rules.go holds the rules, each citing Appendix A, with every choice the
// appendix leaves open marked "Ambiguity:"; mutants.go the broken variants
// for checkers.
package abcast
