// Command fabvote is the one command-line tool of a fabvote election: the
// election authority creates and opens elections and registers voters,
// voters make and cast ballots and check their receipts, trustees decrypt
// the tally, and anyone audits the result from the ledger alone.
//
// Run `fabvote help` for the commands and `fabvote COMMAND --help` for each
// command's flags. Exit status: 0 success, 1 failure (including an audit that
// FAILs or a rejected ballot), 2 bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

type command struct {
	name    string // one or two words
	summary string
	run     func(args []string) error
}

var commands = []command{
	{"election create", "generate the Paillier key (or trustee shares), the EA token key and the manifest", cmdElectionCreate},
	{"election open", "write the manifest to the ledger (as the election authority)", cmdElectionOpen},
	{"ea roll", "write a voter roll of voter ids with fresh one-time codes", cmdEARoll},
	{"ea tls-cert", "write the TLS server certificate of `ea serve`, signed by a CA voters trust", cmdEATLSCert},
	{"ea init-state", "create the registration state of a new election's roll", cmdEAInitState},
	{"ea serve", "run the HTTPS registration service (voter id + one-time code -> token)", cmdEAServe},
	{"register", "register a voter key with `ea serve` (or --offline: issue tokens locally)", cmdRegister},
	{"ballot", "encrypt, prove and sign a ballot (or --bulk: many voters on every core)", cmdBallot},
	{"cast", "submit ballots through the Fabric gateway and print receipts and throughput", cmdCast},
	{"receipt check", "check that a receipt's ballot is recorded as cast", cmdReceiptCheck},
	{"tally", "multiply the ledger's ballots, decrypt with trustee shares, publish the result", cmdTally},
	{"trustee keygen", "a trustee's age key pair: its sealed share opens only with it", cmdTrusteeKeygen},
	{"trustee decrypt", "one trustee's partial decryption of the tally it recomputes from the ledger", cmdTrusteeDecrypt},
	{"verify", "audit an election from the ledger alone (or --record DIR, offline); exit 1 on FAIL", cmdVerify},
	{"record export", "write the election record (docs/RECORD.md): manifest, result, ballot index, signed blocks", cmdRecordExport},
	{"record site", "write the public bulletin board of an election record: a static site with a receipt search", cmdRecordSite},
	{"version", "print fabvote's version, the pinned Fabric release and the fork's patch series", cmdVersion},
}

// usageError is a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, rest := findCommand(args)
	if cmd == nil {
		fmt.Fprintf(stderr, "fabvote: unknown command %q\n\n", strings.Join(firstWords(args), " "))
		printUsage(stderr)
		return 2
	}
	err := cmd.run(rest)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "fabvote %s: %v (see `fabvote %s --help`)\n", cmd.name, err, cmd.name)
		return 2
	}
	var fe failedError
	if errors.As(err, &fe) {
		return 1 // already reported
	}
	fmt.Fprintf(stderr, "fabvote %s: %v\n", cmd.name, err)
	return 1
}

// failedError means the command printed its own failure report.
type failedError struct{}

func (failedError) Error() string { return "failed" }

func firstWords(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || len(out) == 2 {
			break
		}
		out = append(out, a)
	}
	return out
}

func findCommand(args []string) (*command, []string) {
	for n := 2; n >= 1; n-- {
		if len(args) < n {
			continue
		}
		name := strings.Join(args[:n], " ")
		for i := range commands {
			if commands[i].name == name {
				return &commands[i], args[n:]
			}
		}
	}
	return nil, nil
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: fabvote COMMAND [flags]   (fabvote COMMAND --help for the flags)")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
}
