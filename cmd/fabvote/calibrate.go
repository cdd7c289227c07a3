package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/fabvote/fabvote/internal/atomicfile"
	"github.com/fabvote/fabvote/internal/benchprobe"
)

func init() {
	commands = append(commands, command{"calibrate", "[--exp-ops N] [--verify-ops N] [--json out.json]",
		"time a fixed exponentiation mod N² and P-256 verification, and read the CPU steal: the machine's state beside a benchmark trial", cmdCalibrate})
}

func cmdCalibrate(fs *pflag.FlagSet) func() error {
	expOps := fs.Int("exp-ops", 100, "exponentiations to time (2048-bit exponent, 4096-bit modulus)")
	verifyOps := fs.Int("verify-ops", 2000, "P-256 verifications to time")
	jsonOut := fs.String("json", "", "write the probe as JSON to this file (written whole, or not at all)")
	return func() error {
		r, err := benchprobe.Run(*expOps, *verifyOps)
		if err != nil {
			return err
		}
		fmt.Printf("exponentiation mod N²: %.0f µs; P-256 verification: %.1f µs; steal since boot: %d ticks\n",
			r.ExpNs/1e3, r.VerifyNs/1e3, r.StealTicks)
		if *jsonOut == "" {
			return nil
		}
		b, err := json.MarshalIndent(r, "", " ")
		if err != nil {
			return err
		}
		return atomicfile.WriteFile(*jsonOut, append(b, '\n'), 0o644)
	}
}
