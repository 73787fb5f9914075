package bake

import (
	"context"
	"errors"
	"fmt"

	"github.com/drape-sim/drape/meshio"
)

// Exit codes of drape, documented in README.md and never repurposed.
const (
	ExitOK       = 0
	ExitInternal = 1
	ExitUsage    = 2
	ExitBadInput = 3
	ExitDiverged = 4
	// ExitRequirement: the bake wrote its outputs but missed a requirement
	// (scene key require, flag --require).
	ExitRequirement = 5
	ExitWrite       = 6 // the output cannot be written: disk full, read-only, a path in the way
	ExitCancelled   = 130
)

// ErrBadInput marks errors caused by the user's files or settings.
var ErrBadInput = errors.New("bad input")

// ErrDiverged marks a simulation that blew up. The solver's own sentinel is
// wrapped as well, so errors.Is works with either.
var ErrDiverged = errors.New("simulation diverged")

// Error is a bake error with its exit code and, where there is one, the fix
// to suggest to the user.
type Error struct {
	Code int    // one of the Exit* codes
	Err  error  // what went wrong, naming the file and the place
	Fix  string // what the user can do about it, or ""
}

func (e *Error) Error() string {
	if e.Fix == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v\n  fix: %s", e.Err, e.Fix)
}

func (e *Error) Unwrap() error { return e.Err }

// badInput wraps err as a bad-input error with a fix hint.
func badInput(err error, fix string) error {
	return &Error{Code: ExitBadInput, Err: err, Fix: fix}
}

// badInputf formats a bad-input error.
func badInputf(format string, args ...any) error {
	return &Error{Code: ExitBadInput, Err: fmt.Errorf(format, args...)}
}

// ExitCode maps an error returned by this package to drape's exit code.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var be *Error
	switch {
	case errors.Is(err, context.Canceled):
		return ExitCancelled
	case errors.As(err, &be):
		return be.Code
	case errors.Is(err, ErrDiverged):
		return ExitDiverged
	case errors.Is(err, ErrBadInput), errors.Is(err, meshio.ErrUnsupported), errors.Is(err, meshio.ErrNoGeometry):
		return ExitBadInput
	}
	var pe *meshio.ParseError
	if errors.As(err, &pe) {
		return ExitBadInput
	}
	return ExitInternal
}
