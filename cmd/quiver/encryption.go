package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// Encryption at rest (docs/encryption.md): the master key comes from a
// file, a command's standard output, or QUIVER_ENCRYPTION_KEY; each holds
// 32 raw bytes or their base64 or hex text.

// EnvEncryptionKey is the environment variable holding the master key.
const EnvEncryptionKey = "QUIVER_ENCRYPTION_KEY"

// keyFlags are the key-source flags of serve and encrypt.
type keyFlags struct{ file, command *string }

func defineKeyFlags(fs *flag.FlagSet) keyFlags {
	return keyFlags{
		file:    fs.String("encryption-key-file", "", "file holding the master key that encrypts the data directory at rest: 32 bytes, raw or as base64 or hex text (docs/encryption.md)"),
		command: fs.String("encryption-key-command", "", "command (run with sh -c) that prints the master key on its standard output, instead of --encryption-key-file"),
	}
}

// encryption is the engine's Encryption for the flags and environment,
// nil when no key source is given. The source is read again when
// tde.rotateMasterKey runs.
func (k keyFlags) encryption(getenv func(string) string) (*engine.Encryption, error) {
	file, command, env := *k.file, *k.command, getenv(EnvEncryptionKey)
	n := 0
	for _, s := range []string{file, command, env} {
		if s != "" {
			n++
		}
	}
	switch {
	case n == 0:
		return nil, nil
	case n > 1:
		return nil, errors.New("give the encryption key one way: --encryption-key-file, --encryption-key-command or " + EnvEncryptionKey)
	}
	read := func() ([]byte, error) {
		switch {
		case file != "":
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("--encryption-key-file: %w", err)
			}
			return engine.ParseEncryptionKey(b)
		case command != "":
			cmd := exec.Command("sh", "-c", command)
			cmd.Stderr = os.Stderr
			b, err := cmd.Output()
			if err != nil {
				return nil, fmt.Errorf("--encryption-key-command: %w", err)
			}
			return engine.ParseEncryptionKey(b)
		default:
			return engine.ParseEncryptionKey([]byte(getenv(EnvEncryptionKey)))
		}
	}
	if _, err := read(); err != nil {
		return nil, err
	}
	return &engine.Encryption{Key: read}, nil
}

// runEncrypt is `quiver encrypt --data-dir D --encryption-key-file K`:
// the offline step that encrypts an existing data directory.
func runEncrypt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("encrypt", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("data-dir", "", "the data directory to encrypt (no server may run on it)")
	keys := defineKeyFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		fmt.Fprintf(stderr, "quiver encrypt: %v\n", err)
		return 2
	}
	enc, err := keys.encryption(os.Getenv)
	if err == nil && enc == nil {
		err = errors.New("no key: give --encryption-key-file, --encryption-key-command or " + EnvEncryptionKey)
	}
	if err == nil && strings.TrimSpace(*dir) == "" {
		err = errors.New("give the data directory with --data-dir")
	}
	if err != nil {
		fmt.Fprintf(stderr, "quiver encrypt: %v\n", err)
		return 2
	}
	key, err := enc.Key()
	if err == nil {
		var n int
		n, err = engine.EncryptDataDir(*dir, key, slog.New(slog.NewTextHandler(stderr, nil)))
		if err == nil {
			fmt.Fprintf(stdout, "encrypted %d files of %s\n", n, *dir)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "quiver encrypt: %v\n", err)
		return 1
	}
	return 0
}
