// Package cryptfs is a vfs.FS that encrypts every file it writes with
// AES-256-GCM, wrapping another vfs.FS: encryption at rest for the data
// directory (docs/encryption.md).
//
// # File format
//
// A file starts with a header (header.go): magic, version, the key
// generation its key comes from and a random 16-byte salt. The file's own
// key is HKDF-SHA256(generation key, salt, "quiver file"), so no two files
// share a key and rotating the master key re-wraps only the few
// generation keys (keyring.go).
//
// The header has the first page to itself. The plaintext is cut into
// blocks of BlockSize bytes (4056: a slot is one 4096-byte page). Each
// block has two slots on disk, side by side; a slot holds a write counter, the number of
// plaintext bytes the block holds, a fresh random 96-bit nonce and the
// sealed block (ciphertext and tag). The additional data binds the salt,
// the block's index, the counter and the length, so a block cannot be
// moved within a file or to another, nor a slot's length changed.
//
// # Durability
//
// A write to a block goes to the slot that is not the block's durable one
// (the one the last Sync made durable), so a power cut in the middle of a
// write can tear only bytes that were never synced: a read takes the
// valid slot with the highest counter. This costs twice the disk space and
// is what lets the WAL and the audit trail rewrite their last, partial
// block on every append. A final block with no valid slot is a torn tail
// (the file reads shorter), as recovery expects; a block with no valid
// slot anywhere else is an authentication failure that names the file.
// A Truncate that cuts blocks off syncs at once, so that cut-off slots
// never come back beside blocks written after the cut.
//
// Preallocate reserves zeros on disk but leaves the plaintext size as it
// is: zeros are not a readable block, and a run of them at the end is
// not part of the file.
//
// cryptfs imports vfs and the standard library only; the cryptography is
// the standard library's (crypto/aes, crypto/cipher, crypto/hkdf,
// crypto/rand).
package cryptfs
