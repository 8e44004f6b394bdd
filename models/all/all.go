// Package all registers every model with the registry: importing it (as
// cmd/ftcheck does) makes `ftcheck list`, check, simulate and replay know
// every protocol. Adding a protocol means adding its models/<p> folder and
// one import line here.
package all

import (
	// Each model registers itself from its init.
	_ "github.com/ftkernel/ftkernel/models/abcast"
	_ "github.com/ftkernel/ftkernel/models/correction"
	_ "github.com/ftkernel/ftkernel/models/dgrp"
	_ "github.com/ftkernel/ftkernel/models/diagnosis"
	_ "github.com/ftkernel/ftkernel/models/era"
	_ "github.com/ftkernel/ftkernel/models/eventlogger"
	_ "github.com/ftkernel/ftkernel/models/gossipfd"
	_ "github.com/ftkernel/ftkernel/models/hyperquicksort"
	_ "github.com/ftkernel/ftkernel/models/msglog"
	_ "github.com/ftkernel/ftkernel/models/paxos"
	_ "github.com/ftkernel/ftkernel/models/replica"
	_ "github.com/ftkernel/ftkernel/models/ringfd"
	_ "github.com/ftkernel/ftkernel/models/twophase"
)
