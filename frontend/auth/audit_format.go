package auth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine"
)

// The audit file holds one event per line, as a JSON object whose keys
// come in this fixed order:
//
//	{"event_id":42,"timestamp":"2025-01-02T03:04:05.123456789Z",
//	 "category":"authentication","action":"login","outcome":"failure",
//	 "principal":"","address":"10.0.0.7:51234","detail":"user alice"}\n
//
// (one line in the file). event_id increases by one per event across
// restarts and rotations; timestamp is RFC 3339 with nanoseconds, UTC.
// JSON lines because operators ship the file to log stores that read
// them as they are, and a line is the unit of both a write (one write
// call each, so a crash tears at most the last line) and of recovery
// (a line that does not parse is skipped, the rest stay readable).
//
// The fixed key order puts event_id first, so that recovery can still read
// the id of a line whose tail is damaged (lineID) and never reuse it.

// maxFieldBytes caps each text field of an event, after sanitising: the
// trail must not become a way to write unbounded data to the disk (a
// client picks the user name of a failed login, say).
const auditMaxFieldBytes = 1 << 10

// maxLineBytes bounds one encoded line: six fields of at most
// maxFieldBytes, each at most doubled by escaping (only '"' and '\\' are
// escaped, control characters having been removed), plus the keys, the id
// and the timestamp. Recovery treats a longer line as corrupt without
// holding it.
const auditMaxLineBytes = 6*2*auditMaxFieldBytes + 256

// sanitize makes s safe to store and show: invalid UTF-8 becomes U+FFFD;
// control characters (C0, DEL, C1), line and paragraph separators and the
// bidirectional overrides (which can make a log line read as something it
// is not) are removed; the result is cut to maxFieldBytes on a rune
// boundary.
func auditSanitize(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || auditDropRune(r) {
			clean = false
			break
		}
	}
	if clean && len(s) <= auditMaxFieldBytes {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), auditMaxFieldBytes))
	for _, r := range s {
		if auditDropRune(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > auditMaxFieldBytes {
			break
		}
		b.WriteRune(r) // an invalid byte arrives as RuneError and is written as U+FFFD
	}
	return b.String()
}

// dropRune reports whether sanitize removes r.
func auditDropRune(r rune) bool {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r == '\u200e', r == '\u200f', r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true // bidirectional marks, embeddings, overrides and isolates
	}
	return false
}

// sanitizeEvent applies sanitize to every field of e.
func auditSanitizeEvent(e engine.AuditEvent) engine.AuditEvent {
	return engine.AuditEvent{
		Category:  auditSanitize(e.Category),
		Action:    auditSanitize(e.Action),
		Outcome:   auditSanitize(e.Outcome),
		Principal: auditSanitize(e.Principal),
		Address:   auditSanitize(e.Address),
		Detail:    auditSanitize(e.Detail),
	}
}

// appendRecord appends r as one line of the file, newline included. The
// fields must have been sanitised.
func appendAuditRecord(b []byte, r *AuditRecord) []byte {
	b = append(b, `{"event_id":`...)
	b = strconv.AppendInt(b, r.ID, 10)
	b = append(b, `,"timestamp":"`...)
	b = r.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","category":`...)
	b = appendAuditString(b, r.Category)
	b = append(b, `,"action":`...)
	b = appendAuditString(b, r.Action)
	b = append(b, `,"outcome":`...)
	b = appendAuditString(b, r.Outcome)
	b = append(b, `,"principal":`...)
	b = appendAuditString(b, r.Principal)
	b = append(b, `,"address":`...)
	b = appendAuditString(b, r.Address)
	b = append(b, `,"detail":`...)
	b = appendAuditString(b, r.Detail)
	return append(b, "}\n"...)
}

// appendJSONString appends s, valid UTF-8 without control characters
// (sanitize), as a JSON string. Control characters are still escaped, so
// that a caller's mistake cannot split a line.
func appendAuditString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// fileRecord is a line of the file as encoding/json reads it. Recovery
// reads at most one ring of lines, once, at open: the standard decoder's
// speed is plenty.
type auditFileRecord struct {
	EventID   *int64  `json:"event_id"`
	Timestamp *string `json:"timestamp"`
	Category  string  `json:"category"`
	Action    string  `json:"action"`
	Outcome   string  `json:"outcome"`
	Principal string  `json:"principal"`
	Address   string  `json:"address"`
	Detail    string  `json:"detail"`
}

// parseRecord decodes one line (without its newline). A line without a
// positive event_id or a valid timestamp is corrupt. The fields are
// sanitised again, since the file may have been edited.
func parseAuditRecord(line []byte) (AuditRecord, error) {
	var fr auditFileRecord
	if len(line) > auditMaxLineBytes {
		return AuditRecord{}, fmt.Errorf("line of %d bytes is longer than %d", len(line), auditMaxLineBytes)
	}
	if err := json.Unmarshal(line, &fr); err != nil {
		return AuditRecord{}, err
	}
	if fr.EventID == nil || *fr.EventID <= 0 {
		return AuditRecord{}, fmt.Errorf("no positive event_id")
	}
	if fr.Timestamp == nil {
		return AuditRecord{}, fmt.Errorf("event %d has no timestamp", *fr.EventID)
	}
	ts, err := time.Parse(time.RFC3339Nano, *fr.Timestamp)
	if err != nil {
		return AuditRecord{}, fmt.Errorf("event %d: %w", *fr.EventID, err)
	}
	return AuditRecord{ID: *fr.EventID, Time: ts.UTC(), AuditEvent: auditSanitizeEvent(engine.AuditEvent{
		Category: fr.Category, Action: fr.Action, Outcome: fr.Outcome,
		Principal: fr.Principal, Address: fr.Address, Detail: fr.Detail,
	})}, nil
}

// lineID reads the event_id a line starts with, even when the rest of it
// is damaged; 0 when it does not start as appendRecord writes.
func auditLineID(line []byte) int64 {
	const prefix = `{"event_id":`
	rest, ok := bytes.CutPrefix(line, []byte(prefix))
	if !ok {
		return 0
	}
	end := bytes.IndexByte(rest, ',')
	if end <= 0 || end > 19 {
		return 0
	}
	id, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	if err != nil || id <= 0 {
		return 0
	}
	return id
}
