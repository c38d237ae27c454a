package errs

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestWrapKeepsCauseAndCode(t *testing.T) {
	err := fmt.Errorf("running: %w", Wrap(CodeData, CatData, io.ErrUnexpectedEOF, "cannot read value"))
	e, ok := As(err)
	if !ok {
		t.Fatalf("As(%v) found no *Error", err)
	}
	if e.Code != "22000" || e.Category != "DATA_EXCEPTION" {
		t.Fatalf("code/category = %s/%s, want 22000/DATA_EXCEPTION", e.Code, e.Category)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal("cause lost through Wrap")
	}
	if got := e.Error(); got != "cannot read value: unexpected EOF" {
		t.Fatalf("message = %q", got)
	}
}

func TestPositionInMessage(t *testing.T) {
	e := Syntax("unexpected %q", ")").At(2, 7)
	if got := e.Error(); got != `unexpected ")" (line 2, column 7)` {
		t.Fatalf("message = %q", got)
	}
	if _, ok := As(errors.New("plain")); ok {
		t.Fatal("As matched a plain error")
	}
}
