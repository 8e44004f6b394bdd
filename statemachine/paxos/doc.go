// Package paxos is Multi-Paxos as the thesis of de Camargo (UFPR, 2017)
// uses it, §2.1.2 ("Paxos"), with Lamport's "Paxos Made Simple" (PMS) for
// what the thesis leaves to it, written as a core.Machine: a sequence of
// instances, instance i deciding the i-th command, proposers, acceptors and
// learners (one process may hold several roles: Config), and a
// coordinator that pre-executes phase 1 for every instance from the first
// it has not decided, so that a command is chosen in three communication
// steps: REQUEST (proposer → coordinator), ACCEPT (coordinator →
// acceptors), ACCEPTED (acceptors → coordinator and learners).
//
// # Using it
//
// Build the group's nodes with New or NewAll from one Config. Then, as any
// core.Machine, step each node with its events and carry out its effects:
//
//	core.Call(Propose{Data})   at a proposer: propose a command (opaque bytes)
//	core.Call(Lead{})          at a proposer: coordinate now (phase 1)
//	core.Receive(q, m)         a message of this package from q
//	core.Suspect(q)            the failure detector reports q dead
//	core.Recovered(q)          … and later restarted
//	core.Timer(TimerRetransmit) the retransmission timer fired
//	core.Restart()             first step of a node made by Recover
//
//	core.EffSend               send the message (channels may lose it)
//	core.EffDecide(i, v)       at a learner: instance i decided v, in instance order
//	core.EffReturn(i, v)       at the proposer of v: its Propose chose v in instance i
//	core.EffSetTimer           arm TimerRetransmit after Config.Retransmit
//
// Values are Commands: the proposer's rank and its bytes, or the no-op a
// new coordinator fills empty instances with. Example runs three nodes by
// hand to a decision; testdata/*.txt replay the thesis's Fig. 2.1 (two
// competing proposers) and Fig. 5.2 (the Classic and Parallel Paxos event
// loggers' flows) message by message.
//
// # Messages
//
// PREPARE(b, from) and PROMISE(b, from, votes) are phase 1 for the batch of
// instances ≥ from (the thesis's prepare and prepareResp); ACCEPT(b, i, v)
// and ACCEPTED(b, i, v) phase 2 (accept and acceptResp); NACK(b, promised)
// tells a proposer its ballot was rejected; REQUEST(v) carries a command to
// the coordinator; DECIDED(from, values) and LEARNED(next) carry chosen
// instances to a proposer or a learner that missed them, and the
// learner's acknowledgement.
//
// # Faults
//
// Channels may lose messages: every role retransmits on its one timer
// until answered (see retransmit), so a finite number of losses delays
// decisions but does not stop them. Processes crash and may recover:
// Recover (core.Recoverable) keeps the stable storage (the acceptor's
// promise and votes, the proposer's highest ballot tried, the learner's
// log) and resets the rest. When the detector reports the coordinator
// dead, the first proposer of Config.Proposers not suspected takes over
// with a higher ballot, and its phase 1 recovers every value that may
// have been chosen. Safety (validity, uniform agreement, integrity) holds
// whatever the detector says; termination needs a single coordinator and
// a quorum of live acceptors (§2.1.2: "terminação na presença de um único
// coordenador").
//
// The files follow the thesis: rules.go holds the rules, each quoting
// §2.1.2 or PMS, with every choice they leave open marked "Ambiguity:";
// recover.go the restart; mutants.go the broken variants for checkers.
package paxos
