// Command quiver is the Quiver graph database server: `quiver serve`
// starts it, `quiver import` builds a data directory from CSV or Parquet
// files, `quiver export` writes one out as such files, `quiver shell` is its interactive client, `quiver version`
// prints the version. Flags and wiring only; the logic lives in engine,
// frontend and shell.
package main

import (
	"fmt"
	"os"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

const usage = `usage: quiver <command> [flags]

commands:
  serve     start the server (quiver serve -h lists its flags)
  import    build a data directory from CSV or Parquet files (quiver import -h)
  export    write a data directory's graph as files import reads back (quiver export -h)
  encrypt   encrypt an existing data directory at rest, offline (quiver encrypt -h)
  shell     an interactive shell, or run statements from -c, -f or standard input (quiver shell -h)
  version   print the version
`

// run executes a command and returns the process exit code.
func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		opts, err := parseServe(args[1:])
		if err != nil {
			fmt.Fprintf(os.Stderr, "quiver serve: %v\n", err)
			return 2
		}
		if err := serve(opts); err != nil {
			fmt.Fprintf(os.Stderr, "quiver serve: %v\n", err)
			return 1
		}
		return 0
	case "version", "--version", "-version":
		fmt.Println("quiver", version)
		return 0
	case "import":
		opts, err := parseImport(args[1:])
		if err != nil {
			fmt.Fprintf(os.Stderr, "quiver import: %v\n", err)
			return 2
		}
		if err := runImport(opts, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintf(os.Stderr, "quiver import: %v\n", err)
			return 1
		}
		return 0
	case "export":
		a, err := parseExport(args[1:])
		if err != nil {
			fmt.Fprintf(os.Stderr, "quiver export: %v\n", err)
			return 2
		}
		if err := runExport(a, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintf(os.Stderr, "quiver export: %v\n", err)
			return 1
		}
		return 0
	case "encrypt":
		return runEncrypt(args[1:], os.Stdout, os.Stderr)
	case "shell":
		return runShell(args[1:], os.Stdin, os.Stdout, os.Stderr)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return 0
	}
	fmt.Fprintf(os.Stderr, "quiver: unknown command %q\n%s", args[0], usage)
	return 2
}
