package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/quiverdb/quiver/bench"
)

// writeSection renders a report section with the notes file read into it
// (a missing one is none) and splices it under heading into out, or
// prints it when out is empty. The writes and restart reports share it.
func writeSection(out, notes, heading string, render func(w io.Writer, notes string) error) error {
	text, err := os.ReadFile(notes)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var section bytes.Buffer
	if err := render(&section, string(text)); err != nil {
		return err
	}
	if out == "" {
		_, err := os.Stdout.Write(section.Bytes())
		return err
	}
	doc, err := os.ReadFile(out)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.WriteFile(out, []byte(bench.SpliceSection(string(doc), heading, section.String())), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote the %q section of %s\n", strings.TrimPrefix(heading, "## "), out)
	return nil
}
