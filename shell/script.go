package shell

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
)

// runScript runs the statements and commands of r, in order, and stops
// at the first error with its description on standard error. It reads
// line by line, so statements piped in run as they arrive.
func (sh *shell) runScript(ctx context.Context, r io.Reader, source string) int {
	br := bufio.NewReaderSize(r, 64<<10)
	sp := newSplitter(source)
	run := func(st statement) (int, bool) {
		err := sh.execute(ctx, st)
		switch {
		case err == nil:
			return ExitOK, false
		case errors.Is(err, errQuit):
			return ExitOK, true
		case errors.Is(err, errSourced):
			return ExitError, true
		}
		sh.describeError(err, &st)
		return exitCode(err), true
	}
	for {
		line, err := br.ReadString('\n')
		if line != "" || err == nil {
			for _, st := range sp.feed(strings.TrimSuffix(line, "\n")) {
				if code, stop := run(st); stop {
					return code
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				sh.describeError(err, nil)
				return ExitError
			}
			break
		}
	}
	if st, ok := sp.flush(); ok {
		code, _ := run(st)
		return code
	}
	return ExitOK
}
