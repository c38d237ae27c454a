package shell

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/term"
)

// ReadPassword asks for user's password on the terminal without echoing
// it: standard input when it is a terminal, /dev/tty otherwise (so a
// script on standard input can still be given a password by a person).
func ReadPassword(user string) (string, error) {
	in := os.Stdin
	if !term.IsTerminal(int(in.Fd())) {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return "", errors.New("no terminal to ask for the password: set QUIVER_PASSWORD")
		}
		defer tty.Close()
		in = tty
	}
	fmt.Fprintf(os.Stderr, "password for %s: ", user)
	b, err := term.ReadPassword(int(in.Fd()))
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return "", fmt.Errorf("cannot read the password: %w", err)
	}
	return string(b), nil
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
