// Package fabrun runs fabvote's Fabric network, as described by the model
// in network/fabnet, one organisation at a time, the way organisations on
// separate hosts do it: each organisation makes its own keys from its own
// Fabric CA, keeps them in its own home directory (Home), and hands the
// others only a public bundle (its MSP's CA certificates, and for the
// ordering organisation the orderers' TLS certificates and the channel's
// genesis block). A Local network runs every organisation on one host
// from one home.
//
// It does what the model leaves out: it writes the files the model
// renders into the home, calls cryptogen, configtxgen, configtxlator, the
// peer CLI and osnadmin, and starts, stops and watches the nodes as
// processes of the home (or through a Runtime, as containers).
// network/cmd/fabnet is the command line; docs/MULTIHOST.md the procedure.
package fabrun
