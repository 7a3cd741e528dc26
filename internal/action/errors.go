package action

import (
	"fmt"

	"github.com/karpgen/karpgen/internal/diag"
)

// UsageError is a request the command cannot carry out as given: a flag's
// value, a missing argument. The command line exits 2 with it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usage(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// FailureError is a failure outside the profiles: the simulator, a
// workload file, a deadline. The command line exits 4 with it.
type FailureError struct{ Err error }

func (e *FailureError) Error() string { return e.Err.Error() }

func (e *FailureError) Unwrap() error { return e.Err }

func failure(format string, args ...any) error {
	return &FailureError{Err: fmt.Errorf(format, args...)}
}

func wrap(what string, err error) error { return fmt.Errorf("%s: %w", what, err) }

// OptionError is an option of a plan the plan refuses: Option is the
// field of the action's Options it is about, which the command line
// names by its flag.
type OptionError = diag.OptionError

// FoundError is a check that found what it looks for: out/ differs from
// the profiles (render --check). The command line exits 1 with it.
type FoundError struct{ Err error }

func (e *FoundError) Error() string { return e.Err.Error() }

func (e *FoundError) Unwrap() error { return e.Err }
