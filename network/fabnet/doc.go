// Package fabnet is the model of fabvote's Fabric network: the Topology
// every organisation agrees on (the channel, the organisations and the
// address and ports of each node, from the port plan of network/portplan),
// and what follows from it as data: the channel's configtx.yaml,
// cryptogen's configuration, the connection descriptions (network.json),
// the file layout of a cryptogen tree, the nodes' addresses and their
// definitions as processes (Proc).
//
// The line with network/fabrun, which runs the network: this package
// starts no process, runs no tool and reads or writes no organisation's
// home. Its functions return contents; the runner writes them, calls
// cryptogen, configtxgen, the peer CLI and osnadmin, and starts and stops
// the nodes. The one file this package reads and writes is the topology
// file itself (Load, Save), and the one question it asks the host is
// whether the topology's ports are free (CheckPortsFree, from the
// kernel's socket table). A test (TestModelImports) keeps os/exec, syscall
// and the runner out of its imports.
//
// network/cmd/fabnet is the command line; docs/MULTIHOST.md the procedure.
package fabnet
