// Package fle is field-level encryption (docs/encryption.md): the
// values of declared (label, property) fields are stored sealed under a
// named data key, and only principals whose roles hold a grant of that
// key read them in plaintext.
//
// The package holds the cipher (seal.go: AES-256-GCM, or a synthetic
// nonce for deterministic keys), the key and field records kept in a
// graph's system records (records.go), the declarations as of a
// version (config.go), the sealer the store calls at its write boundary
// (sealer.go) and the opener a statement reads through (reader.go).
// engine wires them: procedures, the plan's decrypt calls and results.
package fle
