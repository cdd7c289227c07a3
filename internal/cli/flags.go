package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// doubleDashLongFlags rewrites the single-dash long flags of args, -name
// and -name=value, to --name and --name=value when name is a long flag of
// the command args run. Go's flag package accepts both forms, and scripts
// written for it use the single dash; pflag would read -name as the
// one-letter flags n, a, m and e. One letter after one dash stays a
// shorthand (-h), and a flag's value is never rewritten.
func doubleDashLongFlags(root *cobra.Command, args []string) []string {
	cmd, rest := commandOf(root, args)
	cmd.InitDefaultHelpFlag() // cobra adds --help at execution; -help is one too
	out := slices.Clone(args[:len(args)-len(rest)])
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			return append(out, rest[i:]...)
		}
		name, hasValue := flagName(a)
		f := cmd.Flags().Lookup(name)
		if f == nil {
			out = append(out, a)
			continue
		}
		if !strings.HasPrefix(a, "--") && len(name) > 1 {
			a = "-" + a
		}
		out = append(out, a)
		if !hasValue && f.NoOptDefVal == "" && i+1 < len(rest) {
			i++ // the value of --name VALUE, whatever it looks like
			out = append(out, rest[i])
		}
	}
	return out
}

// commandOf finds the command args name by their leading words and
// returns it with the arguments after them.
func commandOf(root *cobra.Command, args []string) (*cobra.Command, []string) {
	cmd := root
	for len(args) > 0 {
		next := subcommand(cmd, args[0])
		if next == nil {
			break
		}
		cmd, args = next, args[1:]
	}
	return cmd, args
}

func subcommand(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	return nil
}

// flagName is the long flag name of a -name, --name, -name=v or --name=v
// argument ("" for other arguments) and whether the argument holds the
// value.
func flagName(arg string) (name string, hasValue bool) {
	if !strings.HasPrefix(arg, "-") || arg == "-" {
		return "", false
	}
	name = strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, hasValue = strings.Cut(name, "=")
	return name, hasValue
}

// Alias keeps oldName working as a deprecated name of the flag newName of
// fs, which must be defined: it sets the same variable, is left out of the
// help, and prints "Flag --OLD has been deprecated, use --NEW instead" on
// stderr when given. Giving both names is a usage error naming both.
func Alias(fs *pflag.FlagSet, newName, oldName string) {
	f := fs.Lookup(newName)
	if f == nil {
		panic(fmt.Sprintf("cli.Alias: no flag --%s to alias as --%s", newName, oldName))
	}
	shared := f.Value
	f.Value = &exclusiveValue{Value: shared, fs: fs, other: oldName, self: newName}
	fs.Var(&exclusiveValue{Value: shared, fs: fs, other: newName, self: oldName}, oldName, f.Usage)
	old := fs.Lookup(oldName)
	old.NoOptDefVal = f.NoOptDefVal // a boolean alias takes no value either
	if err := fs.MarkDeprecated(oldName, "use --"+newName+" instead"); err != nil {
		panic(err) // the flag was defined just above
	}
}

// exclusiveValue is one of two names of a flag's value: it refuses to be
// set once the other name has been.
type exclusiveValue struct {
	pflag.Value
	fs          *pflag.FlagSet
	self, other string
}

func (v *exclusiveValue) Set(s string) error {
	if o := v.fs.Lookup(v.other); o != nil && o.Changed {
		return fmt.Errorf("give --%s or --%s, not both (they are one flag)", v.self, v.other)
	}
	return v.Value.Set(s)
}

// IsBoolFlag keeps a boolean flag's meaning for pflag, which asks its Value.
func (v *exclusiveValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
