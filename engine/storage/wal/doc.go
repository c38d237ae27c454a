// Package wal owns Quiver's write-ahead log: an append-only sequence of
// opaque records (byte payloads) in segment files, made durable by
// fdatasync with group commit, read back by Replay after a crash, and
// trimmed whole segments at a time after a checkpoint. It knows nothing
// about graphs; the storage layer frames its commits into payloads.
//
// # LSNs and segments
//
// An LSN is a byte position in the logical log. The log is a sequence of
// segment files named after the LSN of their first byte:
//
//	wal-0000000000000000.log   LSNs [0, 67_109_210)
//	wal-000000000400015a.log   LSNs [67_109_210, End)   ← active, appended to
//
// The byte at offset o of segment wal-B.log has LSN B+o, so LSNs stay byte
// positions across segments, trims and restarts, and Size is End−Start.
// Segments are contiguous: each begins where the previous one ends. A
// record never spans two segments; a segment is rolled before a record is
// appended once it holds SegmentSize bytes, so a segment overshoots
// SegmentSize by at most one record. The previous segment is fdatasynced
// before the next one is created (and the directory fsynced after), so
// only the last segment can ever hold a torn write.
//
// # Frame format
//
// A record is one or more frames. Each frame carries at most the frame
// limit (MaxFrame, 16 MiB) of payload bytes; a larger payload is split
// into continuation frames that Replay reassembles. All integers are
// little endian.
//
//	 0        4          8       9          13
//	 +--------+----------+-------+----------+---------------------+
//	 | magic  | length   | flags | crc32c   | stored bytes        |
//	 | 4 B    | u32      | u8    | u32      | length bytes        |
//	 +--------+----------+-------+----------+---------------------+
//
//	magic   F7 'Q' 'W' 'L': where a frame may start when recovery scans
//	        past a bad one.
//	length  number of stored bytes, ≤ the frame limit (a stored chunk is
//	        never larger than its payload chunk: see flags).
//	flags   bit 0  compressed: stored bytes are one zstd frame.
//	        bit 1  first: the frame begins a record.
//	        bit 2  last:  the frame ends a record.
//	        Other bits must be zero. A one-frame record has first|last;
//	        a multi-frame record is first, zero or more frames with
//	        neither bit (continuations), then last.
//	crc32c  CRC-32C (Castagnoli) of: the frame's own LSN (u64, not
//	        stored), length, flags, stored bytes.
//
// Payload chunks of 64 bytes or more are zstd compressed (fastest level,
// no zstd checksum: the CRC covers it); the compressed form is kept only
// when it is smaller, otherwise the chunk is stored raw with bit 0 clear.
// An empty payload is one 13-byte frame with length 0.
//
// Seeding the CRC with the frame's LSN means a frame verifies only at the
// position it was written for: stale bytes, a frame copied elsewhere, or
// frame-like bytes inside a payload do not pass for a frame.
//
// # Recovery: torn tail or corruption
//
// Open reads every segment and checks every frame (magic, flags, length
// against the frame limit and the bytes left in the file, CRC, the
// first/continuation/last sequence). At the first bad frame it looks for
// evidence that the log continued: it scans forward, in that segment and
// all later ones, for the magic and checks each candidate as a whole frame
// by its CRC. A valid frame that starts a record means data written after
// the bad one reached the disk, so the bad one was not the last write in
// flight: Open returns *CorruptError naming the file and offset and
// changes nothing. Otherwise the bad record is a torn tail, the remains
// of a write cut off by a crash: later segments are removed, the segment
// is truncated at the start of the torn record (for a multi-frame record,
// its first frame, so a torn multi-frame record goes as a whole), and the
// truncation is logged at Warn. Continuation frames after the bad point do
// not count as evidence: they may be the intact rest of the torn record.
//
// Recovery cannot tell a torn tail from damage to the very last record
// (both are a bad record with nothing after it); nor does it catch a crash
// whose writeback reordered pages so that a later unsynced record reached
// the disk and an earlier one did not — that surfaces as *CorruptError
// and needs an operator.
//
// # Durability
//
// Append frames a record into a buffer in memory (a record larger than a
// frame is written as it is framed). Sync(upto) makes the log durable up
// to upto with group commit: a round writes the buffer (one pwrite for
// every record appended since the last one) and fdatasyncs the active
// segment up to the current end, then wakes every caller whose LSN that
// covers. A caller that finds nobody syncing runs its round itself; the
// rounds that callers ask for meanwhile are the log's flusher goroutine's
// until none is left. Appends proceed while a round waits on the disk,
// and the next round collects them (sync.go).
// If a write, an fdatasync or a directory fsync fails the Log fails for
// good: after a failed fsync the kernel may have dropped the dirty pages,
// so retrying could report success for data that never reached the disk,
// and a failed write may have cut records of several committers.
//
// Options.Guard is asked by every round before its write and after its
// fdatasync whether this process still owns the directory; an error fails
// the log, so a process another one has displaced acknowledges nothing
// more (engine/storage/writer.go).
//
// Every file operation goes through Options.FS (engine/storage/vfs), so
// tests run the log on a filesystem that keeps only what was synced and
// cut the power anywhere.
//
// With Options.Preallocate the active segment is given its full size as
// zeros when it is created or opened, and cut back to its records when
// it is rolled or the log is closed, so that an fdatasync need not
// commit a new file size (prealloc.go). Recovery reads a tail of zeros
// after the last whole record of the last segment as the log's end.
package wal
