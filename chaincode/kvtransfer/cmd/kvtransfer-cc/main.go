// Command kvtransfer-cc serves the kvtransfer test chaincode as a chaincode
// service; the configuration comes from the environment (see package ccserver).
package main

import (
	"fmt"
	"os"

	"github.com/fabvote/fabvote/chaincode/ccserver"
	"github.com/fabvote/fabvote/chaincode/kvtransfer"
)

func main() {
	cc, err := kvtransfer.New()
	if err == nil {
		err = ccserver.Run(cc)
	}
	fmt.Fprintln(os.Stderr, "kvtransfer-cc:", err)
	os.Exit(1)
}
