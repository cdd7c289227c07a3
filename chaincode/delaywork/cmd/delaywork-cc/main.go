// Command delaywork-cc serves the delaywork benchmark chaincode as a
// chaincode service; the configuration comes from the environment (see
// package ccserver).
package main

import (
	"fmt"
	"os"

	"github.com/fabvote/fabvote/chaincode/ccserver"
	"github.com/fabvote/fabvote/chaincode/delaywork"
)

func main() {
	cc, err := delaywork.New()
	if err == nil {
		err = ccserver.Run(cc)
	}
	fmt.Fprintln(os.Stderr, "delaywork-cc:", err)
	os.Exit(1)
}
