package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// testTree is a small tool in the convention: `tool greet --name N
// [--loud] [--count N]` (--who is its deprecated alias of --name),
// `tool fail`, `tool report`, and a parent command `tool group sub`.
func testTree(stderr *bytes.Buffer) *cobra.Command {
	root := &cobra.Command{Use: "tool COMMAND [flags]", Short: "a test tool", Args: UnknownCommand, RunE: ShowUsage}
	var name string
	greet := &cobra.Command{Use: "greet --name N", Short: "greet someone", Args: NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if name == "" {
				return Usagef("--name is required")
			}
			stderr.WriteString("hello " + name + "\n")
			return nil
		}}
	greet.Flags().StringVar(&name, "name", "", "whom to greet")
	greet.Flags().Bool("loud", false, "shout")
	greet.Flags().Int("count", 1, "how many times")
	Alias(greet.Flags(), "name", "who")
	fail := &cobra.Command{Use: "fail", Short: "fail", Args: NoArgs,
		RunE: func(*cobra.Command, []string) error { return errors.New("it broke") }}
	report := &cobra.Command{Use: "report", Short: "fail, reported", Args: NoArgs,
		RunE: func(*cobra.Command, []string) error { return ErrReported }}
	group := &cobra.Command{Use: "group SUBCOMMAND", Short: "a parent", Args: UnknownCommand, RunE: ShowUsage}
	group.AddCommand(&cobra.Command{Use: "sub", Short: "a child", Args: NoArgs, RunE: func(*cobra.Command, []string) error { return nil }})
	root.AddCommand(greet, fail, report, group)
	Configure(root, stderr)
	return root
}

// TestExecute checks the exit status and message of each kind of outcome.
func TestExecute(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"greet", "--name", "x"}, 0, "hello x"},
		{[]string{"greet", "-name", "x"}, 0, "hello x"},
		{[]string{"--help"}, 0, "usage: tool COMMAND [flags]"},
		{[]string{"help", "greet"}, 0, "usage: tool greet --name N"},
		{[]string{"group", "--help"}, 0, "  sub  a child"},
		{[]string{"fail"}, 1, "tool fail: it broke\n"},
		{[]string{"report"}, 1, ""},
		{nil, 2, "usage: tool COMMAND"},
		{[]string{"nope"}, 2, "tool: unknown command \"nope\" (see `tool --help`)"},
		{[]string{"group"}, 2, "usage: tool group SUBCOMMAND"},
		{[]string{"group", "nope"}, 2, `tool group: unknown command "nope"`},
		{[]string{"greet"}, 2, "tool greet: --name is required (see `tool greet --help`)"},
		{[]string{"greet", "--nope"}, 2, "unknown flag: --nope"},
		{[]string{"greet", "stray"}, 2, `unexpected argument "stray"`},
		{[]string{"greet", "--count", "x"}, 2, `invalid argument "x" for "--count"`},
		{[]string{"completion", "tcsh"}, 2, "want one shell: bash, zsh, fish"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			code := Execute(testTree(&stderr), tc.args, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, want %d; stderr %q does not say %q", code, tc.code, stderr.String(), tc.want)
			}
		})
	}
}

// TestHelpFormat: a command that only has subcommands lists them; a leaf
// lists its flags, without the deprecated alias; a command with both
// lists both.
func TestHelpFormat(t *testing.T) {
	var b bytes.Buffer
	root := testTree(&b)
	for _, tc := range []struct {
		args        []string
		want, avoid []string
	}{
		{[]string{"--help"}, []string{"commands:\n", "  greet       greet someone\n", "  group sub   a child\n", "  completion  "}, []string{"flags:"}},
		{[]string{"greet", "--help"}, []string{"flags:\n", "--name string", "--loud"}, []string{"commands:", "--who"}},
	} {
		b.Reset()
		if code := Execute(root, tc.args, &b); code != 0 {
			t.Fatalf("%q: exit %d", tc.args, code)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%q: help does not say %q:\n%s", tc.args, w, b.String())
			}
		}
		for _, a := range tc.avoid {
			if strings.Contains(b.String(), a) {
				t.Errorf("%q: help says %q:\n%s", tc.args, a, b.String())
			}
		}
	}
	leafWithCommands := &cobra.Command{Use: "one --x X", Short: "one", Args: NoArgs, RunE: func(*cobra.Command, []string) error { return nil }}
	leafWithCommands.Flags().String("x", "", "the x")
	Configure(leafWithCommands, &b)
	b.Reset()
	WriteHelp(&b, leafWithCommands)
	if !strings.Contains(b.String(), "flags:\n      --x string") || !strings.Contains(b.String(), "commands:\n  completion") {
		t.Errorf("a tool with flags and the completion command: help\n%s", b.String())
	}
}

// TestAlias: the old name sets the new name's variable and prints the
// deprecation notice; giving both names is a usage error.
func TestAlias(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"greet", "--who", "x"}, 0, "Flag --who has been deprecated, use --name instead\nhello x"},
		{[]string{"greet", "-who=x"}, 0, "hello x"},
		{[]string{"greet", "--name", "x", "--who", "y"}, 2, "give --who or --name, not both"},
		{[]string{"greet", "--who", "y", "--name", "x"}, 2, "give --name or --who, not both"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			code := Execute(testTree(&stderr), tc.args, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
				t.Fatalf("exit %d, want %d; stderr %q does not say %q", code, tc.code, stderr.String(), tc.want)
			}
		})
	}
}

// TestAliasBool: a boolean alias takes no value, as its flag.
func TestAliasBool(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	loud := cmd.Flags().Bool("loud", false, "shout")
	Alias(cmd.Flags(), "loud", "shout")
	if err := cmd.Flags().Parse([]string{"--shout"}); err != nil || !*loud {
		t.Fatalf("--shout: err %v, loud %v", err, *loud)
	}
}

// TestDoubleDashLongFlags checks the rewriting of single-dash long flags,
// which Go's flag package took and pflag does not: only a long flag of the
// command run is rewritten, never a flag's value, a one-letter shorthand,
// an unknown flag or anything after "--".
func TestDoubleDashLongFlags(t *testing.T) {
	tests := []struct {
		args, want []string
	}{
		{[]string{"greet", "-name", "3", "-count=2"}, []string{"greet", "--name", "3", "--count=2"}},
		{[]string{"greet", "--name", "3"}, []string{"greet", "--name", "3"}},
		{[]string{"greet", "-loud", "-count", "2"}, []string{"greet", "--loud", "--count", "2"}},
		{[]string{"greet", "-loud=false"}, []string{"greet", "--loud=false"}},
		{[]string{"greet", "--name", "-count", "-count", "x"}, []string{"greet", "--name", "-count", "--count", "x"}},
		{[]string{"greet", "-h"}, []string{"greet", "-h"}},
		{[]string{"greet", "-help"}, []string{"greet", "--help"}},
		{[]string{"greet", "-nope", "-loud"}, []string{"greet", "-nope", "--loud"}},
		{[]string{"greet", "--", "-loud"}, []string{"greet", "--", "-loud"}},
		{[]string{"group", "sub", "-help"}, []string{"group", "sub", "--help"}},
		{[]string{"-help"}, []string{"--help"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			got := doubleDashLongFlags(testTree(new(bytes.Buffer)), tc.args)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCompletion: `tool completion SHELL` prints cobra's script for SHELL
// on standard output.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{"bash": "# bash completion V2 for tool", "zsh": "#compdef tool", "fish": "# fish completion for tool"} {
		var code int
		out := captureStdout(t, func() { code = Execute(testTree(new(bytes.Buffer)), []string{"completion", shell}, new(bytes.Buffer)) })
		if code != 0 || !strings.HasPrefix(out, want) {
			t.Errorf("completion %s: exit %d, output starts %q, want %q", shell, code, out[:min(len(out), 40)], want)
		}
	}
}

// captureStdout runs fn with os.Stdout sent to a file and returns what was
// written.
func captureStdout(t *testing.T, fn func()) string {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdout
	os.Stdout = f
	defer func() { os.Stdout = old }()
	fn()
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
