package domain

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
)

// TestKindIsTheOutermost: KindOf answers with the outermost Error's kind,
// however many kinds its cause wraps; errors.Is and errors.As are standard
// and see the whole chain.
func TestKindIsTheOutermost(t *testing.T) {
	refused := NewError(ErrInvalidToken, "invalid_token", MsgInvalidToken)
	pathErr := &fs.PathError{Op: "open", Path: "x", Err: fs.ErrNotExist}
	inner := NewError(ErrNotFound, "nf", "no").WithCause(pathErr)
	outer := NewError(ErrUnavailable, "temporarily_unavailable", "x").
		WithCause(fmt.Errorf("upstream token: %w", errors.Join(refused, fmt.Errorf("lookup: %w", inner))))

	if KindOf(outer) != ErrUnavailable || !IsKind(outer, ErrUnavailable) {
		t.Errorf("KindOf = %v, want the outermost kind", KindOf(outer))
	}
	for _, inside := range []error{ErrInvalidToken, ErrNotFound} {
		if IsKind(outer, inside) {
			t.Errorf("a kind in the cause decided: %v", inside)
		}
		if !errors.Is(outer, inside) {
			t.Errorf("errors.Is is not standard: it does not see %v in the cause", inside)
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
	// A plain wrapper around an Error: that Error is the outermost one.
	wrapped := fmt.Errorf("store: %w", inner)
	if KindOf(wrapped) != ErrNotFound || !errors.Is(wrapped, os.ErrNotExist) {
		t.Error("a wrapped Error's kind or cause is lost")
	}
	// A store's "%w" of ErrNotFound under a 503 is a 503.
	storeFailed := NewError(ErrUnavailable, "store", "x").WithCause(fmt.Errorf("read back: %w", ErrNotFound))
	if KindOf(storeFailed) != ErrUnavailable {
		t.Errorf("KindOf = %v, want ErrUnavailable", KindOf(storeFailed))
	}
	// No Error at all: no kind (an internal error), even around a sentinel.
	if KindOf(errors.New("disk on fire")) != nil || KindOf(fmt.Errorf("x: %w", ErrNotFound)) != nil || KindOf(nil) != nil {
		t.Error("an error without an Error has a kind")
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
