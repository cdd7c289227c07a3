// Command fabvote is the one command-line tool of a fabvote election: the
// election authority creates and opens elections and registers voters,
// voters make and cast ballots and check their receipts, trustees decrypt
// the tally, and anyone audits the result from the ledger alone.
//
// Run `fabvote help` for the commands and `fabvote COMMAND --help` for each
// command's flags; docs/cli holds the same reference in Markdown, and
// `fabvote completion bash|zsh|fish` prints a shell completion script. Exit
// status: 0 success, 1 failure (including an audit that FAILs or a rejected
// ballot), 2 bad usage.
package main

import (
	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/cli"
)

// command is one command of the CLI. setup defines its flags on fs and
// returns the function that runs it once the flags are parsed.
type command struct {
	name     string // one or two words: two make a subcommand of a parent command
	synopsis string // the usage line after the name
	summary  string
	setup    func(fs *pflag.FlagSet) func() error
}

var commands = []command{
	{"election create", "--election ID --candidates A,B,… --max-voters N --start T --end T [--key-from ceremony.json | --trustees N --threshold K --trustee-recipients FILE] --out DIR",
		"write the manifest with a key ceremony's key (or deal one, for tests), and the EA token key", cmdElectionCreate},
	{"election open", "--manifest FILE [--start T --end T] [--network FILE]",
		"write the manifest to the ledger (as the election authority)", cmdElectionOpen},
	{"ea roll", "--voters N --out roll.csv",
		"write a voter roll of voter ids with fresh one-time codes", cmdEARoll},
	{"ea tls-cert", "--ca-cert FILE --ca-key FILE --tls-cert FILE --tls-key FILE [--hosts 127.0.0.1,localhost]",
		"write the TLS server certificate of `ea serve`, signed by a CA voters trust", cmdEATLSCert},
	{"ea init-state", "--manifest FILE --roll roll.csv [--state FILE]",
		"create the registration state of a new election's roll", cmdEAInitState},
	{"ea serve", "--manifest FILE --roll roll.csv [--state FILE] [--init-state] --tls-cert FILE --tls-key FILE (--ea-key FILE | --pkcs11-…) [--addr HOST:PORT] [--booth DIR --box URL --board URL]",
		"run the HTTPS registration service (voter id + one-time code -> token)", cmdEAServe},
	{"booth digest", "--dir DIR",
		"print the digest of the booth's files in --dir (for election create --booth-digest)", cmdBoothDigest},
	{"register", "--url https://HOST:PORT --ca-cert FILE --manifest FILE --voter-id ID --code CODE --voter-key voter.key --out token.json\n       fabvote register --offline --manifest FILE (--ea-key FILE | --pkcs11-…) (--roll roll.csv | --voters N) --out voters.jsonl",
		"register a voter key with `ea serve` (or --offline: issue tokens locally)", cmdRegister},
	{"ballot", "--manifest FILE --voter-key voter.key --token token.json --choice N|NAME --out ballot.bin\n       fabvote ballot --bulk --manifest FILE (--voters N (--ea-key FILE | --pkcs11-…) | --voters-file voters.jsonl) --choices random|FILE --out ballots.bin",
		"encrypt, prove and sign a ballot (or --bulk: many voters on every core)", cmdBallot},
	{"cast", "--ballot ballot.bin [--receipt-out receipt.json] | --ballots ballots.bin [--concurrency N] [--receipts-out receipts.jsonl]",
		"submit ballots through the Fabric gateway and print receipts and throughput", cmdCast},
	{"box serve", "--election ID --addr HOST:PORT --tls-cert FILE --tls-key FILE [--allow-origin https://HOST[:PORT] …] [--network FILE --org ORG --identity NAME] [--ops-addr HOST:PORT]",
		"run the HTTPS ballot box: voters' ballots and spoiled ballots to the ledger through the gateway, as this org", cmdBoxServe},
	{"receipt check", "--receipt receipt.json [--ballot ballot.bin] ([--network FILE] | --record DIR [--genesis-hash HEX] [--manifest FILE])",
		"check that a receipt's ballot is recorded as cast", cmdReceiptCheck},
	{"tally", "--manifest FILE [--share trustee-i.share.age --age-identity FILE] [--partial partial-1.bin …] [--paillier-key FILE] [--wait]",
		"multiply the ledger's ballots, decrypt with trustee shares, publish the result", cmdTally},
	{"trustee keygen", "--out DIR",
		"a trustee's age key pair (its sealed share opens only with it) and signing key (it signs its key-ceremony messages)", cmdTrusteeKeygen},
	{"ceremony config", "--k K --relay URL --trustee NAME=DIR … [--bits 2048] --out FILE",
		"write a key ceremony's configuration from the trustees' public keys and print its digest", cmdCeremonyConfig},
	{"ceremony relay", "[--listen HOST:PORT] [--tls-cert FILE --tls-key FILE]",
		"relay a key ceremony's signed messages between the trustees (untrusted: it can drop, not read or alter)", cmdCeremonyRelay},
	{"trustee ceremony", "--config FILE --expect-digest HEX --identity DIR --out DIR [--batch B] [--timeout D] [--evidence DIR]",
		"take part in the key ceremony: make the election key with the other trustees, keep your share", cmdTrusteeCeremony},
	{"trustee decrypt", "--network FILE --manifest FILE --share trustee-i.share.age --age-identity FILE --out partial-i.bin [--wait]",
		"one trustee's partial decryption of the tally it recomputes from the ledger", cmdTrusteeDecrypt},
	{"verify", "--election ID [--network FILE]   (or --manifest FILE for the id; or --record DIR [--genesis-hash HEX] [--manifest FILE], offline)",
		"audit an election from the ledger alone (or --record DIR, offline); exit 1 on FAIL", cmdVerify},
	{"record export", "--election ID --out DIR [--network FILE]",
		"write the election record (docs/RECORD.md): manifest, result, ballot index, signed blocks", cmdRecordExport},
	{"record site", "--record DIR --out SITE [--genesis-hash HEX] [--manifest FILE] [--report FILE]",
		"write the public bulletin board of an election record: a static site with a receipt search", cmdRecordSite},
	{"version", "[--patches]",
		"print fabvote's version, the pinned Fabric release and the fork's patch series", cmdVersion},
}

// main runs the command line: errors, usage and help go to stderr, the
// commands' output to os.Stdout.
func main() { cli.Main(newRootCommand) }
