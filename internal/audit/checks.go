package audit

import (
	"strings"

	"github.com/fabvote/fabvote/election"
)

// Check is one numbered check of docs/VERIFY.md: what an independent
// verifier must check, with the step it belongs to. Both verifiers name
// the check of every failure (Failure.Check) and list the outcome of every
// check they ran (the JSON report's checks).
type Check struct {
	ID         string // V1, V2, …
	Title      string // VERIFY.md's heading
	Step       string // the step of RECORD.md 6 (StepRecord, …)
	RecordOnly bool   // a live verification has no record, blocks or index
	// Optional is a check made only when asked for (an anchor,
	// --expect-counts): Report.Optional lists those asked for.
	Optional bool
	// Needs is the input the check runs on, beyond its step being reached.
	Needs Input
}

// Input is what a check needs to run (docs/VERIFY.md): a check whose input
// the verification did not have is not listed, unless it failed.
type Input int

const (
	InputStep          Input = iota // its step reached
	InputManifest                   // a sound manifest (V11)
	InputBallots                    // the ballots checked
	InputOpening                    // the opening read (a record: always; live: with the commit order)
	InputOrder                      // the commit order read
	InputResultRead                 // the result looked for
	InputResult                     // a result present
	InputResultChecked              // the result checked against the ballots
	InputTrackers                   // the tracker keys read from the blocks (a record: always; live: with the commit order)
)

// The checks whose failures share a kind and subject with another check's,
// named where they are found; every other failure's check follows from its
// kind, code and subject (CheckOf).
const (
	CheckGenesisAnchor   = "V6"
	CheckExpectedCounts  = "V30"
	CheckManifestIsOwn   = "V12"
	CheckPublishedAnchor = "V13"
	CheckOpening         = "V21"
	CheckStoredTxID      = "V23"
	CheckResultWrite     = "V24"
)

// Checks are docs/VERIFY.md's checks, in its order (TestVerifySpec keeps
// the two the same).
var Checks = []Check{
	{"V1", "record.json", StepRecord, true, false, InputStep},
	{"V2", "The record's files", StepRecord, true, false, InputStep},
	{"V3", "ballots.json", StepRecord, true, false, InputStep},
	{"V4", "manifest.json and result.json readable", StepRecord, true, false, InputStep},
	{"V5", "The blocks form one chain of the record's channel", StepBlocks, true, false, InputStep},
	{"V6", "The genesis hash anchor", StepBlocks, true, true, InputStep},
	{"V7", "The genesis configuration", StepBlockSignatures, true, false, InputStep},
	{"V8", "Every block signed by an orderer of the configuration in force", StepBlockSignatures, true, false, InputStep},
	{"V9", "Only ballot keys under the ballot prefix", StepBallotIndex, true, false, InputStep},
	{"V10", "The index is the ballot keys' first writes", StepBallotIndex, true, false, InputStep},
	{"V11", "The manifest is sound", StepBallots, false, false, InputStep},
	{"V12", "The manifest is the record's election and channel", StepBallots, true, false, InputManifest},
	{"V13", "The published manifest anchor", StepBallots, false, true, InputStep},
	{"V33", "The key's origin", StepBallots, false, false, InputManifest},
	{"V14", "Each ballot decodes", StepBallots, false, false, InputBallots},
	{"V15", "Each ballot is stored under its pseudonym", StepBallots, false, false, InputBallots},
	{"V16", "Each ballot is of this election, with its ciphertexts in range", StepBallots, false, false, InputBallots},
	{"V17", "Each ballot's token", StepBallots, false, false, InputBallots},
	{"V18", "Each ballot's voter signature", StepBallots, false, false, InputBallots},
	{"V19", "Each ballot's validity proofs", StepBallots, false, false, InputBallots},
	{"V20", "One ballot per pseudonym", StepBallots, false, false, InputBallots},
	{"V31", "Each ballot answers its style's contests", StepBallots, false, false, InputBallots},
	{"V32", "Spoiled ballots and ciphertext claims", StepBallots, false, false, InputTrackers},
	{"V21", "The opening wrote the manifest", StepCommitOrder, false, false, InputOpening},
	{"V22", "Each key written once, never deleted", StepCommitOrder, false, false, InputOrder},
	{"V23", "Each ballot stored with the transaction that wrote it", StepCommitOrder, false, false, InputOrder},
	{"V24", "The result's first write is the published result", StepCommitOrder, false, false, InputOrder},
	{"V25", "A result is published", StepResult, false, false, InputResultRead},
	{"V26", "The result decodes", StepResult, false, false, InputResult},
	{"V27", "The result counts the ballots committed before it", StepResult, false, false, InputResultChecked},
	{"V28", "The result's product is theirs", StepResult, false, false, InputResultChecked},
	{"V29", "The result's decryption and counts", StepResult, false, false, InputResultChecked},
	{"V30", "The counts expected", StepResult, false, true, InputStep},
}

// CheckOf is the check a failure belongs to: the one its finder named, or
// the one its kind, code and subject say. A failure to read the source is
// no check ("").
func CheckOf(f Failure) string {
	if f.Check != "" {
		return f.Check
	}
	switch f.Kind {
	case KindRecord:
		switch f.Subject {
		case "record.json":
			return "V1"
		case "files":
			return "V2"
		case "ballots.json":
			return "V3"
		}
		return "V4"
	case KindBlockChain:
		return "V5"
	case KindBlockSignature:
		if f.Subject == "block 0" {
			return "V7"
		}
		return "V8"
	case KindRecordBallots:
		if strings.HasPrefix(f.Subject, "ballot ") {
			return "V10"
		}
		return "V9"
	case KindOrder:
		return "V22"
	case KindBallotInvalid:
		switch f.Code {
		case election.CodeToken:
			return "V17"
		case election.CodeSignature:
			return "V18"
		case election.CodeProof, election.CodeLimit:
			return "V19"
		case election.CodeNotInStyle, election.CodeContestRepeat, election.CodeContestOrder, election.CodeContestMissing:
			return "V31"
		}
		return "V16" // the election, the ciphertext
	}
	return checkOfKind[f.Kind]
}

// checkOfKind maps the kinds that are one check each.
var checkOfKind = map[string]string{
	KindManifest: "V11", KindKeyOrigin: "V33", KindBallotDecode: "V14", KindBallotKey: "V15", KindDuplicate: "V20",
	KindSpoiled: "V32", KindTracker: "V32",
	KindResultMissing: "V25", KindResultDecode: "V26", KindResultCount: "V27", KindResultProduct: "V28",
	KindResult: "V29", KindExpectedCounts: "V30",
}
