package lockless_test

import (
	"fmt"

	"github.com/fabvote/fabvote/txmgr/lockless"
)

// The calls the patched transaction manager makes, in the order a commit and
// an endorsement make them. The endorsement reads two keys and a commit ends
// between its reads, so it is retried once, in a locked session.
func Example() {
	gate := lockless.New(lockless.Lockless) // mode from lockless.ModeFromEnv() in the peer

	simulate := func(s *lockless.Session, commitMeanwhile bool) error {
		defer s.Done() // queryExecutor.Done
		// ChaincodeEndorsementInfo: the _lifecycle sequence check.
		if err := s.ReadUncounted("_lifecycle", "namespaces/fields/mycc/Sequence"); err != nil {
			return err
		}
		if err := s.Read("mycc", "asset1"); err != nil { // GetState
			return err
		}
		if commitMeanwhile { // Commit: around ApplyPrivacyAwareUpdates
			gate.LockCommit()
			gate.UnlockCommit()
		}
		return s.Read("mycc", "asset2") // GetState of a second key
	}

	first := gate.Begin() // NewTxSimulator
	err := simulate(first, true)
	// GetTxSimulationResults asks the session, whatever the chaincode did
	// with the error of its read.
	fmt.Println("first attempt retryable:", lockless.IsRetryable(first.Err()))
	if lockless.IsRetryable(err) {
		err = simulate(gate.BeginLocked(), false) // bounded: a locked retry cannot go stale
	}
	fmt.Println("retry error:", err)
	fmt.Println(gate.Stats())
	// Output:
	// first attempt retryable: true
	// retry error: <nil>
	// sessions=2 escalations=1 retries=1 commits=1
}
