package domain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
)

// TestErrorKindIsTheOutermost: errors.Is answers for an Error's kind and
// for what its cause wraps, but never for the kind of an Error hidden in
// the cause, however deep; errors.As finds the outermost Error.
func TestErrorKindIsTheOutermost(t *testing.T) {
	refused := NewError(ErrInvalidToken, "invalid_token", MsgInvalidToken)
	pathErr := &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}
	inner := NewError(ErrNotFound, "nf", "no").WithCause(pathErr)
	outer := NewError(ErrUnavailable, "temporarily_unavailable", "x").
		WithCause(fmt.Errorf("upstream token: %w", errors.Join(refused, fmt.Errorf("lookup: %w", inner))))

	if !errors.Is(outer, ErrUnavailable) {
		t.Error("the kind does not match")
	}
	for _, hidden := range []error{ErrInvalidToken, ErrNotFound} {
		if errors.Is(outer, hidden) {
			t.Errorf("a kind hidden in the cause matched: %v", hidden)
		}
	}
	if !errors.Is(outer, fs.ErrNotExist) {
		t.Error("the cause's own chain is not searched")
	}
	var pe *fs.PathError
	if !errors.As(outer, &pe) || pe.Path != "x" {
		t.Error("errors.As does not find a type inside the cause")
	}
	var de *Error
	if !errors.As(outer, &de) || de != outer {
		t.Errorf("errors.As found %v, want the outermost Error", de)
	}
	// A plain wrapper around an Error: that Error is the first one, so
	// its kind counts.
	wrapped := fmt.Errorf("store: %w", inner)
	if !errors.Is(wrapped, ErrNotFound) || !errors.Is(wrapped, os.ErrNotExist) {
		t.Error("a wrapped Error's kind or cause is lost")
	}
	// A bare kind sentinel in the cause (a store's "%w" of ErrNotFound)
	// is hidden too: the 503 must not read as a 404.
	storeFailed := NewError(ErrUnavailable, "store", "x").WithCause(fmt.Errorf("read back: %w", ErrNotFound))
	if errors.Is(storeFailed, ErrNotFound) || !errors.Is(storeFailed, ErrUnavailable) {
		t.Error("a kind sentinel in the cause matched, or the kind did not")
	}
	if outer.Error() == "" || !errors.Is(NewError(ErrConflict, "c", "m"), ErrConflict) {
		t.Error("basic use broken")
	}
}

func TestClip(t *testing.T) {
	if got := Clip("corto"); got != "corto" {
		t.Errorf("Clip(short) = %q", got)
	}
	long := ""
	for range 100 {
		long += "é"
	}
	if got := Clip(long); len([]rune(got)) != MaxQuoted+1 || got[len(got)-len("…"):] != "…" {
		t.Errorf("Clip(100 runes) = %d runes", len([]rune(got)))
	}
}
