package stream

import (
	"strconv"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// A CHANGE message carries one changed entity (docs/stream.md):
//
//	{"type":"CHANGE","data":{
//	  "subscription_id":"s1", "lsn":4096, "commit_ts":17,
//	  "committed_at":"2025-01-02T03:04:05.678Z",
//	  "position":"00000000000000110000", "index":0, "count":2,
//	  "operation":"updated", "entity":"node", "id":42,
//	  "labels":["Person"], "labels_added":["Admin"], "labels_removed":[],
//	  "before":{"name":"Ann"}, "after":{"name":"Ann","age":31}}}
//
// A relationship has "type", "start" and "end" instead of the labels.
// position is the change's place in commit order (docs/cdc.md): a
// client resumes after it with SUBSCRIBE's "from" or cdc.changes. index
// and count place the change among those of its commit that the
// subscription receives, so a client can apply a commit as a whole. A
// commit beyond engine.MaxChangesPerCommit entities is one CHANGE with
// "operation":"bulk" and counts instead of an entity.

// appendChangeHead writes the fields every CHANGE of a commit shares.
func appendChangeHead(b []byte, subID string, batch *engine.ChangeBatch) []byte {
	b = append(b, `{"type":"CHANGE","data":{"subscription_id":`...)
	b = jsonio.AppendString(b, subID)
	b = append(b, `,"lsn":`...)
	b = strconv.AppendUint(b, batch.LSN, 10)
	b = append(b, `,"commit_ts":`...)
	b = strconv.AppendUint(b, batch.TS, 10)
	b = append(b, `,"committed_at":"`...)
	b = batch.CommittedAt.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendChange writes the CHANGE message of change i of batch.
func appendChange(b []byte, enc *jsonio.Encoder, subID string, batch *engine.ChangeBatch, i int) []byte {
	c := &batch.Changes[i]
	b = appendChangeHead(b, subID, batch)
	b = append(b, `,"position":"`...)
	b = append(b, engine.ChangePosition{TS: batch.TS, Ordinal: c.Ordinal}.String()...)
	b = append(b, `","index":`...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(len(batch.Changes)), 10)
	b = append(b, `,"operation":`...)
	b = jsonio.AppendString(b, c.Op.String())
	b = append(b, `,"entity":`...)
	b = jsonio.AppendString(b, c.Entity.String())
	b = append(b, `,"id":`...)
	b = strconv.AppendUint(b, c.ID, 10)
	if c.Entity == engine.ChangeRelationship {
		b = append(b, `,"type":`...)
		b = jsonio.AppendString(b, c.Type)
		b = append(b, `,"start":`...)
		b = strconv.AppendUint(b, c.Start, 10)
		b = append(b, `,"end":`...)
		b = strconv.AppendUint(b, c.End, 10)
	} else {
		b = appendStrings(append(b, `,"labels":`...), c.Labels)
		if c.Op == engine.ChangeUpdated {
			b = appendStrings(append(b, `,"labels_added":`...), c.LabelsAdded)
			b = appendStrings(append(b, `,"labels_removed":`...), c.LabelsRemoved)
		}
	}
	b = appendProps(append(b, `,"before":`...), enc, c.Before)
	b = appendProps(append(b, `,"after":`...), enc, c.After)
	return append(b, "}}"...)
}

// appendBulk writes the one CHANGE of a bulk commit.
func appendBulk(b []byte, subID string, batch *engine.ChangeBatch) []byte {
	s := batch.Bulk
	b = appendChangeHead(b, subID, batch)
	b = append(b, `,"position":"`...)
	b = append(b, engine.ChangePosition{TS: batch.TS}.String()...)
	b = append(b, `","index":0,"count":1,"operation":"bulk","entity":"commit"`...)
	b = appendStrings(append(b, `,"labels":`...), s.Labels)
	b = appendStrings(append(b, `,"types":`...), s.Types)
	for _, f := range []struct {
		name string
		n    int64
	}{
		{"nodes_created", s.NodesCreated}, {"nodes_updated", s.NodesUpdated}, {"nodes_deleted", s.NodesDeleted},
		{"relationships_created", s.RelationshipsCreated}, {"relationships_updated", s.RelationshipsUpdated},
		{"relationships_deleted", s.RelationshipsDeleted},
	} {
		b = append(b, ',', '"')
		b = append(b, f.name...)
		b = append(b, '"', ':')
		b = strconv.AppendInt(b, f.n, 10)
	}
	return append(b, "}}"...)
}

func appendStrings(b []byte, l []string) []byte {
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonio.AppendString(b, s)
	}
	return append(b, ']')
}

// appendProps writes properties as an object, null for none (an entity
// that did not exist).
func appendProps(b []byte, enc *jsonio.Encoder, ps []engine.Property) []byte {
	if ps == nil {
		return append(b, "null"...)
	}
	b = append(b, '{')
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonio.AppendString(b, p.Key)
		b = append(b, ':')
		b = enc.AppendValue(b, p.Value, 1)
	}
	return append(b, '}')
}
