package main

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	switch {
	case errors.As(err, &ec):
		return ec.ExitCode()
	case errors.As(err, &ue) || isFlagError(err):
		fmt.Fprintf(stderr, "drape: %v\nRun 'drape --help' or 'drape COMMAND --help' for usage.\n", err)
		return bake.ExitUsage
	}
	code := bake.ExitCode(err)
	if code == bake.ExitCancelled {
		fmt.Fprintln(stderr, "drape: cancelled; no output was written")
		return code
	}
	fmt.Fprintf(stderr, "drape: %v\n", err)
	return code
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
			previewCommand(),
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
