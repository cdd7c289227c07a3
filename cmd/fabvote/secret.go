package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fabvote/fabvote/internal/cli"
)

// stdin is where "-" secret files are read from; tests replace it.
var stdin io.Reader = os.Stdin

// readSecret returns a secret given in exactly one of three ways: the flag's
// value, a file named by fileFlag ("-" for standard input: its first line), or
// the environment variable env. A file keeps the secret out of the process
// list and the shell history. It is "" when none is given.
func readSecret(flagName, value, fileFlag, file, env string) (string, error) {
	if value != "" && file != "" {
		return "", cli.Usagef("give --%s or --%s, not both", flagName, fileFlag)
	}
	if value != "" {
		return value, nil
	}
	if file == "" {
		return os.Getenv(env), nil
	}
	var r io.Reader = stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return "", fmt.Errorf("--%s: %w", fileFlag, err)
		}
		defer f.Close()
		r = f
	}
	line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("--%s %s: %w", fileFlag, file, err)
	}
	secret := strings.TrimRight(line, "\r\n")
	if secret == "" {
		return "", fmt.Errorf("--%s %s: the first line is empty", fileFlag, file)
	}
	return secret, nil
}
