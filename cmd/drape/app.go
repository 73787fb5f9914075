package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/drape-sim/drape/bake"
)

// usageError marks a mistake in the command line itself (exit code 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// run is the whole program: main only adds the signal context and os.Exit.
// Tests call it in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var unknown string
	app := newApp(stdin, stdout, stderr, &unknown)
	for _, c := range app.Commands {
		setUsageError(c)
	}
	err := app.RunContext(ctx, permuteArgs(app, args))
	if unknown != "" {
		fmt.Fprintf(stderr, "drape: unknown command %q\nRun 'drape --help' for the commands.\n", unknown)
		return bake.ExitUsage
	}
	if err == nil {
		return bake.ExitOK
	}
	var ue *usageError
	var ec cli.ExitCoder
	var jr jsonReported
	code, msg := 0, ""
	switch {
	case errors.As(err, &ec):
		return ec.ExitCode()
	case errors.As(err, &ue) || isFlagError(err):
		code = bake.ExitUsage
		msg = flagErrorMessage(app, args, err)
	default:
		code = bake.ExitCode(err)
		msg = err.Error()
		if code == bake.ExitCancelled {
			msg = "cancelled; no output was written"
		}
	}
	fmt.Fprintf(stderr, "drape: %s\n", msg)
	if jsonMode(args) && !errors.As(err, &jr) {
		json.NewEncoder(stdout).Encode(struct {
			OK     bool   `json:"ok"`
			Status string `json:"status"`
			Code   int    `json:"exit_code"`
			Error  string `json:"error"`
		}{false, bake.StatusFailed, code, msg})
	}
	return code
}

// jsonReported wraps an error whose JSON result object is already on
// stdout.
type jsonReported struct{ error }

func (e jsonReported) Unwrap() error { return e.error }

// jsonMode reports whether the command line asks for JSON on stdout
// (--json or --progress json): its errors are JSON objects there too.
func jsonMode(args []string) bool {
	for i, a := range args {
		switch {
		case a == "--":
			return false
		case a == "--json" || a == "-json" || a == "--json=true":
			return true
		case a == "--progress=json" || a == "-progress=json":
			return true
		case (a == "--progress" || a == "-progress") && i+1 < len(args) && args[i+1] == "json":
			return true
		}
	}
	return false
}

// setUsageError makes urfave report flag mistakes of c and its
// subcommands as errors, without printing the command's help.
func setUsageError(c *cli.Command) {
	c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usagef("%v", err) }
	for _, s := range c.Subcommands {
		setUsageError(s)
	}
}

// flagErrorMessage makes one line of a command-line mistake: flags named
// with their two dashes, an unknown flag with the closest real one, and
// where --help is.
func flagErrorMessage(app *cli.App, args []string, err error) string {
	cmd, path := commandOf(app, args)
	help := "drape --help"
	if path != "" {
		help = "drape " + path + " --help"
	}
	s := err.Error()
	const undefined = "flag provided but not defined: "
	if i := strings.Index(s, undefined); i >= 0 {
		name := strings.TrimLeft(s[i+len(undefined):], "-")
		flags := app.Flags
		if cmd != nil {
			flags = cmd.Flags
		}
		var names []string
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		msg := "unknown flag " + dashed(name)
		if best := closest(name, names); best != "" && best != name {
			msg += "; did you mean " + dashed(best) + "?"
		}
		return msg + " (" + help + " for more)"
	}
	s = flagNameRE.ReplaceAllStringFunc(s, func(m string) string {
		sp := strings.Index(m, "-")
		return m[:sp] + dashed(strings.TrimLeft(m[sp:], "-"))
	})
	return s + " (" + help + " for more)"
}

// flagNameRE finds the flag package's single-dash flag names in its
// messages ("for flag -frames:", "argument: -frames").
var flagNameRE = regexp.MustCompile(`(flag |argument: )-[A-Za-z][A-Za-z0-9-]*`)

// dashed writes a flag name as a user types it: --frames, -o.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// closest returns the flag name nearest to name: one it begins or that
// begins it, else the smallest edit distance up to a third of its length
// (at least 2); "" when none is near.
func closest(name string, names []string) string {
	best, bd := "", max(2, len(name)/3)+1
	for _, n := range names {
		d := bake.EditDistance(name, n)
		if len(n) > 1 && len(name) > 2 && (strings.HasPrefix(n, name) || strings.HasPrefix(name, n)) {
			d = min(d, 1)
		}
		if d < bd {
			best, bd = n, d
		}
	}
	return best
}

// commandOf returns the (sub)command the arguments run and its words
// ("report merge"), or nil and "".
func commandOf(app *cli.App, args []string) (*cli.Command, string) {
	cmds := app.Commands
	var cmd *cli.Command
	var path []string
	for _, a := range args[min(1, len(args)):] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(a) {
				next = c
			}
		}
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		path = append(path, next.Name)
	}
	return cmd, strings.Join(path, " ")
}

// isFlagError recognises the flag package's parse errors as urfave reports
// them.
func isFlagError(err error) bool {
	s := err.Error()
	return strings.Contains(s, "flag provided but not defined") ||
		strings.HasPrefix(s, "invalid value") ||
		strings.Contains(s, "flag needs an argument") ||
		strings.Contains(s, "Required flag")
}

// silentExit carries an exit code whose message was already printed.
type silentExit int

func (e silentExit) Error() string { return fmt.Sprintf("exit %d", int(e)) }
func (e silentExit) ExitCode() int { return int(e) }

func newApp(stdin io.Reader, stdout, stderr io.Writer, unknown *string) *cli.App {
	return &cli.App{
		Name:    "drape",
		Usage:   "bake cloth simulation onto meshes (glTF, OBJ, STL) for Blender and game engines",
		Version: bake.Version,
		Description: `Examples:
   drape bake shirt.obj --collider mesh:body.obj --frames 96 -o shirt.glb
   drape bake scene.json --progress json
   drape inspect garment.glb --json
   drape preview shirt.glb -o shirt.png --frames 0,40,80,95

Exit codes: 0 ok, 1 internal error, 2 usage, 3 bad input, 4 simulation diverged,
5 a bake missed a --require bound (outputs written), 6 cannot write the output (disk full, read-only,
a path in the way), 130 cancelled.`,
		Reader:                 stdin,
		Writer:                 stdout,
		ErrWriter:              stderr,
		HideHelpCommand:        true,
		UseShortOptionHandling: false,
		// --pin box:0,0,0,1,1,1 carries commas: repeat a flag for several values.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, isSub bool) error {
			return usagef("%v", err)
		},
		Commands: []*cli.Command{
			bakeCommand(),
			inspectCommand(),
			validateCommand(),
			presetsCommand(),
			collidersCommand(),
			fitColliderCommand(),
			previewCommand(),
			reportCommand(),
			versionCommand(),
		},
		CommandNotFound: func(c *cli.Context, name string) {
			*unknown = name
		},
	}
}

// permuteArgs moves flags in front of positional arguments for each
// subcommand, so `drape bake in.obj -o out.glb` works as users type it (the
// flag package stops at the first positional argument).
func permuteArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	var cmd *cli.Command
	ci := -1
	for i := 1; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			continue
		}
		for _, c := range app.Commands {
			if c.HasName(args[i]) {
				cmd, ci = c, i
			}
		}
		break
	}
	if cmd == nil {
		return args
	}
	// descend into subcommands (drape report merge): their flags are the
	// ones to move
	for ci+1 < len(args) && len(cmd.Subcommands) > 0 {
		var sub *cli.Command
		for _, c := range cmd.Subcommands {
			if c.HasName(args[ci+1]) {
				sub = c
			}
		}
		if sub == nil {
			break
		}
		cmd, ci = sub, ci+1
	}
	valued := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			valued[n] = !isBool
		}
	}
	var flags, pos []string
	rest := args[ci+1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && valued[name] && i+1 < len(rest) {
				flags = append(flags, rest[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	out := append([]string{}, args[:ci+1]...)
	out = append(out, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print drape's version",
		Description: `Example:
   drape version`,
		Action: func(c *cli.Context) error {
			fmt.Fprintf(c.App.Writer, "drape %s\n", bake.Version)
			return nil
		},
	}
}
